//! `create_model` of the largest example spec, in process: compile, validate, seed, and the
//! creation cycle, then `delete_model` (not timed apart) so that the id stays free.

#[path = "support/examples.rs"]
mod examples;
#[path = "support/timing.rs"]
mod timing;

use serde_json::json;
use tooltable::Cx;

const RUNS: usize = 100;

fn main() {
    let Some(name) = largest() else { return };
    let Some(spec) = examples::named(&name) else { return };
    let id = spec["id"].clone();
    let server = valem::server().expect("the tool table builds");
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    let call = |tool: &str, args| runtime.block_on(server.call_tool(Cx::detached(&server), tool, Some(args)));
    let create = timing::mean_of(RUNS, || {
        let _ = call("create_model", json!({ "spec": spec }));
        let _ = call("delete_model", json!({ "id": id }));
    });
    println!("create_model {name} (with delete_model): {}", timing::show(create));
}

/// The name of the largest example file, by size.
fn largest() -> Option<String> {
    let entries = std::fs::read_dir(examples::dir())
        .map_err(|e| eprintln!("skipped: {}: {e}", examples::dir().display()))
        .ok()?;
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| Some((e.metadata().ok()?.len(), e.path().file_stem()?.to_string_lossy().into_owned())))
        .max()
        .map(|(_, name)| name)
}

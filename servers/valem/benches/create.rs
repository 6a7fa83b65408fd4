//! `create_model` of the largest example spec, in process: compile, validate, seed, and the
//! creation cycle, then `delete_model` (not timed apart) so that the id stays free. Then the
//! cost of creating a small model whose id is taken, with 1,000 and with 50,000 models held:
//! it should not follow the model count.

#[path = "support/examples.rs"]
mod examples;
#[path = "support/timing.rs"]
mod timing;

use serde_json::json;

const RUNS: usize = 100;
const HELD: [usize; 2] = [1_000, 50_000];

fn main() {
    let Some(name) = examples::largest() else { return };
    let Some(spec) = examples::named(&name) else { return };
    let id = spec["id"].clone();
    let server = valem::server().expect("the tool table builds");
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    let call = |tool: &str, args| {
        runtime.block_on(server.call_tool(
            server.cx(&tooltable::transport::RequestContext::new(tooltable::context::Transport::InProcess)),
            tool,
            Some(args),
        ))
    };
    let create = timing::mean_of(RUNS, || {
        let _ = call("create_model", json!({ "spec": spec }));
        let _ = call("delete_model", json!({ "id": id }));
    });
    println!("create_model {name} (with delete_model): {}", timing::show(create));
    for held in HELD {
        let limits = valem::options::Limits { max_models: HELD[1] * 2, ..Default::default() };
        let server = valem::server_with(limits).expect("the tool table builds");
        let call = |tool: &str, args| {
            runtime.block_on(server.call_tool(
                server.cx(&tooltable::transport::RequestContext::new(tooltable::context::Transport::InProcess)),
                tool,
                Some(args),
            ))
        };
        let small = json!({ "spec": { "id": "same", "schema": {} } });
        for _ in 0..held {
            let _ = call("create_model", small.clone());
        }
        let taken = timing::mean_of(RUNS, || {
            let _ = call("create_model", small.clone());
        });
        println!("create_model of a taken id, {held} models held: {}", timing::show(taken));
    }
}

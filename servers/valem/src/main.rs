//! `valem mcp` serves the model tools over stdio (`--url URL` forwarding them to a `valem serve`,
//! `--browser` paired with a developer's browser there); `valem serve` over HTTP (`--sandbox`
//! with the sandbox such browsers pair with); `valem call TOOL 'JSON'` runs one in process.
//! valem's own options (`--data DIR`, `--max-models`, `--cycle-timeout-ms`, ...) say where the
//! models are kept and bound what one process holds and spends.

use std::cell::Cell;
use std::rc::Rc;

use tooltable_transports::cli::{Hooks, RemoteTarget, run};
use valem::options::Options;
use valem::sandbox::{Sandbox, SandboxLimits};

fn main() -> std::process::ExitCode {
    // The build parses valem's options; the HTTP hook, which runs after it, serves the sandbox
    // they ask for.
    let sandbox: Rc<Cell<Option<SandboxLimits>>> = Rc::default();
    let asked = Rc::clone(&sandbox);
    let build = move |options: Options, remote: Option<&mut RemoteTarget>| {
        asked.set(options.sandbox.served());
        valem::server_for(options, remote)
    };
    let hooks = Hooks::default().http(move |server, http| match sandbox.take() {
        Some(limits) => Sandbox::new(server.clone(), limits).serve(http),
        None => http,
    });
    run(tooltable_transports::package!(), build, hooks)
}

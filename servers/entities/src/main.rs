//! `entities mcp --root DIR [--allow User,Post]` serves the repository over stdio; `serve` over
//! HTTP; `call TOOL 'JSON'` runs one tool in process.

fn main() -> std::process::ExitCode {
    use tooltable_transports::cli::{Hooks, run};
    run(tooltable_transports::package!(), |args, _| entities::server(args), Hooks::default())
}

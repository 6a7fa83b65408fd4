//! `entities mcp --root DIR [--allow User,Post]` serves the repository over stdio; `serve` over
//! HTTP; `call TOOL 'JSON'` runs one tool in process.

fn main() -> std::process::ExitCode {
    tooltable_transports::cli::main_with(tooltable_transports::package!(), entities::server)
}

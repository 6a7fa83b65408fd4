//! `notes mcp` serves the notes over stdio, `notes serve` over HTTP and REST.

fn main() -> std::process::ExitCode {
    tooltable_transports::cli::main(tooltable_transports::package!(), notes_example::server)
}

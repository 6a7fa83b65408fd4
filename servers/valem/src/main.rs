//! `valem mcp` serves the model tools over stdio; `valem call TOOL 'JSON'` runs one in process.

fn main() -> std::process::ExitCode {
    tooltable_transports::cli::main(tooltable_transports::package!(), valem::server)
}

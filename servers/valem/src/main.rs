//! `valem mcp` serves the model tools over stdio; `valem call TOOL 'JSON'` runs one in process.
//! valem's own options (`--max-models`, `--cycle-timeout-ms`, ...) bound what one process holds
//! and spends.

fn main() -> std::process::ExitCode {
    tooltable_transports::cli::main_with(tooltable_transports::package!(), |options: valem::audit_hook::Options| {
        valem::audit_hook::server(options).map_err(Into::into)
    })
}

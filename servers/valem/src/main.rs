//! `valem mcp` serves the model tools over stdio; `valem serve` over HTTP; `valem call TOOL
//! 'JSON'` runs one in process. valem's own options (`--data DIR`, `--max-models`,
//! `--cycle-timeout-ms`, ...) say where the models are kept and bound what one process holds
//! and spends.

fn main() -> std::process::ExitCode {
    tooltable_transports::cli::main_with(tooltable_transports::package!(), |options: valem::options::Options| {
        valem::server_from(options)
    })
}

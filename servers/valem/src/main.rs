//! `valem mcp` serves the model tools over stdio (`--url URL` forwarding them to a `valem serve`,
//! `--browser` paired with a developer's browser there); `valem serve` over HTTP; `valem call TOOL
//! 'JSON'` runs one in process. valem's own options (`--data DIR`, `--max-models`,
//! `--cycle-timeout-ms`, ...) say where the models are kept and bound what one process holds
//! and spends.

fn main() -> std::process::ExitCode {
    tooltable_transports::cli::run(tooltable_transports::package!(), valem::server_for, Default::default())
}

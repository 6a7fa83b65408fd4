//! `golden`: record, replay and review golden sessions of any MCP server (see `tooltable_golden::cli`).

fn main() -> std::process::ExitCode {
    tooltable_golden::cli::main()
}

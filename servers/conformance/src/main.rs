//! `conformance-server`: every fixture the official MCP conformance suite expects, written with
//! `#[tool]` functions and the runtime's resource, prompt and completion APIs.

mod client_tools;
mod content_tools;
mod prompts;
mod resources;
mod round_tools;
mod task_tools;
mod testing_tools;

use std::process::ExitCode;

use tooltable::tool::TableError;
use tooltable::{Server, table};

/// The whole server; `()` is its state.
pub fn server() -> Result<Server<()>, TableError> {
    let builder = Server::builder(())
        .info(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions("Fixtures of the MCP conformance suite, plus a few tools that exercise the protocol engine.")
        .tools(table![
            content_tools::test_simple_text,
            content_tools::test_image_content,
            content_tools::test_audio_content,
            content_tools::test_embedded_resource,
            content_tools::test_multiple_content_types,
            content_tools::test_error_handling,
            content_tools::json_schema_2020_12_tool,
            content_tools::add_numbers,
            client_tools::test_tool_with_logging,
            client_tools::test_tool_with_progress,
            client_tools::test_sampling,
            client_tools::test_elicitation,
            client_tools::test_elicitation_sep1034_defaults,
            client_tools::test_elicitation_sep1330_enums,
            client_tools::test_reconnection,
            testing_tools::sleep,
            testing_tools::emit_log,
            testing_tools::large_result,
            testing_tools::add_tool,
            testing_tools::remove_tool,
            testing_tools::touch_resource,
            testing_tools::panic_now,
            round_tools::test_input_required_result_elicitation,
            round_tools::test_input_required_result_sampling,
            round_tools::test_input_required_result_list_roots,
            round_tools::test_input_required_result_multiple_inputs,
            round_tools::test_input_required_result_multi_round,
            round_tools::test_input_required_result_request_state,
            round_tools::test_input_required_result_tampered_state,
            round_tools::test_input_required_result_capabilities,
            round_tools::test_missing_capability,
            round_tools::test_streaming_elicitation,
            round_tools::test_logging_tool,
            round_tools::test_custom_headers,
            task_tools::greet,
            task_tools::slow_compute,
            task_tools::failing_job,
            task_tools::protocol_error_job,
            task_tools::confirm_delete,
            task_tools::multi_input,
            task_tools::test_tool_with_task,
        ]);
    prompts::register(resources::register(builder)).build()
}

fn main() -> ExitCode {
    tooltable_transports::cli::main(tooltable_transports::package!(), server)
}

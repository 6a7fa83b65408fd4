//! The fixture prompts and the completion of their arguments.

use tooltable::content::{ContentBlock, ResourceContents};
use tooltable::context::InputRequest;
use tooltable::prompts::{Prompt, PromptMessage, PromptResult};
use tooltable::{Error, ErrorKind, ServerBuilder};

use crate::content_tools::RED_PIXEL_PNG;

/// The values `arg1` of `test_prompt_with_arguments` completes from.
const ARG1_VALUES: [&str; 5] = ["paris", "park", "party", "london", "lisbon"];

fn user_text(text: impl Into<String>) -> PromptMessage {
    PromptMessage::user(ContentBlock::text(text))
}

fn messages(messages: Vec<PromptMessage>) -> Result<PromptResult, Error> {
    Ok(PromptResult { description: None, messages })
}

pub fn register(builder: ServerBuilder<()>) -> ServerBuilder<()> {
    builder
        .prompt(Prompt::new("test_simple_prompt").description("A prompt with no arguments"), |_, _| async {
            messages(vec![user_text("This is a simple prompt for testing.")])
        })
        .prompt(
            Prompt::new("test_prompt_with_arguments")
                .description("A prompt with two required arguments")
                .argument("arg1", "First test argument", true)
                .argument("arg2", "Second test argument", true),
            |_, args| async move {
                let (a, b) = (&args["arg1"], &args["arg2"]);
                messages(vec![user_text(format!("Prompt with arguments: arg1='{a}', arg2='{b}'"))])
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_embedded_resource").description("A prompt that embeds a resource").argument(
                "resourceUri",
                "URI of the resource to embed",
                true,
            ),
            |_, args| async move {
                let resource = ResourceContents::text(
                    &args["resourceUri"],
                    "text/plain",
                    "Embedded resource content for testing.",
                );
                messages(vec![
                    PromptMessage::user(ContentBlock::resource(resource)),
                    user_text("Please process the embedded resource above."),
                ])
            },
        )
        .prompt(Prompt::new("test_prompt_with_image").description("A prompt with an image"), |_, _| async {
            messages(vec![
                PromptMessage::user(ContentBlock::image(RED_PIXEL_PNG, "image/png")),
                user_text("Please analyze the image above."),
            ])
        })
        .prompt(
            Prompt::new("test_input_required_result_prompt").description("A prompt that asks the user for its context"),
            |cx, _| async move {
                let question = InputRequest::elicit_form(
                    "What context should the prompt use?",
                    serde_json::json!({ "type": "object", "properties": { "context": { "type": "string" } }, "required": ["context"] }),
                );
                let answers = cx
                    .ask(vec![("user_context".to_owned(), question)])
                    .await
                    .map_err(|e| Error::new(ErrorKind::BadRequest, e.to_string()))?;
                let context = answers["user_context"]["content"]["context"].as_str().unwrap_or("").to_owned();
                messages(vec![user_text(format!("Use this context: {context}"))])
            },
        )
        .completion(|_, req| async move {
            if req.ref_type == "ref/prompt" && req.ref_name == "test_prompt_with_arguments" && req.argument == "arg1" {
                Ok(ARG1_VALUES.iter().filter(|v| v.starts_with(&req.value)).map(|v| v.to_string()).collect())
            } else if req.ref_type == "ref/prompt" || req.ref_type == "ref/resource" {
                Ok(Vec::new())
            } else {
                Err(Error::new(ErrorKind::InvalidInput, format!("unknown reference type {}", req.ref_type)))
            }
        })
}

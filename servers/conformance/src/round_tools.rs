//! Fixtures of the 2026-07-28 scenarios: tools that ask the client by name, answered in rounds
//! (`input_required`, then the retry) under that revision and by requests to the client under the
//! older ones: the same functions in both.

use serde_json::{Map, Value, json};
use tooltable::content::{Content, ContentBlock};
use tooltable::context::InputRequest;
use tooltable::{Cx, Error, tool};

fn text(s: impl Into<String>) -> Result<Content, Error> {
    Ok(ContentBlock::text(s).into())
}

/// `{"type":"object","properties":{name: {"type": type}},"required":[name]}`.
fn one_field(name: &str, kind: &str) -> Value {
    json!({ "type": "object", "properties": { name: { "type": kind } }, "required": [name] })
}

/// Asks one or more named questions; a client that cannot answer is a bad request.
pub(crate) async fn ask(cx: &Cx<()>, questions: Vec<(&str, InputRequest)>) -> Result<Map<String, Value>, Error> {
    let questions = questions.into_iter().map(|(k, q)| (k.to_owned(), q)).collect();
    cx.ask(questions).await.map_err(|e| Error::bad_request(e.to_string()))
}

pub(crate) fn name_question() -> InputRequest {
    InputRequest::elicit_form("What is your name?", one_field("name", "string"))
}

fn capital_question() -> InputRequest {
    InputRequest::create_message(json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": "What is the capital of France?" } }],
        "maxTokens": 100,
    }))
}

/// What an elicitation answer's `content.field` holds, or "" when it holds nothing.
pub(crate) fn field<'a>(answer: &'a Value, field: &str) -> &'a str {
    answer["content"][field].as_str().unwrap_or("")
}

/// Greets the user by the name it asks for (`user_name`).
#[tool(read_only)]
pub async fn test_input_required_result_elicitation(cx: &Cx<()>) -> Result<Content, Error> {
    let answers = ask(cx, vec![("user_name", name_question())]).await?;
    text(format!("Hello, {}!", field(&answers["user_name"], "name")))
}

/// Asks the client's model a question (`capital_question`) and returns its answer.
#[tool(read_only)]
pub async fn test_input_required_result_sampling(cx: &Cx<()>) -> Result<Content, Error> {
    let answers = ask(cx, vec![("capital_question", capital_question())]).await?;
    text(format!("Answer: {}", answers["capital_question"]["content"]["text"].as_str().unwrap_or("")))
}

/// Lists the client's roots (`client_roots`).
#[tool(read_only)]
pub async fn test_input_required_result_list_roots(cx: &Cx<()>) -> Result<Content, Error> {
    let answers = ask(cx, vec![("client_roots", InputRequest::list_roots())]).await?;
    let roots: Vec<&str> =
        answers["client_roots"]["roots"].as_array().into_iter().flatten().filter_map(|r| r["uri"].as_str()).collect();
    text(format!("Roots: {}", roots.join(", ")))
}

/// Asks three things at once: a name, a greeting from the model, and the roots.
#[tool(read_only)]
pub async fn test_input_required_result_multiple_inputs(cx: &Cx<()>) -> Result<Content, Error> {
    let greeting = InputRequest::create_message(json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": "Generate a greeting" } }],
        "maxTokens": 50,
    }));
    let answers = ask(
        cx,
        vec![("user_name", name_question()), ("greeting", greeting), ("client_roots", InputRequest::list_roots())],
    )
    .await?;
    let greeting = answers["greeting"]["content"]["text"].as_str().unwrap_or("");
    text(format!("{greeting} {}", field(&answers["user_name"], "name")))
}

/// Asks a name, then a favourite colour: two rounds.
#[tool(read_only)]
pub async fn test_input_required_result_multi_round(cx: &Cx<()>) -> Result<Content, Error> {
    let step1 = InputRequest::elicit_form("Step 1: What is your name?", one_field("name", "string"));
    let name = ask(cx, vec![("step1", step1)]).await?;
    let step2 = InputRequest::elicit_form("Step 2: What is your favorite color?", one_field("color", "string"));
    let color = ask(cx, vec![("step2", step2)]).await?;
    text(format!("{} likes {}", field(&name["step1"], "name"), field(&color["step2"], "color")))
}

/// Asks for a confirmation; the answer comes back through the signed request state.
#[tool(read_only)]
pub async fn test_input_required_result_request_state(cx: &Cx<()>) -> Result<Content, Error> {
    let confirm = InputRequest::elicit_form("Please confirm", one_field("ok", "boolean"));
    let answers = ask(cx, vec![("confirm", confirm)]).await?;
    text(format!("state-ok: confirmed={}", answers["confirm"]["content"]["ok"]))
}

/// The same question, for the scenario that alters the state the server sent.
#[tool(read_only)]
pub async fn test_input_required_result_tampered_state(cx: &Cx<()>) -> Result<Content, Error> {
    let confirm = InputRequest::elicit_form("Please confirm", one_field("ok", "boolean"));
    ask(cx, vec![("confirm", confirm)]).await?;
    text("state-ok")
}

/// Asks only what the client declared it can answer: the model when it has sampling, the user
/// when it has elicitation.
#[tool(read_only)]
pub async fn test_input_required_result_capabilities(cx: &Cx<()>) -> Result<Content, Error> {
    let capabilities = cx.client_capabilities();
    let mut questions = Vec::new();
    if capabilities.get("sampling").is_some() {
        questions.push(("capital_question", capital_question()));
    }
    if capabilities.get("elicitation").is_some() {
        questions.push(("user_name", name_question()));
    }
    if questions.is_empty() {
        return text("nothing to ask: the client declared neither sampling nor elicitation");
    }
    let answers = ask(cx, questions).await?;
    text(format!("answered: {}", answers.keys().cloned().collect::<Vec<_>>().join(", ")))
}

/// Needs the client's model; a client without `sampling` gets the missing-capability error.
#[tool(read_only)]
pub async fn test_missing_capability(cx: &Cx<()>) -> Result<Content, Error> {
    let answers = ask(cx, vec![("capital_question", capital_question())]).await?;
    text(format!("Answer: {}", answers["capital_question"]["content"]["text"].as_str().unwrap_or("")))
}

/// Asks the user while it runs: under 2026-07-28 the question travels in the result, never as a
/// request of its own on the response stream.
#[tool(read_only)]
pub async fn test_streaming_elicitation(cx: &Cx<()>) -> Result<Content, Error> {
    let answers = ask(cx, vec![("user_name", name_question())]).await?;
    text(format!("Hello, {}!", field(&answers["user_name"], "name")))
}

/// Logs at info level, then answers.
#[tool(read_only)]
pub async fn test_logging_tool(cx: &Cx<()>) -> Result<Content, Error> {
    cx.info("logging tool called");
    text("logged")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct CustomHeaderArgs {
    /// Where to run; mirrored into the `Mcp-Param-Region` HTTP header.
    #[schemars(extend("x-mcp-header" = "Region"))]
    pub region: String,
    /// What to run.
    pub query: Option<String>,
}

/// Echoes its region, which a 2026-07-28 client over HTTP also sends as a header: the server
/// refuses a request whose header does not match it.
#[tool(read_only)]
pub async fn test_custom_headers(args: CustomHeaderArgs) -> Result<Content, Error> {
    text(format!("region: {}, query: {}", args.region, args.query.unwrap_or_default()))
}

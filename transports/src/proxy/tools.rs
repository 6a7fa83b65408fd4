//! The upstream's tools as dynamic tools of the gateway: each named `<prefix>_<name>`, its
//! descriptor the upstream's, its call forwarded with the progress, logs and questions that come
//! with it, its result and its errors given back as the upstream gave them (as far as the
//! runtime's results can carry them).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};
use tooltable::content::{Content, ContentBlock, ResourceContents};
use tooltable::context::LogLevel;
use tooltable::tool::{Annotations, DynamicTool, Output, TaskSupport, ToolDescriptor};
use tooltable::transport::jsonrpc::{RpcError, code};
use tooltable::{Cx, Error, ErrorKind, Server};

use super::Shared;
use super::failure::UpstreamFailure;
use super::relay;
use crate::client::{Call, Event};

/// The capability the tasks extension is declared with.
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// One upstream tool as the gateway serves it.
struct Served {
    /// The upstream's own descriptor, to tell whether a new listing changed it.
    listed: Value,
}

/// The tools of one upstream the gateway serves now, by the gateway's name.
#[derive(Default)]
pub(crate) struct Installed(HashMap<String, Served>);

impl Installed {
    /// Brings the server's tools in line with the upstream's listing: new ones added, changed ones
    /// replaced, vanished ones removed; a tool that cannot be served is left out with a warning.
    /// Returns how many are served.
    pub(crate) fn sync<S: Send + Sync + 'static>(
        &mut self,
        server: &Server<S>,
        shared: &Arc<Shared>,
        listing: &[Value],
    ) -> usize {
        let mut wanted = Vec::new();
        for tool in listing {
            match descriptor(&shared.name, tool) {
                Ok(d) => wanted.push((d, tool)),
                Err(why) => tracing::warn!("{}: a tool is not served: {why}", shared.name),
            }
        }
        self.0.retain(|name, _| {
            let keep = wanted.iter().any(|(d, _)| &d.name == name);
            if !keep {
                server.remove_tool(name);
            }
            keep
        });
        // In the listing's order, so the gateway lists them in the upstream's.
        for (descriptor, tool) in wanted {
            let name = descriptor.name.clone();
            if self.0.get(&name).is_some_and(|s| &s.listed == tool) {
                continue;
            }
            let upstream_name = tool["name"].as_str().unwrap_or_default().to_owned();
            match server.add_tool(dynamic(shared, descriptor, upstream_name)) {
                Ok(()) => {
                    self.0.insert(name, Served { listed: tool.clone() });
                }
                Err(e) => {
                    tracing::warn!("{}: the tool {name} is not served: {e}", shared.name);
                    if self.0.remove(&name).is_some() {
                        server.remove_tool(&name);
                    }
                }
            }
        }
        self.0.len()
    }

    /// Removes every tool of the upstream (the proxy stops).
    pub(crate) fn clear<S: Send + Sync + 'static>(&mut self, server: &Server<S>) {
        for name in self.0.keys() {
            server.remove_tool(name);
        }
        self.0.clear();
    }
}

/// The gateway's descriptor of an upstream tool.
fn descriptor(prefix: &str, tool: &Value) -> Result<ToolDescriptor, String> {
    let name = tool.get("name").and_then(Value::as_str).ok_or("a listed tool has no name")?;
    let input = tool.get("inputSchema").cloned().unwrap_or_else(|| json!({ "type": "object" }));
    let description = tool.get("description").and_then(Value::as_str).unwrap_or_default();
    let mut d = ToolDescriptor::new(format!("{prefix}_{name}"), description, input);
    d.title = tool.get("title").and_then(Value::as_str).map(str::to_owned);
    d.output_schema = tool.get("outputSchema").filter(|s| s.is_object()).cloned();
    let hint = |key: &str| tool.pointer(&format!("/annotations/{key}")).and_then(Value::as_bool);
    d.annotations = Annotations {
        read_only: hint("readOnlyHint"),
        destructive: hint("destructiveHint"),
        idempotent: hint("idempotentHint"),
        open_world: hint("openWorldHint"),
    };
    // The upstream judges its own arguments; the gateway checks only what the schema says.
    d.allow_unknown_args = true;
    d.task_support = match tool.pointer("/execution/taskSupport").and_then(Value::as_str) {
        Some("optional") => TaskSupport::Optional,
        Some("required") => TaskSupport::Required,
        _ => TaskSupport::Forbidden,
    };
    Ok(d)
}

fn dynamic<S: Send + Sync + 'static>(shared: &Arc<Shared>, d: ToolDescriptor, name: String) -> DynamicTool<S> {
    let (shared, name) = (Arc::clone(shared), Arc::<str>::from(name));
    let tasks = d.task_support == TaskSupport::Required;
    DynamicTool::new(d, move |cx, args| {
        let (shared, name) = (Arc::clone(&shared), Arc::clone(&name));
        async move { forward(&shared, &cx, &name, args, tasks).await }
    })
}

/// One call, forwarded. A tool whose calls run only as tasks is called as a task, polled to its end.
async fn forward<S: Send + Sync + 'static>(
    shared: &Arc<Shared>,
    cx: &Cx<S>,
    name: &str,
    arguments: Value,
    tasks: bool,
) -> Result<Output, Error> {
    let client = shared.client().map_err(|why| UpstreamFailure::unavailable(&shared.name, &shared.target, &why))?;
    let call = Call::default().timeout(shared.options.call_timeout).capabilities(capabilities(cx, tasks));
    let mut exchange = client.start("tools/call", json!({ "name": name, "arguments": arguments }), call);
    let mut asked = 0;
    loop {
        match exchange.next().await {
            Event::Progress { progress, total, message } => cx.progress(progress, total, message.as_deref()),
            Event::Log { level, data, .. } => cx.log(LogLevel::parse(&level).unwrap_or(LogLevel::Info), data),
            Event::Input(input) => {
                let answers = relay::answer(cx, &input, &mut asked).await;
                exchange.answer(input, answers);
            }
            Event::Notification(_) => {}
            Event::Done(Ok(result)) => return outcome(result),
            Event::Done(Err(crate::client::ClientError::Rpc(e))) => return Err(rpc_failure(e)),
            Event::Done(Err(e)) => {
                if matches!(e.reason(), "unreachable" | "closed" | "timeout") {
                    shared.suspect();
                }
                return Err(UpstreamFailure::of(&shared.name, &shared.target, &e).into());
            }
        }
    }
}

/// What the call declares under 2026-07-28: the gateway's client's capabilities, so the
/// upstream asks only what can be answered; the tasks extension only for a tool that needs it.
fn capabilities<S: Send + Sync + 'static>(cx: &Cx<S>, tasks: bool) -> Value {
    let mut capabilities = cx.client_capabilities();
    if let Some(c) = capabilities.as_object_mut() {
        let extensions = c.entry("extensions").or_insert_with(|| json!({}));
        if let Some(e) = extensions.as_object_mut() {
            match tasks {
                true => e.insert(TASKS.into(), json!({})),
                false => e.remove(TASKS),
            };
            if e.is_empty() {
                c.remove("extensions");
            }
        }
    }
    capabilities
}

/// A `CallToolResult` as the runtime gives results: `structuredContent` is the value (the text
/// block is its JSON again), content blocks are kept, an error's body is its `structuredContent`
/// or its text.
fn outcome(result: Value) -> Result<Output, Error> {
    let structured = result.get("structuredContent").filter(|v| !v.is_null()).cloned();
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        let body = structured.unwrap_or_else(|| error_body(&result));
        return Err(Error { kind: ErrorKind::Internal, body });
    }
    match structured {
        Some(value) => Ok(Output::Json(value)),
        None => Ok(Output::Content(Content(blocks(&result)))),
    }
}

/// The body of an error result without `structuredContent`: its text, as JSON when it is.
fn error_body(result: &Value) -> Value {
    let text: Vec<&str> =
        result["content"].as_array().into_iter().flatten().filter_map(|b| b["text"].as_str()).collect();
    let text = text.join("\n");
    match serde_json::from_str::<Value>(&text) {
        Ok(body @ Value::Object(_)) => body,
        _ => json!({ "error": text }),
    }
}

/// The content blocks, each as the runtime has it; a kind it has none for becomes the text of
/// its JSON.
fn blocks(result: &Value) -> Vec<ContentBlock> {
    let string = |b: &Value, key: &str| b.get(key).and_then(Value::as_str).map(str::to_owned);
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| {
            let block = match b.get("type").and_then(Value::as_str) {
                Some("text") => string(b, "text").map(ContentBlock::text),
                Some("image") => string(b, "data")
                    .zip(string(b, "mimeType"))
                    .map(|(data, mime_type)| ContentBlock::Image { data, mime_type }),
                Some("audio") => string(b, "data")
                    .zip(string(b, "mimeType"))
                    .map(|(data, mime_type)| ContentBlock::Audio { data, mime_type }),
                Some("resource") => resource(&b["resource"]).map(ContentBlock::resource),
                _ => None,
            };
            block.unwrap_or_else(|| ContentBlock::text(b.to_string()))
        })
        .collect()
}

fn resource(r: &Value) -> Option<ResourceContents> {
    let string = |key: &str| r.get(key).and_then(Value::as_str).map(str::to_owned);
    let (uri, mime_type) = (string("uri")?, string("mimeType"));
    match (string("text"), string("blob")) {
        (Some(text), _) => Some(ResourceContents::Text { uri, mime_type, text }),
        (None, Some(blob)) => Some(ResourceContents::Blob { uri, mime_type, blob }),
        (None, None) => None,
    }
}

/// A JSON-RPC error of the upstream's: a URL elicitation it requires stays one (-32042);
/// any other is a tool failure with the error's code, message and data.
fn rpc_failure(e: RpcError) -> Error {
    if e.code == code::URL_ELICITATION_REQUIRED {
        let elicitations = e.data.as_ref().and_then(|d| d.get("elicitations")).cloned().unwrap_or_else(|| json!([]));
        return Error {
            kind: ErrorKind::ElicitationRequired,
            body: json!({ "error": e.message, "elicitations": elicitations }),
        };
    }
    let kind = match e.code {
        code::INVALID_PARAMS => ErrorKind::InvalidInput,
        code::METHOD_NOT_FOUND => ErrorKind::NotFound,
        _ => ErrorKind::Internal,
    };
    let mut body = json!({ "error": e.message, "code": e.code });
    if let Some(data) = e.data {
        body["data"] = data;
    }
    Error { kind, body }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_tool_keeps_its_descriptor_under_its_prefixed_name() {
        let tool = json!({
            "name": "add_numbers", "title": "Add numbers", "description": "Adds.",
            "inputSchema": { "type": "object", "properties": { "a": { "type": "number" } } },
            "outputSchema": { "type": "object" },
            "annotations": { "readOnlyHint": true, "idempotentHint": true },
            "execution": { "taskSupport": "optional" },
        });
        let d = descriptor("conf", &tool).unwrap();
        assert_eq!(d.name, "conf_add_numbers");
        assert_eq!(d.title.as_deref(), Some("Add numbers"));
        assert_eq!(d.annotations.read_only, Some(true));
        assert_eq!(d.annotations.destructive, None, "a hint left out stays out");
        assert_eq!(d.task_support, TaskSupport::Optional);
        let listed = d.to_mcp();
        for key in ["inputSchema", "outputSchema", "annotations", "execution", "description"] {
            assert_eq!(listed[key], tool[key], "{key}");
        }
        assert!(descriptor("conf", &json!({ "inputSchema": {} })).is_err());
    }

    #[test]
    fn results_and_errors_come_back_as_the_upstream_gave_them() {
        let sum = json!({ "content": [{ "type": "text", "text": "{\n  \"sum\": 3\n}" }], "structuredContent": { "sum": 3 }, "isError": false });
        assert_eq!(outcome(sum), Ok(Output::Json(json!({ "sum": 3 }))));
        let image = json!({ "content": [
            { "type": "image", "data": "AAAA", "mimeType": "image/png" },
            { "type": "resource", "resource": { "uri": "a://b", "mimeType": "text/plain", "text": "hi" } },
            { "type": "resource_link", "uri": "a://c", "name": "c" },
        ]});
        let Ok(Output::Content(content)) = outcome(image.clone()) else { panic!("content") };
        let back = serde_json::to_value(&content).unwrap();
        assert_eq!(back[0], image["content"][0]);
        assert_eq!(back[1], image["content"][1]);
        assert_eq!(back[2]["type"], "text", "a block the runtime has no kind for is its JSON as text");

        let structured =
            json!({ "content": [], "structuredContent": { "error": "Version conflict" }, "isError": true });
        assert_eq!(outcome(structured).unwrap_err().body, json!({ "error": "Version conflict" }));
        let text = json!({ "content": [{ "type": "text", "text": "it broke" }], "isError": true });
        assert_eq!(outcome(text).unwrap_err().body, json!({ "error": "it broke" }));
        let json_text =
            json!({ "content": [{ "type": "text", "text": "{\"error\":\"x\",\"n\":1}" }], "isError": true });
        assert_eq!(outcome(json_text).unwrap_err().body, json!({ "error": "x", "n": 1 }));
    }

    #[test]
    fn protocol_errors_keep_their_code_and_url_elicitations_stay_what_they_are() {
        let e = RpcError::new(code::INTERNAL_ERROR, "deliberate panic").with_data(json!({ "x": 1 }));
        let f = rpc_failure(e);
        assert_eq!(f.body, json!({ "error": "deliberate panic", "code": -32603, "data": { "x": 1 } }));
        let url = RpcError::new(code::URL_ELICITATION_REQUIRED, "Authorize first")
            .with_data(json!({ "elicitations": [{ "mode": "url", "url": "https://a" }] }));
        let f = rpc_failure(url);
        assert_eq!(f.kind, ErrorKind::ElicitationRequired);
        assert_eq!(f.body["elicitations"][0]["url"], "https://a");
    }
}

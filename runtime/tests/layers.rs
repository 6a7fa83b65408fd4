//! Layers around every call, and the tools' own limits, on the transport-independent session
//! (as stdio carries it, in both eras, and as tasks) and in process: what a layer sees, in which
//! order, a refusal, a replaced outcome, time limits, concurrency limits, the call log.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use calls::{CallLogLines, failure};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tooltable::context::{InputRequest, Transport};
use tooltable::layer::{Call, CallLog, Layer, Next, Outcome};
use tooltable::tool::BoxFuture;
use tooltable::transport::RequestContext;
use tooltable::{Cx, Error, ErrorKind, Principal, Server, ServerBuilder, table, tool};

#[path = "support/calls.rs"]
mod calls;
mod support;

type Peer = support::Peer<()>;

const STDIO: RequestContext = RequestContext::new(Transport::Stdio);
const TASKS: &str = "io.modelcontextprotocol/tasks";

#[derive(Deserialize, JsonSchema)]
struct Text {
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct Millis {
    ms: u64,
}

/// Echoes its text.
#[tool(read_only)]
async fn echo(args: Text) -> Result<Value, Error> {
    Ok(json!({ "text": args.text }))
}

/// Always fails, saying too much.
#[tool]
async fn fail() -> Result<Value, Error> {
    Err(Error::internal("the database at 10.0.0.3 refused the password"))
}

/// Sleeps, with a time limit of its own.
#[tool(timeout_ms = 50)]
async fn nap(args: Millis) -> Result<Value, Error> {
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    Ok(json!({ "slept": args.ms }))
}

/// Sleeps, held to the server's time limit.
#[tool(read_only)]
async fn sleep(args: Millis) -> Result<Value, Error> {
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    Ok(json!({ "slept": args.ms }))
}

/// Sleeps, one call at a time.
#[tool(max_concurrent = 1)]
async fn single(args: Millis) -> Result<Value, Error> {
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    Ok(json!({ "slept": args.ms }))
}

/// Sleeps as a task when it may, in at most 50 ms.
#[tool(task, timeout_ms = 50)]
async fn background(args: Millis) -> Result<Value, Error> {
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    Ok(json!({ "slept": args.ms }))
}

/// Asks the user's name.
#[tool(read_only)]
async fn ask_name(cx: &Cx<()>) -> Result<Value, Error> {
    let question = InputRequest::elicit_form("Your name?", json!({ "type": "object" }));
    let answers = cx.ask(vec![("name".into(), question)]).await.map_err(|e| Error::bad_request(e.to_string()))?;
    Ok(answers["name"].clone())
}

fn builder() -> ServerBuilder<()> {
    Server::builder(()).tools(table![echo, fail, nap, sleep, single, background, ask_name])
}

type Seen = Arc<Mutex<Vec<String>>>;

/// Writes down each call it passes on, and its outcome.
struct Record {
    name: &'static str,
    seen: Seen,
}

impl Layer<()> for Record {
    fn call<'a>(&'a self, call: Call<'a, ()>, next: Next<'a, ()>) -> BoxFuture<'a, Outcome> {
        Box::pin(async move {
            let era = call.cx.era().map_or("none", |era| era.as_str());
            let line =
                format!("{} > {} {} {} {}", self.name, call.tool.name, call.args, call.cx.transport().as_str(), era);
            self.seen.lock().unwrap().push(line);
            let outcome = next.run(call).await;
            self.seen.lock().unwrap().push(format!("{} < {}", self.name, outcome.as_str()));
            outcome
        })
    }
}

/// Refuses the tools that may change something to callers without a principal.
struct SignedInToWrite;

impl<S: Send + Sync + 'static> Layer<S> for SignedInToWrite {
    fn call<'a>(&'a self, call: Call<'a, S>, next: Next<'a, S>) -> BoxFuture<'a, Outcome> {
        Box::pin(async move {
            if call.tool.annotations.read_only != Some(true) && call.cx.principal().is_none() {
                return Outcome::Refused(Error::forbidden(format!("sign in to call {}", call.tool.name)));
            }
            next.run(call).await
        })
    }
}

/// Answers the tools' internal failures with a body that tells nothing of the server's insides.
struct HideInternals;

impl<S: Send + Sync + 'static> Layer<S> for HideInternals {
    fn call<'a>(&'a self, call: Call<'a, S>, next: Next<'a, S>) -> BoxFuture<'a, Outcome> {
        Box::pin(async move {
            match next.run(call).await {
                Outcome::ToolError(error) if error.kind == ErrorKind::Internal => {
                    Outcome::ToolError(Error::internal("something went wrong on our side"))
                }
                outcome => outcome,
            }
        })
    }
}

/// Gives `echo` a number for a text, which its inputSchema refuses.
struct Renumber;

impl Layer<()> for Renumber {
    fn call<'a>(&'a self, mut call: Call<'a, ()>, next: Next<'a, ()>) -> BoxFuture<'a, Outcome> {
        if call.tool.name == "echo" {
            call.args["text"] = json!(5);
        }
        next.run(call)
    }
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": name, "arguments": arguments } })
}

/// The same call as a 2026-07-28 request of a client that declares `capabilities`.
fn stateless_call(id: i64, name: &str, arguments: Value, capabilities: Value) -> Value {
    let mut message = call(id, name, arguments);
    message["params"]["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    message
}

#[tokio::test]
async fn layers_see_each_call_in_the_order_added_in_both_eras_and_in_process() {
    let seen = Seen::default();
    let record = |name| Record { name, seen: Arc::clone(&seen) };
    let server = builder().layer(record("outer")).layer(record("inner")).build().unwrap();
    let mut handshake = Peer::initialized(&server, json!({}));
    handshake.send_with(call(1, "echo", json!({ "text": "hi" })), &STDIO);
    assert_eq!(handshake.response(1).await["result"]["structuredContent"], json!({ "text": "hi" }));
    let mut stateless = Peer::connect(&server);
    stateless.send_with(stateless_call(2, "fail", json!({}), json!({})), &STDIO);
    assert_eq!(failure(&stateless.response(2).await)["error"], "the database at 10.0.0.3 refused the password");
    let in_process = server.call("echo", json!({ "text": "there" })).await;
    assert_eq!(in_process, Ok(json!({ "text": "there" })));
    assert_eq!(
        *seen.lock().unwrap(),
        [
            r#"outer > echo {"text":"hi"} stdio handshake"#,
            r#"inner > echo {"text":"hi"} stdio handshake"#,
            "inner < ok",
            "outer < ok",
            "outer > fail {} stdio stateless",
            "inner > fail {} stdio stateless",
            "inner < tool_error",
            "outer < tool_error",
            r#"outer > echo {"text":"there"} in_process none"#,
            r#"inner > echo {"text":"there"} in_process none"#,
            "inner < ok",
            "outer < ok",
        ]
    );
}

#[tokio::test]
async fn a_layer_refuses_replaces_an_outcome_and_has_the_arguments_it_changes_validated() {
    let seen = Seen::default();
    let server = builder()
        .layer(Record { name: "log", seen: Arc::clone(&seen) })
        .layer(SignedInToWrite)
        .layer(HideInternals)
        .layer(Renumber)
        .build()
        .unwrap();
    let mut p = Peer::initialized(&server, json!({}));
    p.send_with(call(1, "fail", json!({})), &STDIO);
    assert_eq!(failure(&p.response(1).await), json!({ "error": "sign in to call fail" }), "refused");
    let signed_in = RequestContext::new(Transport::Http).with_principal(Some(Principal::new("ada")));
    p.send_with(call(2, "fail", json!({})), &signed_in);
    assert_eq!(failure(&p.response(2).await), json!({ "error": "something went wrong on our side" }), "replaced");
    p.send_with(call(3, "echo", json!({ "text": "hi" })), &STDIO);
    assert_eq!(failure(&p.response(3).await)["error"], "Invalid arguments", "validated after the layers");
    let outcomes: Vec<String> = seen.lock().unwrap().iter().filter(|l| l.starts_with("log <")).cloned().collect();
    assert_eq!(outcomes, ["log < refused", "log < tool_error", "log < tool_error"]);
    let refused = server.call("fail", json!({})).await.unwrap_err();
    assert_eq!((refused.kind, refused.message()), (ErrorKind::Forbidden, Some("sign in to call fail")));
}

#[tokio::test]
async fn a_call_past_its_time_limit_is_a_tool_error_and_the_server_s_limit_holds_the_others() {
    let server = builder().call_timeout(Duration::from_millis(80)).build().unwrap();
    let mut p = Peer::initialized(&server, json!({}));
    p.send_with(call(1, "nap", json!({ "ms": 1000 })), &STDIO);
    p.send_with(call(2, "sleep", json!({ "ms": 1000 })), &STDIO);
    p.send_with(call(3, "sleep", json!({ "ms": 10 })), &STDIO);
    // In the order they end.
    assert_eq!(p.response(3).await["result"]["structuredContent"], json!({ "slept": 10 }));
    assert_eq!(failure(&p.response(1).await), json!({ "error": "Time limit exceeded", "limitMs": 50 }), "its own");
    assert_eq!(failure(&p.response(2).await), json!({ "error": "Time limit exceeded", "limitMs": 80 }), "the server's");
    let mut stateless = Peer::connect(&server);
    stateless.send_with(stateless_call(4, "nap", json!({ "ms": 1000 }), json!({})), &STDIO);
    assert_eq!(failure(&stateless.response(4).await)["limitMs"], 50);
    let late = server.call("nap", json!({ "ms": 1000 })).await.unwrap_err();
    assert_eq!((late.kind, late.kind.http_status()), (ErrorKind::Timeout, 504));
}

#[tokio::test]
async fn calls_beyond_max_concurrent_wait_as_many_as_may_run_then_are_refused() {
    let server = builder().build().unwrap();
    let mut p = Peer::initialized(&server, json!({}));
    for id in 1..=3 {
        p.send_with(call(id, "single", json!({ "ms": 100 })), &STDIO);
    }
    let refused = p.response(3).await;
    assert_eq!(failure(&refused), json!({ "error": "Too many concurrent calls", "maxConcurrent": 1 }));
    let started = tokio::time::Instant::now();
    assert_eq!(p.response(1).await["result"]["structuredContent"], json!({ "slept": 100 }));
    assert_eq!(p.response(2).await["result"]["structuredContent"], json!({ "slept": 100 }));
    assert!(started.elapsed() >= Duration::from_millis(150), "the second waited for the first");
    p.send_with(call(4, "single", json!({ "ms": 1 })), &STDIO);
    assert!(failure(&p.response(4).await).is_null(), "the slots are free again");
}

#[tokio::test]
async fn a_task_runs_through_the_layers_and_within_its_time_limit() {
    let seen = Seen::default();
    let server = builder().layer(Record { name: "log", seen: Arc::clone(&seen) }).build().unwrap();
    let mut p = Peer::connect(&server);
    let capabilities = json!({ "extensions": { TASKS: {} } });
    p.send_with(stateless_call(1, "background", json!({ "ms": 1000 }), capabilities.clone()), &STDIO);
    let created = p.response(1).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"].clone();
    let mut done = Value::Null;
    for id in 2..200 {
        let mut get = json!({ "jsonrpc": "2.0", "id": id, "method": "tasks/get", "params": { "taskId": task } });
        get["params"]["_meta"] = stateless_call(0, "", json!({}), capabilities.clone())["params"]["_meta"].clone();
        p.send_with(get, &STDIO);
        done = p.response(id).await["result"].clone();
        if done["status"] != "working" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(done["status"], "completed", "a tool error completes the task: {done}");
    assert_eq!(done["result"]["structuredContent"], json!({ "error": "Time limit exceeded", "limitMs": 50 }));
    assert_eq!(seen.lock().unwrap()[1], "log < tool_error");
}

/// A call's arguments read into the tool's type keep their text only while a layer may read it:
/// an outer layer set on a server that had none sees the calls read after it, arguments whole.
#[tokio::test]
async fn an_outer_layer_set_later_sees_the_calls_read_after_it_with_their_arguments() {
    let seen = Seen::default();
    let server = builder().build().unwrap();
    let mut p = Peer::initialized(&server, json!({}));
    p.send_with(call(1, "echo", json!({ "text": "before" })), &STDIO);
    assert_eq!(p.response(1).await["result"]["structuredContent"], json!({ "text": "before" }));
    assert!(server.set_outer_layer(Record { name: "outer", seen: Arc::clone(&seen) }));
    p.send_with(call(2, "echo", json!({ "text": "after" })), &STDIO);
    assert_eq!(p.response(2).await["result"]["structuredContent"], json!({ "text": "after" }));
    assert_eq!(*seen.lock().unwrap(), [r#"outer > echo {"text":"after"} stdio handshake"#, "outer < ok"]);
}

#[test]
fn an_outer_layer_is_set_once_and_sees_a_call_first() {
    let seen = Seen::default();
    let server = builder().layer(Record { name: "built", seen: Arc::clone(&seen) }).build().unwrap();
    let _shared = (server.clone(), server.downgrade());
    assert!(server.set_outer_layer(Record { name: "outer", seen: Arc::clone(&seen) }), "shared or not");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(server.call("echo", json!({ "text": "x" }))).unwrap();
    let firsts: Vec<String> = seen.lock().unwrap().iter().map(|l| l.split(' ').next().unwrap().to_owned()).collect();
    assert_eq!(firsts, ["outer", "built", "built", "outer"]);
    assert!(!server.set_outer_layer(CallLog), "once");
}

#[tokio::test]
async fn the_call_log_writes_one_line_per_call_with_its_outcome_and_never_the_arguments() {
    let log = CallLogLines::capture();
    let server = builder().layer(CallLog).layer(SignedInToWrite).build().unwrap();
    let mut p = Peer::initialized(&server, json!({}));
    p.send_with(call(1, "echo", json!({ "text": "a secret value" })), &STDIO);
    p.response(1).await;
    p.send_with(call(2, "echo", json!({ "text": ["a secret list"] })), &STDIO);
    p.response(2).await;
    p.send_with(call(3, "fail", json!({})), &STDIO);
    p.response(3).await;
    p.send_with(call(4, "sleep", json!({ "ms": 5000 })), &STDIO);
    tokio::time::sleep(Duration::from_millis(20)).await;
    p.send_with(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 4 } }), &STDIO);
    // The cancelled call's task is dropped at the runtime's next turn.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let mut stateless = Peer::connect(&server);
    stateless.send_with(stateless_call(5, "ask_name", json!({}), json!({ "elicitation": {} })), &STDIO);
    assert_eq!(stateless.response(5).await["result"]["resultType"], "input_required");
    server.call("echo", json!({ "text": "x" })).await.unwrap();

    assert!(!log.lines().iter().any(|l| l.contains("secret")), "no argument values: {:#?}", log.lines());
    assert_eq!(
        log.fields(),
        [
            "tool=echo transport=stdio era=handshake outcome=ok",
            "tool=echo transport=stdio era=handshake outcome=tool_error",
            "tool=fail transport=stdio era=handshake outcome=refused",
            "tool=sleep transport=stdio era=handshake outcome=cancelled",
            "tool=ask_name transport=stdio era=stateless outcome=input_required",
            "tool=echo transport=in_process era=none outcome=ok",
        ]
    );
}

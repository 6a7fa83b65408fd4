//! The tasks extension on the transport-independent session: tool calls answered with a task
//! that runs on, polled with `tasks/get`, asked questions answered with `tasks/update`, stopped
//! with `tasks/cancel`; all with raw 2026-07-28 messages.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tooltable::context::InputRequest;
use tooltable::tasks::MemoryTaskStore;
use tooltable::{Cx, Error, Server, ServerBuilder, table, tool};

mod support;

type Peer = support::Peer<()>;

const TASKS: &str = "io.modelcontextprotocol/tasks";

#[derive(Deserialize, JsonSchema)]
struct Wait {
    /// How long to work, in milliseconds.
    millis: u64,
}

/// Answers at once, never as a task.
#[tool]
async fn plain() -> Result<Value, Error> {
    Ok(json!({ "plain": true }))
}

/// Works for a while, then says so.
#[tool(task)]
async fn slow(args: Wait) -> Result<Value, Error> {
    tokio::time::sleep(Duration::from_millis(args.millis)).await;
    Ok(json!({ "waited": args.millis }))
}

/// Always fails as a tool, only as a task.
#[tool(task = "required")]
async fn fails() -> Result<Value, Error> {
    Err(Error::bad_request("this job always fails"))
}

/// Panics: a protocol error.
#[tool(task)]
async fn panics() -> Result<Value, Error> {
    panic!("the job broke")
}

/// Asks for a confirmation, then reports it.
#[tool(task)]
async fn confirm(cx: &Cx<()>) -> Result<Value, Error> {
    let answer =
        cx.elicit_form("Sure?", json!({ "type": "object" })).await.map_err(|e| Error::bad_request(e.to_string()))?;
    Ok(json!({ "confirmed": answer["content"]["confirm"] }))
}

/// Asks two questions at once.
#[tool(task)]
async fn two_at_once(cx: &Cx<()>) -> Result<Value, Error> {
    let schema = json!({ "type": "object" });
    let answers = cx
        .ask(vec![
            ("first".into(), InputRequest::elicit_form("First?", schema.clone())),
            ("second".into(), InputRequest::elicit_form("Second?", schema)),
        ])
        .await
        .map_err(|e| Error::bad_request(e.to_string()))?;
    Ok(json!({ "first": answers["first"]["content"]["name"], "second": answers["second"]["content"]["name"] }))
}

/// Set when `guarded`'s future is dropped.
static GUARD_DROPPED: AtomicBool = AtomicBool::new(false);

struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        GUARD_DROPPED.store(true, Ordering::SeqCst);
    }
}

/// Holds a guard while it waits for a minute.
#[tool(task)]
async fn guarded() -> Result<Value, Error> {
    let _guard = Guard;
    tokio::time::sleep(Duration::from_secs(60)).await;
    Ok(json!({}))
}

/// Asks a name in rounds, then goes on as a task.
#[tool(task = "required", deferred_task)]
async fn name_then_task(cx: &Cx<()>) -> Result<Value, Error> {
    let question = InputRequest::elicit_form("Your name?", json!({ "type": "object" }));
    let answers = cx.ask(vec![("user_name".into(), question)]).await.map_err(|e| Error::bad_request(e.to_string()))?;
    let as_task = cx.start_task().await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    Ok(json!({ "name": answers["user_name"]["content"]["name"], "as_task": as_task }))
}

fn builder() -> ServerBuilder<()> {
    let ops = table![plain, slow, fails, panics, confirm, two_at_once, guarded, name_then_task];
    Server::builder(()).info("tasks-test", "1.0.0").tools(ops)
}

fn server() -> Server<()> {
    builder().build().unwrap()
}

/// The `_meta` of a request whose client declares `capabilities`.
fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

fn with_tasks() -> Value {
    json!({ "elicitation": {}, "extensions": { TASKS: {} } })
}

/// Sends a request whose client declares the extension and elicitation; returns its answer.
async fn ask(p: &mut Peer, id: i64, method: &str, params: Value) -> Value {
    ask_as(p, id, method, params, with_tasks()).await
}

async fn ask_as(p: &mut Peer, id: i64, method: &str, mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = meta(capabilities);
    p.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
    p.response(id).await
}

/// Calls `tool` and returns the id of the task it made.
async fn start(p: &mut Peer, id: i64, tool: &str, arguments: Value) -> String {
    let r = ask(p, id, "tools/call", json!({ "name": tool, "arguments": arguments })).await;
    assert_eq!(r["result"]["resultType"], "task", "{r}");
    r["result"]["taskId"].as_str().expect("a taskId").to_owned()
}

/// Polls `tasks/get` until the task reaches `status` or ends; gives the last answer.
async fn poll_until(p: &mut Peer, id: &mut i64, task: &str, status: &str) -> Value {
    for _ in 0..250 {
        *id += 1;
        let r = ask(p, *id, "tasks/get", json!({ "taskId": task })).await;
        let now = r["result"]["status"].as_str().unwrap_or_default().to_owned();
        if now == status || ["completed", "failed", "cancelled"].contains(&now.as_str()) {
            return r["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task} never reached {status}");
}

#[tokio::test]
async fn discover_advertises_the_extension_and_the_listing_marks_task_tools() {
    let mut p = Peer::connect(&server());
    let r = ask(&mut p, 1, "server/discover", json!({})).await;
    assert_eq!(r["result"]["capabilities"]["extensions"][TASKS], json!({}), "{r}");
    assert!(r["result"]["capabilities"].get("tasks").is_none(), "no capabilities slot of the first version: {r}");
    let list = ask(&mut p, 2, "tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let support = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap()["execution"]["taskSupport"].clone();
    assert_eq!(
        (support("plain"), support("slow"), support("fails")),
        (Value::Null, json!("optional"), json!("required"))
    );
}

#[tokio::test]
async fn a_task_is_created_flat_polled_and_completes_with_its_result_inlined() {
    let mut p = Peer::connect(&server());
    let sync = ask(&mut p, 1, "tools/call", json!({ "name": "plain", "task": { "ttl": 60000 } })).await;
    assert_eq!(sync["result"]["resultType"], "complete", "a sync tool stays sync, whatever the client hints: {sync}");
    assert!(sync["result"].get("taskId").is_none() && sync["result"]["content"][0].is_object(), "{sync}");

    let r = ask(&mut p, 2, "tools/call", json!({ "name": "slow", "arguments": { "millis": 200 } })).await;
    let created = &r["result"];
    assert_eq!((created["resultType"].clone(), created["status"].clone()), (json!("task"), json!("working")), "{r}");
    for key in ["task", "result", "error", "inputRequests", "requestState", "ttl", "pollInterval"] {
        assert!(created.get(key).is_none(), "no `{key}` on a CreateTaskResult: {r}");
    }
    assert!(created["ttlMs"].is_u64() && created["pollIntervalMs"].is_u64(), "{r}");
    let stamp = created["createdAt"].as_str().unwrap();
    assert!(stamp.len() == 24 && stamp.ends_with('Z') && &stamp[10..11] == "T", "ISO-8601: {stamp}");
    let task = created["taskId"].as_str().unwrap().to_owned();

    let working = ask(&mut p, 3, "tasks/get", json!({ "taskId": task })).await;
    assert_eq!(working["result"]["resultType"], "complete", "{working}");
    assert_eq!(working["result"]["status"], "working", "{working}");
    assert!(working["result"].get("result").is_none() && working["result"].get("error").is_none(), "{working}");

    let mut id = 10;
    let done = poll_until(&mut p, &mut id, &task, "completed").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"], json!({ "waited": 200 }), "{done}");
    assert!(done["result"]["content"][0]["text"].is_string(), "{done}");
    assert!(done.get("requestState").is_none() && done["result"].get("_meta").is_none(), "{done}");
}

#[tokio::test]
async fn a_tool_error_completes_and_a_panic_fails() {
    let mut p = Peer::connect(&server());
    let mut id = 10;
    let failing = start(&mut p, 1, "fails", json!({})).await;
    let done = poll_until(&mut p, &mut id, &failing, "completed").await;
    assert_eq!(
        (done["status"].clone(), done["result"]["isError"].clone()),
        (json!("completed"), json!(true)),
        "{done}"
    );

    let broken = start(&mut p, 2, "panics", json!({})).await;
    let done = poll_until(&mut p, &mut id, &broken, "failed").await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], -32603, "{done}");
    assert!(done["error"]["message"].as_str().unwrap().contains("the job broke"), "{done}");
    assert!(done.get("result").is_none(), "{done}");
}

#[tokio::test]
async fn cancel_stops_a_running_task_and_is_idempotent() {
    let mut p = Peer::connect(&server());
    let task = start(&mut p, 1, "slow", json!({ "millis": 60_000 })).await;
    let ack = ask(&mut p, 2, "tasks/cancel", json!({ "taskId": task })).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    for key in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(ack["result"].get(key).is_none(), "no `{key}` on the ack: {ack}");
    }
    let got = ask(&mut p, 3, "tasks/get", json!({ "taskId": task })).await;
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    let again = ask(&mut p, 4, "tasks/cancel", json!({ "taskId": task })).await;
    assert_eq!(again["result"]["resultType"], "complete", "a terminal task is acknowledged the same: {again}");
    for (n, method) in (5..).zip(["tasks/get", "tasks/cancel", "tasks/update"]) {
        let r = ask(&mut p, n, method, json!({ "taskId": "no-such-task", "inputResponses": {} })).await;
        assert_eq!(r["error"]["code"], -32602, "{method} of an unknown task: {r}");
    }
}

#[tokio::test]
async fn cancel_drops_the_running_future() {
    let mut p = Peer::connect(&server());
    let task = start(&mut p, 1, "guarded", json!({})).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!GUARD_DROPPED.load(Ordering::SeqCst), "the task runs until cancelled");
    ask(&mut p, 2, "tasks/cancel", json!({ "taskId": task })).await;
    for _ in 0..100 {
        if GUARD_DROPPED.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the cancelled task's future was never dropped");
}

#[tokio::test]
async fn a_question_parks_the_task_until_tasks_update_answers_it() {
    let mut p = Peer::connect(&server());
    let mut id = 10;
    let task = start(&mut p, 1, "confirm", json!({})).await;
    let parked = poll_until(&mut p, &mut id, &task, "input_required").await;
    assert_eq!(parked["status"], "input_required", "{parked}");
    let requests = parked["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{parked}");
    let (key, question) = requests.iter().next().unwrap();
    assert_eq!(question["method"], "elicitation/create", "{parked}");

    let ignored =
        ask(&mut p, 2, "tasks/update", json!({ "taskId": task, "inputResponses": { "unknown-key": {} } })).await;
    assert_eq!(ignored["result"]["resultType"], "complete", "an answer to nothing is acknowledged: {ignored}");
    let answers = json!({ key: { "action": "accept", "content": { "confirm": true } } });
    let ack = ask(&mut p, 3, "tasks/update", json!({ "taskId": task, "inputResponses": answers })).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("status").is_none(), "{ack}");
    let done = poll_until(&mut p, &mut id, &task, "completed").await;
    assert_eq!(done["result"]["structuredContent"], json!({ "confirmed": true }), "{done}");
}

#[tokio::test]
async fn a_partial_update_keeps_the_other_question_pending() {
    let mut p = Peer::connect(&server());
    let mut id = 10;
    let task = start(&mut p, 1, "two_at_once", json!({})).await;
    let parked = poll_until(&mut p, &mut id, &task, "input_required").await;
    let keys: Vec<&String> = parked["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["first", "second"], "{parked}");

    let first = json!({ "first": { "action": "accept", "content": { "name": "one" } } });
    ask(&mut p, 2, "tasks/update", json!({ "taskId": task, "inputResponses": first })).await;
    let still = ask(&mut p, 3, "tasks/get", json!({ "taskId": task })).await;
    assert_eq!(still["result"]["status"], "input_required", "{still}");
    let pending: Vec<&String> = still["result"]["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(pending, ["second"], "the answered key is gone, the other stays: {still}");

    let second = json!({ "second": { "action": "accept", "content": { "name": "two" } } });
    ask(&mut p, 4, "tasks/update", json!({ "taskId": task, "inputResponses": second })).await;
    let done = poll_until(&mut p, &mut id, &task, "completed").await;
    assert_eq!(done["result"]["structuredContent"], json!({ "first": "one", "second": "two" }), "{done}");
}

#[tokio::test]
async fn without_the_extension_tasks_methods_are_refused_and_calls_run_synchronously() {
    let mut p = Peer::connect(&server());
    let undeclared = json!({ "elicitation": {} });
    for (n, method) in (1..).zip(["tasks/get", "tasks/update", "tasks/cancel"]) {
        let r = ask_as(&mut p, n, method, json!({ "taskId": "x", "inputResponses": {} }), undeclared.clone()).await;
        assert_eq!(r["error"]["code"], -32021, "{method}: {r}");
        assert_eq!(r["error"]["data"]["requiredCapabilities"]["extensions"][TASKS], json!({}), "{r}");
    }
    let call = json!({ "name": "slow", "arguments": { "millis": 0 } });
    let sync = ask_as(&mut p, 4, "tools/call", call, undeclared.clone()).await;
    assert_eq!(sync["result"]["resultType"], "complete", "{sync}");
    assert_eq!(sync["result"]["structuredContent"], json!({ "waited": 0 }), "{sync}");
    let required = ask_as(&mut p, 5, "tools/call", json!({ "name": "fails" }), undeclared).await;
    assert_eq!(required["error"]["code"], -32021, "a tool that needs a task: {required}");
    assert_eq!(required["error"]["data"]["requiredCapabilities"]["extensions"][TASKS], json!({}), "{required}");
}

#[tokio::test]
async fn the_first_versions_methods_are_unknown() {
    let mut p = Peer::connect(&server());
    for (n, method) in (1..).zip(["tasks/result", "tasks/list"]) {
        let r = ask(&mut p, n, method, json!({ "taskId": "x" })).await;
        assert_eq!(r["error"]["code"], -32601, "{method}: {r}");
    }
}

#[tokio::test]
async fn a_task_outlives_the_session_that_created_it() {
    let server = server();
    let mut first = Peer::connect(&server);
    let task = start(&mut first, 1, "slow", json!({ "millis": 100 })).await;
    drop(first);
    let mut second = Peer::connect(&server);
    let mut id = 10;
    let done = poll_until(&mut second, &mut id, &task, "completed").await;
    assert_eq!(done["status"], "completed", "{done}");
}

#[tokio::test]
async fn a_task_is_dropped_once_its_ttl_has_passed() {
    let server = builder().task_ttl(Duration::from_millis(300)).build().unwrap();
    let mut p = Peer::connect(&server);
    let task = start(&mut p, 1, "slow", json!({ "millis": 0 })).await;
    let r = ask(&mut p, 2, "tools/call", json!({ "name": "slow", "arguments": { "millis": 0 } })).await;
    assert_eq!(r["result"]["ttlMs"], 300, "{r}");
    let kept = ask(&mut p, 3, "tasks/get", json!({ "taskId": task })).await;
    assert!(kept["result"]["status"].is_string(), "kept within its ttl: {kept}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let gone = ask(&mut p, 4, "tasks/get", json!({ "taskId": task })).await;
    assert_eq!(gone["error"]["code"], -32602, "dropped after its ttl: {gone}");
}

#[tokio::test]
async fn a_task_past_the_stores_limit_is_refused() {
    let server = builder().task_store(MemoryTaskStore::new(2)).build().unwrap();
    let mut p = Peer::connect(&server);
    for id in 1..=2 {
        start(&mut p, id, "slow", json!({ "millis": 60_000 })).await;
    }
    let r = ask(&mut p, 3, "tools/call", json!({ "name": "slow", "arguments": { "millis": 0 } })).await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("limit of 2 tasks"), "{r}");
}

#[tokio::test]
async fn a_deferred_task_asks_in_rounds_then_becomes_a_task() {
    let mut p = Peer::connect(&server());
    let first = ask(&mut p, 1, "tools/call", json!({ "name": "name_then_task" })).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert!(first["result"].get("taskId").is_none(), "{first}");
    assert_eq!(first["result"]["inputRequests"]["user_name"]["method"], "elicitation/create", "{first}");
    let retry = json!({
        "name": "name_then_task",
        "inputResponses": { "user_name": { "action": "accept", "content": { "name": "Alice" } } },
        "requestState": first["result"]["requestState"],
    });
    let second = ask(&mut p, 2, "tools/call", retry).await;
    assert_eq!(second["result"]["resultType"], "task", "{second}");
    assert!(
        second["result"].get("requestState").is_none() && second["result"].get("inputRequests").is_none(),
        "{second}"
    );
    let task = second["result"]["taskId"].as_str().unwrap().to_owned();
    let mut id = 10;
    let done = poll_until(&mut p, &mut id, &task, "completed").await;
    assert_eq!(done["result"]["structuredContent"], json!({ "name": "Alice", "as_task": true }), "{done}");
}

/// The next notification `method` the peer receives.
async fn notified(p: &mut Peer, method: &str) -> Value {
    loop {
        let (msg, _) = p.next().await;
        if msg["method"] == method {
            return msg["params"].clone();
        }
    }
}

/// Sends a request and gives the `notifications/tasks` it causes (sent before its response).
async fn ask_and_hear(p: &mut Peer, id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta(with_tasks());
    p.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
    let state = notified(p, "notifications/tasks").await;
    assert_eq!(p.response(id).await["result"]["resultType"], "complete");
    state
}

/// Opens a listen for `task_ids` (request id 100) and gives the ids it agreed to.
async fn listen_to(p: &mut Peer, task_ids: Value) -> Value {
    let params = json!({ "notifications": { "taskIds": task_ids }, "_meta": meta(with_tasks()) });
    p.send(json!({ "jsonrpc": "2.0", "id": 100, "method": "subscriptions/listen", "params": params }));
    notified(p, "notifications/subscriptions/acknowledged").await["notifications"]["taskIds"].clone()
}

#[tokio::test]
async fn a_listen_that_names_a_task_hears_of_its_end_with_the_state_tasks_get_gives() {
    let mut p = Peer::connect(&server());
    let task = start(&mut p, 1, "slow", json!({ "millis": 300 })).await;
    assert_eq!(listen_to(&mut p, json!([task, "no-such-task"])).await, json!([task]), "only tasks running here");
    let state = notified(&mut p, "notifications/tasks").await;
    assert_eq!((state["taskId"].as_str(), state["status"].as_str()), (Some(task.as_str()), Some("completed")));
    assert_eq!(state["result"]["structuredContent"], json!({ "waited": 300 }), "{state}");
    assert_eq!(state["_meta"]["io.modelcontextprotocol/subscriptionId"], 100);
    let polled = ask(&mut p, 2, "tasks/get", json!({ "taskId": task })).await["result"].clone();
    assert_eq!(polled["lastUpdatedAt"], state["lastUpdatedAt"], "the same state as a poll: {polled}");
}

#[tokio::test]
async fn a_watched_task_tells_its_questions_answers_and_cancellation() {
    let mut p = Peer::connect(&server());
    let task = start(&mut p, 1, "guarded", json!({})).await;
    listen_to(&mut p, json!([task])).await;
    assert_eq!(ask_and_hear(&mut p, 2, "tasks/cancel", json!({ "taskId": task })).await["status"], "cancelled");

    let task = start(&mut p, 3, "two_at_once", json!({})).await;
    let mut id = 10;
    poll_until(&mut p, &mut id, &task, "input_required").await;
    p.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 100 } }));
    listen_to(&mut p, json!([task])).await;
    let answer = json!({ "first": { "action": "accept", "content": { "name": "a" } } });
    let partial = ask_and_hear(&mut p, 4, "tasks/update", json!({ "taskId": task, "inputResponses": answer })).await;
    assert_eq!(partial["status"], "input_required", "{partial}");
    assert_eq!(partial["inputRequests"].as_object().map(|r| r.len()), Some(1), "one question left: {partial}");
    let answer = json!({ "second": { "action": "accept", "content": { "name": "b" } } });
    let mut state = ask_and_hear(&mut p, 5, "tasks/update", json!({ "taskId": task, "inputResponses": answer })).await;
    if state["status"] == "working" {
        state = notified(&mut p, "notifications/tasks").await;
    }
    assert_eq!(state["result"]["structuredContent"], json!({ "first": "a", "second": "b" }), "{state}");
}

#[tokio::test]
async fn a_listen_for_tasks_needs_the_extension() {
    let mut p = Peer::connect(&server());
    let params = json!({ "notifications": { "taskIds": ["x"] }, "_meta": meta(json!({})) });
    p.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": params }));
    let refusal = p.response(1).await;
    assert_eq!(refusal["error"]["code"], -32021, "{refusal}");
    assert_eq!(refusal["error"]["data"]["requiredCapabilities"]["extensions"][TASKS], json!({}));
}

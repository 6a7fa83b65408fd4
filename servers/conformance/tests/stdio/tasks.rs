//! The tasks extension's fixtures over stdio (2026-07-28 requests, no handshake): what the
//! official scenarios check, with raw lines.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Server, error_code};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A 2026-07-28 client over stdio, declaring the extension (and elicitation) or not.
struct Client {
    server: Server,
    capabilities: Value,
    next_id: i64,
}

impl Client {
    fn new(with_tasks: bool) -> Self {
        let capabilities = match with_tasks {
            true => json!({ "elicitation": {}, "extensions": { TASKS: {} } }),
            false => json!({ "elicitation": {} }),
        };
        Client { server: Server::start(&[]), capabilities, next_id: 0 }
    }

    fn ask(&mut self, method: &str, mut params: Value) -> Value {
        self.next_id += 1;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
        });
        self.server.request(self.next_id, method, params);
        self.server.response(self.next_id)
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.ask("tools/call", json!({ "name": tool, "arguments": arguments }))
    }

    /// Calls `tool`, which must answer with a task; returns its id.
    fn start(&mut self, tool: &str, arguments: Value) -> String {
        let r = self.call(tool, arguments);
        assert_eq!(r["result"]["resultType"], "task", "{r}");
        r["result"]["taskId"].as_str().expect("a taskId").to_owned()
    }

    /// Polls until the task reaches `status` or ends.
    fn poll_until(&mut self, task: &str, status: &str) -> Value {
        for _ in 0..200 {
            let r = self.ask("tasks/get", json!({ "taskId": task }));
            let now = r["result"]["status"].as_str().unwrap_or_default().to_owned();
            if now == status || ["completed", "failed", "cancelled"].contains(&now.as_str()) {
                return r["result"].clone();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("task {task} never reached {status}");
    }
}

#[test]
fn discover_advertises_tasks_and_sync_tools_stay_sync() {
    let mut c = Client::new(true);
    let r = c.ask("server/discover", json!({}));
    assert_eq!(r["result"]["capabilities"]["extensions"][TASKS], json!({}), "{r}");
    let r = c.ask("tools/call", json!({ "name": "greet", "arguments": { "name": "World" }, "task": { "ttl": 60000 } }));
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "Hello, World!", "{r}");
    assert!(r["result"].get("taskId").is_none(), "{r}");
}

#[test]
fn tasks_complete_fail_and_cancel() {
    let mut c = Client::new(true);
    let slow = c.start("slow_compute", json!({ "seconds": 1, "label": "stdio" }));
    let failing = c.start("failing_job", json!({}));
    let broken = c.start("protocol_error_job", json!({}));
    let long = c.start("slow_compute", json!({ "seconds": 60 }));

    let ack = c.ask("tasks/cancel", json!({ "taskId": long }));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert_eq!(c.poll_until(&long, "cancelled")["status"], "cancelled");

    let done = c.poll_until(&slow, "completed");
    assert_eq!(done["result"]["content"][0]["text"], "Computed for 1 s (stdio)", "{done}");
    let done = c.poll_until(&failing, "completed");
    assert_eq!(
        (done["status"].clone(), done["result"]["isError"].clone()),
        (json!("completed"), json!(true)),
        "{done}"
    );
    let done = c.poll_until(&broken, "failed");
    assert!(done["error"]["code"].is_i64() && done.get("result").is_none(), "{done}");

    for method in ["tasks/result", "tasks/list"] {
        assert_eq!(error_code(&c.ask(method, json!({ "taskId": slow }))), -32601, "{method}");
    }
    assert_eq!(error_code(&c.ask("tasks/get", json!({ "taskId": "tasks-conformance-nonexistent-12345" }))), -32602);
}

#[test]
fn questions_park_tasks_until_every_answer_has_come() {
    let mut c = Client::new(true);
    let confirm = c.start("confirm_delete", json!({ "filename": "a.txt" }));
    let parked = c.poll_until(&confirm, "input_required");
    assert_eq!(parked["inputRequests"]["confirm"]["method"], "elicitation/create", "{parked}");
    let answer = json!({ "confirm": { "action": "accept", "content": { "confirm": true } } });
    let ack = c.ask("tasks/update", json!({ "taskId": confirm, "inputResponses": answer }));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert_eq!(c.poll_until(&confirm, "completed")["result"]["content"][0]["text"], "Deleted a.txt");

    let multi = c.start("multi_input", json!({}));
    let parked = c.poll_until(&multi, "input_required");
    assert_eq!(parked["inputRequests"].as_object().unwrap().len(), 2, "{parked}");
    let reply = json!({ "action": "accept", "content": { "name": "Ada", "confirm": true } });
    c.ask("tasks/update", json!({ "taskId": multi, "inputResponses": { "name": reply } }));
    let still = c.ask("tasks/get", json!({ "taskId": multi }));
    assert_eq!(still["result"]["status"], "input_required", "{still}");
    assert_eq!(still["result"]["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["confirm"]);
    c.ask("tasks/update", json!({ "taskId": multi, "inputResponses": { "confirm": reply } }));
    let done = c.poll_until(&multi, "completed");
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada; confirmed: true", "{done}");
}

#[test]
fn without_the_extension_nothing_becomes_a_task() {
    let mut c = Client::new(false);
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let r = c.ask(method, json!({ "taskId": "gate-test", "inputResponses": {} }));
        assert_eq!(error_code(&r), -32021, "{method}: {r}");
    }
    let r = c.call("slow_compute", json!({ "seconds": 0 }));
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    let r = c.call("failing_job", json!({}));
    assert_eq!(error_code(&r), -32021, "{r}");
    assert_eq!(r["error"]["data"]["requiredCapabilities"]["extensions"][TASKS], json!({}), "{r}");
}

#[test]
fn a_tool_asks_in_rounds_then_becomes_a_task() {
    let mut c = Client::new(true);
    let first = c.call("test_tool_with_task", json!({}));
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert!(first["result"].get("taskId").is_none(), "{first}");
    let retry = json!({
        "name": "test_tool_with_task",
        "arguments": {},
        "inputResponses": { "user_name": { "action": "accept", "content": { "name": "Alice" } } },
        "requestState": first["result"]["requestState"],
    });
    let second = c.ask("tools/call", retry);
    assert_eq!(second["result"]["resultType"], "task", "{second}");
    assert!(second["result"].get("requestState").is_none(), "{second}");
    let task = second["result"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!(c.poll_until(&task, "completed")["result"]["content"][0]["text"], "Hello, Alice!");
}

#[test]
fn a_handshake_session_sees_no_task_markers_and_runs_task_tools_in_place() {
    let mut s = Server::ready(json!({}));
    s.request(1, "tools/list", json!({}));
    let listed = s.response(1);
    let tools = listed["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "failing_job"));
    assert!(tools.iter().all(|t| t.get("execution").is_none()), "a 2025 client would refuse a task-only tool");
    let r = s.call(2, "slow_compute", json!({ "seconds": 0 }));
    assert_eq!(r["result"]["isError"], false, "{r}");
}

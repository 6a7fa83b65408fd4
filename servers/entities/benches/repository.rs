//! Prints, for a generated repository of 10,000 records in 20 entities: the cold load time, and
//! the per-call latency of `object_get` and `repository_export` in process and over stdio, and
//! of `object_get` right after one record file was edited (a reload).
//! Targets: load under 1 s, `object_get` under 100 µs in process. Figures only, no assertions.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tooltable::Server;
use tooltable_golden::client::{Client, StdioClient};

use entities::tools::service::Service;

const ENTITIES: usize = 20;
const RECORDS_PER_ENTITY: usize = 500;
const BIN: &str = env!("CARGO_BIN_EXE_entities");

fn generate(root: &Path) {
    std::fs::create_dir_all(root.join("entities")).unwrap();
    for e in 0..ENTITIES {
        let definition = format!(
            "Description: Generated entity {e}\nFields:\n  id:\n    Required: true\n  title:\n    Required: true\n  \
             count:\n    Type: integer\n  tags:\n    Repeated: true\n  status:\n    Enum: [open, closed]\n    Default: open\n\
             Include:\n  - data/e{e}/*.yaml\n"
        );
        std::fs::write(root.join(format!("entities/Entity{e:02}.yaml")), definition).unwrap();
        let dir = root.join(format!("data/e{e}"));
        std::fs::create_dir_all(&dir).unwrap();
        for r in 0..RECORDS_PER_ENTITY {
            let record = format!("id: e{e}-r{r:04}\ntitle: Record {r} of entity {e}\ncount: {r}\ntags: [a, b, c]\n");
            std::fs::write(dir.join(format!("r{r:04}.yaml")), record).unwrap();
        }
    }
}

fn server(root: &Path) -> Server<Service> {
    entities::server(entities::Options::at(root)).unwrap()
}

async fn call(server: &Server<Service>, tool: &str, args: Value) {
    let outcome = server
        .call_tool(
            server.cx(&tooltable::transport::RequestContext::new(tooltable::context::Transport::InProcess)),
            tool,
            Some(args),
        )
        .await
        .unwrap();
    assert!(outcome.is_ok(), "{tool} failed");
}

fn per_call(total: Duration, calls: u32) -> String {
    let micros = total.as_secs_f64() * 1e6 / f64::from(calls);
    if micros >= 1000.0 { format!("{:.2} ms", micros / 1000.0) } else { format!("{micros:.1} µs") }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    println!("repository: {} records in {ENTITIES} entities", ENTITIES * RECORDS_PER_ENTITY);

    let server = server(dir.path());
    let start = Instant::now();
    runtime.block_on(call(&server, "entity_list", json!({})));
    println!("cold load (first call):            {:.1} ms", start.elapsed().as_secs_f64() * 1e3);

    let get = json!({ "entity": "Entity07", "id": "e7-r0250" });
    runtime.block_on(async {
        let calls = 20_000;
        let start = Instant::now();
        for _ in 0..calls {
            call(&server, "object_get", get.clone()).await;
        }
        println!("object_get, in process:            {} per call", per_call(start.elapsed(), calls));
        let calls = 20;
        let start = Instant::now();
        for _ in 0..calls {
            call(&server, "repository_export", json!({})).await;
        }
        println!("repository_export (all), in process: {} per call", per_call(start.elapsed(), calls));
        // One record file edited: only it is read again, only its entity's records made again.
        let edited = dir.path().join("data/e7/r0250.yaml");
        let calls = 20;
        let start = Instant::now();
        for i in 0..calls {
            std::fs::write(&edited, format!("id: e7-r0250\ntitle: Edit {i}\ncount: {i}\n")).unwrap();
            call(&server, "object_get", get.clone()).await;
        }
        println!("object_get after editing one file: {} per call", per_call(start.elapsed(), calls));
    });

    let root = dir.path().display().to_string();
    runtime.block_on(async {
        let mut client = Client::Stdio(StdioClient::spawn(BIN, &["mcp", "--root", &root]).unwrap());
        let mut id = 0;
        let mut ask = async |method: &str, params: Value| {
            id += 1;
            client.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await.unwrap();
            client.until_response(&json!(id), Duration::from_secs(60)).await.unwrap();
        };
        ask("initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "bench", "version": "0" } })).await;
        let start = Instant::now();
        ask("tools/call", json!({ "name": "entity_list", "arguments": {} })).await;
        println!("cold load (first call), stdio:     {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
        let calls = 5_000;
        let start = Instant::now();
        for _ in 0..calls {
            ask("tools/call", json!({ "name": "object_get", "arguments": get })).await;
        }
        println!("object_get, stdio:                 {} per call", per_call(start.elapsed(), calls));
        let calls = 20;
        let start = Instant::now();
        for _ in 0..calls {
            ask("tools/call", json!({ "name": "repository_export", "arguments": {} })).await;
        }
        println!("repository_export (all), stdio:    {} per call", per_call(start.elapsed(), calls));
    });
}

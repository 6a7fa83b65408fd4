//! `floor-server`: the least any stdio MCP server can do per request.
//!
//! Reads newline-delimited JSON-RPC from stdin, parses just the `id` (serde_json into a struct
//! with `id: serde_json::Value`), and answers each request with a fixed, pre-serialized
//! `tools/call` result (the same bytes tooltable's `add_numbers` returns), the id copied in.
//! One line in, one `write` out: the cost of the pipe, a line read and a minimal parse.
//! Notifications (no `id`) get no answer.

use std::io::{BufRead, Write};

#[derive(serde::Deserialize)]
struct Request {
    #[serde(default)]
    id: Option<serde_json::Value>,
}

const PREFIX: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
const SUFFIX: &[u8] = br#","result":{"content":[{"type":"text","text":"{\n  \"sum\": 3\n}"}],"structuredContent":{"sum":3},"isError":false}}"#;

fn main() {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut stdout = std::io::stdout().lock();
    let mut line = String::new();
    let mut out = Vec::with_capacity(256);
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let Ok(Request { id: Some(id) }) = serde_json::from_str::<Request>(&line) else { continue };
        out.clear();
        out.extend_from_slice(PREFIX);
        serde_json::to_writer(&mut out, &id).expect("an id serializes");
        out.extend_from_slice(SUFFIX);
        out.push(b'\n');
        // Stdout is line-buffered and `out` is one whole line: one write(2) per response.
        if stdout.write_all(&out).and_then(|()| stdout.flush()).is_err() {
            return;
        }
    }
}

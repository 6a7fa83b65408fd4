//! A fake hub: it lists one capability, `tool.risk`, and answers a call to it according to the
//! call's `command`, so that each way a hub can fail is one argument away:
//!
//! | `command` | answer |
//! |---|---|
//! | `garbage` | 200 with an HTML page |
//! | `fail` | 500 with `{"error": "database is locked"}` |
//! | `no-status` | 200 with JSON that has no `status` |
//! | `slow` | a valid answer after 3 seconds |
//! | `die` | the start of an answer, then the connection closes |
//! | `echo-auth` | a valid answer whose data is the request's `Authorization` header |
//! | anything else | `{"status": "ok", "data": {"decision": "allow"}}` |

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

pub struct FakeHub {
    pub addr: String,
    stop: Arc<AtomicBool>,
}

impl FakeHub {
    /// Listens on the port (0 for any).
    pub fn start(port: u16) -> FakeHub {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("the fake hub binds");
        let addr = listener.local_addr().unwrap().to_string();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    std::thread::spawn(move || serve(stream));
                }
            }
        });
        FakeHub { addr, stop }
    }
}

impl Drop for FakeHub {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(&self.addr);
    }
}

struct Request {
    method: String,
    path: String,
    authorization: String,
    body: Value,
}

fn serve(stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().expect("a second handle"));
    let mut out = stream;
    while let Some(req) = read_request(&mut reader) {
        let keep = answer(&mut out, &req);
        if !keep {
            return;
        }
    }
}

fn read_request(reader: &mut impl BufRead) -> Option<Request> {
    let mut line = String::new();
    reader.read_line(&mut line).ok().filter(|n| *n > 0)?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_owned(), parts.next()?.to_owned());
    let (mut length, mut authorization) = (0usize, String::new());
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok().filter(|n| *n > 0)?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap_or(0),
                "authorization" => authorization = value.trim().to_owned(),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some(Request { method, path, authorization, body })
}

/// Writes the answer; false when the connection is to close.
fn answer(out: &mut TcpStream, req: &Request) -> bool {
    let listing = json!({
        "revision": 1,
        "capabilities": [{
            "id": "tool.risk",
            "description": "Classifies a command line (a fake that misbehaves on request).",
            "input_schema": { "type": "object", "properties": { "command": { "type": "string" } }, "required": ["command"] }
        }]
    });
    let ok = json!({ "status": "ok", "data": { "decision": "allow" } });
    match (req.method.as_str(), req.path.as_str()) {
        ("GET", "/v1/capabilities") => respond(out, 200, "application/json", &listing.to_string()),
        ("POST", "/v1/capabilities/tool.risk/call") => match req.body["command"].as_str().unwrap_or("") {
            "garbage" => respond(out, 200, "text/html", "<html><body>Service Unavailable</body></html>"),
            "fail" => respond(out, 500, "application/json", r#"{"error":"database is locked"}"#),
            "no-status" => respond(out, 200, "application/json", r#"{"decision":"allow"}"#),
            "slow" => {
                std::thread::sleep(Duration::from_secs(3));
                respond(out, 200, "application/json", &ok.to_string())
            }
            "die" => {
                let _ = out.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 80\r\n\r\n{\"sta",
                );
                let _ = out.flush();
                return false;
            }
            "echo-auth" => {
                let echoed = json!({ "status": "ok", "data": { "authorization": req.authorization } });
                respond(out, 200, "application/json", &echoed.to_string())
            }
            _ => respond(out, 200, "application/json", &ok.to_string()),
        },
        _ => respond(out, 404, "application/json", r#"{"error":"no such route on the fake hub"}"#),
    }
    true
}

fn respond(out: &mut TcpStream, status: u16, content_type: &str, body: &str) {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Internal Server Error",
    };
    let head =
        format!("HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n", body.len());
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(body.as_bytes());
    let _ = out.flush();
}

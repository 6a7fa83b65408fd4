//! The caller: the principal the gate names (or one the host put in the request's extensions)
//! reaches the calls over `/mcp` and REST as `Cx::principal`, and a session opened by one
//! principal is not another's.


use hyper::header::AUTHORIZATION;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tooltable::{Cx, Error, Principal, Server, table, tool};
use tooltable_transports::http::{Http, HttpResponse, error_response};

use crate::support::send;

/// Who is calling.
#[tool(read_only, rest = "GET /whoami")]
async fn whoami(cx: &Cx<()>) -> Result<Value, Error> {
    Ok(json!({ "subject": cx.principal().map(|p| p.subject.clone()) }))
}

/// `Bearer alice` and `Bearer bob` name those two; any other token is refused, none is anonymous.
pub(crate) fn gate(headers: &hyper::HeaderMap) -> Result<Option<Principal>, HttpResponse> {
    match headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok()) {
        None => Ok(None),
        Some(token @ ("Bearer alice" | "Bearer bob")) => Ok(Some(Principal::new(&token[7..]))),
        Some(_) => Err(error_response(hyper::StatusCode::UNAUTHORIZED, "unknown token")),
    }
}

async fn start() -> std::net::SocketAddr {
    let server = Server::builder(()).info("whoami", "1").tools(table![whoami]).build().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(Http::new(server).gate(gate).serve(listener, std::future::pending()));
    addr
}

const JSON: [(&str, &str); 2] =
    [("content-type", "application/json"), ("accept", "application/json, text/event-stream")];

#[tokio::test]
async fn the_gates_principal_is_the_callers_over_rest_and_mcp() {
    let addr = start().await;
    let rest = send(addr, "GET", "/whoami", &[("authorization", "Bearer alice")], "").await;
    assert_eq!(rest.json()["subject"], "alice");
    assert_eq!(send(addr, "GET", "/whoami", &[], "").await.json()["subject"], Value::Null);
    assert_eq!(send(addr, "GET", "/whoami", &[("authorization", "Bearer eve")], "").await.status, 401);

    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } });
    let opened =
        send(addr, "POST", "/mcp", &[JSON[0], JSON[1], ("authorization", "Bearer alice")], &initialize.to_string())
            .await;
    let session = opened.header("mcp-session-id").expect("a session").to_owned();
    let call =
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "whoami", "arguments": {} } });
    let in_session = |token: Option<&'static str>| {
        let mut headers = vec![JSON[0], JSON[1], ("mcp-protocol-version", "2025-11-25")];
        headers.extend(token.map(|t| ("authorization", t)));
        headers
    };
    let headers_of = |token| {
        let mut headers = in_session(token);
        headers.push(("mcp-session-id", session.as_str()));
        headers
    };
    let answer = send(addr, "POST", "/mcp", &headers_of(Some("Bearer alice")), &call.to_string()).await;
    assert_eq!(answer.json()["result"]["structuredContent"]["subject"], "alice", "{:?}", answer.body);
    let refused = send(addr, "POST", "/mcp", &headers_of(Some("Bearer bob")), &call.to_string()).await;
    assert_eq!(refused.status, 404, "bob cannot use alice's session");
    assert_eq!(send(addr, "POST", "/mcp", &headers_of(None), &call.to_string()).await.status, 404);
}

/// A host application's own authentication puts the principal in the request's extensions.
#[tokio::test]
async fn a_principal_the_host_put_in_the_extensions_is_the_callers() {
    use tower_service::Service as _;
    let server = Server::builder(()).info("whoami", "1").tools(table![whoami]).build().unwrap();
    let mut service = Http::new(server).service().rest();
    let mut request =
        hyper::Request::get("/whoami").header("host", "localhost").body(http_body_util::Empty::new()).unwrap();
    request.extensions_mut().insert(Principal::new("carol"));
    let response = service.call(request).await.unwrap();
    let body = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
    assert_eq!(serde_json::from_slice::<Value>(&body).unwrap()["subject"], "carol");
}

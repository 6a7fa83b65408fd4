//! A test table with a tool for every error kind, served on a free loopback port.

use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tooltable::{Cx, Error, ErrorBody, ErrorKind, Server, table, tool};
use tooltable_transports::http::{Http, HttpOptions};

#[derive(Deserialize, JsonSchema)]
pub struct FailArgs {
    /// invalid_input, forbidden, not_found, conflict, bad_request, too_large or internal.
    pub kind: String,
}

/// A version conflict: the version expected and the one found.
#[derive(Serialize, JsonSchema)]
pub struct VersionConflict {
    pub error: &'static str,
    pub expected: String,
    pub actual: String,
}

impl ErrorBody for VersionConflict {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Conflict
    }
}

/// Fails with the kind asked for.
#[tool(rest = "GET /fail/{kind}")]
pub async fn fail(args: FailArgs) -> Result<Value, Error> {
    let kind = match args.kind.as_str() {
        "invalid_input" => ErrorKind::InvalidInput,
        "forbidden" => ErrorKind::Forbidden,
        "not_found" => ErrorKind::NotFound,
        "conflict" => ErrorKind::Conflict,
        "bad_request" => ErrorKind::BadRequest,
        "too_large" => ErrorKind::TooLarge,
        _ => ErrorKind::Internal,
    };
    Err(Error::new(kind, format!("failed as {}", args.kind)))
}

/// Fails with a structured version conflict.
#[tool(rest = "POST /models/{id}/evolve")]
pub async fn evolve(args: ModelId) -> Result<Value, VersionConflict> {
    Err(VersionConflict { error: "Version conflict", expected: "1.0.0".into(), actual: format!("{}:1.1.0", args.id) })
}

#[derive(Deserialize, JsonSchema)]
pub struct ModelId {
    pub id: String,
}

#[derive(Deserialize, Serialize, JsonSchema)]
pub struct QueryArgs {
    pub id: u32,
    pub depth: Option<i64>,
    pub ratio: Option<f64>,
    pub deep: Option<bool>,
    pub paths: Option<Vec<String>>,
}

/// Echoes the typed arguments.
#[tool(read_only, rest = "GET /models/{id}/state")]
pub async fn get_state(args: QueryArgs) -> Result<QueryArgs, Error> {
    Ok(args)
}

#[derive(Deserialize, JsonSchema)]
pub struct MutateArgs {
    pub id: String,
    pub mutations: serde_json::Map<String, Value>,
    #[serde(default, rename = "includeTraces")]
    pub include_traces: bool,
}

/// Echoes the body field.
#[tool(rest = "POST /models/{id}/mutations", body = "mutations")]
pub async fn mutate(args: MutateArgs) -> Result<Value, Error> {
    Ok(json!({ "id": args.id, "mutations": args.mutations, "includeTraces": args.include_traces }))
}

#[derive(Deserialize, JsonSchema)]
pub struct CreateArgs {
    pub name: String,
}

/// Creates a thing.
#[tool(rest = "POST /things", status = 201, location = "/things/{created}")]
pub async fn create_thing(args: CreateArgs) -> Result<Value, Error> {
    Ok(json!({ "created": args.name }))
}

#[derive(Deserialize, JsonSchema)]
pub struct SleepArgs {
    pub ms: u64,
}

/// Sleeps, then answers; reports progress twice on the way.
#[tool]
pub async fn slow(cx: &Cx<()>, args: SleepArgs) -> Result<Value, Error> {
    cx.progress(1.0, Some(2.0), None);
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    cx.progress(2.0, Some(2.0), None);
    Ok(json!({ "slept": args.ms }))
}

/// Closes the stream carrying it, then answers: the client resumes with Last-Event-ID.
#[tool]
pub async fn detach(cx: &Cx<()>) -> Result<Value, Error> {
    cx.close_stream();
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok(json!({ "resumed": true }))
}

pub fn server() -> Server<()> {
    Server::builder(())
        .info("http-test", "1.2.3")
        .tools(table![fail, evolve, get_state, mutate, create_thing, slow, detach])
        .build()
        .unwrap()
}

/// A running server; dropping `stop` shuts it down.
pub struct Running {
    pub addr: SocketAddr,
    /// The server served, whose state a test may look at.
    pub server: Server<()>,
    pub stop: Option<oneshot::Sender<()>>,
    pub done: tokio::task::JoinHandle<std::io::Result<()>>,
}

pub async fn start(options: HttpOptions) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let server = server();
    let done = tokio::spawn(Http::new(server.clone()).options(options).serve(listener, async move {
        let _ = stopped.await;
    }));
    Running { addr, server, stop: Some(stop), done }
}

pub struct Reply {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|_| panic!("not JSON: {:?}", self.body))
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// One keep-alive connection to `addr`, for requests sent one after another.
pub async fn keep_alive(addr: SocketAddr) -> hyper::client::conn::http1::SendRequest<Full<Bytes>> {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(conn);
    sender
}

/// One request on a new connection; the whole body is read.
pub async fn send(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut sender = keep_alive(addr).await;
    let mut req = hyper::Request::builder().method(method).uri(path).header("host", addr.to_string());
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let response = sender.send_request(req.body(Full::new(Bytes::from(body.to_owned()))).unwrap()).await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = tokio::time::timeout(Duration::from_secs(10), response.into_body().collect())
        .await
        .expect("the body ends")
        .unwrap()
        .to_bytes();
    Reply { status, headers, body }
}

//! `golden record --out FILE --listen ADDR --upstream http://HOST:PORT/mcp`: a reverse proxy in
//! front of a Streamable HTTP server. Every request is forwarded with its method, path, query and
//! headers (the hop-by-hop ones aside, `Host` set to the upstream's), and every response comes
//! back the same way; an event stream is relayed event by event as it comes. The JSON-RPC
//! messages in request bodies, JSON responses and event streams are recorded; the credentials in
//! request headers are redacted wherever a message repeats them, and the headers themselves are
//! never written.
//!
//! ```
//! use tooltable_golden::record::http::authority_of;
//!
//! assert_eq!(authority_of("http://127.0.0.1:8080/mcp").as_deref(), Ok("127.0.0.1:8080"));
//! assert!(authority_of("https://example.com/mcp").is_err(), "the proxy speaks plain HTTP to its upstream");
//! ```

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;

use http_body_util::channel::{Channel, Sender};
use http_body_util::{BodyExt, Either, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HOST, HeaderMap, HeaderValue};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};

use super::Recorder;
use crate::client::SseParser;

/// The largest request or JSON response body relayed (an MCP message is far smaller).
pub const MAX_BODY: usize = 16 * 1024 * 1024;

/// Headers that belong to one connection, not to the request or response (RFC 9110 §7.6.1).
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "proxy-authenticate",
];

/// Request headers whose values are credentials.
const CREDENTIAL_HEADER_WORDS: [&str; 5] = ["authorization", "key", "token", "secret", "cookie"];

type Body = Either<Full<Bytes>, Channel<Bytes>>;

/// Where requests go.
struct Upstream {
    authority: String,
}

/// The `host:port` of an `http://host:port/path` URL.
pub fn authority_of(url: &str) -> Result<String, String> {
    let rest = url.strip_prefix("http://").ok_or_else(|| format!("not an http:// URL: {url}"))?;
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.is_empty() {
        return Err(format!("no host in {url}"));
    }
    Ok(authority.to_owned())
}

/// Serves `listener` as a proxy of `upstream` until `shutdown` completes.
pub async fn proxy(
    listener: TcpListener,
    upstream: &str,
    recorder: Recorder,
    shutdown: impl Future<Output = ()>,
) -> Result<(), String> {
    let upstream = Arc::new(Upstream { authority: authority_of(upstream)? });
    tokio::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // A failed accept (too many open files, say) is the one connection's loss.
                Err(_) => continue,
            },
            () = &mut shutdown => return Ok(()),
        };
        let (upstream, recorder) = (Arc::clone(&upstream), recorder.clone());
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let (upstream, recorder) = (Arc::clone(&upstream), recorder.clone());
                async move { Ok::<_, Infallible>(forward(req, &upstream, &recorder).await.unwrap_or_else(bad_gateway)) }
            });
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

/// A refusal of the recorder's own, `502 Bad Gateway` unless changed.
fn bad_gateway(message: String) -> Response<Body> {
    let mut response = Response::new(Either::Left(Full::new(Bytes::from(format!("golden record: {message}\n")))));
    *response.status_mut() = StatusCode::BAD_GATEWAY;
    response
}

async fn forward(req: Request<Incoming>, upstream: &Upstream, recorder: &Recorder) -> Result<Response<Body>, String> {
    let (parts, body) = req.into_parts();
    for (name, value) in &parts.headers {
        let name = name.as_str();
        if CREDENTIAL_HEADER_WORDS.iter().any(|w| name.contains(w))
            && let Ok(value) = value.to_str()
        {
            recorder.secret(value);
            recorder.secret(value.split_once(' ').map_or(value, |(_, credential)| credential));
        }
    }
    let Ok(body) = Limited::new(body, MAX_BODY).collect().await.map(|b| b.to_bytes()) else {
        let mut response = bad_gateway(format!("a request body over {MAX_BODY} bytes, or cut short"));
        *response.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
        return Ok(response);
    };
    if let Some(msg) = jsonrpc(&body) {
        recorder.message(&msg, true)?;
    }
    let mut request =
        Request::builder().method(parts.method).uri(parts.uri.path_and_query().map_or("/", |p| p.as_str()));
    if let Some(headers) = request.headers_mut() {
        *headers = end_to_end(&parts.headers);
        let host = HeaderValue::from_str(&upstream.authority).map_err(|e| e.to_string())?;
        headers.insert(HOST, host);
    }
    let request = request.body(Full::new(body)).map_err(|e| e.to_string())?;
    let stream = TcpStream::connect(&upstream.authority).await.map_err(|e| format!("{}: {e}", upstream.authority))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let response = sender.send_request(request).await.map_err(|e| format!("{}: {e}", upstream.authority))?;
    let (parts, body) = response.into_parts();
    let kind = parts.headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let body = if kind.starts_with("text/event-stream") {
        let (sender, channel) = Channel::new(16);
        tokio::spawn(relay_events(body, sender, recorder.clone()));
        Either::Right(channel)
    } else {
        let bytes =
            Limited::new(body, MAX_BODY).collect().await.map_err(|e| format!("the response body: {e}"))?.to_bytes();
        if kind.starts_with("application/json")
            && let Some(msg) = jsonrpc(&bytes)
        {
            recorder.message(&msg, false)?;
        }
        Either::Left(Full::new(bytes))
    };
    let mut response = Response::new(body);
    *response.status_mut() = parts.status;
    *response.headers_mut() = end_to_end(&parts.headers);
    if matches!(response.body(), Either::Right(_)) {
        response.headers_mut().remove(hyper::header::CONTENT_LENGTH);
    }
    Ok(response)
}

/// Passes an event stream on chunk by chunk, recording each event's message before its chunk.
async fn relay_events(mut body: Incoming, mut sender: Sender<Bytes>, recorder: Recorder) {
    let mut parser = SseParser::default();
    while let Some(Ok(frame)) = body.frame().await {
        let Ok(data) = frame.into_data() else { continue };
        for event in parser.feed(&data) {
            if recorder.received(event.as_bytes()).is_err() {
                return;
            }
        }
        // The client went away: so does the upstream stream, when `body` drops.
        if sender.send_data(data).await.is_err() {
            return;
        }
    }
}

/// The JSON-RPC message (or batch) a body holds; not the other JSON an endpoint may answer
/// (a session's deletion, an error page).
fn jsonrpc(body: &[u8]) -> Option<serde_json::Value> {
    let msg: serde_json::Value = serde_json::from_slice(body).ok()?;
    let one = |m: &serde_json::Value| m.get("jsonrpc").is_some();
    let is_message = match &msg {
        serde_json::Value::Array(batch) => !batch.is_empty() && batch.iter().all(one),
        single => one(single),
    };
    is_message.then_some(msg)
}

fn end_to_end(headers: &HeaderMap) -> HeaderMap {
    let mut kept = headers.clone();
    for name in HOP_BY_HOP {
        kept.remove(name);
    }
    kept.remove(HOST);
    kept
}

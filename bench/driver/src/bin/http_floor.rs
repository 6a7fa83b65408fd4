//! `http-floor`: the least any HTTP server on this stack can do per request.
//!
//! hyper 1.x, HTTP/1.1 (`hyper::server::conn::http1`, as tooltable's `serve`), on a
//! multi-threaded tokio runtime, `TCP_NODELAY` on every accepted connection. Every request, whatever
//! its method, path or body, is answered `200` with `Content-Type: application/json` and a fixed body:
//! the same bytes tooltable's `/mcp` sends back for `add_numbers` with `{"a":1,"b":2}` (id 1) in a
//! session, or, with `stateless`, in revision 2026-07-28, whose results are longer. A request body
//! is read to its end (and dropped) before answering, so a POST costs what it costs.
//!
//! Usage: `http-floor [ADDR] [stateless]` (default `127.0.0.1:0`); prints `listening on
//! http://ADDR` on stderr.

use std::convert::Infallible;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;

const BODY: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\n  \"sum\": 3\n}"}],"structuredContent":{"sum":3},"isError":false}}"#;

/// [`BODY`] as revision 2026-07-28 answers: `resultType` first, the server's identity in `_meta`.
const STATELESS_BODY: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"{\n  \"sum\": 3\n}"}],"structuredContent":{"sum":3},"isError":false,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"conformance-server","version":"0.1.0"}}}}"#;

async fn answer(req: Request<Incoming>, body: &'static [u8]) -> Result<Response<Full<Bytes>>, Infallible> {
    // Drain the body (a POST's JSON), as any real server must before it can answer.
    let _ = req.into_body().collect().await;
    let mut response = Response::new(Full::new(Bytes::from_static(body)));
    response
        .headers_mut()
        .insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
    Ok(response)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let body = match std::env::args().nth(2).as_deref() {
        Some("stateless") => STATELESS_BODY,
        _ => BODY,
    };
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("listening on http://{}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(move |req| answer(req, body)))
                .await;
        });
    }
}

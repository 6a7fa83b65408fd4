//! `Http::nest`: a prefix of the server's own served beside the endpoint and the REST routes,
//! passing the Origin and Host checks and the body limit, but not the API key, which its handler
//! replaces with its own.

use std::sync::Arc;

use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;
use tokio::net::TcpListener;
use tooltable_transports::http::{ApiKey, Http, HttpOptions, NestedHandler};

use crate::support::{send, server};

/// Echoes the path and the body's length, or the refusal of a body over the limit.
fn echo() -> NestedHandler {
    Arc::new(|request| {
        Box::pin(async move {
            let path = request.uri().path().to_owned();
            let text = match request.into_body().collect().await {
                Ok(body) => format!("{path} {}", body.to_bytes().len()),
                Err(e) => format!("{path} refused: {e}"),
            };
            hyper::Response::new(Full::new(Bytes::from(text)).map_err(|never| match never {}).boxed())
        })
    })
}

#[tokio::test]
async fn a_nested_prefix_is_served_by_its_handler_behind_the_origin_check_without_the_key() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let options =
        HttpOptions { api_key: Some(ApiKey::new("k3y").unwrap()), max_body_bytes: 64, ..HttpOptions::default() };
    let http = Http::new(server()).options(options).nest("/pages/", echo());
    tokio::spawn(http.serve(listener, std::future::pending()));

    for path in ["/pages", "/pages/", "/pages/a/b"] {
        let page = send(addr, "GET", path, &[], "").await;
        assert_eq!((page.status, String::from_utf8_lossy(&page.body).into_owned()), (200, format!("{path} 0")));
    }
    let posted = send(addr, "POST", "/pages/form", &[], "field=1").await;
    assert_eq!(String::from_utf8_lossy(&posted.body), "/pages/form 7");
    let huge = send(addr, "POST", "/pages/form", &[], &"x".repeat(65)).await;
    assert!(String::from_utf8_lossy(&huge.body).starts_with("/pages/form refused"), "{:?}", huge.body);
    // Only the prefix and what is below it.
    assert_eq!(send(addr, "GET", "/pagesx", &[], "").await.status, 401);
    assert_eq!(send(addr, "GET", "/openapi.json", &[], "").await.status, 401, "the key still guards the rest");
    let foreign = send(addr, "GET", "/pages/a", &[("origin", "http://evil.example")], "").await;
    assert_eq!(foreign.status, 403, "the Origin check applies");
}

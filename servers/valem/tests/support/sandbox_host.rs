//! The sandbox's routes served over HTTP by the test process, on a loopback port, on a clock the
//! test may move forward, in front of the same server's MCP and REST service; and a developer who approves or denies from the verification page as
//! its script does (the page's CSRF cookie and token sent back).

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{Value, json};
use tooltable_transports::forward::{self, Options};
use tooltable_transports::http::Http;
use valem::sandbox::{Sandbox, SandboxLimits};

pub struct Host {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    mints: Arc<AtomicUsize>,
    ahead: Arc<Mutex<Duration>>,
    pub runtime: tokio::runtime::Runtime,
}

impl Host {
    /// The sandbox, and every other path served by the MCP and REST service of the same
    /// server (for the agent's model calls and its follower of updates).
    pub fn start(limits: SandboxLimits) -> Host {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let ahead = Arc::new(Mutex::new(Duration::ZERO));
        let clock = Arc::clone(&ahead);
        let server = valem::server().unwrap();
        let sandbox =
            Sandbox::with_clock(server.clone(), limits, Arc::new(move || Instant::now() + *clock.lock().unwrap()));
        let service = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let service_url = format!("http://{}", service.local_addr().unwrap());
        runtime.spawn(Http::new(server).serve(service, std::future::pending()));
        let mints = Arc::new(AtomicUsize::new(0));
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let relay = Relay { client: Client::builder(TokioExecutor::new()).build_http(), to: service_url };
        let (served, counted, relay) = (Arc::clone(&sandbox), Arc::clone(&mints), Arc::new(relay));
        runtime.spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (sandbox, mints, relay) = (Arc::clone(&served), Arc::clone(&counted), Arc::clone(&relay));
                let service = service_fn(move |request: hyper::Request<Incoming>| {
                    let (sandbox, mints, relay) = (Arc::clone(&sandbox), Arc::clone(&mints), Arc::clone(&relay));
                    async move {
                        if request.method() == hyper::Method::POST && request.uri().path() == "/sandbox/pair" {
                            mints.fetch_add(1, Ordering::SeqCst);
                        }
                        let response = match Sandbox::owns(request.uri().path()) {
                            true => sandbox.handle(request).await.map(|body| body.map_err(|never| match never {}).boxed()),
                            false => relay.send(request).await,
                        };
                        Ok::<_, Infallible>(response)
                    }
                });
                tokio::spawn(http1::Builder::new().serve_connection(TokioIo::new(stream), service));
            }
        });
        Host { url, mints, ahead, runtime }
    }

    /// How many pairings were minted.
    pub fn mints(&self) -> usize {
        self.mints.load(Ordering::SeqCst)
    }

    /// Moves the sandbox's clock forward.
    pub fn later(&self, secs: u64) {
        *self.ahead.lock().unwrap() += Duration::from_secs(secs);
    }

    pub fn developer(&self) -> Developer {
        Developer { client: forward::Client::new(&self.url, &Options::default()).unwrap(), cookies: Vec::new() }
    }
}

type Body = BoxBody<Bytes, Box<dyn std::error::Error + Send + Sync>>;

/// Passes a request on to the MCP and REST service, as the sandbox's host does with what is
/// not the sandbox's.
struct Relay {
    client: Client<HttpConnector, Incoming>,
    to: String,
}

impl Relay {
    async fn send(&self, request: hyper::Request<Incoming>) -> hyper::Response<Body> {
        let (mut head, body) = request.into_parts();
        let path = head.uri.path_and_query().map_or("/", |p| p.as_str());
        head.uri = format!("{}{path}", self.to).parse().unwrap();
        match self.client.request(hyper::Request::from_parts(head, body)).await {
            Ok(response) => response.map(|body| body.map_err(Into::into).boxed()),
            Err(e) => {
                let mut response = hyper::Response::new(Full::new(Bytes::from(e.to_string())).map_err(Into::into).boxed());
                *response.status_mut() = hyper::StatusCode::BAD_GATEWAY;
                response
            }
        }
    }
}

/// A browser on the verification page.
pub struct Developer {
    client: forward::Client,
    cookies: Vec<(String, String)>,
}

impl Developer {
    /// Opens the verification page and clicks Approve with `user_code`: the answer's status and
    /// body.
    pub fn approve(&mut self, host: &Host, user_code: &str) -> (u16, Value) {
        self.decide(host, "approve", user_code)
    }

    pub fn deny(&mut self, host: &Host, user_code: &str) -> (u16, Value) {
        self.decide(host, "deny", user_code)
    }

    fn decide(&mut self, host: &Host, action: &str, user_code: &str) -> (u16, Value) {
        host.runtime.block_on(async {
            let page = self.send(hyper::Method::GET, "/sandbox/verify", None).await;
            assert_eq!(page.status, 200);
            let token = self.cookie("valem_csrf").expect("the page's token");
            let body = json!({ "userCode": user_code });
            let extra = [(hyper::header::HeaderName::from_static("x-csrf-token"), token.parse().unwrap())];
            let answer = self.send_with(hyper::Method::POST, &format!("/sandbox/{action}"), Some(&body), &extra).await;
            (answer.status, serde_json::from_slice(&answer.body).unwrap_or(Value::Null))
        })
    }

    async fn send(
        &mut self,
        method: hyper::Method,
        path: &str,
        body: Option<&Value>,
    ) -> tooltable_transports::forward::Answer {
        self.send_with(method, path, body, &[]).await
    }

    async fn send_with(
        &mut self,
        method: hyper::Method,
        path: &str,
        body: Option<&Value>,
        extra: &[(hyper::header::HeaderName, hyper::header::HeaderValue)],
    ) -> tooltable_transports::forward::Answer {
        let cookie = self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ");
        let mut headers = extra.to_vec();
        if !cookie.is_empty() {
            headers.push((hyper::header::COOKIE, cookie.parse().unwrap()));
        }
        let answer = self.client.send_with(&method, path, body, &headers).await.expect("the sandbox answers");
        for set in answer.headers.get_all(hyper::header::SET_COOKIE) {
            let pair = set.to_str().unwrap().split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            self.cookies.retain(|(k, _)| k != name);
            self.cookies.push((name.to_owned(), value.to_owned()));
        }
        answer
    }

    fn cookie(&self, name: &str) -> Option<String> {
        self.cookies.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }
}

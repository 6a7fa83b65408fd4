//! The sandbox served over HTTP by the test process, as `valem serve --sandbox` serves it (its
//! routes nested at `/sandbox`, the session gate in front of the MCP and REST service of the same
//! server), on a loopback port and on a clock the test may move forward; and a developer who
//! approves or denies from the verification page as its script does (the page's CSRF cookie and
//! token sent back).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use serde_json::{Value, json};
use tooltable_transports::forward::{self, Options};
use tooltable_transports::http::{Http, NestedHandler, NestedRequest};
use valem::sandbox::{Response, Sandbox, SandboxLimits};

pub struct Host {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    mints: Arc<AtomicUsize>,
    ahead: Arc<Mutex<Duration>>,
    pub runtime: tokio::runtime::Runtime,
}

impl Host {
    pub fn start(limits: SandboxLimits) -> Host {
        Host::serve(limits, false)
    }

    /// A host whose developer approves each pairing once its agent has polled it and been told
    /// to wait (so that the agent sees it pending first, then paired).
    pub fn approving(limits: SandboxLimits) -> Host {
        Host::serve(limits, true)
    }

    fn serve(limits: SandboxLimits, approving: bool) -> Host {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let ahead = Arc::new(Mutex::new(Duration::ZERO));
        let clock = Arc::clone(&ahead);
        let server = valem::server().unwrap();
        let sandbox =
            Sandbox::with_clock(server.clone(), limits, Arc::new(move || Instant::now() + *clock.lock().unwrap()));
        let mints = Arc::new(AtomicUsize::new(0));
        let watched = Watched {
            handler: sandbox.handler(),
            sandbox: Arc::clone(&sandbox),
            mints: Arc::clone(&mints),
            minted: Mutex::default(),
            approving,
        };
        let watched = Arc::new(watched);
        let handler: NestedHandler = Arc::new(move |request| {
            let watched = Arc::clone(&watched);
            Box::pin(async move { watched.answer(request).await })
        });
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let http = Http::new(server).nest(valem::sandbox::PATH, handler).gate(sandbox.gate());
        runtime.spawn(http.serve(listener, std::future::pending()));
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
        Developer::at(&self.url, self.runtime.handle())
    }
}

/// The sandbox's routes, counting the mints, and approving when the host does.
struct Watched {
    handler: NestedHandler,
    sandbox: Arc<Sandbox>,
    mints: Arc<AtomicUsize>,
    /// The user codes of the pairings minted and not yet approved.
    minted: Mutex<Vec<String>>,
    approving: bool,
}

impl Watched {
    async fn answer(&self, request: NestedRequest) -> Response {
        let path = (request.method().clone(), request.uri().path().to_owned());
        let response = (self.handler)(request).await;
        match (path.0.as_str(), path.1.as_str()) {
            ("POST", "/sandbox/pair") => {
                self.mints.fetch_add(1, Ordering::SeqCst);
                let (head, body) = response.into_parts();
                let body = body.collect().await.unwrap().to_bytes();
                if let Some(code) =
                    serde_json::from_slice::<Value>(&body).ok().and_then(|m| m["userCode"].as_str().map(str::to_owned))
                {
                    self.minted.lock().unwrap().push(code);
                }
                http::Response::from_parts(head, Full::new(body).boxed())
            }
            ("POST", "/sandbox/pair/token") if self.approving && response.status() == http::StatusCode::CONFLICT => {
                let codes = std::mem::take(&mut *self.minted.lock().unwrap());
                for code in codes {
                    let approved = approve(&self.sandbox, &code).await;
                    assert_eq!(approved.status(), http::StatusCode::OK, "the developer approves {code}");
                }
                response
            }
            _ => response,
        }
    }
}

/// Approves the pairing of `user_code` in process, as the verification page's script does.
async fn approve(sandbox: &Arc<Sandbox>, user_code: &str) -> Response {
    const HOST: &str = "127.0.0.1";
    let request = |method: &str, path: &str| http::Request::builder().method(method).uri(path).header("host", HOST);
    let page = sandbox.handle(request("GET", "/sandbox/verify").body(Full::new(Bytes::new())).unwrap()).await;
    let csrf = page
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|cookie| cookie.split(';').next()?.strip_prefix("valem_csrf=").map(str::to_owned));
    let csrf = csrf.expect("the page sets its token");
    let body = Bytes::from(json!({ "userCode": user_code }).to_string());
    let approve = request("POST", "/sandbox/approve")
        .header("cookie", format!("valem_csrf={csrf}"))
        .header("x-csrf-token", &csrf)
        .body(Full::new(body))
        .unwrap();
    sandbox.handle(approve).await
}

/// A browser on the verification page.
pub struct Developer {
    client: forward::Client,
    cookies: Vec<(String, String)>,
    runtime: tokio::runtime::Handle,
}

impl Developer {
    /// A browser of the sandbox at `url` (`http://127.0.0.1:PORT`), its requests run on `runtime`.
    pub fn at(url: &str, runtime: &tokio::runtime::Handle) -> Developer {
        let client = forward::Client::new(url, &Options::default()).unwrap();
        Developer { client, cookies: Vec::new(), runtime: runtime.clone() }
    }

    /// Opens the verification page and clicks Approve with `user_code`: the answer's status and
    /// body.
    pub fn approve(&mut self, user_code: &str) -> (u16, Value) {
        self.decide("approve", user_code)
    }

    pub fn deny(&mut self, user_code: &str) -> (u16, Value) {
        self.decide("deny", user_code)
    }

    fn decide(&mut self, action: &str, user_code: &str) -> (u16, Value) {
        let runtime = self.runtime.clone();
        runtime.block_on(async {
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

//! The sandbox's routes called in process, on a clock the tests move: the device flow from mint
//! to a spent code, the verification page's approve and deny and their CSRF check, the bounds,
//! the sessions' credentials and namespaces, the pages' API and their event streams.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{COOKIE, HOST, ORIGIN, RETRY_AFTER, SET_COOKIE};
use http::{Request, StatusCode};
use http_body_util::{BodyExt as _, Full};
use serde_json::{Value, json};

use super::*;

struct Bench {
    sandbox: Arc<Sandbox>,
    now: Arc<Mutex<Instant>>,
}

/// A browser: the cookies it was given.
#[derive(Default, Clone)]
struct Browser {
    cookies: Vec<(String, String)>,
}

struct Answer {
    status: StatusCode,
    headers: http::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    fn error(&self) -> (StatusCode, String) {
        (self.status, self.json()["error"].as_str().unwrap_or_default().to_owned())
    }
}

impl Bench {
    fn new(limits: SandboxLimits) -> Bench {
        let now = Arc::new(Mutex::new(Instant::now()));
        let clock = Arc::clone(&now);
        let server = crate::server().unwrap();
        Bench { sandbox: Sandbox::with_clock(server, limits, Arc::new(move || *clock.lock().unwrap())), now }
    }

    fn later(&self, secs: u64) {
        *self.now.lock().unwrap() += Duration::from_secs(secs);
    }

    async fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: Option<Value>) -> Answer {
        let mut request = Request::builder().method(method).uri(path).header(HOST, "127.0.0.1:8080");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let body = Full::new(body.map_or_else(Bytes::new, |b| Bytes::from(b.to_string())));
        let response = self.sandbox.handle(request.body(body).unwrap()).await;
        let (head, body) = response.into_parts();
        Answer { status: head.status, headers: head.headers, body: body.collect().await.unwrap().to_bytes().to_vec() }
    }

    async fn mint(&self) -> Value {
        let minted = self.send("POST", "/sandbox/pair", &[], None).await;
        assert_eq!(minted.status, StatusCode::OK, "{}", minted.text());
        minted.json()
    }

    async fn poll(&self, minted: &Value) -> Answer {
        let body = json!({ "pairCode": minted["pairCode"], "deviceSecret": minted["deviceSecret"] });
        self.send("POST", "/sandbox/pair/token", &[], Some(body)).await
    }

    /// What a browser does on a page: it loads it (keeping the cookies it sets) and sends what
    /// its script sends, with the page's token.
    async fn page(&self, browser: &mut Browser, path: &str) -> Answer {
        let cookie = browser.header();
        let page = self.send("GET", path, &[("cookie", &cookie)], None).await;
        browser.keep(&page);
        page
    }

    async fn scripted(&self, browser: &mut Browser, method: &str, path: &str, body: Option<Value>) -> Answer {
        let (cookie, token) = (browser.header(), browser.cookie(csrf::COOKIE).unwrap_or_default());
        let answer = self.send(method, path, &[("cookie", &cookie), (csrf::HEADER, &token)], body).await;
        browser.keep(&answer);
        answer
    }

    /// A browser that loaded the verification page and approved `minted`'s code.
    async fn approved(&self, minted: &Value) -> Browser {
        let mut browser = Browser::default();
        self.page(&mut browser, "/sandbox/verify").await;
        let approved = self
            .scripted(&mut browser, "POST", "/sandbox/approve", Some(json!({ "userCode": minted["userCode"] })))
            .await;
        assert_eq!(approved.status, StatusCode::OK, "{}", approved.text());
        browser
    }

    /// A paired session: its browser, and the agent's token and namespace.
    async fn paired(&self) -> (Browser, String, String) {
        let minted = self.mint().await;
        let browser = self.approved(&minted).await;
        let paired = self.poll(&minted).await.json();
        (browser, paired["sessionToken"].as_str().unwrap().into(), paired["namespaceId"].as_str().unwrap().into())
    }

    async fn create(&self, namespace: &str, id: &str) {
        let spec = json!({
            "id": crate::namespace::qualified(namespace, id),
            "schema": { "type": "object", "properties": { "price": { "type": "number", "minimum": 0 }, "qty": { "type": "integer" } } },
            "derivations": [{ "path": "$.total", "expr": "price * qty" }],
            "constraints": [{ "id": "small", "expr": "$not($exists(total)) or total < 1000", "message": "a big order", "policy": "flag" }],
            "viewDefinition": { "views": [{ "id": "main", "label": "Order", "components": [
                { "id": "price", "type": "currencyField", "bind": "$.price", "label": "Price" },
                { "id": "qty", "type": "numericField", "bind": "$.qty", "label": "Quantity" },
                { "id": "total", "type": "statTile", "bind": "$.total", "label": "Total" },
            ] }] },
        });
        self.sandbox.call(namespace, "create_model", json!({ "spec": spec })).await.unwrap();
    }
}

impl Browser {
    fn header(&self) -> String {
        self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")
    }
    fn cookie(&self, name: &str) -> Option<String> {
        self.cookies.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }
    fn keep(&mut self, answer: &Answer) {
        for set in answer.headers.get_all(SET_COOKIE) {
            let (pair, _) = set.to_str().unwrap().split_once(';').unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            self.cookies.retain(|(k, _)| k != name);
            self.cookies.push((name.into(), value.into()));
        }
    }
}

fn bits(secret: &Value) -> usize {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(secret.as_str().unwrap()).unwrap().len() * 8
}

#[tokio::test]
async fn a_pairing_is_minted_approved_in_the_browser_and_told_once() {
    let bench = Bench::new(SandboxLimits::DEFAULT);
    let minted = bench.mint().await;
    assert!(bits(&minted["pairCode"]) >= 128 && bits(&minted["deviceSecret"]) >= 128, "{minted}");
    let code = minted["userCode"].as_str().unwrap();
    assert!(code.len() == 9 && &code[4..5] == "-", "{code}");
    assert_eq!(minted["verificationUri"], "http://127.0.0.1:8080/sandbox/verify");
    assert_eq!(minted["verificationUriComplete"], format!("http://127.0.0.1:8080/sandbox/verify#c={code}"));
    assert_eq!((minted["expiresInSec"].clone(), minted["intervalSec"].clone()), (json!(600), json!(5)));

    assert_eq!(bench.poll(&minted).await.error(), (StatusCode::CONFLICT, "authorization_pending".into()));
    let mut browser = Browser::default();
    let page = bench.page(&mut browser, "/sandbox/verify").await;
    assert_eq!(page.status, StatusCode::OK);
    let token = browser.cookie(csrf::COOKIE).expect("the page sets its CSRF cookie");
    assert!(page.text().contains(&format!("<meta name=\"csrf-token\" content=\"{token}\">")));
    let policy = page.headers["content-security-policy"].to_str().unwrap();
    assert!(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"), "{policy}");

    let approved = bench.scripted(&mut browser, "POST", "/sandbox/approve", Some(json!({ "userCode": code }))).await;
    assert_eq!(approved.status, StatusCode::OK, "{}", approved.text());
    let namespace = approved.json()["namespaceId"].as_str().unwrap().to_owned();
    let set: Vec<&str> = approved.headers.get_all(SET_COOKIE).iter().map(|v| v.to_str().unwrap()).collect();
    let session_cookie = set.iter().find(|c| c.starts_with("valem_session=")).expect("the session cookie");
    assert!(session_cookie.ends_with("; Path=/; HttpOnly; SameSite=Strict"), "{session_cookie}");

    bench.later(5);
    let paired = bench.poll(&minted).await;
    assert_eq!(paired.status, StatusCode::OK, "{}", paired.text());
    let paired = paired.json();
    assert_eq!(paired["namespaceId"], namespace.as_str());
    assert!(bits(&paired["sessionToken"]) >= 256);
    assert_ne!(paired["sessionToken"].as_str(), browser.cookie(SESSION_COOKIE).as_deref(), "each holder its own");
    assert_eq!(bench.poll(&minted).await.error(), (StatusCode::BAD_REQUEST, "invalid_grant".into()), "a spent code");
    let again = bench.scripted(&mut browser, "POST", "/sandbox/approve", Some(json!({ "userCode": code }))).await;
    assert_eq!(again.error().0, StatusCode::NOT_FOUND, "its user code is gone with it");
}

#[tokio::test]
async fn approving_needs_the_page_token_from_this_origin() {
    let bench = Bench::new(SandboxLimits::DEFAULT);
    let minted = bench.mint().await;
    let body = Some(json!({ "userCode": minted["userCode"] }));
    let bare = bench.send("POST", "/sandbox/approve", &[], body.clone()).await;
    assert_eq!(bare.error(), (StatusCode::FORBIDDEN, "csrf".into()));
    let mut browser = Browser::default();
    bench.page(&mut browser, "/sandbox/verify").await;
    let (cookie, token) = (browser.header(), browser.cookie(csrf::COOKIE).unwrap());
    let forged = [("cookie", cookie.as_str()), (csrf::HEADER, "another"), ("origin", "http://127.0.0.1:8080")];
    assert_eq!(bench.send("POST", "/sandbox/approve", &forged, body.clone()).await.error().0, StatusCode::FORBIDDEN);
    let elsewhere = [("cookie", cookie.as_str()), (csrf::HEADER, &token), (ORIGIN.as_str(), "http://evil.example")];
    assert_eq!(bench.send("POST", "/sandbox/approve", &elsewhere, body.clone()).await.error().0, StatusCode::FORBIDDEN);
    assert_eq!(bench.poll(&minted).await.error().1, "authorization_pending", "nothing was approved");
}

#[tokio::test]
async fn a_denied_pairing_is_told_access_denied() {
    let bench = Bench::new(SandboxLimits::DEFAULT);
    let minted = bench.mint().await;
    let mut browser = Browser::default();
    bench.page(&mut browser, "/sandbox/verify").await;
    let denied =
        bench.scripted(&mut browser, "POST", "/sandbox/deny", Some(json!({ "userCode": minted["userCode"] }))).await;
    assert_eq!(denied.status, StatusCode::OK);
    assert!(browser.cookie(SESSION_COOKIE).is_none(), "no session");
    assert_eq!(bench.poll(&minted).await.error(), (StatusCode::FORBIDDEN, "access_denied".into()));
    assert_eq!(bench.poll(&minted).await.error().1, "invalid_grant");
}

#[tokio::test]
async fn an_expired_pairing_is_told_expired_token_and_cannot_be_approved() {
    let bench = Bench::new(SandboxLimits::DEFAULT);
    let minted = bench.mint().await;
    bench.later(600);
    let mut browser = Browser::default();
    bench.page(&mut browser, "/sandbox/verify").await;
    let late =
        bench.scripted(&mut browser, "POST", "/sandbox/approve", Some(json!({ "userCode": minted["userCode"] }))).await;
    assert_eq!(late.error(), (StatusCode::GONE, "expired_token".into()));
    assert_eq!(bench.poll(&minted).await.error(), (StatusCode::GONE, "expired_token".into()));
}

#[tokio::test]
async fn polling_faster_than_the_interval_is_slowed_down() {
    let bench = Bench::new(SandboxLimits::DEFAULT);
    let minted = bench.mint().await;
    assert_eq!(bench.poll(&minted).await.error().1, "authorization_pending");
    bench.later(4);
    let fast = bench.poll(&minted).await;
    assert_eq!(fast.error(), (StatusCode::TOO_MANY_REQUESTS, "slow_down".into()));
    assert_eq!((fast.json()["intervalSec"].clone(), fast.headers[RETRY_AFTER].to_str().unwrap()), (json!(5), "5"));
    bench.later(5);
    assert_eq!(bench.poll(&minted).await.error().1, "authorization_pending", "still waiting, not ended");
}

#[tokio::test]
async fn wrong_user_codes_are_refused_and_capped_per_pairing() {
    let bench = Bench::new(SandboxLimits { max_wrong_codes: 3, ..SandboxLimits::DEFAULT });
    let minted = bench.mint().await;
    let mut browser = Browser::default();
    bench.page(&mut browser, "/sandbox/verify").await;
    let real = minted["userCode"].as_str().unwrap();
    let wrong = if real == "BBBB-BBBB" { "CCCC-CCCC" } else { "BBBB-BBBB" };
    let typo = bench.scripted(&mut browser, "POST", "/sandbox/approve", Some(json!({ "userCode": "B1" }))).await;
    assert_eq!(typo.error(), (StatusCode::BAD_REQUEST, "invalid_user_code".into()));
    for _ in 0..3 {
        let refused =
            bench.scripted(&mut browser, "POST", "/sandbox/approve", Some(json!({ "userCode": wrong }))).await;
        assert_eq!(refused.error(), (StatusCode::NOT_FOUND, "invalid_user_code".into()));
    }
    let right = bench.scripted(&mut browser, "POST", "/sandbox/approve", Some(json!({ "userCode": real }))).await;
    assert_eq!(right.error(), (StatusCode::CONFLICT, "already_decided".into()), "three wrong codes denied it");
    let denied = bench.poll(&minted).await;
    assert_eq!(denied.error(), (StatusCode::FORBIDDEN, "access_denied".into()));
    assert!(denied.json()["error_description"].as_str().unwrap().contains("wrong user codes"));
}

#[tokio::test]
async fn pairings_and_sessions_are_bounded() {
    let bench = Bench::new(SandboxLimits { max_pairings: 2, max_sandbox_sessions: 1, ..SandboxLimits::DEFAULT });
    let (first, second) = (bench.mint().await, bench.mint().await);
    let full = bench.send("POST", "/sandbox/pair", &[], None).await;
    assert_eq!(full.error(), (StatusCode::SERVICE_UNAVAILABLE, "too_many_pairings".into()));
    bench.approved(&first).await;
    let mut browser = Browser::default();
    bench.page(&mut browser, "/sandbox/verify").await;
    let refused =
        bench.scripted(&mut browser, "POST", "/sandbox/approve", Some(json!({ "userCode": second["userCode"] }))).await;
    assert_eq!(refused.error(), (StatusCode::SERVICE_UNAVAILABLE, "too_many_sessions".into()));
    assert_eq!(bench.poll(&second).await.error().1, "authorization_pending", "the refused approval changed nothing");
}

#[tokio::test]
async fn a_session_reaches_its_own_models_only() {
    let bench = Bench::new(SandboxLimits::DEFAULT);
    let (mut browser, token, namespace) = bench.paired().await;
    let (mut other, _, other_namespace) = bench.paired().await;
    bench.create(&namespace, "order").await;
    bench.create(&other_namespace, "theirs").await;

    let listed = bench.send("GET", "/sandbox/api/models", &[(SESSION_HEADER, &token)], None).await;
    assert_eq!(listed.json(), json!({ "namespaceId": namespace, "models": ["order"] }), "the agent's token");
    let listed = bench.page(&mut browser, "/sandbox/api/models").await;
    assert_eq!(listed.json()["models"], json!(["order"]), "the browser's cookie");
    assert_eq!(bench.page(&mut other, "/sandbox/api/models").await.json()["models"], json!(["theirs"]));

    let unpaired = bench.send("GET", "/sandbox/api/models/order/view", &[], None).await;
    assert_eq!(unpaired.error(), (StatusCode::UNAUTHORIZED, "not_paired".into()));
    let foreign = bench.page(&mut other, "/sandbox/api/models/order/view").await;
    assert_eq!(foreign.status, StatusCode::NOT_FOUND, "another session's model is not there for it");
    assert!(!foreign.text().contains("__"), "the namespace is no part of the answer: {}", foreign.text());
    let own = bench.page(&mut browser, "/sandbox/api/models/order/view").await;
    assert_eq!(own.status, StatusCode::OK, "{}", own.text());
    assert_eq!(own.json()["view"]["modelId"], "order", "plain ids come back");
    let made_up = [(SESSION_HEADER, "made-up")];
    assert_eq!(bench.send("GET", "/sandbox/api/models", &made_up, None).await.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_page_writes_by_mutation_and_sees_derived_values_and_refusals() {
    let bench = Bench::new(SandboxLimits::DEFAULT);
    let (mut browser, _, namespace) = bench.paired().await;
    bench.create(&namespace, "order").await;
    bench.page(&mut browser, "/sandbox/models/order").await;
    let path = "/sandbox/api/models/order/mutations";
    let written = bench.scripted(&mut browser, "POST", path, Some(json!({ "$.price": 600, "$.qty": 2 }))).await;
    assert_eq!(written.status, StatusCode::OK, "{}", written.text());
    assert_eq!(written.json()["derivedUpdated"], json!(["$.total"]));
    let view = bench.page(&mut browser, "/sandbox/api/models/order/view").await.json();
    assert_eq!(view["view"]["components"][2]["value"], 1200);
    assert_eq!(
        view["flaggedConstraints"],
        json!([{ "constraintId": "small", "message": "a big order", "policy": "flag" }])
    );

    let refused = bench.scripted(&mut browser, "POST", path, Some(json!({ "$.price": -1 }))).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused.json()["violations"][0]["path"], "$.price");
    let cookie = browser.header();
    let forged = bench.send("POST", path, &[("cookie", &cookie)], Some(json!({ "$.price": 1 }))).await;
    assert_eq!(forged.error(), (StatusCode::FORBIDDEN, "csrf".into()), "a write needs the page's token");
    let patch = json!({ "patch": [{ "op": "replace", "path": "/qty", "value": 1 }] });
    let patched = bench.scripted(&mut browser, "POST", "/sandbox/api/models/order/patch", Some(patch)).await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text());
    let state =
        bench.sandbox.call(&namespace, "get_state", json!({ "id": crate::namespace::qualified(&namespace, "order") }));
    assert_eq!(state.await.unwrap(), json!({ "price": 600, "qty": 1, "total": 600 }));
}

#[tokio::test]
async fn the_pages_are_the_sessions_own() {
    let bench = Bench::new(SandboxLimits::DEFAULT);
    let (mut browser, _, namespace) = bench.paired().await;
    bench.create(&namespace, "acme/order").await;
    let list = bench.page(&mut browser, "/sandbox/").await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(
        list.text().contains(r#"<a href="/sandbox/models/acme%2Forder" data-model-id="acme/order">acme/order</a>"#)
    );
    let page = bench.page(&mut browser, "/sandbox/models/acme%2Forder").await;
    assert!(page.text().contains(r#"data-model-id="acme/order""#), "{}", page.text());
    let mut stranger = Browser::default();
    assert_eq!(bench.page(&mut stranger, "/sandbox/").await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(bench.page(&mut stranger, "/sandbox/models/x").await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(bench.send("GET", "/sandbox/assets/sandbox.js", &[], None).await.status, StatusCode::OK);
    assert_eq!(bench.send("DELETE", "/sandbox/pair", &[], None).await.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(bench.send("GET", "/sandbox/nothing", &[], None).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_model_page_hears_every_change_of_its_model() {
    let bench = Bench::new(SandboxLimits { max_page_streams: 1, ..SandboxLimits::DEFAULT });
    let (browser, _, namespace) = bench.paired().await;
    bench.create(&namespace, "order").await;
    bench.create(&namespace, "other").await;
    let cookie = browser.header();
    let request = |path: &str| {
        Request::builder().uri(path).header(HOST, "h").header(COOKIE, &cookie).body(Full::new(Bytes::new())).unwrap()
    };
    let response = bench.sandbox.handle(request("/sandbox/api/models/order/events")).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let second = bench.sandbox.handle(request("/sandbox/api/models/other/events")).await;
    assert_eq!(second.status(), StatusCode::TOO_MANY_REQUESTS, "one stream per session here");
    let mut body = response.into_body();
    assert_eq!(next(&mut body).await, ": following\n\n");
    let sandbox = &bench.sandbox;
    let id = |m: &str| crate::namespace::qualified(&namespace, m);
    sandbox.call(&namespace, "mutate", json!({ "id": id("other"), "mutations": { "$.qty": 1 } })).await.unwrap();
    sandbox.call(&namespace, "mutate", json!({ "id": id("order"), "mutations": { "$.qty": 2 } })).await.unwrap();
    assert_eq!(next(&mut body).await, "event: changed\ndata: {}\n\n", "the other model's change is not told");
    sandbox.call(&namespace, "delete_model", json!({ "id": id("order") })).await.unwrap();
    assert_eq!(next(&mut body).await, "event: deleted\ndata: {}\n\n");
    assert!(body.frame().await.is_none(), "the stream ends with its model");
    let freed = bench.sandbox.handle(request("/sandbox/api/models/other/events")).await;
    assert_eq!(freed.status(), StatusCode::OK, "its slot was given back");
}

/// The next event of a stream.
async fn next(body: &mut Body) -> String {
    let frame = body.frame().await.unwrap().unwrap();
    String::from_utf8(frame.into_data().unwrap().to_vec()).unwrap()
}

#[tokio::test]
async fn an_idle_session_ends_and_its_models_go_with_it() {
    let bench = Bench::new(SandboxLimits { sandbox_session_idle_secs: 60, ..SandboxLimits::DEFAULT });
    let (_, token, namespace) = bench.paired().await;
    let (_, kept_token, kept_namespace) = bench.paired().await;
    bench.create(&namespace, "order").await;
    bench.create(&kept_namespace, "kept").await;
    bench.later(59);
    assert_eq!(
        bench.send("GET", "/sandbox/api/models", &[(SESSION_HEADER, &kept_token)], None).await.status,
        StatusCode::OK
    );
    bench.later(1);
    let gone = bench.send("GET", "/sandbox/api/models", &[(SESSION_HEADER, &token)], None).await;
    assert_eq!(gone.status, StatusCode::UNAUTHORIZED);
    let models = bench.sandbox.server.state();
    let held = |namespace: &str| {
        let prefix = crate::namespace::prefix(namespace);
        async move { models.ids_under(&prefix, None, 10).await.unwrap().0 }
    };
    // The deletion runs beside the request; it is done once the model is gone.
    for _ in 0..500 {
        if held(&namespace).await.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(held(&namespace).await.is_empty(), "its models are deleted");
    let kept = crate::namespace::qualified(&kept_namespace, "kept");
    assert_eq!(held(&kept_namespace).await, [kept], "the used session's stay");
}

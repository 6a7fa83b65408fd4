//! The server as an OAuth resource server, against an authorization server served in process
//! (its metadata and its key set) and tokens signed here: the metadata and challenges, each
//! refused token with its status and challenge over `/mcp` and REST, the key set fetched again
//! for a rotated key but not for every unknown one.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use http_body_util::Full;
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tooltable::{Cx, Error, Server, table, tool};
use tooltable_transports::http::{Http, HttpOptions, OAuth};

use crate::support::send;

/// Two P-256 keys (PKCS#8 DER), made for these tests only.
const KEY_A: &str = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgoiGm9zEI6u+A+CUZoccHsI6P1FR7sV2EsJC7mCfGw6qhRANCAATZOykpZlZPW+OTMWmVWeIRavrnEWcD/6qMS4bC4YbZXoTX3KwI4L/ghGk9bfCU6IJ+wXOT9VPxVcXjm0xosEEH";
const KEY_B: &str = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgaLUxfAWAYzFlsEFAR08vnVM0hqN2dgyOX9d/VJU0JrahRANCAATYhSW/bglbLSmctAkofxnB//UpjbrFUXWtUIZV7CEGwAuE2NZv6OoVy8v7Z0bWULk1Bn8XlpCqhzLZFtJD0jIM";

fn key(der: &str) -> EncodingKey {
    EncodingKey::from_ec_der(&base64::engine::general_purpose::STANDARD.decode(der).unwrap())
}

/// The public JWK of a key, under `kid`.
fn jwk(der: &str, kid: &str) -> Value {
    let mut jwk = serde_json::to_value(Jwk::from_encoding_key(&key(der), Algorithm::ES256).unwrap()).unwrap();
    jwk["kid"] = json!(kid);
    jwk["use"] = json!("sig");
    jwk
}

/// An authorization server: its RFC 8414 metadata and a key set the test may change; it counts
/// the key set's fetches.
struct AuthorizationServer {
    issuer: String,
    keys: Arc<Mutex<Value>>,
    fetches: Arc<AtomicUsize>,
}

async fn authorization_server(keys: Value) -> AuthorizationServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let keys = Arc::new(Mutex::new(keys));
    let fetches = Arc::new(AtomicUsize::new(0));
    let (served_keys, counted, metadata) = (
        Arc::clone(&keys),
        Arc::clone(&fetches),
        json!({
            "issuer": issuer, "jwks_uri": format!("{issuer}/jwks"), "token_endpoint": format!("{issuer}/token"),
        }),
    );
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let (keys, counted, metadata) = (Arc::clone(&served_keys), Arc::clone(&counted), metadata.clone());
            let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                let body = match req.uri().path() {
                    "/.well-known/oauth-authorization-server" => Some(metadata.clone()),
                    "/jwks" => {
                        counted.fetch_add(1, Ordering::SeqCst);
                        Some(json!({ "keys": keys.lock().unwrap().clone() }))
                    }
                    _ => None,
                };
                let response = match body {
                    Some(body) => hyper::Response::new(Full::new(Bytes::from(body.to_string()))),
                    None => hyper::Response::builder().status(404).body(Full::new(Bytes::new())).unwrap(),
                };
                async move { Ok::<_, Infallible>(response) }
            });
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    AuthorizationServer { issuer, keys, fetches }
}

/// Who is calling, with the token's scopes.
#[tool(read_only, rest = "GET /whoami")]
async fn whoami(cx: &Cx<()>) -> Result<Value, Error> {
    let caller = cx.principal();
    Ok(json!({ "subject": caller.map(|p| &p.subject), "scopes": caller.map(|p| &p.scopes) }))
}

/// Writes a note (nowhere): it needs the scope `notes:write`.
#[tool(rest = "POST /notes", scopes = ["notes:write"])]
async fn write_note() -> Result<Value, Error> {
    Ok(json!({ "written": true }))
}

/// A browser application's origin, which the resource server allows.
const APP: &str = "https://app.example.com";

/// The resource server, on a free port, protected by `issuer`; its key set is fetched again for
/// an unknown key at most every `cooldown`.
async fn resource_server(issuer: &str, cooldown: Duration) -> SocketAddr {
    let server = Server::builder(()).info("oauth-test", "1").tools(table![whoami, write_note]).build().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let oauth = OAuth::new(issuer).unwrap().with_audience("extra-audience").with_refetch_cooldown(cooldown);
    let options = HttpOptions { allowed_origins: vec![APP.into()], ..HttpOptions::default() };
    let http = Http::new(server).options(options).oauth(oauth);
    tokio::spawn(http.serve(listener, std::future::pending()));
    addr
}

/// The default cooldown: no test here waits it out.
const COOLDOWN: Duration = Duration::from_secs(30);

fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

/// A token signed with `der` under `kid`, with these claims.
fn token(der: &str, kid: &str, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some(kid.to_owned());
    encode(&header, claims, &key(der)).unwrap()
}

/// The claims of a good token for `addr`'s resource.
fn claims(issuer: &str, addr: SocketAddr) -> Value {
    json!({ "iss": issuer, "sub": "alice", "client_id": "notes-cli", "aud": format!("http://{addr}/mcp"),
            "exp": now() + 300, "iat": now(), "scope": "notes:read" })
}

const JSON: [(&str, &str); 2] =
    [("content-type", "application/json"), ("accept", "application/json, text/event-stream")];

/// A 2026-07-28 `tools/call` of `whoami`, which needs no session.
fn call() -> String {
    call_of("whoami")
}

/// A 2026-07-28 `tools/call` of `tool`.
fn call_of(tool: &str) -> String {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": tool, "arguments": {},
        "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                   "io.modelcontextprotocol/clientCapabilities": {},
                   "io.modelcontextprotocol/clientInfo": { "name": "t", "version": "1" } } } })
    .to_string()
}

/// The answers of REST and `/mcp` to a request carrying `authorization`.
async fn both(addr: SocketAddr, path: &str, authorization: Option<&str>) -> [crate::support::Reply; 2] {
    let mut headers = vec![
        JSON[0],
        JSON[1],
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "whoami"),
    ];
    headers.extend(authorization.map(|a| ("authorization", a)));
    let rest = send(addr, "GET", path, &headers, "").await;
    let mcp_path = if path.contains('?') { format!("/mcp?{}", path.split_once('?').unwrap().1) } else { "/mcp".into() };
    let mcp = send(addr, "POST", &mcp_path, &headers, &call()).await;
    [rest, mcp]
}

#[tokio::test]
async fn the_metadata_names_the_resource_and_its_authorization_server() {
    let issuer = authorization_server(json!([jwk(KEY_A, "a")])).await;
    let addr = resource_server(&issuer.issuer, COOLDOWN).await;
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let reply = send(addr, "GET", path, &[], "").await;
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(
            reply.json(),
            json!({ "resource": format!("http://{addr}/mcp"), "authorization_servers": [issuer.issuer],
                    "bearer_methods_supported": ["header"], "scopes_supported": ["notes:write"] })
        );
    }
    assert_eq!(send(addr, "GET", "/health", &[], "").await.status, 200);
    let preflight = [("origin", APP), ("access-control-request-method", "POST")];
    assert_eq!(send(addr, "OPTIONS", "/mcp", &preflight, "").await.status, 204, "a preflight needs no token");
    let refused = send(addr, "POST", "/mcp", &[("origin", APP)], "{}").await;
    assert_eq!(refused.status, 401);
    let exposed = refused.header("access-control-expose-headers").unwrap_or_default();
    assert!(exposed.contains("www-authenticate"), "a page reads the challenge: {exposed}");
}

#[tokio::test]
async fn a_valid_token_names_the_caller_over_rest_and_mcp() {
    let issuer = authorization_server(json!([jwk(KEY_A, "a")])).await;
    let addr = resource_server(&issuer.issuer, COOLDOWN).await;
    let bearer = format!("Bearer {}", token(KEY_A, "a", &claims(&issuer.issuer, addr)));
    let [rest, mcp] = both(addr, "/whoami", Some(&bearer)).await;
    assert_eq!(rest.status, 200, "{:?}", rest.body);
    assert_eq!(rest.json(), json!({ "subject": "alice", "scopes": ["notes:read"] }));
    assert_eq!(mcp.status, 200, "{:?}", mcp.body);
    assert_eq!(mcp.json()["result"]["structuredContent"]["subject"], "alice");
    // An accepted audience besides the resource.
    let mut other = claims(&issuer.issuer, addr);
    other["aud"] = json!(["somewhere-else", "extra-audience"]);
    let bearer = format!("Bearer {}", token(KEY_A, "a", &other));
    assert_eq!(both(addr, "/whoami", Some(&bearer)).await.map(|r| r.status), [200, 200]);
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1, "the key set is kept");
}

#[tokio::test]
async fn each_bad_token_is_refused_with_its_challenge() {
    let issuer = authorization_server(json!([jwk(KEY_A, "a")])).await;
    let addr = resource_server(&issuer.issuer, COOLDOWN).await;
    let metadata = format!("resource_metadata=\"http://{addr}/.well-known/oauth-protected-resource/mcp\"");
    let good = claims(&issuer.issuer, addr);
    let with = |change: &dyn Fn(&mut Value)| {
        let mut claims = good.clone();
        change(&mut claims);
        token(KEY_A, "a", &claims)
    };
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let unsigned = format!("{}.{}.", b64(&json!({ "alg": "none", "typ": "JWT" })), b64(&good));
    let hmac = encode(&Header::new(Algorithm::HS256), &good, &EncodingKey::from_secret(b"public").unwrap()).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        ("another resource", with(&|c| c["aud"] = json!("http://elsewhere/mcp")), "another resource"),
        ("expired", with(&|c| c["exp"] = json!(now() - 120)), "expired"),
        ("not yet valid", with(&|c| c["nbf"] = json!(now() + 120)), "not valid yet"),
        ("another issuer", with(&|c| c["iss"] = json!("http://evil.example")), "another issuer"),
        ("no audience", with(&|c| drop(c.as_object_mut().unwrap().remove("aud"))), "no audience"),
        ("no expiry", with(&|c| drop(c.as_object_mut().unwrap().remove("exp"))), "no expiry"),
        ("another key under a known kid", token(KEY_B, "a", &good), "does not verify"),
        ("an unknown key", token(KEY_B, "b", &good), "does not publish"),
        ("alg none", unsigned, "not a signed JWT"),
        ("HMAC", hmac, "not accepted"),
        ("garbage", "garbage".into(), "not a signed JWT"),
    ];
    for (case, token, description) in cases {
        for reply in both(addr, "/whoami", Some(&format!("Bearer {token}"))).await {
            assert_eq!(reply.status, 401, "{case}: {:?}", reply.body);
            let challenge = reply.header("www-authenticate").unwrap_or_default();
            assert!(challenge.starts_with("Bearer error=\"invalid_token\""), "{case}: {challenge}");
            assert!(challenge.contains(description) && challenge.contains(&metadata), "{case}: {challenge}");
            assert!(!challenge.contains(&token), "{case}: the token is never echoed");
        }
    }
    for reply in both(addr, "/whoami", None).await {
        assert_eq!(reply.status, 401);
        assert_eq!(reply.header("www-authenticate"), Some(format!("Bearer {metadata}").as_str()));
    }
    let token = token(KEY_A, "a", &good);
    let bearer = format!("Bearer {token}");
    let twice = [("authorization", bearer.as_str()), ("authorization", bearer.as_str())];
    let reply = send(addr, "GET", "/whoami", &twice, "").await;
    assert_eq!(reply.status, 400, "two Authorization headers are not chosen between: {:?}", reply.body);
    for reply in both(addr, &format!("/whoami?access_token={token}"), None).await {
        assert_eq!(reply.status, 400, "a token in the query string is refused: {:?}", reply.body);
        let challenge = reply.header("www-authenticate").unwrap_or_default();
        assert!(
            challenge.starts_with("Bearer error=\"invalid_request\"") && challenge.contains(&metadata),
            "{challenge}"
        );
    }
}

#[tokio::test]
async fn a_rotated_key_is_fetched_but_unknown_keys_do_not_hammer_the_issuer() {
    let issuer = authorization_server(json!([jwk(KEY_A, "a")])).await;
    let cooldown = Duration::from_millis(300);
    let addr = resource_server(&issuer.issuer, cooldown).await;
    let good = claims(&issuer.issuer, addr);
    let first = format!("Bearer {}", token(KEY_A, "a", &good));
    assert_eq!(both(addr, "/whoami", Some(&first)).await.map(|r| r.status), [200, 200]);
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1);
    // The issuer rotates to key b: a token naming it has the set fetched again, once.
    *issuer.keys.lock().unwrap() = json!([jwk(KEY_B, "b")]);
    tokio::time::sleep(cooldown).await;
    let rotated = format!("Bearer {}", token(KEY_B, "b", &good));
    assert_eq!(both(addr, "/whoami", Some(&rotated)).await.map(|r| r.status), [200, 200]);
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 2);
    // Made-up key ids within the cooldown: refused without another fetch.
    for kid in ["c", "d", "e"] {
        let made_up = format!("Bearer {}", token(KEY_B, kid, &good));
        assert_eq!(both(addr, "/whoami", Some(&made_up)).await.map(|r| r.status), [401, 401]);
    }
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn an_unreachable_issuer_is_a_503_but_a_malformed_token_still_a_401() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let gone = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let addr = resource_server(&gone, COOLDOWN).await;
    let bearer = format!("Bearer {}", token(KEY_A, "a", &claims(&gone, addr)));
    let [rest, mcp] = both(addr, "/whoami", Some(&bearer)).await;
    assert_eq!((rest.status, mcp.status), (503, 503), "{:?}", rest.body);
    assert_eq!(both(addr, "/whoami", Some("Bearer garbage")).await.map(|r| r.status), [401, 401]);
}

#[tokio::test]
async fn a_token_without_the_tools_scope_is_refused_with_the_scope_to_ask_for() {
    let issuer = authorization_server(json!([jwk(KEY_A, "a")])).await;
    let addr = resource_server(&issuer.issuer, COOLDOWN).await;
    let reader = format!("Bearer {}", token(KEY_A, "a", &claims(&issuer.issuer, addr)));
    let mut writing = claims(&issuer.issuer, addr);
    writing["scope"] = json!("notes:read notes:write");
    let writer = format!("Bearer {}", token(KEY_A, "a", &writing));
    let stateless = |authorization: &str| {
        vec![
            JSON[0],
            JSON[1],
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "write_note"),
            ("authorization", authorization),
        ]
        .into_iter()
        .map(|(k, v)| (k, v.to_owned()))
        .collect::<Vec<_>>()
    };
    let metadata = format!("resource_metadata=\"http://{addr}/.well-known/oauth-protected-resource/mcp\"");
    for (who, authorization, status) in [("a reader", &reader, 403), ("a writer", &writer, 200)] {
        let headers = stateless(authorization);
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let rest = send(addr, "POST", "/notes", &headers, "{}").await;
        let mcp = send(addr, "POST", "/mcp", &headers, &call_of("write_note")).await;
        for reply in [rest, mcp] {
            assert_eq!(reply.status, status, "{who}: {:?}", reply.body);
            if status == 403 {
                let challenge = reply.header("www-authenticate").unwrap_or_default();
                assert!(
                    challenge.starts_with("Bearer error=\"insufficient_scope\", scope=\"notes:write\"")
                        && challenge.contains(&metadata),
                    "{challenge}"
                );
                assert_eq!(reply.json()["scope"], "notes:write");
            }
        }
    }

    // In a 2025-11-25 session, and in a 2025-03-26 batch, alike.
    let initialize = |version: &str| {
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": { "protocolVersion": version, "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } })
        .to_string()
    };
    for version in ["2025-11-25", "2025-03-26"] {
        let opened =
            send(addr, "POST", "/mcp", &[JSON[0], JSON[1], ("authorization", &reader)], &initialize(version)).await;
        let session = opened.header("mcp-session-id").expect("a session").to_owned();
        let headers = [
            JSON[0],
            JSON[1],
            ("mcp-protocol-version", version),
            ("mcp-session-id", &session),
            ("authorization", &reader),
        ];
        let call = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "write_note", "arguments": {} } });
        let body = if version == "2025-03-26" { json!([call]).to_string() } else { call.to_string() };
        let refused = send(addr, "POST", "/mcp", &headers, &body).await;
        assert_eq!(refused.status, 403, "{version}: {:?}", refused.body);
        let reading = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "whoami", "arguments": {} } });
        assert_eq!(send(addr, "POST", "/mcp", &headers, &reading.to_string()).await.status, 200, "{version}");
    }
}

#[tokio::test]
async fn the_openapi_document_states_the_scheme_and_each_operations_scopes() {
    let issuer = authorization_server(json!([jwk(KEY_A, "a")])).await;
    let addr = resource_server(&issuer.issuer, COOLDOWN).await;
    let bearer = format!("Bearer {}", token(KEY_A, "a", &claims(&issuer.issuer, addr)));
    let document = send(addr, "GET", "/openapi.json", &[("authorization", &bearer)], "").await.json();
    let scheme = &document["components"]["securitySchemes"]["oauth"];
    assert_eq!(scheme["type"], "openIdConnect");
    assert_eq!(scheme["openIdConnectUrl"], format!("{}/.well-known/openid-configuration", issuer.issuer));
    assert_eq!(document["paths"]["/notes"]["post"]["security"], json!([{ "oauth": ["notes:write"] }]));
    assert_eq!(document["paths"]["/whoami"]["get"]["security"], json!([{ "oauth": [] }]));
}

/// Without an authorization server, a principal a gate names is held to the scopes too; the
/// challenge then names no metadata.
#[tokio::test]
async fn a_gates_principal_is_held_to_the_scopes_too() {
    use tooltable::Principal;
    let server = Server::builder(()).info("oauth-test", "1").tools(table![whoami, write_note]).build().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let gate = |_: &hyper::HeaderMap| Ok(Some(Principal::new("carol").with_scopes(["notes:read"])));
    tokio::spawn(Http::new(server).gate(gate).serve(listener, std::future::pending()));
    let refused = send(addr, "POST", "/notes", &[JSON[0]], "{}").await;
    assert_eq!(refused.status, 403);
    assert_eq!(
        refused.header("www-authenticate"),
        Some(
            "Bearer error=\"insufficient_scope\", scope=\"notes:write\", error_description=\"this operation needs the scope notes:write\""
        )
    );
    assert_eq!(send(addr, "GET", "/whoami", &[], "").await.status, 200);
}

//! The notes server behind a real authorization server: panva's oidc-provider (OpenID
//! Certified), started by the test with client credentials, resource indicators and JWT access
//! tokens, and `notes serve --oauth-issuer` in front of it. A client finds the authorization
//! server from the server's challenge and metadata, gets tokens for the server, reads with
//! `notes:read` and writes with `notes:write`; every token the server must refuse is refused,
//! with its status and challenge, over `/mcp` and REST alike; opaque tokens are introspected;
//! the official SDKs' clients connect through their own OAuth discovery; the other servers take
//! the same options.

mod common;
#[path = "authorization/sdk_clients.rs"]
mod sdk_clients;
#[path = "authorization/servers.rs"]
mod servers;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use base64::Engine as _;
use common::{Response, Served, http, request};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::{Value, json};

/// The authorization server, killed when dropped.
struct AuthorizationServer {
    child: Child,
    issuer: String,
    signing_key: EncodingKey,
    other_key: EncodingKey,
    kid: String,
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn authorization_server() -> AuthorizationServer {
    let install = test_support::OIDC_PROVIDER.path();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/authorization/provider.mjs");
    let mut child = Command::new("node")
        .arg(script)
        .arg(&install)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("node starts");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("the provider starts");
    // Read on to the end: a closed pipe would end the provider at its next line.
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let started: Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not the provider's line ({e}): {line}"));
    let key = |name: &str| {
        let der = base64::engine::general_purpose::STANDARD.decode(started[name].as_str().unwrap()).unwrap();
        EncodingKey::from_ec_der(&der)
    };
    AuthorizationServer {
        issuer: started["issuer"].as_str().unwrap().to_owned(),
        signing_key: key("signing_key"),
        other_key: key("other_key"),
        kid: started["kid"].as_str().unwrap().to_owned(),
        child,
    }
}

/// The authorization server, and the notes server in front of it.
fn started() -> (AuthorizationServer, Served) {
    let provider = authorization_server();
    let served = notes_server(&provider.issuer);
    (provider, served)
}

/// The notes server, protected by `issuer`, introspecting opaque tokens as `notes-server`.
fn notes_server(issuer: &str) -> Served {
    let args = [
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--oauth-issuer",
        issuer,
        "--oauth-introspection",
        &format!("{issuer}/token/introspection"),
        "--oauth-client-id",
        "notes-server",
        "--oauth-client-secret",
        "notes-server-secret",
    ];
    Served::start(common::NOTES, &args.map(str::to_owned))
}

fn header<'a>(response: &'a Response, name: &str) -> Option<&'a str> {
    response.headers.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// A quoted parameter of a challenge.
fn parameter<'a>(challenge: &'a str, name: &str) -> Option<&'a str> {
    let start = challenge.find(&format!("{name}=\""))? + name.len() + 2;
    challenge[start..].split('"').next()
}

/// A token of the client `id` for `resource`, from the token endpoint.
fn token(token_endpoint: &str, id: &str, scope: &str, resource: &str) -> String {
    let (base, path) = split(token_endpoint);
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{id}-secret"));
    let form = format!("grant_type=client_credentials&scope={}&resource={}", encode_form(scope), encode_form(resource));
    let authorization = format!("Basic {basic}");
    let answer = request(
        base,
        "POST",
        path,
        &[("Authorization", &authorization)],
        Some(("application/x-www-form-urlencoded", &form)),
    );
    assert_eq!(answer.status, 200, "{id}: {}", answer.body);
    answer.json()["access_token"].as_str().unwrap().to_owned()
}

fn encode_form(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `http://host:port` and the path of a URL.
fn split(url: &str) -> (&str, &str) {
    let path_start = url["http://".len()..].find('/').map_or(url.len(), |i| i + "http://".len());
    url.split_at(path_start)
}

fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

/// A 2026-07-28 `tools/call`, which carries its token on the request itself.
fn call(base: &str, tool: &str, arguments: Value, authorization: Option<&str>, query: &str) -> Response {
    let message = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": tool, "arguments": arguments,
        "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                   "io.modelcontextprotocol/clientCapabilities": {},
                   "io.modelcontextprotocol/clientInfo": { "name": "notes-tests", "version": "1" } } } });
    let mut headers = vec![
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    headers.extend(authorization.map(|a| ("Authorization", a)));
    http(base, "POST", &format!("/mcp{query}"), &headers, Some(&message.to_string()))
}

/// `GET /notes` over REST.
fn list(base: &str, authorization: Option<&str>, query: &str) -> Response {
    let headers: Vec<(&str, &str)> = authorization.map(|a| ("Authorization", a)).into_iter().collect();
    http(base, "GET", &format!("/notes{query}"), &headers, None)
}

#[test]
#[cfg_attr(not(has_oidc_provider), ignore = "needs Node and oidc-provider: see test-support")]
fn a_client_discovers_the_authorization_server_and_reads_and_writes_with_its_scopes() {
    let (provider, served) = started();
    let base = served.base.as_str();

    // Discovery, as an MCP client does it: the challenge, the resource metadata, the issuer's.
    let refused = call(base, "list_notes", json!({}), None, "");
    assert_eq!(refused.status, 401, "{}", refused.body);
    let challenge = header(&refused, "www-authenticate").expect("a challenge");
    let metadata_url = parameter(challenge, "resource_metadata").expect("the metadata's URL");
    let (origin, metadata_path) = split(metadata_url);
    assert_eq!(origin, base);
    let metadata = http(base, "GET", metadata_path, &[], None).json();
    let resource = format!("{base}/mcp");
    assert_eq!(metadata["resource"], resource);
    assert_eq!(metadata["authorization_servers"], json!([provider.issuer]));
    assert_eq!(metadata["scopes_supported"], json!(["notes:read", "notes:write"]));
    let (issuer_base, _) = split(&provider.issuer);
    let issuer_metadata = http(issuer_base, "GET", "/.well-known/oauth-authorization-server", &[], None).json();
    let token_endpoint = issuer_metadata["token_endpoint"].as_str().expect("a token endpoint").to_owned();

    let reader = format!("Bearer {}", token(&token_endpoint, "reader", "notes:read", &resource));
    let writer = format!("Bearer {}", token(&token_endpoint, "writer", "notes:read notes:write", &resource));

    // The writer writes, over REST and /mcp; the reader reads what it wrote.
    let note = json!({ "title": "Groceries", "text": "milk" }).to_string();
    let created = http(base, "POST", "/notes", &[("Authorization", &writer)], Some(&note));
    assert_eq!(created.status, 201, "{}", created.body);
    let created = call(base, "create_note", json!({ "title": "Errands", "text": "post" }), Some(&writer), "");
    assert_eq!(created.status, 200, "{}", created.body);
    assert_eq!(created.json()["result"]["structuredContent"]["title"], "Errands");
    let listed = list(base, Some(&reader), "");
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert_eq!(listed.json()["notes"].as_array().map(Vec::len), Some(2));
    let listed = call(base, "list_notes", json!({}), Some(&reader), "");
    assert_eq!(listed.json()["result"]["structuredContent"]["notes"][1]["title"], "Errands");

    // The reader may not write: 403 with the scope to ask for, and the note is not made.
    let refusals = [
        http(base, "POST", "/notes", &[("Authorization", &reader)], Some(&note)),
        call(base, "create_note", json!({ "title": "Not", "text": "made" }), Some(&reader), ""),
        http(base, "DELETE", "/notes/1", &[("Authorization", &reader)], None),
    ];
    for refused in refusals {
        assert_eq!(refused.status, 403, "{}", refused.body);
        let challenge = header(&refused, "www-authenticate").unwrap_or_default();
        assert_eq!(parameter(challenge, "error"), Some("insufficient_scope"), "{challenge}");
        assert_eq!(parameter(challenge, "scope"), Some("notes:write"), "{challenge}");
        assert_eq!(parameter(challenge, "resource_metadata"), Some(metadata_url), "{challenge}");
    }
    assert_eq!(list(base, Some(&reader), "").json()["notes"].as_array().map(Vec::len), Some(2));

    // A session is the reader's: the writer's token cannot use it.
    let initialize =
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": common::initialize_params() });
    let accept = ("Accept", "application/json, text/event-stream");
    let opened = http(base, "POST", "/mcp", &[accept, ("Authorization", &reader)], Some(&initialize.to_string()));
    let session = header(&opened, "mcp-session-id").expect("a session").to_owned();
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }).to_string();
    let in_session = |authorization: &str| {
        let headers = [
            accept,
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Session-Id", &session),
            ("Authorization", authorization),
        ];
        http(base, "POST", "/mcp", &headers, Some(&ping)).status
    };
    assert_eq!((in_session(&reader), in_session(&writer)), (200, 404));
}

#[test]
#[cfg_attr(not(has_oidc_provider), ignore = "needs Node and oidc-provider: see test-support")]
fn every_token_the_server_must_not_accept_is_refused_over_mcp_and_rest() {
    let (provider, served) = started();
    let base = served.base.as_str();
    let resource = format!("{base}/mcp");
    let token_endpoint = format!("{}/token", provider.issuer);
    let metadata = format!("{base}/.well-known/oauth-protected-resource/mcp");

    let good = json!({ "iss": provider.issuer, "sub": "reader", "client_id": "reader", "aud": resource,
                       "scope": "notes:read", "iat": now(), "exp": now() + 300 });
    let forged = |change: &dyn Fn(&mut Value), key: &EncodingKey| {
        let mut claims = good.clone();
        change(&mut claims);
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(provider.kid.clone());
        encode(&header, &claims, key).unwrap()
    };
    // A token of the server's own key passes: the forgeries below differ in one thing each.
    let genuine = format!("Bearer {}", forged(&|_| {}, &provider.signing_key));
    assert_eq!(list(base, Some(&genuine), "").status, 200);

    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let cases = [
        ("another resource's", token(&token_endpoint, "reader", "notes:read", "http://elsewhere.example/mcp")),
        ("expired", forged(&|c| c["exp"] = json!(now() - 120), &provider.signing_key)),
        ("another issuer's", forged(&|c| c["iss"] = json!("http://evil.example"), &provider.signing_key)),
        ("signed by another key under a known kid", forged(&|_| {}, &provider.other_key)),
        ("unsigned (alg none)", format!("{}.{}.", b64(&json!({ "alg": "none", "typ": "at+jwt" })), b64(&good))),
        ("without an audience", forged(&|c| drop(c.as_object_mut().unwrap().remove("aud")), &provider.signing_key)),
        ("garbage", "not-a-token-at-all".to_owned()),
    ];
    for (case, token) in &cases {
        let bearer = format!("Bearer {token}");
        for answer in [call(base, "list_notes", json!({}), Some(&bearer), ""), list(base, Some(&bearer), "")] {
            assert_eq!(answer.status, 401, "{case}: {}", answer.body);
            let challenge = header(&answer, "www-authenticate").unwrap_or_default();
            assert_eq!(parameter(challenge, "error"), Some("invalid_token"), "{case}: {challenge}");
            assert_eq!(parameter(challenge, "resource_metadata"), Some(metadata.as_str()), "{case}: {challenge}");
            assert!(!answer.body.contains(token.as_str()), "{case}: the token is not echoed");
        }
    }
    for answer in [call(base, "list_notes", json!({}), None, ""), list(base, None, "")] {
        assert_eq!(answer.status, 401, "no token: {}", answer.body);
        assert_eq!(
            header(&answer, "www-authenticate"),
            Some(format!("Bearer resource_metadata=\"{metadata}\"").as_str())
        );
    }
    let query = format!("?access_token={}", forged(&|_| {}, &provider.signing_key));
    for answer in [call(base, "list_notes", json!({}), None, &query), list(base, None, &query)] {
        assert_eq!(answer.status, 400, "a token in the query string: {}", answer.body);
        let challenge = header(&answer, "www-authenticate").unwrap_or_default();
        assert_eq!(parameter(challenge, "error"), Some("invalid_request"), "{challenge}");
    }
}

#[test]
#[cfg_attr(not(has_oidc_provider), ignore = "needs Node and oidc-provider: see test-support")]
fn an_opaque_token_is_introspected_and_held_to_its_scopes() {
    let (provider, served) = started();
    let base = served.base.as_str();
    let token_endpoint = format!("{}/token", provider.issuer);
    let opaque = token(&token_endpoint, "opaque-reader", "notes:read", &format!("{base}/mcp"));
    assert!(!opaque.contains('.'), "an opaque token: {opaque}");
    let bearer = format!("Bearer {opaque}");
    assert_eq!(list(base, Some(&bearer), "").status, 200);
    let listed = call(base, "list_notes", json!({}), Some(&bearer), "");
    assert_eq!(listed.status, 200, "{}", listed.body);
    let refused = call(base, "create_note", json!({ "title": "Not", "text": "made" }), Some(&bearer), "");
    assert_eq!(refused.status, 403, "{}", refused.body);
    // Opaque, but for another resource; and one the authorization server never issued.
    let elsewhere = token(&token_endpoint, "opaque-reader", "notes:read", "http://elsewhere.example/mcp");
    for (case, token) in
        [("another resource's", elsewhere), ("never issued", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcd".into())]
    {
        let answer = list(base, Some(&format!("Bearer {token}")), "");
        assert_eq!(answer.status, 401, "{case}: {}", answer.body);
        let challenge = header(&answer, "www-authenticate").unwrap_or_default();
        assert_eq!(parameter(challenge, "error"), Some("invalid_token"), "{case}: {challenge}");
    }
}

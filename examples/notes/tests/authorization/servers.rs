//! The OAuth options are the standard command line's, so every server has them: valem, entities
//! and conformance-server, built beside the notes binary, each served behind the same
//! authorization server with `--oauth-issuer`, `--public-url`, `--oauth-audience` and
//! `--oauth-introspection`, state the resource their public URL names, refuse a request without a
//! token with the challenge, accept a token for their resource, for the extra audience, and an
//! opaque one, and refuse one for another resource.

use std::path::Path;

use serde_json::json;

use super::common::markdown::workspace_root;
use super::common::{NOTES, Response, Served, http};
use super::{authorization_server, header, parameter, token};

/// The binary `name` of this build, beside the notes binary, which must have been built.
fn binary(name: &str) -> String {
    let path = Path::new(NOTES).parent().expect("the binary is in a folder").join(name);
    assert!(
        path.is_file(),
        "{} is not built; the servers are checked with their real binaries: cargo build -p valem -p conformance-server -p entities",
        path.display()
    );
    path.display().to_string()
}

/// A 2025-11-25 `initialize` with `authorization`, if any.
fn initialize(base: &str, authorization: Option<&str>) -> Response {
    let message =
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": super::common::initialize_params() });
    let mut headers = vec![("Accept", "application/json, text/event-stream")];
    headers.extend(authorization.map(|a| ("Authorization", a)));
    http(base, "POST", "/mcp", &headers, Some(&message.to_string()))
}

#[test]
#[cfg_attr(not(has_oidc_provider), ignore = "needs Node and oidc-provider: see test-support")]
fn valem_entities_and_conformance_server_take_the_same_oauth_options() {
    let provider = authorization_server();
    let token_endpoint = format!("{}/token", provider.issuer);
    let entities_root = workspace_root().join("servers/entities/examples/full").display().to_string();
    let servers =
        [("valem", vec![]), ("entities", vec!["--root".to_owned(), entities_root]), ("conformance-server", vec![])];
    for (name, own) in servers {
        let public = format!("http://{name}.example");
        let audience = format!("urn:tooltable:{name}");
        let mut args: Vec<String> = ["serve", "--listen", "127.0.0.1:0"].map(str::to_owned).to_vec();
        args.extend(own);
        args.extend([
            "--oauth-issuer".to_owned(),
            provider.issuer.clone(),
            "--public-url".to_owned(),
            public.clone(),
            "--oauth-audience".to_owned(),
            audience.clone(),
            "--oauth-introspection".to_owned(),
            format!("{}/token/introspection", provider.issuer),
            "--oauth-client-id".to_owned(),
            "notes-server".to_owned(),
            "--oauth-client-secret".to_owned(),
            "notes-server-secret".to_owned(),
        ]);
        let served = Served::start(&binary(name), &args);
        let base = served.base.as_str();

        let refused = initialize(base, None);
        assert_eq!(refused.status, 401, "{name}: {}", refused.body);
        let challenge = header(&refused, "www-authenticate").unwrap_or_default();
        let metadata_url = format!("{public}/.well-known/oauth-protected-resource/mcp");
        assert_eq!(parameter(challenge, "resource_metadata"), Some(metadata_url.as_str()), "{name}: {challenge}");
        let metadata = http(base, "GET", "/.well-known/oauth-protected-resource/mcp", &[], None).json();
        assert_eq!(metadata["resource"], format!("{public}/mcp"), "{name}: {metadata}");
        assert_eq!(metadata["authorization_servers"], json!([provider.issuer]), "{name}: {metadata}");

        let resource = format!("{public}/mcp");
        let accepted = [
            ("a token for its resource", token(&token_endpoint, "reader", "notes:read", &resource)),
            ("a token for the extra audience", token(&token_endpoint, "reader", "notes:read", &audience)),
            ("an opaque token", token(&token_endpoint, "opaque-reader", "notes:read", &resource)),
        ];
        for (case, token) in accepted {
            let opened = initialize(base, Some(&format!("Bearer {token}")));
            assert_eq!(opened.status, 200, "{name}, {case}: {}", opened.body);
            assert!(header(&opened, "mcp-session-id").is_some(), "{name}, {case}: a session");
        }
        let elsewhere = token(&token_endpoint, "reader", "notes:read", "http://elsewhere.example/mcp");
        let refused = initialize(base, Some(&format!("Bearer {elsewhere}")));
        assert_eq!(refused.status, 401, "{name}: another resource's token: {}", refused.body);
        let challenge = header(&refused, "www-authenticate").unwrap_or_default();
        assert_eq!(parameter(challenge, "error"), Some("invalid_token"), "{name}: {challenge}");
    }
}

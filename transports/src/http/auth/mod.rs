//! The server as an OAuth 2.1 resource server, as the MCP specification's authorization asks:
//! every request but `/health`, the metadata and CORS preflights carries a bearer token from the
//! configured authorization server, issued for this server; the protected resource metadata
//! (RFC 9728) tells clients where to get one; a refusal carries the challenge that says why.
//!
//! Tokens are JWT access tokens checked against the issuer's published keys, or opaque tokens
//! the issuer is asked about (see [`OAuth`]).
//! A token is read from the `Authorization` header only, and is never logged nor sent on: the
//! principal it names reaches the calls as [`Cx::principal`](tooltable::Cx::principal).

mod challenge;
mod discovery;
mod fetch;
mod introspection;
mod jwks;
mod metadata;
mod openapi;
pub(crate) mod scopes;
mod token;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::HeaderMap;
use hyper::header::AUTHORIZATION;
use tooltable::Principal;

use super::InvalidSetting;
use super::body::HttpResponse;
use discovery::Issuer;
use introspection::Introspection;
use jwks::Keys;

/// The authorization server whose tokens the server accepts, and what they must say.
///
/// Tokens are JWT access tokens (RFC 9068) signed with one of the keys the issuer publishes (its
/// `jwks_uri`, found from its metadata by RFC 8414 discovery, then OpenID Connect discovery);
/// the algorithm is one of RS256/384/512, PS256/384/512, ES256/384 or EdDSA (never `none`, never
/// HMAC); `iss` is the issuer; `aud` names this server's resource (its public URL followed by
/// `/mcp`) or an accepted [audience](Self::with_audience); `exp` is in the future and `nbf`, if
/// any, in the past, with 30 seconds of leeway.
///
/// The keys are fetched when first needed and kept for an hour; a token naming a key the set
/// lacks has the set fetched again, at most once every 30 seconds ([`with_refetch_cooldown`](Self::with_refetch_cooldown)). A fetch takes at most 10
/// seconds and reads at most 256 KiB; at most 64 keys are kept. The issuer is reached over plain
/// `http://` (the transports carry no TLS stack).
///
/// With [introspection](Self::with_introspection), a token that is not a JWT is an opaque one:
/// each is POSTed to the issuer's RFC 7662 endpoint with this server's client credentials (one
/// request per request carrying it, under the same deadline and bound), and accepted when the
/// answer says it is active, from the issuer (when it names one), for an accepted audience, and
/// within its `exp` and `nbf`.
///
/// ```
/// use tooltable_transports::http::OAuth;
///
/// let oauth = OAuth::new("http://127.0.0.1:9000")?
///     .with_public_url("http://127.0.0.1:8080")?
///     .with_audience("notes-api");
/// assert_eq!(oauth.resource(), Some("http://127.0.0.1:8080/mcp".to_owned()));
/// # Ok::<(), tooltable_transports::http::InvalidSetting>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuth {
    issuer: String,
    public_url: Option<String>,
    audiences: Vec<String>,
    refetch_cooldown: Duration,
    introspection: Option<Introspection>,
}

/// `url`, when it is an absolute `http(s)://` URL with a host and no
/// query or fragment.
fn absolute(what: &'static str, url: &str, https: bool) -> Result<String, InvalidSetting> {
    let refuse = |reason| Err(InvalidSetting::new(what, url, reason));
    let Ok(uri) = url.parse::<hyper::Uri>() else { return refuse("is not a URL") };
    match uri.scheme_str() {
        Some("http") => {}
        Some("https") if https => {}
        Some("https") => {
            return refuse(
                "is https, which this server cannot fetch from (no TLS stack): reach it through a local http proxy",
            );
        }
        _ => return refuse("must start with http:// or https://"),
    }
    if uri.host().is_none_or(str::is_empty) {
        return refuse("names no host");
    }
    if uri.query().is_some() || url.contains('#') {
        return refuse("must have no query or fragment");
    }
    Ok(url.to_owned())
}

impl OAuth {
    /// Tokens of the authorization server `issuer` (its issuer identifier, as the tokens' `iss`
    /// and its metadata state it).
    pub fn new(issuer: &str) -> Result<OAuth, InvalidSetting> {
        Ok(OAuth {
            issuer: absolute("issuer", issuer, false)?,
            public_url: None,
            audiences: Vec::new(),
            refetch_cooldown: jwks::REFETCH_COOLDOWN,
            introspection: None,
        })
    }

    /// The server's public base URL, as clients reach it (behind a proxy, the proxy's): the
    /// protected resource is this URL followed by `/mcp`, the audience tokens must name. By
    /// default the address the server listens on.
    pub fn with_public_url(mut self, url: &str) -> Result<OAuth, InvalidSetting> {
        self.public_url = Some(absolute("public URL", url, true)?.trim_end_matches('/').to_owned());
        Ok(self)
    }

    /// One more audience a token may name instead of the resource (an API identifier the
    /// authorization server puts in `aud`, say).
    pub fn with_audience(mut self, audience: impl Into<String>) -> OAuth {
        self.audiences.push(audience.into());
        self
    }

    /// Accepts opaque tokens too, checked at the issuer's introspection `endpoint` (RFC 7662) as
    /// the client `client_id` with `client_secret` (sent with HTTP Basic authentication, never
    /// printed).
    pub fn with_introspection(
        mut self,
        endpoint: &str,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Result<OAuth, InvalidSetting> {
        let endpoint = absolute("introspection endpoint", endpoint, false)?;
        self.introspection =
            Some(Introspection { endpoint, client_id: client_id.into(), client_secret: client_secret.into() });
        Ok(self)
    }

    /// The least time between two fetches of the issuer's key set (30 seconds by default): a
    /// token naming a key the set lacks within it is refused without asking the issuer again.
    pub fn with_refetch_cooldown(mut self, cooldown: Duration) -> OAuth {
        self.refetch_cooldown = cooldown;
        self
    }

    /// The protected resource, once the public URL is known.
    pub fn resource(&self) -> Option<String> {
        self.public_url.as_ref().map(|base| format!("{base}/mcp"))
    }
}

/// The resource server a transport runs: its settings, and the issuer's keys as fetched.
pub(crate) struct ResourceServer {
    resource: String,
    metadata_url: String,
    /// The path (after the well-known prefix) of the resource: `/mcp`, or `/prefix/mcp`.
    resource_path: String,
    issuer: Arc<Issuer>,
    audiences: Vec<String>,
    keys: Keys,
    introspection: Option<Introspection>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("resource", &self.resource)
            .field("issuer", &self.issuer.url)
            .finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// The resource server of `oauth`, whose public URL is `http://{listening}` unless it says one.
    pub(crate) fn new(oauth: OAuth, listening: SocketAddr) -> Self {
        let base = oauth.public_url.clone().unwrap_or_else(|| format!("http://{listening}"));
        let resource = format!("{base}/mcp");
        let (origin, path) = split_origin(&base);
        let resource_path = format!("{path}/mcp");
        let metadata_url = format!("{origin}{}{resource_path}", metadata::WELL_KNOWN);
        let issuer = Arc::new(Issuer::new(oauth.issuer));
        let mut audiences = vec![resource.clone()];
        audiences.extend(oauth.audiences);
        ResourceServer {
            resource,
            metadata_url,
            resource_path,
            keys: Keys::new(Arc::clone(&issuer), oauth.refetch_cooldown),
            issuer,
            audiences,
            introspection: oauth.introspection,
        }
    }

    /// The URL of the metadata document, which every challenge names.
    pub(crate) fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// Whether `path` is where the metadata document is served.
    pub(crate) fn serves_metadata(&self, path: &str) -> bool {
        path.strip_prefix(metadata::WELL_KNOWN)
            .is_some_and(|rest| rest.is_empty() || rest == "/mcp" || rest == self.resource_path)
    }

    /// The metadata document, naming `scopes`.
    pub(crate) fn metadata(&self, scopes: &[String]) -> HttpResponse {
        metadata::answer(&metadata::document(&self.resource, &self.issuer.url, scopes))
    }

    /// States in the OpenAPI `document` that every operation needs a token, with its tool's scopes.
    pub(crate) fn secure(&self, document: &mut serde_json::Value, tools: &[tooltable::tool::ToolDescriptor]) {
        openapi::secure(document, &self.issuer.url, tools);
    }

    /// The principal a request's token names, or the refusal to answer it with.
    pub(crate) async fn authenticate(
        &self,
        headers: &HeaderMap,
        query: Option<&str>,
    ) -> Result<Principal, HttpResponse> {
        let in_query =
            query.is_some_and(|q| form_urlencoded::parse(q.as_bytes()).any(|(key, _)| key == "access_token"));
        if in_query {
            let description = "send the token in the Authorization header, never in the URL";
            return Err(challenge::invalid_request(&self.metadata_url, description));
        }
        let mut values = headers.get_all(AUTHORIZATION).iter();
        let value = match (values.next(), values.next()) {
            (None, _) => return Err(challenge::no_token(&self.metadata_url)),
            (Some(value), None) => value,
            (Some(_), Some(_)) => {
                return Err(challenge::invalid_request(&self.metadata_url, "send one Authorization header"));
            }
        };
        let token = match value.to_str().ok().and_then(|v| v.split_once(' ')) {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            // Another scheme (Basic, say) is no bearer token.
            _ => return Err(challenge::no_token(&self.metadata_url)),
        };
        let expected = token::Expected { issuer: &self.issuer.url, audiences: &self.audiences };
        let checked = match &self.introspection {
            Some(introspection) if !token::is_jwt(token) => introspection.introspect(token, &expected).await,
            _ => token::verify(token, &self.keys, &expected).await,
        };
        checked.map_err(|rejection| match rejection {
            token::Rejection::Invalid(description) => challenge::invalid_token(&self.metadata_url, description),
            token::Rejection::Unavailable(detail) => challenge::unavailable(&detail),
        })
    }
}

/// `http://host:port` and the path after it (`""` when none).
fn split_origin(url: &str) -> (&str, &str) {
    let start = url.find("://").map_or(0, |i| i + 3);
    match url[start..].find('/') {
        Some(slash) => url.split_at(start + slash),
        None => (url, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked() {
        assert!(OAuth::new("http://auth.example").is_ok());
        for bad in ["auth.example", "ftp://a", "http://a?x=1", "http://a#f", "https://auth.example"] {
            assert!(OAuth::new(bad).is_err(), "{bad}");
        }
        let oauth = OAuth::new("http://a/").unwrap().with_public_url("https://mcp.example/notes/").unwrap();
        assert_eq!(oauth.resource().as_deref(), Some("https://mcp.example/notes/mcp"));
        let server = ResourceServer::new(oauth, "127.0.0.1:1".parse().unwrap());
        assert_eq!(server.metadata_url(), "https://mcp.example/.well-known/oauth-protected-resource/notes/mcp");
        assert_eq!(server.issuer.url, "http://a/", "the issuer is compared as written");
        for path in [
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource/notes/mcp",
        ] {
            assert!(server.serves_metadata(path), "{path}");
        }
        assert!(!server.serves_metadata("/.well-known/oauth-protected-resourcex"));
    }

    #[test]
    fn the_default_resource_is_the_listening_address() {
        let server = ResourceServer::new(OAuth::new("http://a").unwrap(), "127.0.0.1:8080".parse().unwrap());
        assert_eq!(server.resource, "http://127.0.0.1:8080/mcp");
        assert_eq!(server.metadata_url(), "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp");
        assert_eq!(server.audiences, ["http://127.0.0.1:8080/mcp"]);
    }
}

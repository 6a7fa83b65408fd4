//! A JWT access token checked as OAuth 2.1 section 5.2 and RFC 9068 ask of a resource server: its
//! signature by one of the issuer's keys with an allowed algorithm, its issuer, its audience
//! (this resource, or another accepted one: RFC 8707), its lifetime within a small leeway; then
//! the caller it names.

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Validation, decode, decode_header};
use serde_json::{Map, Value};
use tooltable::Principal;

use super::jwks::{ALLOWED, KeyError, Keys};

/// Seconds of clock difference with the authorization server tolerated on `exp` and `nbf`.
pub(super) const LEEWAY_SECS: u64 = 30;

/// Why a token is refused: what the `error_description` says (never the token itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Rejection {
    /// The token is bad: 401 `invalid_token`, with this description.
    Invalid(&'static str),
    /// The token could not be checked: the authorization server (its keys, its introspection)
    /// is out of reach.
    Unavailable(String),
}

/// What a token must be to be accepted.
pub(super) struct Expected<'a> {
    pub(super) issuer: &'a str,
    pub(super) audiences: &'a [String],
}

/// Whether `token` has the shape of a JWT (three parts, the first a JSON object), rather than an
/// opaque one: a JWT, even unsigned, is checked here, never sent to introspection.
pub(super) fn is_jwt(token: &str) -> bool {
    use base64::Engine as _;
    let mut parts = token.split('.');
    let (Some(header), Some(_), Some(_), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let decoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(header).unwrap_or_default();
    serde_json::from_slice::<Map<String, Value>>(&decoded).is_ok()
}

/// The principal a JWT access token names, once every check passes.
pub(super) async fn verify(token: &str, keys: &Keys, expected: &Expected<'_>) -> Result<Principal, Rejection> {
    let header = decode_header(token).map_err(|_| Rejection::Invalid("the token is not a signed JWT"))?;
    if !ALLOWED.contains(&header.alg) {
        return Err(Rejection::Invalid("the token's signing algorithm is not accepted"));
    }
    let key = keys.find(header.kid.as_deref(), header.alg).await.map_err(|e| match e {
        KeyError::Unknown => Rejection::Invalid("the token is signed with a key the issuer does not publish"),
        KeyError::WrongAlgorithm => Rejection::Invalid("the token's algorithm is not its key's"),
        KeyError::Unavailable(e) => Rejection::Unavailable(e.0),
    })?;
    let mut validation = Validation::new(header.alg);
    validation.leeway = LEEWAY_SECS;
    validation.validate_nbf = true;
    validation.set_issuer(&[expected.issuer]);
    validation.set_audience(expected.audiences);
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    let claims = decode::<Map<String, Value>>(token, &key.decoding, &validation).map_err(|e| {
        Rejection::Invalid(match e.kind() {
            ErrorKind::ExpiredSignature => "the token has expired",
            ErrorKind::ImmatureSignature => "the token is not valid yet",
            ErrorKind::InvalidIssuer => "the token is from another issuer",
            ErrorKind::InvalidAudience => "the token is for another resource",
            ErrorKind::MissingRequiredClaim(claim) if claim == "aud" => "the token names no audience",
            ErrorKind::MissingRequiredClaim(claim) if claim == "exp" => "the token has no expiry",
            ErrorKind::MissingRequiredClaim(_) => "the token names no issuer",
            ErrorKind::InvalidSignature => "the token's signature does not verify",
            _ => "the token is malformed",
        })
    })?;
    principal(claims.claims).ok_or(Rejection::Invalid("the token names no subject"))
}

/// The caller a token's claims (a JWT's, or an introspection answer's) name: the subject (else the
/// client, for a client acting for itself), the client (`client_id`, else `azp`), the scopes
/// (`scope`, space-separated, else `scp`, a list or a string), and every claim.
pub(super) fn principal(claims: Map<String, Value>) -> Option<Principal> {
    let text = |key: &str| claims.get(key).and_then(Value::as_str).filter(|v| !v.is_empty()).map(str::to_owned);
    let client_id = text("client_id").or_else(|| text("azp"));
    let subject = text("sub").or_else(|| client_id.clone())?;
    let scopes: Vec<String> = match claims.get("scope").or_else(|| claims.get("scp")) {
        Some(Value::String(scopes)) => scopes.split_whitespace().map(str::to_owned).collect(),
        Some(Value::Array(scopes)) => scopes.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    };
    let mut principal = Principal::new(subject).with_scopes(scopes).with_claims(claims);
    principal.client_id = client_id;
    Some(principal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(value: Value) -> Map<String, Value> {
        let Value::Object(map) = value else { unreachable!() };
        map
    }

    #[test]
    fn a_jwt_is_told_from_an_opaque_token_by_its_shape() {
        assert!(is_jwt("eyJhbGciOiJub25lIn0.e30."), "unsigned, but a JWT");
        assert!(is_jwt("eyJhbGciOiJFUzI1NiJ9.e30.c2ln"));
        for opaque in ["p4GI9e1a5ObiMTxSMCe_e_rgE_obV8", "a.b.c", "e30.e30", "e30.e30.e30.e30", ""] {
            assert!(!is_jwt(opaque), "{opaque}");
        }
    }

    #[test]
    fn the_principal_reads_the_usual_claims() {
        let p = principal(claims(json!({ "sub": "u1", "client_id": "cli", "scope": "a  b" }))).unwrap();
        assert_eq!(
            (p.subject.as_str(), p.client_id.as_deref(), p.scopes.clone()),
            ("u1", Some("cli"), vec!["a".into(), "b".into()])
        );
        assert_eq!(p.claims["sub"], "u1");
        let p = principal(claims(json!({ "azp": "svc", "scp": ["x"] }))).unwrap();
        assert_eq!((p.subject.as_str(), p.client_id.as_deref(), p.scopes), ("svc", Some("svc"), vec!["x".into()]));
        assert_eq!(principal(claims(json!({ "scope": "a" }))), None);
    }
}

//! The issuer's signing keys (its JWKS), fetched from the `jwks_uri` of its metadata and kept:
//! fetched again when they are an hour old, or when a token names a key the set lacks (a rotated
//! key), at most once per cooldown ([`REFETCH_COOLDOWN`] by default), so that tokens with made-up key ids cannot make
//! the server hammer the authorization server.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, KeyOperations, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::{Map, Value};

use super::discovery::Issuer;
use super::fetch::{self, FetchError};

/// The algorithms a token may be signed with: asymmetric ones only. Never `none` (which the
/// token parser does not even read), never HMAC: its key would be a secret shared with the
/// authorization server, and a public key taken for an HMAC secret lets anyone forge tokens.
pub(super) const ALLOWED: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The most keys kept of a key set; the rest are ignored.
pub(super) const MAX_KEYS: usize = 64;
/// How long a fetched key set is used before it is fetched again.
pub(super) const MAX_AGE: Duration = Duration::from_secs(60 * 60);
/// The least time between two fetches of the key set, by default.
pub(super) const REFETCH_COOLDOWN: Duration = Duration::from_secs(30);

/// One verification key and the algorithms it may verify.
pub(super) struct Key {
    pub(super) decoding: DecodingKey,
    algorithms: Vec<Algorithm>,
}

/// Why no key verifies a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum KeyError {
    /// The set, fetched again, has no key of that id (or, for a token naming none, no single
    /// key for its algorithm).
    Unknown,
    /// The key of that id is not for the token's algorithm.
    WrongAlgorithm,
    /// The key set could not be had.
    Unavailable(FetchError),
}

/// A key set, keys by id and those without one.
#[derive(Default)]
pub(super) struct KeySet {
    named: HashMap<String, Arc<Key>>,
    unnamed: Vec<Arc<Key>>,
}

impl KeySet {
    /// The usable keys of a JWKS document: signature keys of an allowed algorithm, at most
    /// [`MAX_KEYS`]; a key that does not parse is skipped, not the whole set.
    pub(super) fn parse(document: &Map<String, Value>) -> KeySet {
        let mut set = KeySet::default();
        let keys = document.get("keys").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for jwk in keys.iter().take(MAX_KEYS).filter_map(|k| serde_json::from_value::<Jwk>(k.clone()).ok()) {
            let Some(key) = usable(&jwk) else { continue };
            match jwk.common.key_id {
                Some(kid) => {
                    set.named.entry(kid).or_insert_with(|| Arc::new(key));
                }
                None => set.unnamed.push(Arc::new(key)),
            }
        }
        set
    }

    /// The key for a token of `alg` naming `kid`.
    fn find(&self, kid: Option<&str>, alg: Algorithm) -> Result<Arc<Key>, KeyError> {
        if let Some(kid) = kid {
            let key = self.named.get(kid).ok_or(KeyError::Unknown)?;
            return if key.algorithms.contains(&alg) { Ok(Arc::clone(key)) } else { Err(KeyError::WrongAlgorithm) };
        }
        let mut fitting = self.named.values().chain(&self.unnamed).filter(|k| k.algorithms.contains(&alg));
        match (fitting.next(), fitting.next()) {
            (Some(key), None) => Ok(Arc::clone(key)),
            _ => Err(KeyError::Unknown),
        }
    }
}

/// The key and its algorithms, when it is a signature key of an allowed algorithm.
fn usable(jwk: &Jwk) -> Option<Key> {
    if matches!(jwk.common.public_key_use, Some(ref u) if *u != PublicKeyUse::Signature) {
        return None;
    }
    if let Some(ops) = &jwk.common.key_operations
        && !ops.contains(&KeyOperations::Verify)
    {
        return None;
    }
    let family: &[Algorithm] = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => &ALLOWED[..6],
        AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
            EllipticCurve::P256 => &[Algorithm::ES256],
            EllipticCurve::P384 => &[Algorithm::ES384],
            _ => return None,
        },
        AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => &[Algorithm::EdDSA],
        // Symmetric keys (`oct`) and anything else: never a key this server verifies with.
        _ => return None,
    };
    let algorithms: Vec<Algorithm> = match jwk.common.key_algorithm {
        None => family.to_vec(),
        Some(stated) => family.iter().copied().filter(|alg| same(stated, *alg)).collect(),
    };
    if algorithms.is_empty() {
        return None;
    }
    DecodingKey::from_jwk(jwk).ok().map(|decoding| Key { decoding, algorithms })
}

/// Whether a key's stated `alg` is this algorithm.
fn same(stated: KeyAlgorithm, alg: Algorithm) -> bool {
    stated.to_string().parse::<Algorithm>().is_ok_and(|stated| stated == alg)
}

/// The issuer's keys as last fetched, and when.
#[derive(Default)]
struct State {
    set: Option<Arc<KeySet>>,
    fetched: Option<Instant>,
    attempted: Option<Instant>,
    failure: Option<FetchError>,
}

/// The issuer's key set, fetched when needed.
pub(super) struct Keys {
    issuer: Arc<Issuer>,
    cooldown: Duration,
    state: Mutex<State>,
    /// Held while fetching, so that concurrent misses make one fetch.
    fetching: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys").field("issuer", &self.issuer.url).finish_non_exhaustive()
    }
}

impl Keys {
    pub(super) fn new(issuer: Arc<Issuer>, cooldown: Duration) -> Self {
        Keys { issuer, cooldown, state: Mutex::new(State::default()), fetching: tokio::sync::Mutex::new(()) }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The key that verifies a token of `alg` naming `kid`: from the set at hand when it has it,
    /// else from the set fetched again (once per cooldown).
    pub(super) async fn find(&self, kid: Option<&str>, alg: Algorithm) -> Result<Arc<Key>, KeyError> {
        let (set, fetched) = {
            let state = self.state();
            (state.set.clone(), state.fetched)
        };
        let fresh = fetched.is_some_and(|at| at.elapsed() < MAX_AGE);
        if let Some(set) = set.as_ref().filter(|_| fresh) {
            match set.find(kid, alg) {
                Err(KeyError::Unknown) => {}
                found => return found,
            }
        }
        let _fetching = self.fetching.lock().await;
        {
            let state = self.state();
            let newer = state.fetched != fetched;
            let cooling = state.attempted.is_some_and(|at| at.elapsed() < self.cooldown);
            if newer || cooling {
                // Fetched meanwhile, or lately: that set is the answer.
                return match (&state.set, &state.failure) {
                    (Some(set), _) => set.find(kid, alg),
                    (None, failure) => Err(KeyError::Unavailable(
                        failure.clone().unwrap_or_else(|| FetchError("the key set is not fetched yet".into())),
                    )),
                };
            }
        }
        self.state().attempted = Some(Instant::now());
        let fetched = self.fetch().await;
        let mut state = self.state();
        match fetched {
            Ok(set) => {
                let set = Arc::new(set);
                state.set = Some(Arc::clone(&set));
                state.fetched = Some(Instant::now());
                state.failure = None;
                set.find(kid, alg)
            }
            Err(e) => {
                tracing::warn!(issuer = %self.issuer.url, "cannot fetch the signing keys: {e}");
                state.failure = Some(e.clone());
                // An old set still verifies tokens signed with the keys it has.
                match &state.set {
                    Some(set) => set.find(kid, alg),
                    None => Err(KeyError::Unavailable(e)),
                }
            }
        }
    }

    async fn fetch(&self) -> Result<KeySet, FetchError> {
        let metadata = self.issuer.metadata().await?;
        let Some(url) = &metadata.jwks_uri else {
            return Err(FetchError(format!("the metadata of {} names no jwks_uri", self.issuer.url)));
        };
        fetch::json_object(url).await.map(|document| KeySet::parse(&document))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(keys: Value) -> KeySet {
        let Value::Object(document) = json!({ "keys": keys }) else { unreachable!() };
        KeySet::parse(&document)
    }

    const EC: (&str, &str) =
        ("vsaj5mhGE1NfQto-ybmzTI3aIm8nd7ga3CmIYmasLro", "5yuSaxIrhY52pClK3rNl1SqKRILBVxCAGe5c67q47I8");

    #[test]
    fn only_signature_keys_of_allowed_algorithms_are_kept() {
        let keys = set(json!([
            { "kty": "EC", "crv": "P-256", "x": EC.0, "y": EC.1, "kid": "ec", "use": "sig" },
            { "kty": "EC", "crv": "P-256", "x": EC.0, "y": EC.1, "kid": "enc", "use": "enc" },
            { "kty": "oct", "k": "c2VjcmV0", "kid": "hmac" },
            { "kty": "EC", "crv": "P-256", "x": EC.0, "y": EC.1, "kid": "stated", "alg": "ES384" },
            { "kty": "nonsense", "kid": "odd" },
        ]));
        assert!(keys.find(Some("ec"), Algorithm::ES256).is_ok());
        assert_eq!(keys.find(Some("ec"), Algorithm::RS256).err(), Some(KeyError::WrongAlgorithm));
        for dropped in ["enc", "hmac", "stated", "odd"] {
            assert_eq!(keys.find(Some(dropped), Algorithm::ES256).err(), Some(KeyError::Unknown), "{dropped}");
        }
        assert_eq!(keys.find(Some("ec"), Algorithm::HS256).err(), Some(KeyError::WrongAlgorithm));
    }

    #[test]
    fn a_token_naming_no_key_needs_exactly_one_that_fits() {
        let one = set(json!([{ "kty": "EC", "crv": "P-256", "x": EC.0, "y": EC.1 }]));
        assert!(one.find(None, Algorithm::ES256).is_ok());
        let two = set(json!([
            { "kty": "EC", "crv": "P-256", "x": EC.0, "y": EC.1, "kid": "a" },
            { "kty": "EC", "crv": "P-256", "x": EC.0, "y": EC.1, "kid": "b" },
        ]));
        assert_eq!(two.find(None, Algorithm::ES256).err(), Some(KeyError::Unknown));
    }

    #[test]
    fn a_key_set_is_bounded() {
        let many: Vec<Value> = (0..MAX_KEYS + 10)
            .map(|i| json!({ "kty": "EC", "crv": "P-256", "x": EC.0, "y": EC.1, "kid": i.to_string() }))
            .collect();
        let keys = set(Value::Array(many));
        assert_eq!(keys.named.len(), MAX_KEYS);
    }
}

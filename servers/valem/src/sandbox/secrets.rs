//! The random values of the sandbox: secrets a client holds (the pairing's code and its device
//! secret, 128 bits each; session tokens and CSRF tokens, 256 bits), kept by the server only as
//! their SHA-256 digests; the user code a developer reads and types (RFC 8628 §6.1: 8 characters
//! of an alphabet without look-alikes, shown `XXXX-XXXX`); and namespace ids.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};

/// The user code's alphabet: the 20 consonants RFC 8628 §6.1 suggests (no vowels, so no words;
/// none that looks like a digit or another letter). 20^8 codes, about 34.6 bits.
pub const USER_CODE_ALPHABET: &[u8; 20] = b"BCDFGHJKLMNPQRSTVWXZ";
/// Characters of a user code, without its dash.
pub const USER_CODE_LEN: usize = 8;

/// `bytes` random bytes of the operating system's source, as URL-safe base64 without padding.
pub fn random_text(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    fill(&mut buffer);
    URL_SAFE_NO_PAD.encode(buffer)
}

/// A pairing's code and device secret: 128 random bits each.
pub fn pairing_secret() -> String {
    random_text(16)
}

/// A session token or a CSRF token: 256 random bits.
pub fn token() -> String {
    random_text(32)
}

/// A new user code, as it is shown: `XXXX-XXXX`. Each character is drawn without bias (bytes
/// past the last whole multiple of 20 are drawn again).
pub fn user_code() -> String {
    let mut code = String::with_capacity(USER_CODE_LEN + 1);
    let mut byte = [0u8; 1];
    while code.len() < USER_CODE_LEN + 1 {
        if code.len() == USER_CODE_LEN / 2 {
            code.push('-');
            continue;
        }
        fill(&mut byte);
        if usize::from(byte[0]) < 256 - 256 % USER_CODE_ALPHABET.len() {
            code.push(char::from(USER_CODE_ALPHABET[usize::from(byte[0]) % USER_CODE_ALPHABET.len()]));
        }
    }
    code
}

/// A user code as typed, reduced to its 8 characters: case, spaces and dashes do not matter.
/// `None` when what remains is no user code.
pub fn normalize_user_code(typed: &str) -> Option<String> {
    let code: String =
        typed.chars().filter(|c| !c.is_whitespace() && *c != '-').map(|c| c.to_ascii_uppercase()).collect();
    let valid = code.len() == USER_CODE_LEN && code.bytes().all(|b| USER_CODE_ALPHABET.contains(&b));
    valid.then_some(code)
}

/// A namespace id: `s` and 20 hexadecimal digits (80 random bits), a valid first segment of a
/// model id. Not a secret: the session's token is.
pub fn namespace_id() -> String {
    let mut bytes = [0u8; 10];
    fill(&mut bytes);
    let mut id = String::from("s");
    for b in bytes {
        id.push_str(&format!("{b:02x}"));
    }
    id
}

/// The digest a secret is kept as.
pub fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// Whether two digests are equal, in time that does not depend on where they differ.
pub fn same_digest(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn fill(buffer: &mut [u8]) {
    // Without the operating system's random source there is no safe secret to give.
    getrandom::fill(buffer).expect("the operating system's random source");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_have_the_bits_they_promise() {
        let decoded = |s: &str| URL_SAFE_NO_PAD.decode(s).unwrap().len() * 8;
        assert_eq!(decoded(&pairing_secret()), 128);
        assert_eq!(decoded(&token()), 256);
        assert_ne!(token(), token());
        let ns = namespace_id();
        assert!(ns.len() == 21 && ns.starts_with('s') && ns[1..].bytes().all(|b| b.is_ascii_hexdigit()), "{ns}");
    }

    #[test]
    fn a_user_code_is_eight_unambiguous_characters_shown_in_two_halves() {
        for _ in 0..200 {
            let code = user_code();
            assert_eq!(code.len(), 9, "{code}");
            assert_eq!(&code[4..5], "-", "{code}");
            assert!(code.bytes().filter(|b| *b != b'-').all(|b| USER_CODE_ALPHABET.contains(&b)), "{code}");
            assert_eq!(normalize_user_code(&code), Some(code.replace('-', "")));
        }
        for look_alike in b"AEIOUY0123456789" {
            assert!(!USER_CODE_ALPHABET.contains(look_alike));
        }
    }

    #[test]
    fn a_typed_code_ignores_case_spaces_and_dashes() {
        assert_eq!(normalize_user_code(" bcdf-ghjk "), Some("BCDFGHJK".into()));
        assert_eq!(normalize_user_code("BCDF GHJK"), Some("BCDFGHJK".into()));
        for bad in ["", "BCDF-GHJ", "BCDF-GHJKL", "BCDF-GHJA", "BCDF-GHJ1", "ＢCDF-GHJK"] {
            assert_eq!(normalize_user_code(bad), None, "{bad}");
        }
    }

    #[test]
    fn digests_compare_whole() {
        assert!(same_digest(&digest("a"), &digest("a")));
        assert!(!same_digest(&digest("a"), &digest("b")));
    }
}

//! Sandbox namespaces: the models of a paired session are kept under ids `<namespaceId>__<id>`,
//! and every holder of the session sees them by their plain ids. The prefix is added to the ids
//! a caller sends and taken out of everything that comes back. A call made for a session carries
//! the session's [`principal`], which the model tools read to keep it in its namespace.

use serde_json::Value;
use tooltable::Principal;

/// Between a namespace id and a model's own id.
pub const SEPARATOR: &str = "__";

/// What a session's principal's subject starts with, before its namespace id.
const SUBJECT: &str = "sandbox:";

/// The prefix of every model id of `namespace_id`.
pub fn prefix(namespace_id: &str) -> String {
    format!("{namespace_id}{SEPARATOR}")
}

/// The id the model `id` of `namespace_id` is kept under.
pub fn qualified(namespace_id: &str, id: &str) -> String {
    format!("{namespace_id}{SEPARATOR}{id}")
}

/// The namespace a kept id belongs to, when it has one: what precedes its first `__`, when that
/// is a namespace id (`s` and 20 hexadecimal digits).
pub fn of(id: &str) -> Option<&str> {
    let (namespace, _) = id.split_once(SEPARATOR)?;
    let shaped = namespace.len() == 21
        && namespace.starts_with('s')
        && namespace[1..].bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    shaped.then_some(namespace)
}

/// The principal of the calls made for the session of `namespace_id`.
pub fn principal(namespace_id: &str) -> Principal {
    Principal::new(format!("{SUBJECT}{namespace_id}"))
}

/// The namespace of the session a call's principal stands for; `None` for a call of no session
/// (no principal, or one that authenticated otherwise).
pub fn of_principal(principal: Option<&Principal>) -> Option<&str> {
    principal?.subject.strip_prefix(SUBJECT)
}

/// `value` with `prefix` taken out of every string in it (ids, and the messages that quote
/// them), keys included.
pub fn strip(value: Value, prefix: &str) -> Value {
    match value {
        Value::String(s) if s.contains(prefix) => Value::String(s.replace(prefix, "")),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| strip(v, prefix)).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(k, v)| (if k.contains(prefix) { k.replace(prefix, "") } else { k }, strip(v, prefix)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NS: &str = "s0123456789abcdef0123";

    #[test]
    fn ids_are_qualified_and_read_back() {
        let id = qualified(NS, "acme/order");
        assert_eq!(id, format!("{NS}__acme/order"));
        assert_eq!(of(&id), Some(NS));
        assert_eq!(of("plain"), None);
        assert_eq!(of("my__model"), None, "an id with __ of its own is no namespace's");
        assert_eq!(of(&format!("S{}__x", &NS[1..])), None);
    }

    #[test]
    fn a_sessions_principal_names_its_namespace_only() {
        assert_eq!(of_principal(Some(&principal(NS))), Some(NS));
        assert_eq!(of_principal(Some(&Principal::new("user-17"))), None, "a caller of no session");
        assert_eq!(of_principal(None), None);
    }

    #[test]
    fn the_prefix_is_taken_out_of_everything_that_comes_back() {
        let p = prefix(NS);
        let answer = json!({
            "id": format!("{p}order"),
            "models": [format!("{p}a"), format!("{p}b")],
            "message": format!("Model not found: {p}x"),
            format!("{p}k"): 1,
            "n": 3,
        });
        assert_eq!(
            strip(answer, &p),
            json!({ "id": "order", "models": ["a", "b"], "message": "Model not found: x", "k": 1, "n": 3 })
        );
    }
}

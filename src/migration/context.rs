//! Which contexts a `migration_op` event may carry (SPEC A5.4).
//!
//! Valid: a legacy user `{key}`; a single-kind `{kind, key}`; a multi-kind
//! `{kind: "multi", <kind>: {key, …}, …}` with at least one nested context. Keys are non-empty
//! strings; a kind is one or more of `A-Z a-z 0-9 . _ -`, never `kind`, and never `multi` for a
//! single or nested context.

use crate::json::Json;

fn is_valid_kind(kind: &str) -> bool {
    !kind.is_empty()
        && kind != "kind"
        && kind != "multi"
        && kind.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
}

fn has_valid_key(context: &Json) -> bool {
    matches!(context.get("key"), Some(Json::String(key)) if !key.is_empty())
}

/// Whether LaunchDarkly would accept `context` in an event.
pub fn is_valid_context(context: &Json) -> bool {
    let Json::Object(entries) = context else {
        return false;
    };
    match context.get("kind") {
        None => has_valid_key(context),
        Some(Json::String(kind)) if kind == "multi" => {
            if context.get("key").is_some() {
                return false;
            }
            let mut nested = 0;
            for (kind, value) in entries {
                if kind == "kind" {
                    continue;
                }
                match value {
                    inner @ Json::Object(_) if is_valid_kind(kind) && has_valid_key(inner) => nested += 1,
                    _ => return false,
                }
            }
            nested > 0
        }
        Some(Json::String(kind)) => is_valid_kind(kind) && has_valid_key(context),
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn valid(context: serde_json::Value) -> bool {
        is_valid_context(&Json::from_serde(&context))
    }

    #[test]
    fn accepts_the_three_shapes() {
        assert!(valid(json!({"key": "u1"})));
        assert!(valid(json!({"kind": "user", "key": "u1", "name": "N"})));
        assert!(valid(json!({"kind": "org_1.a-b", "key": "o", "_meta": {"privateAttributes": ["x"]}})));
        assert!(valid(json!({"kind": "multi", "user": {"key": "u"}, "org": {"key": "o"}})));
    }

    #[test]
    fn rejects_bad_keys_and_kinds() {
        for bad in [
            json!(null),
            json!("u1"),
            json!({}),
            json!({"key": ""}),
            json!({"key": 5}),
            json!({"kind": "user"}),
            json!({"kind": "user", "key": ""}),
            json!({"kind": "", "key": "k"}),
            json!({"kind": "kind", "key": "k"}),
            json!({"kind": "us er", "key": "k"}),
            json!({"kind": "usér", "key": "k"}),
            json!({"kind": 3, "key": "k"}),
            json!({"kind": "multi"}),
            json!({"kind": "multi", "key": "k", "user": {"key": "u"}}),
            json!({"kind": "multi", "user": {"key": ""}}),
            json!({"kind": "multi", "user": "u"}),
            json!({"kind": "multi", "multi": {"key": "u"}}),
            json!({"kind": "multi", "b@d": {"key": "u"}}),
        ] {
            assert!(!valid(bad.clone()), "{bad}");
        }
    }
}

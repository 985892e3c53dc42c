//! Which contexts a `migration_op` event may carry (SPEC A5.4).
//!
//! Valid: a legacy user `{key}`; a single-kind `{kind, key}`; a multi-kind
//! `{kind: "multi", <kind>: {key, …}, …}` with at least one nested context. Keys are non-empty
//! strings; a kind is one or more of `A-Z a-z 0-9 . _ -`, never `kind`, and never `multi` for a
//! single or nested context.
//!
//! OpenFeature's evaluation contexts are accepted too: where `key` is absent, `targetingKey`
//! (OpenFeature's name for it) is the key, alone or in each nested context.

/// What validation reads of a context, and nothing more: its `kind` and its key facts; for a
/// multi-kind context, whether it has a `key` and the key facts of each nested context. Hosts read these facts from the caller's object without copying it.
#[derive(Clone, Debug, PartialEq)]
pub enum ContextFacts {
    /// Not an object (or an array).
    NotAnObject,
    /// A single-kind context or a legacy user.
    Single { kind: KindFact, keys: KeyFacts },
    /// `kind: "multi"`: whether it has a `key`, and each other attribute by name.
    Multi { has_key: bool, nested: Vec<(String, NestedFact)> },
}

/// A context's `kind` attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum KindFact {
    /// Absent (or a value JSON leaves out: undefined, a function, a symbol).
    Absent,
    Text(String),
    /// Present but not a string.
    Other,
}

/// A context's `key` and `targetingKey`: which one is its key is decided by [`KeyFacts::ok`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KeyFacts {
    /// `None` when `key` is absent (as JSON leaves it out); else whether it is a non-empty string.
    pub key: Option<bool>,
    /// The same of `targetingKey`; hosts may leave it `None` (unread) where `key` is present.
    pub targeting_key: Option<bool>,
}

impl KeyFacts {
    /// Whether the context has a good key: `key` when present (it wins), else `targetingKey`.
    pub fn ok(self) -> bool {
        self.key.or(self.targeting_key).unwrap_or(false)
    }
}

/// One attribute of a multi-kind context.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NestedFact {
    /// An object, with its key facts.
    Context(KeyFacts),
    /// Anything else.
    NotAContext,
}

#[cfg(test)]
impl ContextFacts {
    /// The facts of a context given as plain data (the native tests' host values).
    pub fn of_json(context: &serde_json::Value) -> Self {
        use serde_json::Value as Json;
        let Json::Object(entries) = context else {
            return ContextFacts::NotAnObject;
        };
        let good = |v: Option<&Json>| matches!(v, Some(Json::String(key)) if !key.is_empty());
        let key_ok = |c: &Json| KeyFacts {
            key: c.get("key").map(|k| good(Some(k))),
            targeting_key: c.get("targetingKey").map(|k| good(Some(k))),
        };
        match context.get("kind") {
            Some(Json::String(kind)) if kind == "multi" => ContextFacts::Multi {
                has_key: context.get("key").is_some(),
                nested: entries
                    .iter()
                    .filter(|(name, _)| *name != "kind")
                    .map(|(name, value)| {
                        let fact = match value {
                            Json::Object(_) => NestedFact::Context(key_ok(value)),
                            _ => NestedFact::NotAContext,
                        };
                        (name.to_string(), fact)
                    })
                    .collect(),
            },
            kind => ContextFacts::Single {
                kind: match kind {
                    None => KindFact::Absent,
                    Some(Json::String(k)) => KindFact::Text(k.clone()),
                    Some(_) => KindFact::Other,
                },
                keys: key_ok(context),
            },
        }
    }
}

fn is_valid_kind(kind: &str) -> bool {
    !kind.is_empty()
        && kind != "kind"
        && kind != "multi"
        && kind.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
}

/// Whether LaunchDarkly would accept a context with these facts in an event.
pub fn is_valid(facts: &ContextFacts) -> bool {
    problem(facts).is_none()
}

const NO_KEY: &str = "has no key (a non-empty string key, or OpenFeature's targetingKey)";
const BAD_KIND: &str = "has a kind that is not one or more of A-Z a-z 0-9 . _ - (or is kind or multi)";

/// What makes a context one LaunchDarkly would refuse in an event, in words that follow "the
/// context" (`has no key (…)`); `None` when it would accept it.
pub fn problem(facts: &ContextFacts) -> Option<&'static str> {
    match facts {
        ContextFacts::NotAnObject => Some("is not an object"),
        ContextFacts::Single { kind: KindFact::Other, .. } => Some("has a kind that is not a string"),
        ContextFacts::Single { kind: KindFact::Text(kind), .. } if !is_valid_kind(kind) => Some(BAD_KIND),
        ContextFacts::Single { keys, .. } => (!keys.ok()).then_some(NO_KEY),
        ContextFacts::Multi { has_key: true, .. } => Some("is multi-kind and has a key of its own"),
        ContextFacts::Multi { nested, .. } if nested.is_empty() => Some("is multi-kind with no context in it"),
        ContextFacts::Multi { nested, .. } => nested.iter().find_map(|(kind, fact)| match fact {
            _ if !is_valid_kind(kind) => Some(BAD_KIND),
            NestedFact::Context(keys) if keys.ok() => None,
            NestedFact::Context(_) => Some("is multi-kind with a context that has no key"),
            NestedFact::NotAContext => Some("is multi-kind with an attribute that is not a context"),
        }),
    }
}

/// Whether LaunchDarkly would accept `context` (plain data) in an event.
#[cfg(test)]
pub fn is_valid_context(context: &serde_json::Value) -> bool {
    is_valid(&ContextFacts::of_json(context))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn valid(context: serde_json::Value) -> bool {
        is_valid_context(&context)
    }

    #[test]
    fn accepts_the_three_shapes() {
        assert!(valid(json!({"key": "u1"})));
        assert!(valid(json!({"kind": "user", "key": "u1", "name": "N"})));
        assert!(valid(json!({"kind": "org_1.a-b", "key": "o", "_meta": {"privateAttributes": ["x"]}})));
        assert!(valid(json!({"kind": "multi", "user": {"key": "u"}, "org": {"key": "o"}})));
    }

    #[test]
    fn accepts_openfeature_contexts_where_key_is_absent() {
        assert!(valid(json!({"targetingKey": "u1"})));
        assert!(valid(json!({"kind": "org", "targetingKey": "o1", "name": "N"})));
        assert!(valid(json!({"kind": "multi", "user": {"targetingKey": "u"}, "org": {"key": "o"}})));
        // `key` wins when present, whatever targetingKey says.
        assert!(valid(json!({"key": "u1", "targetingKey": ""})));
        assert!(!valid(json!({"kind": "org", "targetingKey": "o1", "key": ""})));
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
            json!({"targetingKey": ""}),
            json!({"targetingKey": 5}),
            json!({"key": "", "targetingKey": "u1"}),
            json!({"key": null, "targetingKey": "u1"}),
            json!({"kind": "multi", "user": {"targetingKey": ""}}),
            json!({"kind": "multi", "user": {"key": 1, "targetingKey": "u1"}}),
        ] {
            assert!(!valid(bad.clone()), "{bad}");
        }
    }
}

//! What validation reads of a caller's context, from the layout js/bridge/context_facts.js's `contextFacts`
//! answers with (nothing else of the context is read, and it is never copied).

use wasm_bindgen::prelude::*;

use super::value::{array_items, is_array};
use crate::migration::context::{ContextFacts, KeyFacts, KindFact, NestedFact};

/// Key facts from two characters, `key` then `targetingKey`: `1` a non-empty string, `-`
/// absent (or unread), anything else not a good key.
fn keys_from(key: Option<char>, targeting_key: Option<char>) -> KeyFacts {
    let fact = |c: Option<char>| (c != Some('-')).then_some(c == Some('1'));
    KeyFacts { key: fact(key), targeting_key: fact(targeting_key) }
}

/// Reads what `contextFacts` (js/bridge/context_facts.js) returns: undefined for a value that is not an object;
/// a string for a single-kind context — `a`/`s`/`o` (kind absent, a string, anything else), the
/// two key characters of [`keys_from`], then the kind's text; an array for a multi-kind context —
/// `[has key, name, fact, name, fact, …]` where a fact is the two key characters of a nested
/// object, or -1 for anything else.
pub fn facts_from(value: &JsValue) -> ContextFacts {
    if let Some(text) = value.as_string() {
        let mut chars = text.chars();
        let (kind, keys) = (chars.next(), keys_from(chars.next(), chars.next()));
        let kind = match kind {
            Some('s') => KindFact::Text(chars.as_str().to_string()),
            Some('a') => KindFact::Absent,
            _ => KindFact::Other,
        };
        return ContextFacts::Single { kind, keys };
    }
    let Some(items) = is_array(value).then(|| array_items(value)).flatten() else {
        return ContextFacts::NotAnObject;
    };
    let mut items = items.into_iter();
    let has_key = items.next().is_some_and(|v| v.is_truthy());
    let mut nested = Vec::new();
    while let (Some(name), Some(fact)) = (items.next(), items.next()) {
        let fact = match fact.as_string() {
            Some(text) => {
                let mut chars = text.chars();
                NestedFact::Context(keys_from(chars.next(), chars.next()))
            }
            None => NestedFact::NotAContext,
        };
        nested.push((name.as_string().unwrap_or_default(), fact));
    }
    ContextFacts::Multi { has_key, nested }
}

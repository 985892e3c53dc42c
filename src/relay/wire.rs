//! A posted value as the relay reads it: JSON data, read to a bounded depth. The bindings build
//! it from the value `JSON.parse` gave (src/js/relay.rs); the native tests from `serde_json`.

/// Deepest nesting read: the event is depth 1, its `context` 2, a context attribute 3 (a
/// multi-kind context's nested context 3, its attributes 4). Anything deeper is [`Wire::TooDeep`]
/// and refused where it sits, unread.
pub const MAX_DEPTH: usize = 10;
// The refusals name the bounds in words (src/relay/event.rs): they must stay these.
const _: () = assert!(MAX_DEPTH == 10 && MAX_TEXT == 1024);

/// Longest string anywhere in an event, keys included, in UTF-16 code units (JavaScript's
/// `length`, what a page measures).
pub const MAX_TEXT: usize = 1024;

/// One JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Wire {
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
    /// A string longer than [`MAX_TEXT`]: not copied, only refused.
    LongText,
    Array(Vec<Wire>),
    /// Entries in the object's key order.
    Object(Vec<(String, Wire)>),
    /// A value nested deeper than [`MAX_DEPTH`], not read.
    TooDeep,
    /// Not JSON data (undefined, a function, a symbol, a bigint): `JSON.parse` never gives one.
    NotData,
}

/// The length of a string as JavaScript counts it (UTF-16 code units).
pub fn text_units(text: &str) -> usize {
    text.encode_utf16().count()
}

impl Wire {
    /// A string value, [`Wire::LongText`] when it is over the bound.
    pub fn text(text: String) -> Wire {
        if text_units(&text) > MAX_TEXT {
            Wire::LongText
        } else {
            Wire::Text(text)
        }
    }

    /// The entry `name` of an object.
    pub fn field(&self, name: &str) -> Option<&Wire> {
        match self {
            Wire::Object(entries) => entries.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// What the value is, for reasons: `got a number`.
    pub fn got(&self) -> &'static str {
        match self {
            Wire::Null => "got null",
            Wire::Bool(_) => "got a boolean",
            Wire::Number(_) => "got a number",
            Wire::Text(_) | Wire::LongText => "got a string",
            Wire::Array(_) => "got an array",
            Wire::Object(_) => "got an object",
            Wire::TooDeep => "nested too deep",
            Wire::NotData => "got a value that is not JSON data",
        }
    }

    /// The value of `json` read as the bindings read a parsed value: to [`MAX_DEPTH`].
    #[cfg(test)]
    pub fn of_json(json: &serde_json::Value) -> Wire {
        Self::of_json_at(json, 1)
    }

    #[cfg(test)]
    fn of_json_at(json: &serde_json::Value, depth: usize) -> Wire {
        use serde_json::Value as Json;
        if depth > MAX_DEPTH {
            return Wire::TooDeep;
        }
        match json {
            Json::Null => Wire::Null,
            Json::Bool(b) => Wire::Bool(*b),
            Json::Number(n) => Wire::Number(n.as_f64().unwrap_or(f64::NAN)),
            Json::String(s) => Wire::text(s.clone()),
            Json::Array(items) => Wire::Array(items.iter().map(|v| Self::of_json_at(v, depth + 1)).collect()),
            Json::Object(entries) => {
                Wire::Object(entries.iter().map(|(k, v)| (k.clone(), Self::of_json_at(v, depth + 1))).collect())
            }
        }
    }
}

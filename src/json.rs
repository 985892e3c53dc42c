//! Plain JSON data read from the host: an evaluation reason (kept for cutover's own events) and,
//! for hosts without a cheaper way, a context read for validation. Objects keep their keys in
//! the order they were read. Its serde form is the data itself, so it goes out (in an event, to
//! JavaScript through serde-wasm-bindgen) like any other serde field. What the core builds
//! itself (events, statistics) is its own serde types, not this.

use std::borrow::Cow;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// An object key: one of the core's own names, or a name read from the host.
pub type Key = Cow<'static, str>;

#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(Key, Json)>),
}

impl Json {
    /// The value of `key` when this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    /// An empty object, to be filled with [`Json::with`] and [`Json::with_some`].
    pub fn object() -> Self {
        Json::Object(Vec::new())
    }

    /// This object with `key: value` appended (no effect on a non-object).
    pub fn with(mut self, key: &'static str, value: impl Into<Json>) -> Self {
        if let Json::Object(entries) = &mut self {
            entries.push((Cow::Borrowed(key), value.into()));
        }
        self
    }

    /// This object with `key: value` appended when there is a value.
    pub fn with_some<T: Into<Json>>(self, key: &'static str, value: Option<T>) -> Self {
        match value {
            Some(value) => self.with(key, value),
            None => self,
        }
    }
}

/// Written as JavaScript would see it: integral numbers as integers, objects in key order.
impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => crate::util::number::serialize(n, serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => serializer.collect_seq(items),
            Json::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k.as_ref(), v)?;
                }
                map.end()
            }
        }
    }
}

impl From<bool> for Json {
    fn from(b: bool) -> Self {
        Json::Bool(b)
    }
}

impl From<f64> for Json {
    fn from(n: f64) -> Self {
        Json::Number(n)
    }
}

impl From<u64> for Json {
    fn from(n: u64) -> Self {
        Json::Number(n as f64)
    }
}

impl From<i64> for Json {
    fn from(n: i64) -> Self {
        Json::Number(n as f64)
    }
}

impl From<&str> for Json {
    fn from(s: &str) -> Self {
        Json::String(s.to_string())
    }
}

impl From<String> for Json {
    fn from(s: String) -> Self {
        Json::String(s)
    }
}

impl From<Vec<Json>> for Json {
    fn from(items: Vec<Json>) -> Self {
        Json::Array(items)
    }
}

/// A test value's serde form: its plain data, or `null` for an opaque text (as a host value
/// that is not plain data reads).
#[cfg(test)]
impl Serialize for crate::testing::TestValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            crate::testing::TestValue::Json(v) => v.serialize(serializer),
            crate::testing::TestValue::Text(_) => serializer.serialize_unit(),
        }
    }
}

/// The serde form of `value` as `serde_json` data, numbers as JavaScript has them (integral
/// ones as integers), to compare with `json!`.
#[cfg(test)]
pub fn wire<T: Serialize + ?Sized>(value: &T) -> serde_json::Value {
    Json::from_serde(&serde_json::to_value(value).unwrap()).to_serde()
}

#[cfg(test)]
impl Json {
    /// JSON text with the keys in their order (tests check the wire order with it).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write_text(&mut out);
        out
    }

    fn write_text(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) if !n.is_finite() => out.push_str("null"),
            Json::Number(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => out.push_str(&(*n as i64).to_string()),
            Json::Number(n) if (1e-5..1e15).contains(&n.abs()) => out.push_str(&n.to_string()),
            Json::Number(n) => out.push_str(&format!("{n:e}")),
            Json::String(s) => out.push_str(&serde_json::to_string(s).unwrap()),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_text(out);
                }
                out.push(']');
            }
            Json::Object(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k.as_ref()).unwrap());
                    out.push(':');
                    v.write_text(out);
                }
                out.push('}');
            }
        }
    }

    /// The same data as a `serde_json::Value` (integral numbers as integers), to compare with `json!`.
    pub fn to_serde(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 => {
                if *n >= 0.0 {
                    Value::from(*n as u64)
                } else {
                    Value::from(*n as i64)
                }
            }
            Json::Number(n) => serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number),
            Json::String(s) => Value::String(s.clone()),
            Json::Array(items) => Value::Array(items.iter().map(Json::to_serde).collect()),
            Json::Object(entries) => {
                Value::Object(entries.iter().map(|(k, v)| (k.to_string(), v.to_serde())).collect())
            }
        }
    }

    /// The same data read from a `serde_json::Value`.
    pub fn from_serde(value: &serde_json::Value) -> Json {
        use serde_json::Value;
        match value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => Json::Number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => Json::String(s.clone()),
            Value::Array(items) => Json::Array(items.iter().map(Json::from_serde).collect()),
            Value::Object(map) => {
                Json::Object(map.iter().map(|(k, v)| (Cow::Owned(k.clone()), Json::from_serde(v))).collect())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_keep_their_key_order_and_look_keys_up() {
        let o = Json::object().with("z", 1.0).with("a", "x").with_some("m", None::<bool>).with_some("b", Some(true));
        assert_eq!(o.to_text(), r#"{"z":1,"a":"x","b":true}"#);
        assert_eq!(o.get("a"), Some(&Json::from("x")));
        assert_eq!(o.get("m"), None);
        assert_eq!(Json::Null.get("a"), None);
    }

    #[test]
    fn text_escapes_strings_and_writes_non_finite_numbers_as_null() {
        let a = Json::Array(vec![Json::from("a\"\n"), Json::Number(f64::NAN), Json::Number(0.25), Json::Number(-3.0)]);
        assert_eq!(a.to_text(), r#"["a\"\n",null,0.25,-3]"#);
    }

    #[test]
    fn serde_round_trip_keeps_the_data() {
        let v = json!({"kind": "multi", "user": {"key": "u", "n": [1, 2.5, null, false]}});
        assert_eq!(Json::from_serde(&v).to_serde(), v);
    }
}

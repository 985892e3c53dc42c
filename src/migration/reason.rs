//! The `reason` of an event's `evaluation`: the flag system's own reason object, passed along as
//! the host gave it (never copied), or the error reason cutover writes when it could not use the
//! flag's answer (SPEC A7).

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// Why cutover fell back to the default stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// `migrationVariation` threw or rejected.
    Exception,
    /// The flag served a value that is not one of the six stages.
    WrongType,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Exception => "EXCEPTION",
            ErrorKind::WrongType => "WRONG_TYPE",
        }
    }
}

/// An evaluation reason.
#[derive(Clone, Debug, PartialEq)]
pub enum Reason<V> {
    /// The reason object the flag system returned (the caller's own value).
    Given(V),
    /// `{ "kind": "ERROR", "errorKind": … }`.
    Error(ErrorKind),
}

impl<V: Serialize> Serialize for Reason<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Reason::Given(value) => value.serialize(serializer),
            Reason::Error(kind) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("kind", "ERROR")?;
                map.serialize_entry("errorKind", kind.as_str())?;
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestValue;
    use serde_json::json;

    #[test]
    fn an_error_reason_is_kind_error_with_its_error_kind() {
        let r: Reason<TestValue> = Reason::Error(ErrorKind::WrongType);
        assert_eq!(serde_json::to_string(&r).unwrap(), r#"{"kind":"ERROR","errorKind":"WRONG_TYPE"}"#);
        let r: Reason<TestValue> = Reason::Error(ErrorKind::Exception);
        assert_eq!(serde_json::to_value(&r).unwrap(), json!({"kind": "ERROR", "errorKind": "EXCEPTION"}));
    }

    #[test]
    fn a_given_reason_is_written_as_it_was_given() {
        let r = Reason::Given(TestValue::Json(json!({"kind": "RULE_MATCH", "ruleIndex": 0})));
        assert_eq!(serde_json::to_value(&r).unwrap(), json!({"kind": "RULE_MATCH", "ruleIndex": 0}));
    }
}

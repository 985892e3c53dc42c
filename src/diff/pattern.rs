//! One `ignore` pattern of `sameStructure`: a JSON Pointer (RFC 6901) whose segment `*` matches
//! any one segment.
//!
//! `''` is the root (ignoring everything); otherwise the pattern starts with `/` and each
//! segment is unescaped (`~0` is `~`, `~1` is `/`). A segment that is exactly `*` is the
//! wildcard, so a key that is itself `*` can only be matched by the wildcard; `a*` is a
//! literal key. `-` and numbers are literal segments: `/items/3` matches index 3 of an array and
//! the key `"3"` of an object, `/items/03` only the key `"03"`.

use crate::error::Error;
use crate::util::text::quoted;

/// One parsed segment of a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternSegment {
    /// `*`: any one segment, key or index.
    Any,
    /// A key or an index, unescaped.
    Literal(String),
}

/// Parses `pattern`, the `position`-th entry of `ignore`; the error names both.
pub fn parse_pattern(pattern: &str, position: usize) -> Result<Vec<PatternSegment>, Error> {
    if pattern.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pattern.strip_prefix('/') else {
        return Err(invalid(position, pattern, "'' or starting with '/'"));
    };
    let mut segments = Vec::new();
    for raw in rest.split('/') {
        if raw == "*" {
            segments.push(PatternSegment::Any);
            continue;
        }
        let mut literal = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c != '~' {
                literal.push(c);
                continue;
            }
            match chars.next() {
                Some('0') => literal.push('~'),
                Some('1') => literal.push('/'),
                _ => return Err(invalid(position, pattern, "'~' only as '~0' or '~1'")),
            }
        }
        segments.push(PatternSegment::Literal(literal));
    }
    Ok(segments)
}

fn invalid(position: usize, pattern: &str, rule: &str) -> Error {
    Error::Type(format!("sameStructure: ignore[{position}] must be a JSON Pointer ({rule}), got {}", quoted(pattern)))
}

/// The message for an `ignore` entry that is not a string, for the bindings.
pub fn not_a_string(position: usize) -> Error {
    Error::Type(format!("sameStructure: ignore[{position}] must be a string (a JSON Pointer)"))
}

/// The message for an `ignore` that is not an array, for the bindings.
pub fn not_an_array() -> Error {
    Error::Type("sameStructure: ignore must be an array of JSON Pointers".into())
}

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

/// The function whose `ignore` option messages name by default.
pub const SAME_STRUCTURE: &str = "sameStructure";

/// Parses `pattern`, the `position`-th entry of `ignore`; the error names both.
pub fn parse_pattern(pattern: &str, position: usize) -> Result<Vec<PatternSegment>, Error> {
    parse_pattern_of(SAME_STRUCTURE, pattern, position)
}

/// [`parse_pattern`] for the `ignore` option of `owner` (`sameResponse`), which errors name.
pub fn parse_pattern_of(owner: &str, pattern: &str, position: usize) -> Result<Vec<PatternSegment>, Error> {
    if pattern.is_empty() {
        return Ok(Vec::new());
    }
    let invalid = |rule: &str| {
        Error::Type(format!("{owner}: ignore[{position}] must be a JSON Pointer ({rule}), got {}", quoted(pattern)))
    };
    let Some(rest) = pattern.strip_prefix('/') else {
        return Err(invalid("'' or starting with '/'"));
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
                _ => return Err(invalid("'~' only as '~0' or '~1'")),
            }
        }
        segments.push(PatternSegment::Literal(literal));
    }
    Ok(segments)
}

/// The message for an `ignore` entry that is not a string, for the bindings.
pub fn not_a_string(position: usize) -> Error {
    not_a_string_of(SAME_STRUCTURE, position)
}

/// [`not_a_string`] for the `ignore` option of `owner`.
pub fn not_a_string_of(owner: &str, position: usize) -> Error {
    Error::Type(format!("{owner}: ignore[{position}] must be a string (a JSON Pointer)"))
}

/// The message for an `ignore` that is not an array, for the bindings.
pub fn not_an_array() -> Error {
    not_an_array_of(SAME_STRUCTURE)
}

/// [`not_an_array`] for the `ignore` option of `owner`.
pub fn not_an_array_of(owner: &str) -> Error {
    Error::Type(format!("{owner}: ignore must be an array of JSON Pointers"))
}

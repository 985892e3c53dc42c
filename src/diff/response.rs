//! `sameResponse({ headers, ignore, maxBodyBytes })`'s options (API §2c), checked: the comparison
//! of two fetch Responses as the `{ status, headers, body }` snapshots a binding reads of them,
//! compared by the structural walk with `ignore` (`'/body/requestId'`, `'/headers/date'`).
//!
//! What runs when is the migrator's (`Comparison::snapshot`: each Response snapshotted as its
//! origin settles, the check once both bodies are read, after the caller's read resolved); what
//! a snapshot holds is read by the binding (a Response is a host object): the status, the listed
//! headers by their lower-case names (`null` when absent), and the body, at most
//! `maxBodyBytes` bytes, as JSON when the content type is JSON, else as text.

use super::ignore::Ignore;
use crate::error::Error;
use crate::util::text::{number, quoted};

/// The function the options belong to, as messages name it.
pub const SAME_RESPONSE: &str = "sameResponse";

/// The most bytes of a body read when `maxBodyBytes` is not given: 1 MiB.
pub const DEFAULT_MAX_BODY_BYTES: f64 = 1_048_576.0;

/// The checked options of one `sameResponse`.
#[derive(Debug)]
pub struct ResponseOptions {
    /// The headers compared, lower-case, each once, in the order given.
    pub headers: Vec<String>,
    pub ignore: Ignore,
    /// A body longer than this is not read to the end: no consistency value is recorded.
    pub max_body_bytes: f64,
}

impl ResponseOptions {
    /// `headers` and `ignore` as lists of strings (`None` when absent), `max_body_bytes` as a
    /// number (`None` when absent); the bindings check those JavaScript types.
    pub fn new(
        headers: Option<&[String]>,
        ignore: Option<&[String]>,
        max_body_bytes: Option<f64>,
    ) -> Result<Self, Error> {
        let headers = header_names(headers.unwrap_or_default())?;
        let ignore = match ignore {
            None => Ignore::none(),
            Some(patterns) => Ignore::compile_of(SAME_RESPONSE, patterns)?,
        };
        let max_body_bytes = match max_body_bytes {
            None => DEFAULT_MAX_BODY_BYTES,
            Some(n) if n.is_finite() && n >= 1.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER => n,
            Some(n) => {
                return Err(Error::Range(format!(
                    "{SAME_RESPONSE}: maxBodyBytes must be a positive integer (bytes), got {}",
                    number(n)
                )))
            }
        };
        Ok(ResponseOptions { headers, ignore, max_body_bytes })
    }
}

/// `Number.MAX_SAFE_INTEGER`.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Whether `c` may be in a header name (RFC 9110's `tchar`). A `match`, not a search of a
/// string of them: that brought string searching and its panic formatting into the wasm.
fn token_char(c: char) -> bool {
    matches!(c, 'a'..='z' | 'A'..='Z' | '0'..='9' | '!' | '#' | '$' | '%' | '&' | '\'' | '*' | '+' | '-' | '.' | '^' | '_' | '`' | '|' | '~')
}

/// The header names, lower-case and each once; a name that is not an HTTP token is refused.
fn header_names(names: &[String]) -> Result<Vec<String>, Error> {
    let mut checked: Vec<String> = Vec::with_capacity(names.len());
    for (position, name) in names.iter().enumerate() {
        if name.is_empty() || !name.chars().all(token_char) {
            return Err(Error::Type(format!(
                "{SAME_RESPONSE}: headers[{position}] must be a header name (letters, digits and !#$%&'*+-.^_`|~), got {}",
                quoted(name)
            )));
        }
        let lower = name.to_ascii_lowercase();
        if !checked.contains(&lower) {
            checked.push(lower);
        }
    }
    Ok(checked)
}

/// The message for `headers` that is not an array, for the bindings.
pub fn headers_not_an_array() -> Error {
    Error::Type(format!("{SAME_RESPONSE}: headers must be an array of header names"))
}

/// The message for a `headers` entry that is not a string, for the bindings.
pub fn header_not_a_string(position: usize) -> Error {
    Error::Type(format!("{SAME_RESPONSE}: headers[{position}] must be a string (a header name)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    /// The error's class and message, as `TypeError: …`.
    fn error(headers: &[&str], ignore: &[&str], max: Option<f64>) -> String {
        let error = ResponseOptions::new(Some(&strings(headers)), Some(&strings(ignore)), max).unwrap_err();
        let class = match error {
            Error::Type(_) => "TypeError",
            Error::Range(_) => "RangeError",
            _ => "Error",
        };
        format!("{class}: {error}")
    }

    #[test]
    fn the_defaults_compare_no_header_and_read_a_mebibyte() {
        let options = ResponseOptions::new(None, None, None).unwrap();
        assert!(options.headers.is_empty());
        assert_eq!(options.max_body_bytes, 1_048_576.0);
    }

    #[test]
    fn header_names_are_lower_case_and_listed_once() {
        let options = ResponseOptions::new(Some(&strings(&["Content-Type", "ETag", "content-type"])), None, None);
        assert_eq!(options.unwrap().headers, ["content-type", "etag"]);
    }

    #[test]
    fn a_header_name_that_is_not_a_token_is_refused_by_position() {
        assert_eq!(
            error(&["etag", "x y"], &[], None),
            "TypeError: sameResponse: headers[1] must be a header name (letters, digits and !#$%&'*+-.^_`|~), got \"x y\""
        );
        assert!(error(&[""], &[], None).contains("headers[0] must be a header name"));
        assert!(error(&["caf\u{e9}"], &[], None).contains("headers[0]"));
    }

    #[test]
    fn ignore_patterns_are_checked_and_named_as_same_responses() {
        assert_eq!(
            error(&[], &["/body/id", "body"], None),
            "TypeError: sameResponse: ignore[1] must be a JSON Pointer ('' or starting with '/'), got \"body\""
        );
        let options = ResponseOptions::new(None, Some(&strings(&["/headers/date", "/body/items/*/etag"])), None);
        assert!(options.is_ok());
    }

    #[test]
    fn max_body_bytes_is_a_positive_integer() {
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY, 1e300] {
            let message = error(&[], &[], Some(bad));
            assert!(
                message.starts_with("RangeError: sameResponse: maxBodyBytes must be a positive integer"),
                "{message}"
            );
        }
        assert_eq!(
            error(&[], &[], Some(-1.0)),
            "RangeError: sameResponse: maxBodyBytes must be a positive integer (bytes), got -1"
        );
        assert_eq!(ResponseOptions::new(None, None, Some(16.0)).unwrap().max_body_bytes, 16.0);
    }
}

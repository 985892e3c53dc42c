//! Context-key hashing and segment references (SPEC B2).

use sha2::{Digest, Sha256};

/// The key a Big Segment store is queried with: base64 (standard alphabet, padded) of the
/// SHA-256 of the UTF-8 bytes of `context_key`.
pub fn hash_context_key(context_key: &str) -> String {
    base64(&Sha256::digest(context_key.as_bytes()))
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with `=` padding (a few lines instead of a crate: the wasm stays small).
fn base64(bytes: &[u8]) -> String {
    let symbol = |six: u32| char::from(ALPHABET.get((six & 63) as usize).copied().unwrap_or(b'='));
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let (a, b, c) = match *chunk {
            [a, b, c] => (a, Some(b), Some(c)),
            [a, b] => (a, Some(b), None),
            [a] => (a, None, None),
            _ => continue,
        };
        let n = u32::from(a) << 16 | u32::from(b.unwrap_or(0)) << 8 | u32::from(c.unwrap_or(0));
        out.push(symbol(n >> 18));
        out.push(symbol(n >> 12));
        out.push(if b.is_some() { symbol(n >> 6) } else { '=' });
        out.push(if c.is_some() { symbol(n) } else { '=' });
    }
    out
}

/// The membership reference of one generation of a segment: `<segmentKey>.g<generation>`.
pub fn big_segment_ref(segment_key: &str, generation: u64) -> String {
    format!("{segment_key}.g{generation}")
}

/// The largest integer a JavaScript number holds exactly (2^53 − 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A generation that is not a non-negative integer (`bigSegmentRef`'s `RangeError`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InvalidGeneration(pub f64);

impl std::fmt::Display for InvalidGeneration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bigSegmentRef: generation must be a non-negative integer, got {}", crate::util::text::number(self.0))
    }
}

/// A generation given as a number: a non-negative integer up to 2^53 − 1 (a larger number
/// is no longer exact). `-0` is 0.
pub fn generation(n: f64) -> Result<u64, InvalidGeneration> {
    if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER {
        Ok(n as u64)
    } else {
        Err(InvalidGeneration(n))
    }
}

/// [`big_segment_ref`] for a generation given as a number, checked by [`generation`].
pub fn big_segment_ref_of_number(segment_key: &str, generation_number: f64) -> Result<String, InvalidGeneration> {
    generation(generation_number).map(|g| big_segment_ref(segment_key, g))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_spec_vectors() {
        assert_eq!(hash_context_key("user-key"), "CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=");
        assert_eq!(hash_context_key("userkey1"), "egD7ldtwe3X6CFKAdPpwcvBas+KWGyNpv66/lW/SBsg=");
        assert_eq!(hash_context_key(""), "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
        assert_eq!(hash_context_key("é"), "SplVfkAzw1Od4utlRyAXytX5VX96BiWgnxw/biumnEw=");
    }

    #[test]
    fn base64_pads_like_the_standard_alphabet() {
        for (input, want) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("\u{ff}\u{fe}", "w7/Dvg=="),
        ] {
            assert_eq!(base64(input.as_bytes()), want, "{input:?}");
        }
    }

    #[test]
    fn segment_ref_is_key_dot_g_decimal_generation() {
        assert_eq!(big_segment_ref("seg", 12), "seg.g12");
        assert_eq!(big_segment_ref("seg", 0), "seg.g0");
        assert_eq!(big_segment_ref("a.b", u64::MAX), "a.b.g18446744073709551615");
    }

    #[test]
    fn a_generation_is_a_non_negative_safe_integer() {
        assert_eq!(big_segment_ref_of_number("seg", 3.0), Ok("seg.g3".to_string()));
        assert_eq!(generation(-0.0), Ok(0));
        assert_eq!(generation(MAX_SAFE_INTEGER), Ok(9_007_199_254_740_991));
        for bad in [-1.0, 1.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, MAX_SAFE_INTEGER + 1.0, 1e300] {
            assert!(generation(bad).is_err(), "{bad}");
        }
        assert_eq!(
            generation(-1.0).unwrap_err().to_string(),
            "bigSegmentRef: generation must be a non-negative integer, got -1"
        );
        assert_eq!(
            generation(1.5).unwrap_err().to_string(),
            "bigSegmentRef: generation must be a non-negative integer, got 1.5"
        );
    }
}

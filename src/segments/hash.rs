//! Context-key hashing and segment references (SPEC B2).

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use sha2::{Digest, Sha256};

/// The key a Big Segment store is queried with: base64 (standard alphabet, padded) of the
/// SHA-256 of the UTF-8 bytes of `context_key`.
pub fn hash_context_key(context_key: &str) -> String {
    STANDARD.encode(Sha256::digest(context_key.as_bytes()))
}

/// The membership reference of one generation of a segment: `<segmentKey>.g<generation>`.
pub fn big_segment_ref(segment_key: &str, generation: u64) -> String {
    format!("{segment_key}.g{generation}")
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
    fn segment_ref_is_key_dot_g_decimal_generation() {
        assert_eq!(big_segment_ref("seg", 12), "seg.g12");
        assert_eq!(big_segment_ref("seg", 0), "seg.g0");
        assert_eq!(big_segment_ref("a.b", u64::MAX), "a.b.g18446744073709551615");
    }
}

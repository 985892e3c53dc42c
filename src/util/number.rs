//! Numbers in serde forms as JavaScript has them: one kind of number, so an integral value is
//! written as an integer (`3`, not `3.0`), and a number JSON cannot hold as `null`.

use serde::Serializer;

/// Largest integer a JavaScript number holds exactly.
const SAFE: f64 = 9_007_199_254_740_991.0;

/// `serialize_with` for an `f64` field.
pub fn serialize<S: Serializer>(n: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    let n = *n;
    if !n.is_finite() {
        serializer.serialize_unit()
    } else if n.fract() == 0.0 && n.abs() <= SAFE {
        serializer.serialize_i64(n as i64)
    } else {
        serializer.serialize_f64(n)
    }
}

/// `serialize_with` for a `u64` field: as the JavaScript number it becomes (a float beyond 2^53).
pub fn serialize_u64<S: Serializer>(n: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serialize(&(*n as f64), serializer)
}

/// `serialize_with` for an `Option<f64>` field that is skipped when `None`.
pub fn serialize_some<S: Serializer>(n: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match n {
        Some(n) => serialize(n, serializer),
        None => serializer.serialize_unit(),
    }
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize)]
    struct N(#[serde(serialize_with = "super::serialize")] f64);

    #[test]
    fn integral_numbers_are_integers_and_non_finite_ones_null() {
        let text = |n| serde_json::to_string(&N(n)).unwrap();
        assert_eq!(text(3.0), "3");
        assert_eq!(text(-0.0), "0");
        assert_eq!(text(2.5), "2.5");
        assert_eq!(text(f64::NAN), "null");
        assert_eq!(text(1e300), "1e+300");
    }
}

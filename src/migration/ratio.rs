//! A 1-in-N ratio given by the caller rather than by a flag: `launchDarklyBrowserClient`'s
//! `samplingRatio` and `checkRatio` (LaunchDarkly's browser SDK serves no migration settings, so
//! the page says how often to send an event and to run a consistency check).
//!
//! The rule is the one LaunchDarkly's flags follow: a whole number ≥ 0, where 1 is every time and
//! 0 is never; absent is 1. Anything else is refused at once (a `RangeError` naming the option),
//! where the core would otherwise treat it as "never" without a word (`Host::sample`).

use crate::error::Error;

/// The ratio `value` stands for (`None`: absent, 1), or a `RangeError` naming `what` and ending
/// with `got` (the bindings' description of the value: `got number 2.5`).
pub fn ratio_option(value: Option<f64>, what: &str, got: impl FnOnce() -> String) -> Result<f64, Error> {
    let Some(n) = value else {
        return Ok(1.0);
    };
    if n.is_finite() && n >= 0.0 && n.fract() == 0.0 {
        // -0 is 0.
        return Ok(n.abs());
    }
    Err(Error::Range(format!("{what} must be a whole number ≥ 0 (1 in N; 0: never), {}", got())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn got() -> String {
        "got …".into()
    }

    #[test]
    fn absent_is_one_and_whole_numbers_pass() {
        assert_eq!(ratio_option(None, "x", got), Ok(1.0));
        for n in [0.0, 1.0, 2.0, 1000.0, 9.0e15] {
            assert_eq!(ratio_option(Some(n), "x", got), Ok(n));
        }
        assert_eq!(ratio_option(Some(-0.0), "x", got).map(f64::is_sign_positive), Ok(true));
    }

    #[test]
    fn fractions_negatives_and_non_finite_are_range_errors_naming_the_option() {
        for n in [0.5, 2.5, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let e = ratio_option(Some(n), "launchDarklyBrowserClient: options.samplingRatio", got).unwrap_err();
            assert!(matches!(e, Error::Range(_)), "{n}: {e:?}");
            assert!(
                e.to_string()
                    .starts_with("launchDarklyBrowserClient: options.samplingRatio must be a whole number ≥ 0"),
                "{e}"
            );
        }
        let e = ratio_option(Some(2.5), "x", || "got number 2.5".into()).unwrap_err();
        assert_eq!(e.to_string(), "x must be a whole number ≥ 0 (1 in N; 0: never), got number 2.5");
    }
}

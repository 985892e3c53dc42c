//! Small text helpers for messages, written without Rust's float and debug formatting, which
//! would add tens of kilobytes to the wasm binary.

/// A number as JavaScript would print it for integers, else with up to three decimals.
pub fn number(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        return (n as i64).to_string();
    }
    if n.abs() >= 9.0e15 {
        return if n > 0.0 { ">9e15".into() } else { "<-9e15".into() };
    }
    let sign = if n < 0.0 { "-" } else { "" };
    let thousandths = (n.abs() * 1000.0).round() as i64;
    let (whole, frac) = (thousandths / 1000, thousandths % 1000);
    let mut out = format!("{sign}{whole}.{frac:03}");
    while out.ends_with('0') {
        out.pop();
    }
    if out.ends_with('.') {
        out.pop();
    }
    out
}

/// `text` in double quotes, for naming a bad value in a message.
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push('?'),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_like_javascript_for_integers_and_briefly_otherwise() {
        assert_eq!(number(100.0), "100");
        assert_eq!(number(-3.0), "-3");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(12.3456), "12.346");
        assert_eq!(number(-0.5), "-0.5");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(number(1e300), ">9e15");
    }

    #[test]
    fn quoting_escapes_quotes_and_hides_controls() {
        assert_eq!(quoted("a\"b\\c\n"), "\"a\\\"b\\\\c?\"");
    }
}

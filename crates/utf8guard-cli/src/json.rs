//! Just enough JSON writing for the reports: strings escaped per RFC 8259.

use std::fmt::Write;

/// Appends `s` as a JSON string literal.
pub fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7F}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends `"key":` (with a leading comma unless `first`).
pub fn push_key(out: &mut String, key: &str, first: bool) {
    if !first {
        out.push(',');
    }
    push_str(out, key);
    out.push(':');
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_quotes_backslashes_and_controls() {
        let mut out = String::new();
        super::push_str(&mut out, "a\"b\\c\nd\u{1}é\u{7F}");
        assert_eq!(out, r#""a\"b\\c\nd\u0001é\u007f""#);
    }
}

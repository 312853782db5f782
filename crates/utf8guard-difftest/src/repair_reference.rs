//! The repair policies written again, for the difftest's subjects of
//! `utf8guard::repair` and its streaming forms: the units to replace are
//! found with `core::str::from_utf8` (each error is one maximal subpart),
//! with the JDK's rule for surrogates on top, and each policy's text comes
//! from its own table here, transcribed from its source (WHATWG's
//! index-windows-1252, CPython's `backslashreplace`, PEP 383).

use utf8guard::Replacement;

/// Windows-1252's bytes `80..9F` per the WHATWG index; the five it leaves
/// unassigned map to the C1 control of the same value.
const WINDOWS_1252_C1: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž', '\u{8F}',
    '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9D}', 'ž', 'Ÿ',
];

/// The character `b` is in Windows-1252.
pub(crate) fn windows_1252(b: u8) -> char {
    match b {
        0x80..=0x9F => WINDOWS_1252_C1[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// The units of `input` to replace, as `(start, end)`: its maximal
/// subparts, but for `jvm` a surrogate's 3-byte form (`ED A0..BF` and a
/// continuation byte), or the part of it before a byte that is not one, is
/// one unit, as the JDK's decoder replaces it.
fn units(input: &[u8], jvm: bool) -> Vec<(usize, usize)> {
    let mut units = Vec::new();
    let mut at = 0;
    while at < input.len() {
        let Err(e) = core::str::from_utf8(&input[at..]) else {
            break;
        };
        let start = at + e.valid_up_to();
        let mut end = e.error_len().map_or(input.len(), |n| start + n);
        if jvm
            && input[start] == 0xED
            && input
                .get(start + 1)
                .is_some_and(|b| (0xA0..=0xBF).contains(b))
        {
            end = match input.get(start + 2) {
                Some(b) if b & 0xC0 == 0x80 => start + 3,
                _ => (start + 2).min(input.len()),
            };
        }
        units.push((start, end));
        at = end;
    }
    units
}

/// What `policy` writes for the bytes of one unit.
fn write_unit(policy: Replacement, unit: &[u8], out: &mut String) {
    for (i, &b) in unit.iter().enumerate() {
        match policy {
            Replacement::MaximalSubpart | Replacement::Jvm if i == 0 => out.push('\u{FFFD}'),
            Replacement::PerByte => out.push('\u{FFFD}'),
            Replacement::Windows1252 => out.push(windows_1252(b)),
            Replacement::Latin1 => out.push(char::from(b)),
            Replacement::Backslash => out.push_str(&format!("\\x{b:02x}")),
            _ => {}
        }
    }
}

/// `input` repaired under `policy`.
pub fn repaired(input: &[u8], policy: Replacement) -> String {
    let mut out = String::new();
    let mut at = 0;
    for (start, end) in units(input, policy == Replacement::Jvm) {
        out.push_str(core::str::from_utf8(&input[at..start]).expect("before a unit: valid"));
        write_unit(policy, &input[start..end], &mut out);
        at = end;
    }
    out.push_str(core::str::from_utf8(&input[at..]).expect("after the units: valid"));
    out
}

/// `input` with each byte `b` of a maximal subpart written as the lone
/// surrogate U+DC00+`b` in WTF-8 (PEP 383's surrogate escape).
pub fn escaped(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut at = 0;
    for (start, end) in units(input, false) {
        out.extend_from_slice(&input[at..start]);
        for &b in &input[start..end] {
            let unit = 0xDC00 + u32::from(b);
            out.extend_from_slice(&[
                0xE0 | (unit >> 12) as u8,
                0x80 | (unit >> 6 & 0x3F) as u8,
                0x80 | (unit & 0x3F) as u8,
            ]);
        }
        at = end;
    }
    out.extend_from_slice(&input[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_policy_on_known_inputs() {
        let input = b"caf\xE9 \x80\xED\xA0\x80!\xF0\x9F\x98";
        let cases = [
            (
                Replacement::MaximalSubpart,
                "caf\u{FFFD} \u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}!\u{FFFD}",
            ),
            (Replacement::Jvm, "caf\u{FFFD} \u{FFFD}\u{FFFD}!\u{FFFD}"),
            (
                Replacement::PerByte,
                "caf\u{FFFD} \u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}!\u{FFFD}\u{FFFD}\u{FFFD}",
            ),
            (Replacement::Windows1252, "café €í\u{A0}€!ðŸ˜"),
            (
                Replacement::Latin1,
                "café \u{80}í\u{A0}\u{80}!ð\u{9F}\u{98}",
            ),
            (
                Replacement::Backslash,
                "caf\\xe9 \\x80\\xed\\xa0\\x80!\\xf0\\x9f\\x98",
            ),
            (Replacement::Drop, "caf !"),
        ];
        for (policy, want) in cases {
            assert_eq!(repaired(input, policy), want, "{policy}");
        }
        assert_eq!(escaped(b"a\xFF\xC3"), b"a\xED\xB3\xBF\xED\xB3\x83");
    }
}

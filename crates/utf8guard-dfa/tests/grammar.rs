//! Every automaton against its grammar, read a second way: a brute-force
//! parser that knows nothing of states. It splits the input into rows from
//! the left (the grammars are unambiguous, so there is one way at most),
//! and defines the error as the specifications do: `valid_up_to` is the end
//! of the longest well-formed prefix, and the error's length is that of the
//! longest prefix of a sequence allowed there (at least one byte), or none
//! when the input ends inside such a prefix.
//!
//! The inputs are every string of up to 4 bytes over an alphabet that holds
//! both ends of every range of every grammar and the bytes just outside
//! them (so every byte class of every automaton is represented), every
//! string of up to 2 bytes over all 256 values, every string of 5 and 6
//! bytes over a smaller alphabet, and seeded random concatenations of
//! sequences with bytes changed.

use utf8guard_dfa::grammar::Grammar;
use utf8guard_dfa::{Automaton, ByteRange, Fault, Invalid};

fn in_range(b: u8, r: ByteRange) -> bool {
    r.0 <= b && b <= r.1
}

/// The rows allowed at a position: all, or all but the trail of the
/// forbidden pair right after its lead.
fn allowed(g: &Grammar, after_lead: bool) -> impl Iterator<Item = usize> + '_ {
    (0..g.rows.len()).filter(move |&r| !(after_lead && g.forbidden_pair.map(|p| p.1) == Some(r)))
}

/// The end of the sequence of row `r` at `pos`, if it matches there. A run
/// row takes every byte of its last range that follows.
fn match_row(g: &Grammar, r: usize, bytes: &[u8], pos: usize) -> Option<usize> {
    let row = g.rows[r];
    let fixed = if g.run_row == Some(r) {
        row.len() - 1
    } else {
        row.len()
    };
    if bytes.len() - pos < fixed {
        return None;
    }
    if !(0..fixed).all(|k| in_range(bytes[pos + k], row[k])) {
        return None;
    }
    let mut end = pos + fixed;
    if g.run_row == Some(r) {
        while end < bytes.len() && in_range(bytes[end], row[row.len() - 1]) {
            end += 1;
        }
    }
    Some(end)
}

/// The length of the longest prefix of `bytes[pos..]` that is a proper
/// prefix of an allowed row.
fn longest_row_prefix(g: &Grammar, bytes: &[u8], pos: usize, after_lead: bool) -> usize {
    let rest = &bytes[pos..];
    allowed(g, after_lead)
        .map(|r| {
            let row = g.rows[r];
            rest.iter()
                .zip(row.iter())
                .take_while(|(&b, &range)| in_range(b, range))
                .count()
                .min(row.len() - 1)
        })
        .max()
        .unwrap_or(0)
}

fn brute_force(g: &Grammar, bytes: &[u8]) -> Result<(), (usize, Option<usize>)> {
    let magic = g.magic.unwrap_or(&[]);
    let has_magic = !magic.is_empty() && bytes.starts_with(magic);
    let mut pos = if has_magic { magic.len() } else { 0 };
    let mut after_lead = false;
    loop {
        if pos == bytes.len() {
            return Ok(());
        }
        let found =
            allowed(g, after_lead).find_map(|r| match_row(g, r, bytes, pos).map(|e| (r, e)));
        match found {
            Some((r, end)) => {
                after_lead = g.forbidden_pair.map(|p| p.0) == Some(r);
                pos = end;
            }
            None => {
                let k = longest_row_prefix(g, bytes, pos, after_lead);
                let incomplete = k == bytes.len() - pos
                    || (!has_magic && !magic.is_empty() && magic.starts_with(bytes));
                return Err((pos, if incomplete { None } else { Some(k.max(1)) }));
            }
        }
    }
}

fn check(a: &Automaton, bytes: &[u8]) {
    let expected = brute_force(a.grammar(), bytes);
    let got = a
        .validate(bytes)
        .map_err(|e: Invalid| (e.valid_up_to, e.error_len));
    assert_eq!(got, expected, "{} on {bytes:02X?}", a.grammar().name);
    if let Err(e) = a.validate(bytes) {
        assert_eq!(e.error_len.is_none(), e.fault == Fault::Incomplete);
    }
}

/// Both ends of every range, and the bytes just outside them.
fn alphabet() -> Vec<u8> {
    let mut bytes = vec![0x00, 0xFF];
    for g in utf8guard_dfa::grammar::ALL {
        for row in g.rows {
            for &(lo, hi) in *row {
                bytes.extend([lo, hi, lo.wrapping_sub(1), hi.wrapping_add(1)]);
            }
        }
        bytes.extend(g.magic.unwrap_or(&[]));
    }
    bytes.sort_unstable();
    bytes.dedup();
    bytes
}

fn for_all_strings(alphabet: &[u8], len: usize, mut f: impl FnMut(&[u8])) {
    let mut index = vec![0usize; len];
    let mut buf = vec![0u8; len];
    loop {
        for (b, &i) in buf.iter_mut().zip(&index) {
            *b = alphabet[i];
        }
        f(&buf);
        let mut k = len;
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < alphabet.len() {
                break;
            }
            index[k] = 0;
        }
    }
}

#[test]
fn every_string_of_up_to_two_bytes() {
    let all: Vec<u8> = (0..=255).collect();
    for a in utf8guard_dfa::ALL {
        check(a, &[]);
        for len in 1..=2 {
            for_all_strings(&all, len, |s| check(a, s));
        }
    }
}

#[test]
fn every_string_of_three_and_four_bytes_over_the_range_ends() {
    let alphabet = alphabet();
    assert!(alphabet.len() < 70, "{}", alphabet.len());
    for a in utf8guard_dfa::ALL {
        for len in 3..=4 {
            for_all_strings(&alphabet, len, |s| check(a, s));
        }
    }
}

#[test]
fn every_string_of_five_and_six_bytes_over_a_small_alphabet() {
    let alphabet = [
        0x00, 0x41, 0x80, 0x84, 0x88, 0x90, 0xA0, 0xB0, 0xC0, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF8,
        0xFC, 0xFE,
    ];
    for a in utf8guard_dfa::ALL {
        for len in 5..=6 {
            for_all_strings(&alphabet, len, |s| check(a, s));
        }
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn in_range(&mut self, r: ByteRange) -> u8 {
        r.0 + self.below(r.1 as usize - r.0 as usize + 1) as u8
    }
}

#[test]
fn random_texts_of_each_grammar_with_bytes_changed() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for a in utf8guard_dfa::ALL {
        let g = a.grammar();
        for _ in 0..20_000 {
            let mut text = Vec::new();
            if g.magic.is_some() && rng.below(4) == 0 {
                text.extend(g.magic.unwrap_or(&[]));
            }
            for _ in 0..rng.below(12) {
                let row = g.rows[rng.below(g.rows.len())];
                for &range in row {
                    text.push(rng.in_range(range));
                }
            }
            check(a, &text);
            for _ in 0..rng.below(3) {
                if text.is_empty() {
                    break;
                }
                let at = rng.below(text.len());
                text[at] = rng.next() as u8;
            }
            check(a, &text);
            let cut = rng.below(text.len() + 1);
            check(a, &text[..cut]);
        }
    }
}

fn fault(a: &Automaton, bytes: &[u8]) -> (usize, Option<usize>, Fault) {
    let e = a.validate(bytes).unwrap_err();
    (e.valid_up_to, e.error_len, e.fault)
}

#[test]
fn faults_are_named_in_every_dialect() {
    use utf8guard_dfa::{CESU8, CORRECTED, MUTF8, RFC2279, UNICODE_3_1, WTF8};
    use Fault::*;
    // Unicode 3.1: surrogates are fine, the rest as strict UTF-8.
    assert!(UNICODE_3_1.is_valid(b"\xED\xA0\x80\xED\xB0\x80\xED\xBF\xBF"));
    assert_eq!(
        fault(&UNICODE_3_1, b"\xF4\x90\x80\x80"),
        (0, Some(1), TooLarge)
    );
    assert_eq!(fault(&UNICODE_3_1, b"\xC0\xAF"), (0, Some(1), InvalidByte));
    // WTF-8: lone surrogates and trail-then-lead are fine; lead-then-trail is not.
    assert!(WTF8.is_valid(b"\xED\xB0\x80\xED\xA0\x80"));
    assert_eq!(
        fault(&WTF8, b"a\xED\xAF\xBF\xED\xBF\xBF"),
        (4, Some(1), SurrogatePair)
    );
    assert_eq!(fault(&WTF8, b"\xED\xA0\x80\xED"), (3, None, Incomplete));
    assert!(WTF8.is_valid(b"\xED\xA0\x80\xED\x9F\xBF"));
    // CESU-8.
    assert!(CESU8.is_valid(b"\xED\xA0\x80\xED\xB0\x80"));
    assert_eq!(
        fault(&CESU8, b"\xF0\x90\x80\x80"),
        (0, Some(1), FourByteForm)
    );
    assert_eq!(fault(&CESU8, b"\xF5"), (0, Some(1), InvalidByte));
    assert_eq!(fault(&CESU8, b"\xC0\x80"), (0, Some(1), InvalidByte));
    assert_eq!(fault(&CESU8, b"x\xED\xB0\x80"), (1, Some(1), LoneSurrogate));
    assert_eq!(fault(&CESU8, b"\xED\xA0\x80x"), (0, Some(3), LoneSurrogate));
    assert_eq!(
        fault(&CESU8, b"\xED\xA0\x80\xED\x80\x80"),
        (0, Some(4), LoneSurrogate)
    );
    assert_eq!(
        fault(&CESU8, b"\xED\xA0\x80\xEDx"),
        (0, Some(4), LoneSurrogate)
    );
    assert_eq!(
        fault(&CESU8, b"\xED\xA0\x80\xED\xB0x"),
        (0, Some(5), TooShort)
    );
    assert_eq!(fault(&CESU8, b"\xED\xA0\x80"), (0, None, Incomplete));
    assert_eq!(
        fault(&CESU8, b"\xED\xA0\x80\xED\xB0"),
        (0, None, Incomplete)
    );
    assert_eq!(fault(&CESU8, b"\xE0\x9F\xBF"), (0, Some(1), Overlong));
    // Modified UTF-8.
    assert!(MUTF8.is_valid(b"a\xC0\x80b\xED\xA0\x80\xED\xB0\x80\xED\xB0\x80"));
    assert_eq!(fault(&MUTF8, b"a\x00"), (1, Some(1), Nul));
    assert_eq!(fault(&MUTF8, b"\xC0\x81"), (0, Some(1), Overlong));
    assert_eq!(fault(&MUTF8, b"\xC0\xBF"), (0, Some(1), Overlong));
    assert_eq!(fault(&MUTF8, b"\xC0A"), (0, Some(1), TooShort));
    assert_eq!(fault(&MUTF8, b"\xC1\x80"), (0, Some(1), InvalidByte));
    assert_eq!(
        fault(&MUTF8, b"\xF4\x80\x80\x80"),
        (0, Some(1), FourByteForm)
    );
    // RFC 2279.
    assert!(RFC2279.is_valid(b"\xED\xA0\x80\xF4\x90\x80\x80\xF7\xBF\xBF\xBF"));
    assert!(
        RFC2279.is_valid(b"\xF8\x88\x80\x80\x80\xFC\x84\x80\x80\x80\x80\xFD\xBF\xBF\xBF\xBF\xBF")
    );
    assert_eq!(
        fault(&RFC2279, b"\xF8\x87\xBF\xBF\xBF"),
        (0, Some(1), Overlong)
    );
    assert_eq!(
        fault(&RFC2279, b"\xFC\x83\xBF\xBF\xBF\xBF"),
        (0, Some(1), Overlong)
    );
    assert_eq!(fault(&RFC2279, b"\xFE"), (0, Some(1), InvalidByte));
    assert_eq!(fault(&RFC2279, b"\xC1\xBF"), (0, Some(1), InvalidByte));
    assert_eq!(
        fault(&RFC2279, b"\xFD\xBF\xBF\xBF\xBF"),
        (0, None, Incomplete)
    );
    assert_eq!(
        fault(&RFC2279, b"\xFD\xBF\xBF\xBF\xBFx"),
        (0, Some(5), TooShort)
    );
    assert_eq!(
        fault(&RFC2279, b"\xFD\xBF\xBF\xBF\xBF\xBF\xBF"),
        (6, Some(1), UnexpectedContinuation)
    );
    // Corrected UTF-8.
    assert!(CORRECTED.is_valid(b"\xC0\x80\xE0\x80\x80\xFD\xBF\xBF\xBF\xBF\xBF"));
    assert!(CORRECTED.is_valid(b"\xFE\xFF\x80\x80\x80\x80\x80\x80\x80x\xFE"));
    assert_eq!(fault(&CORRECTED, b"\xFE\x80\x00"), (2, Some(1), Nul));
    assert_eq!(
        fault(&CORRECTED, b"\x80"),
        (0, Some(1), UnexpectedContinuation)
    );
}

#[test]
fn corrected_magic_number_and_reserved_runs() {
    use utf8guard_dfa::CORRECTED;
    let magic = utf8guard_dfa::grammar::CORRECTED_MAGIC;
    let scan = CORRECTED.scan(&magic);
    assert_eq!(
        (scan.result, scan.magic, scan.first_run),
        (Ok(()), true, None)
    );
    let mut text = magic.to_vec();
    text.extend(b"ab\xFE\x80c\xFF");
    let scan = CORRECTED.scan(&text);
    assert_eq!(
        (scan.result, scan.magic, scan.first_run),
        (Ok(()), true, Some(10))
    );
    // The magic number's 00 anywhere else, or without its 0A.
    assert_eq!(
        fault(&CORRECTED, &[b"x", &magic[..]].concat()),
        (7, Some(1), Fault::Nul)
    );
    assert_eq!(
        fault(&CORRECTED, b"\xEF\xB7\x9D\xED\xB2\xAE\x00x"),
        (6, Some(1), Fault::Nul)
    );
    // A proper prefix of it ends inside it.
    assert_eq!(fault(&CORRECTED, &magic[..7]), (6, None, Fault::Incomplete));
    assert_eq!(fault(&CORRECTED, &magic[..4]), (3, None, Fault::Incomplete));
    // A second magic number is text, with a 00 in it.
    assert_eq!(
        fault(&CORRECTED, &[magic, magic].concat()),
        (14, Some(1), Fault::Nul)
    );
}

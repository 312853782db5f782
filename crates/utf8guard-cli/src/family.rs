//! The UTF-8 family in the command: each dialect's name for people, its
//! first error from any offset of an input (sequentially, or split across
//! the thread pool), the dialects that accept a whole input, and Corrected
//! UTF-8's magic number and reserved runs.
//!
//! # Checking from an offset
//!
//! `--all` goes on after each error from the byte after its maximal
//! subpart, in the dialect's plain state, as a lossy decoder would: the
//! next error is the first error of a fresh check of the rest. One thing
//! tells a fresh check from the rest of an input: Corrected UTF-8's magic
//! number is well formed at offset 0 of the input only, and anywhere else
//! its `00` is an error. [`first_error`] takes `at_start` for that.
//!
//! # Splitting
//!
//! An input is cut into parts (for the progress bar, and to spread a large
//! one over the thread pool) only right after an ASCII byte. Every
//! dialect's automaton is then between sequences, in its plain state: an
//! ASCII byte either is a sequence of its own or is the error that ends the
//! sequence before it; it ends a CESU-8 surrogate pair, the "a lead
//! surrogate came last" state of WTF-8 and a reserved run of Corrected
//! UTF-8. So each part, when the parts before it are well formed, is read
//! as a fresh check of it would read it (not at the input's start), and an
//! error found in it lies wholly inside it: a part other than the last
//! ends with an ASCII byte, which no multi-byte maximal subpart holds. The
//! first 8 bytes of an input are never cut, where the magic number (which
//! holds `00` and `0A`) may be.

use rayon::prelude::*;
use utf8guard::{Dialect, ErrorKind};

use crate::hex::hex;

/// Corrected UTF-8's magic number, well formed at offset 0 only.
pub const MAGIC: [u8; 8] = [0xEF, 0xB7, 0x9D, 0xED, 0xB2, 0xAE, 0x00, 0x0A];

/// The dialects from the most specific to the least: the order in which
/// hints name the ones that accept an input.
const BY_SPECIFICITY: [Dialect; 7] = [
    Dialect::Utf8,
    Dialect::Wtf8,
    Dialect::Cesu8,
    Dialect::Mutf8,
    Dialect::Unicode31,
    Dialect::Rfc2279,
    Dialect::Corrected,
];

/// The dialect's name in prose: "UTF-8", "CESU-8", "modified UTF-8", ...
pub fn title(d: Dialect) -> &'static str {
    match d {
        Dialect::Unicode31 => "Unicode 3.1 UTF-8",
        Dialect::Wtf8 => "WTF-8",
        Dialect::Cesu8 => "CESU-8",
        Dialect::Mutf8 => "modified UTF-8",
        Dialect::Rfc2279 => "RFC 2279 UTF-8",
        Dialect::Corrected => "Corrected UTF-8",
        _ => "UTF-8",
    }
}

/// The dialect has sequences of 5 and 6 bytes.
pub fn has_long_forms(d: Dialect) -> bool {
    matches!(d, Dialect::Rfc2279 | Dialect::Corrected)
}

/// The kind of error in words; for UTF-8, the engine's description.
pub fn describe(kind: ErrorKind, d: Dialect) -> String {
    match kind {
        ErrorKind::InvalidByte if d != Dialect::Utf8 => {
            format!("byte that never appears in {}", title(d))
        }
        _ => kind.description().to_owned(),
    }
}

/// An error at an offset of the slice it was found in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error {
    pub offset: usize,
    pub len: Option<usize>,
    pub kind: ErrorKind,
}

impl Error {
    pub fn from_utf8(err: utf8guard::Utf8Error) -> Error {
        Error {
            offset: err.valid_up_to(),
            len: err.error_len(),
            kind: err.kind(),
        }
    }
}

/// The first error of `bytes` in `d`, read in the dialect's plain state:
/// at offset 0 of the input when `at_start`, else (after an error, or after
/// a well-formed part that ends with an ASCII byte) where the magic number
/// does not count.
pub fn first_error(d: Dialect, bytes: &[u8], at_start: bool) -> Option<Error> {
    if d == Dialect::Corrected && !at_start && bytes.starts_with(&MAGIC[..7]) {
        // EF B7 9D and ED B2 AE are two characters; the 00 after them is
        // an error of its own away from offset 0.
        return Some(Error {
            offset: 6,
            len: Some(1),
            kind: ErrorKind::Nul,
        });
    }
    d.check(bytes).err().map(Error::from_utf8)
}

/// The first error of `bytes` in `d`, as [`first_error`] finds it; with
/// `parallel`, an input of 1 MiB or more is split across the thread pool.
pub fn check(d: Dialect, bytes: &[u8], at_start: bool, parallel: bool) -> Option<Error> {
    if !parallel || bytes.len() < utf8guard::par::THRESHOLD {
        return first_error(d, bytes, at_start);
    }
    let threads = crate::pool::ready();
    if threads < 2 {
        return first_error(d, bytes, at_start);
    }
    if d == Dialect::Utf8 {
        // The engine's own split (at character starts) and its answer.
        return utf8guard::par::from_utf8(bytes).err().map(Error::from_utf8);
    }
    // As the engine splits: a few parts per thread, none tiny.
    let part = bytes.len().div_ceil(threads * 4).max(256 << 10);
    split_first_error(d, bytes, at_start, part)
}

/// The smallest offset from `at` on where `bytes` may be cut (see the
/// module documentation): just after an ASCII byte, and not inside the
/// first 8 bytes when `bytes` starts the input; `bytes.len()` when there is
/// none.
pub fn cut(bytes: &[u8], at: usize, at_start: bool) -> usize {
    let from = at.max(if at_start { MAGIC.len() } else { 1 });
    if from >= bytes.len() {
        return bytes.len();
    }
    bytes[from - 1..]
        .iter()
        .position(|&b| b < 0x80)
        .map_or(bytes.len(), |i| from + i)
}

/// [`first_error`] on `bytes` cut into parts of about `part` bytes (at
/// [`cut`] points), the parts checked across the thread pool; the first
/// error of the first part that has one is the input's first error.
pub fn split_first_error(d: Dialect, bytes: &[u8], at_start: bool, part: usize) -> Option<Error> {
    let mut parts = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let end = cut(bytes, start + part.max(1), at_start);
        parts.push((start, end));
        start = end;
    }
    parts.into_par_iter().find_map_first(|(start, end)| {
        let err = first_error(d, &bytes[start..end], at_start && start == 0)?;
        // Only the last part can end inside a sequence.
        debug_assert!(err.len.is_some() || end == bytes.len());
        Some(Error {
            offset: start + err.offset,
            ..err
        })
    })
}

/// The dialects other than `chosen` that accept all of `bytes`, from the
/// most specific; Corrected UTF-8 first when the input starts with its
/// magic number.
pub fn accepting(chosen: Dialect, bytes: &[u8], parallel: bool) -> Vec<Dialect> {
    let mut found: Vec<Dialect> = BY_SPECIFICITY
        .into_iter()
        .filter(|&d| d != chosen && check(d, bytes, true, parallel).is_none())
        .filter(|&d| d != Dialect::Corrected || looks_corrected(bytes))
        .collect();
    if bytes.starts_with(&MAGIC) {
        if let Some(i) = found.iter().position(|&d| d == Dialect::Corrected) {
            found[..=i].rotate_right(1);
        }
    }
    found
}

/// Whether `bytes`, which Corrected UTF-8 accepts, looks like it: it starts
/// with the magic number, or has a sequence of Corrected UTF-8 that UTF-8
/// rejects, other than a reserved FE/FF run. Such runs alone are no sign:
/// FE and FF are far more often Latin-1's 'þ' and 'ÿ'.
fn looks_corrected(bytes: &[u8]) -> bool {
    if bytes.starts_with(&MAGIC) {
        return true;
    }
    // Where UTF-8 stops, a sequence of Corrected UTF-8 starts (they share
    // their lead bytes): a reserved run, skipped, or a sign.
    let mut rest = bytes;
    while let Err(e) = std::str::from_utf8(rest) {
        let at = e.valid_up_to();
        if rest[at] < 0xFE {
            return true;
        }
        let run = rest[at + 1..]
            .iter()
            .take_while(|&&b| b & 0xC0 == 0x80)
            .count();
        rest = &rest[at + 1 + run..];
    }
    false
}

/// The hint said once for an input that `chosen` rejects: which other
/// dialects accept all of it (`valid_in`, from [`accepting`]), or that it
/// starts with Corrected UTF-8's magic number (`magic`).
pub fn input_hint(chosen: Dialect, valid_in: &[Dialect], magic: bool) -> Option<String> {
    let magic = magic && chosen != Dialect::Corrected;
    let magic_text = format!(
        "the input starts with {}, the magic number of Corrected UTF-8",
        hex(&MAGIC)
    );
    let Some((&first, others)) = valid_in.split_first() else {
        return magic.then(|| format!("{magic_text}: try --encoding corrected-utf-8"));
    };
    let mut hint = if magic && first == Dialect::Corrected {
        format!("{magic_text}, and all of it is valid Corrected UTF-8 (--encoding corrected-utf-8)")
    } else {
        format!(
            "the whole input is valid {} (--encoding {})",
            title(first),
            first.name()
        )
    };
    if !others.is_empty() {
        let names: Vec<&str> = others.iter().map(|d| d.name()).collect();
        hint.push_str(&format!("; also valid in {}", names.join(", ")));
    }
    Some(hint)
}

/// The offset of the first reserved `FE`/`FF` run in `bytes`, well-formed
/// Corrected UTF-8 (or parts of it between errors, which never hold `FE`
/// or `FF`): the first `FE` or `FF` byte, since nothing else holds one.
pub fn first_reserved_run(bytes: &[u8]) -> Option<usize> {
    const BLOCK: usize = 4096;
    bytes.chunks(BLOCK).enumerate().find_map(|(i, block)| {
        // A maximum over the block vectorizes; the search only runs on the
        // block that has one.
        if block.iter().copied().max()? < 0xFE {
            return None;
        }
        block.iter().position(|&b| b >= 0xFE).map(|j| i * BLOCK + j)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a fresh check of `bytes` reads, not at the input's start: the
    /// check of `bytes` after one ASCII byte, which leaves every dialect's
    /// automaton in its plain state away from offset 0.
    fn fresh_not_at_start(d: Dialect, bytes: &[u8]) -> Option<Error> {
        let mut shifted = vec![b' '];
        shifted.extend_from_slice(bytes);
        d.check(&shifted).err().map(|e| Error {
            offset: e.valid_up_to() - 1,
            len: e.error_len(),
            kind: e.kind(),
        })
    }

    /// Inputs with every dialect's long, paired and reserved forms, the
    /// magic number, and ASCII between them to cut at.
    fn samples() -> Vec<Vec<u8>> {
        let pieces: &[&[u8]] = &[
            b"ab",
            b"\xED\xA0\xBD\xED\xB8\x80",
            b"\xED\xA0\xBD",
            b"\xED\xB8\x80",
            b"\xF0\x9F\x98\x80",
            b"\xC0\x80",
            b"\x00",
            b"\xFE\x80\x80\x80",
            b"\xFF",
            b"\xF8\x88\x80\x80\x80",
            b"\xFC\x84\x80\x80\x80\x80",
            b"\xC3\xA9",
            b"\xE2\x82\xAC",
            b"\n",
            b"\x80",
            b"\xE2\x82",
            &MAGIC,
            &MAGIC[..7],
        ];
        let mut out = vec![MAGIC.to_vec(), MAGIC[..7].to_vec()];
        // Every ordered pair and triple of pieces, with and without an
        // ASCII byte between them.
        for a in pieces {
            for b in pieces {
                for sep in [&b""[..], b"x"] {
                    out.push([*a, sep, *b].concat());
                    for c in [&b"\xED\xB0\x80"[..], b"\xFE", &MAGIC] {
                        out.push([*a, sep, *b, c, b"z"].concat());
                    }
                }
            }
        }
        out.push([&MAGIC[..], b"ok \xFE\x80 x \xED\xA0\x80\xED\xB0\x80 y"].concat());
        out
    }

    #[test]
    fn away_from_the_start_the_magic_number_is_an_error() {
        for d in Dialect::ALL.iter().copied() {
            for s in samples() {
                let ours = first_error(d, &s, false);
                assert_eq!(ours, fresh_not_at_start(d, &s), "{d} {s:02X?}");
                let at_start = d.check(&s).err().map(Error::from_utf8);
                assert_eq!(first_error(d, &s, true), at_start, "{d} {s:02X?}");
            }
        }
        let err = first_error(Dialect::Corrected, &MAGIC, false).unwrap();
        assert_eq!(
            (err.offset, err.len, err.kind),
            (6, Some(1), ErrorKind::Nul)
        );
        assert_eq!(first_error(Dialect::Corrected, &MAGIC, true), None);
    }

    #[test]
    fn every_cut_gives_the_first_error_of_the_whole() {
        for d in Dialect::ALL.iter().copied() {
            for s in samples() {
                for at_start in [true, false] {
                    let whole = first_error(d, &s, at_start);
                    for part in 1..=s.len() + 1 {
                        let split = split_first_error(d, &s, at_start, part);
                        assert_eq!(split, whole, "{d} {s:02X?} part {part} start {at_start}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_cut_point_leaves_the_automaton_plain() {
        // Checking the two sides of any cut apart, the second not at the
        // start, gives the error of the whole (the first side's when it has
        // one).
        for d in Dialect::ALL.iter().copied() {
            for s in samples() {
                let whole = first_error(d, &s, true);
                let mut at = 0;
                loop {
                    let c = cut(&s, at, true);
                    if c == s.len() {
                        break;
                    }
                    assert!(c >= 8 && s[c - 1] < 0x80, "{s:02X?} {c}");
                    let apart = first_error(d, &s[..c], true).or_else(|| {
                        first_error(d, &s[c..], false).map(|e| Error {
                            offset: c + e.offset,
                            ..e
                        })
                    });
                    assert_eq!(apart, whole, "{d} {s:02X?} cut {c}");
                    at = c + 1;
                }
            }
        }
    }

    #[test]
    fn a_large_input_is_split_with_the_same_answer() {
        // 3 MiB of CESU-8 pairs, WTF-8-hostile pairs, reserved runs, with an
        // error near the end of the first third.
        let unit = b"pair \xED\xA0\xBD\xED\xB8\x80 run \xFE\x80\x80 long \xF8\x88\x80\x80\x80\n";
        let mut bytes = unit.repeat((3 << 20) / unit.len());
        let at = bytes.len() / 3;
        let at = at + bytes[at..].iter().position(|&b| b == b'\n').unwrap();
        bytes[at] = 0x80;
        for d in Dialect::ALL.iter().copied() {
            let whole = first_error(d, &bytes, true);
            for part in [256 << 10, 1 << 20, 77_777] {
                assert_eq!(split_first_error(d, &bytes, true, part), whole, "{d}");
            }
            assert_eq!(check(d, &bytes, true, true), whole, "{d}");
        }
    }

    #[test]
    fn the_reserved_run_is_the_first_fe_or_ff() {
        let mut doc = MAGIC.to_vec();
        doc.extend_from_slice(&b"text ".repeat(2000));
        doc.extend_from_slice(b"\xFF\x80 more \xFE");
        let found = Dialect::Corrected.inspect(&doc).unwrap();
        assert!(found.magic_number());
        assert_eq!(first_reserved_run(&doc), found.first_reserved_run());
        assert_eq!(first_reserved_run(&doc), Some(10_008));
        assert_eq!(first_reserved_run(b"plain"), None);
        for s in samples() {
            if let Ok(found) = Dialect::Corrected.inspect(&s) {
                assert_eq!(
                    first_reserved_run(&s),
                    found.first_reserved_run(),
                    "{s:02X?}"
                );
            }
        }
    }

    #[test]
    fn dialects_that_accept_an_input_from_the_most_specific() {
        let cesu = b"smile \xED\xA0\xBD\xED\xB8\x80";
        assert_eq!(
            accepting(Dialect::Utf8, cesu, false),
            [
                Dialect::Cesu8,
                Dialect::Mutf8,
                Dialect::Unicode31,
                Dialect::Rfc2279,
                Dialect::Corrected
            ]
        );
        let doc = [&MAGIC[..], b"text"].concat();
        assert_eq!(
            accepting(Dialect::Utf8, &doc, false),
            [
                Dialect::Corrected,
                Dialect::Wtf8,
                Dialect::Unicode31,
                Dialect::Rfc2279
            ]
        );
        assert_eq!(
            input_hint(Dialect::Utf8, &accepting(Dialect::Utf8, &doc, false), true).as_deref(),
            Some(
                "the input starts with EF B7 9D ED B2 AE 00 0A, the magic number of Corrected \
                 UTF-8, and all of it is valid Corrected UTF-8 (--encoding corrected-utf-8); \
                 also valid in wtf-8, unicode-3.1, rfc2279"
            )
        );
        assert_eq!(
            input_hint(Dialect::Cesu8, &[Dialect::Utf8, Dialect::Wtf8], false).as_deref(),
            Some("the whole input is valid UTF-8 (--encoding utf-8); also valid in wtf-8")
        );
        assert_eq!(
            input_hint(Dialect::Utf8, &[], true).as_deref(),
            Some(
                "the input starts with EF B7 9D ED B2 AE 00 0A, the magic number of Corrected \
                 UTF-8: try --encoding corrected-utf-8"
            )
        );
        assert_eq!(input_hint(Dialect::Corrected, &[], true), None);
        // Latin-1's 'þ' and 'ÿ' are Corrected UTF-8's reserved runs: not
        // a sign of it, where its own forms (here C0 80) and magic are.
        assert_eq!(accepting(Dialect::Utf8, b"\xFEorn, \xFF\x80\n", false), []);
        assert_eq!(
            accepting(Dialect::Utf8, b"\xFEorn, \xC0\x80\n", false),
            [Dialect::Corrected]
        );
        let doc = [&MAGIC[..], b"\xFEorn\n"].concat();
        assert_eq!(accepting(Dialect::Utf8, &doc, false), [Dialect::Corrected]);
        assert_eq!(input_hint(Dialect::Utf8, &[], false), None);
    }
}

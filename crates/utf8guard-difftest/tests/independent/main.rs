//! Each dialect's oracle against the independent implementations that can
//! be installed from the package registries: Python's codecs, ICU4C and the
//! C library's iconv (from Python, through ctypes), the Java platform's
//! decoders, Perl's Encode, Node's TextDecoder and two npm packages, and the
//! Rust crates `cesu8`, `simd_cesu8` and `tendril`. docs/DIALECTS.md
//! describes the results.
//!
//! Every implementation sees the same inputs as its dialect's oracle
//! ([`inputs::for_dialect`]): all inputs of up to 2 bytes, 3-byte inputs
//! over the boundary bytes of the grammars, longer ones over the bytes of
//! each dialect's long rows, and generated text, whole and damaged. One
//! process per program checks all of its inputs (a script in `peers/`
//! writes one line per input). The implementation must agree with the
//! oracle on accept or reject and on every position it reports, except
//! where its documented [`Deviation`] says otherwise. A deviation's model is
//! the oracle's answer with a narrow patch (the input rewritten, position
//! for position, where the implementation's language differs, or the error
//! fixed up in one named situation): on every input the patch leaves alone
//! the implementation must agree with the oracle exactly, on the others it
//! must answer as the model does, and the deviation must show on some
//! input. A change on either side fails the test.
//!
//! A program that is not installed skips its implementations with a notice,
//! except in CI (`CI=true`), where it is an error: `scripts/test.sh`
//! installs them. The npm packages are installed next to the scripts by
//! `npm ci --prefix crates/utf8guard-difftest/tests/independent/peers`.
//!
//! Corrected UTF-8 has no independent implementation to compare with; its
//! oracle is checked against its grammar by the brute-force parser of
//! `crates/utf8guard-dfa/tests/grammar.rs`.

mod harness;
mod inputs;

use harness::{oracle, Outcome, Peer, Program, Reports};
use utf8guard_dfa::{CESU8, MUTF8, RFC2279, UNICODE_3_1, UTF8, WTF8};

fn is_continuation(b: u8) -> bool {
    (0x80..=0xBF).contains(&b)
}

/// Whether `bytes` starts with `ED` and a second byte in `lo..=hi`: a
/// surrogate (`A0..BF`), a lead (`A0..AF`) or a trail (`B0..BF`).
fn starts_with_surrogate(bytes: &[u8], lo: u8, hi: u8) -> bool {
    bytes.first() == Some(&0xED) && bytes.get(1).is_some_and(|b| (lo..=hi).contains(b))
}

/// `bytes` with each byte for which `rewrite` gives a value replaced by it
/// (`rewrite` sees the byte and the one after it).
fn rewritten(bytes: &[u8], rewrite: impl Fn(u8, Option<u8>) -> Option<u8>) -> Vec<u8> {
    (0..bytes.len())
        .map(|i| rewrite(bytes[i], bytes.get(i + 1).copied()).unwrap_or(bytes[i]))
        .collect()
}

/// The input with every surrogate `ED A0..BF` turned into the plain 3-byte
/// sequence `ED 80..9F` of the same shape: how a decoder that takes
/// surrogates for ordinary characters sees it.
fn surrogates_as_plain(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for i in 0..out.len().saturating_sub(1) {
        if out[i] == 0xED && (0xA0..=0xBF).contains(&out[i + 1]) {
            out[i + 1] -= 0x20;
        }
    }
    out
}

/// The input with every overlong 2- and 3-byte form but `C0 80` turned into
/// a well-formed one of the same shape (`C0 81..BF`, `C1 xx` to `C2 xx`;
/// `E0 80..9F` to `E1 80..9F`): how a decoder that checks only the shape of
/// a sequence sees it.
fn overlongs_as_plain(bytes: &[u8]) -> Vec<u8> {
    rewritten(bytes, |b, next| match (b, next) {
        (0xC0, Some(0x81..=0xBF)) | (0xC1, _) => Some(0xC2),
        (0xE0, Some(0x80..=0x9F)) => Some(0xE1),
        _ => None,
    })
}

/// Whether `bytes`, well-formed modified UTF-8, holds a surrogate that is
/// not half of a pair (a lead followed by a trail).
fn has_lone_surrogate(bytes: &[u8]) -> bool {
    let surrogate = |i: usize, lo, hi| starts_with_surrogate(&bytes[i.min(bytes.len())..], lo, hi);
    let mut i = 0;
    while i < bytes.len() {
        if surrogate(i, 0xA0, 0xAF) && surrogate(i + 3, 0xB0, 0xBF) {
            i += 6;
        } else if surrogate(i, 0xA0, 0xBF) {
            return true;
        } else {
            i += 1;
        }
    }
    false
}

// ------------------------------------------------------------ Python ----

/// Python's `surrogatepass` handler takes only a whole 3-byte surrogate;
/// for anything else it re-raises the strict decoder's error, so an error
/// that starts with `ED A0..BF` has strict UTF-8's length where Unicode
/// 3.1's maximal subpart is longer.
fn python_surrogatepass(bytes: &[u8]) -> Outcome {
    oracle(&UNICODE_3_1, bytes).map_err(|(v, len)| match oracle(&UTF8, &bytes[v..]) {
        Err((0, strict)) if starts_with_surrogate(&bytes[v..], 0xA0, 0xBF) => (v, strict),
        _ => (v, len),
    })
}

/// ICU's CESU-8 converter takes lone surrogates for ordinary characters,
/// and reads a 4-byte form as UTF-8 would before it rejects it: the error
/// at `F0..F4` has UTF-8's maximal subpart, or the 4 bytes of a whole form.
fn icu_cesu8(bytes: &[u8]) -> Outcome {
    oracle(&CESU8, &surrogates_as_plain(bytes)).map_err(|(v, len)| {
        if !(0xF0..=0xF4).contains(&bytes[v]) {
            return (v, len);
        }
        match oracle(&UTF8, &bytes[v..]) {
            Err((0, len)) => (v, len),
            _ => (v, Some(4)),
        }
    })
}

/// glibc's iconv decides that an input ends inside a sequence (EINVAL) from
/// the lead byte's length in RFC 2279's scheme and the shape of the bytes
/// after it, before it checks for overlong forms, surrogates and values
/// past U+10FFFF: `E0 80`, `ED A0`, `F4 90`, and `F5..FD` followed by
/// continuation bytes are incomplete to it at the end of the input.
fn glibc_iconv(bytes: &[u8]) -> Outcome {
    oracle(&UTF8, bytes).map_err(|(v, len)| {
        let rest = &bytes[v..];
        let need = match rest[0] {
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            0xF8..=0xFB => 5,
            0xFC..=0xFD => 6,
            _ => 0,
        };
        let cut_short = rest.len() < need && rest[1..].iter().all(|&b| is_continuation(b));
        (v, if cut_short { None } else { len })
    })
}

#[test]
fn python() {
    let program = Program {
        command: "python3",
        probe: &["--version"],
        script: "peers.py",
    };
    harness::run(
        &program,
        &[
            Peer::exact(
                "Python bytes.decode('utf-8')",
                "utf-8",
                &UTF8,
                Reports::OffsetAndLength,
            ),
            Peer::exact(
                "Python bytes.decode('utf-8', 'surrogatepass')",
                "surrogatepass",
                &UNICODE_3_1,
                Reports::OffsetAndLength,
            )
            .deviating(
                "an error starting with ED A0..BF has strict UTF-8's length",
                python_surrogatepass,
            ),
            Peer::exact(
                "ICU4C UTF-8 converter",
                "icu:UTF-8",
                &UTF8,
                Reports::OffsetAndLength,
            ),
            Peer::exact(
                "ICU4C CESU-8 converter",
                "icu:CESU-8",
                &CESU8,
                Reports::OffsetAndLength,
            )
            .deviating(
                "lone surrogates accepted; a 4-byte form read whole, then rejected",
                icu_cesu8,
            ),
            Peer::exact(
                "glibc iconv UTF-8",
                "iconv:UTF-8",
                &UTF8,
                Reports::OffsetOrEnd,
            )
            .deviating(
                "a cut-short sequence is incomplete by its shape alone",
                glibc_iconv,
            ),
        ],
    );
}

// -------------------------------------------------------------- Java ----

/// Java's UTF-8 decoder reads a surrogate `ED A0..BF cont` as a 3-byte
/// sequence, then rejects it whole: the error's length is Unicode 3.1's
/// maximal subpart there, or 3 when the surrogate is complete.
fn java_utf8(bytes: &[u8]) -> Outcome {
    oracle(&UTF8, bytes).map_err(|(v, len)| {
        if !starts_with_surrogate(&bytes[v..], 0xA0, 0xBF) {
            return (v, len);
        }
        match oracle(&UNICODE_3_1, &bytes[v..]) {
            Err((0, len)) => (v, len),
            _ => (v, Some(3)),
        }
    })
}

#[test]
fn java() {
    let program = Program {
        command: "java",
        // The single-file launcher compiles Peers.java: a JDK is needed.
        probe: &["--describe-module", "jdk.compiler"],
        script: "Peers.java",
    };
    harness::run(
        &program,
        &[
            Peer::exact(
                "Java UTF-8 decoder",
                "charset:UTF-8",
                &UTF8,
                Reports::OffsetAndLengthToEnd,
            )
            .deviating("a surrogate is rejected as a 3-byte sequence", java_utf8),
            Peer::exact(
                "Java CESU-8 decoder",
                "charset:CESU-8",
                &CESU8,
                Reports::OffsetAndLengthToEnd,
            )
            .deviating("lone surrogates accepted", |b| {
                oracle(&CESU8, &surrogates_as_plain(b))
            }),
            Peer::exact(
                "Java DataInputStream.readUTF",
                "readUTF",
                &MUTF8,
                Reports::Verdict,
            )
            .deviating("00 and overlong 2- and 3-byte forms accepted", |b| {
                let nul_as_one = rewritten(b, |b, _| (b == 0).then_some(1));
                oracle(&MUTF8, &overlongs_as_plain(&nul_as_one))
            }),
        ],
    );
}

// -------------------------------------------------------------- Perl ----

/// A noncharacter: U+FDD0..U+FDEF, and the last two code points of every
/// plane.
fn is_noncharacter(c: char) -> bool {
    let c = u32::from(c);
    (0xFDD0..=0xFDEF).contains(&c) || c & 0xFFFE == 0xFFFE
}

/// Perl's strict `UTF-8` also rejects the 66 noncharacters.
fn perl_strict(bytes: &[u8]) -> Outcome {
    let result = oracle(&UTF8, bytes);
    let end = result.err().map_or(bytes.len(), |(v, _)| v);
    let text = std::str::from_utf8(&bytes[..end]).expect("a well-formed prefix");
    match text.char_indices().find(|&(_, c)| is_noncharacter(c)) {
        Some((at, c)) => Err((at, Some(c.len_utf8()))),
        None => result,
    }
}

/// The length of the Perl extended form that starts `bytes`, if one does:
/// 7 bytes from `FE` (code points 2^31 to 2^36 - 1) and 13 bytes from `FF`
/// (2^36 to 2^63 - 1, Perl's largest), in shortest form.
fn perl_extended(bytes: &[u8]) -> Option<usize> {
    let whole =
        |len: usize| bytes.len() >= len && bytes[1..len].iter().all(|&b| is_continuation(b));
    match bytes[0] {
        0xFE if whole(7) && bytes[1] >= 0x82 => Some(7),
        0xFF if whole(13)
            && bytes[1] == 0x80
            && bytes[2] <= 0x87
            && bytes[2..7].iter().any(|&b| b != 0x80) =>
        {
            Some(13)
        }
        _ => None,
    }
}

/// Perl's lax `utf8`: RFC 2279 and Perl's extended forms, which start with
/// `FE` and `FF` (where RFC 2279 has an error) and are skipped as one
/// character each.
fn perl_lax(bytes: &[u8]) -> Outcome {
    let mut start = 0;
    loop {
        match oracle(&RFC2279, &bytes[start..]) {
            Ok(()) => return Ok(()),
            Err((v, len)) => match perl_extended(&bytes[start + v..]) {
                Some(skip) => start += v + skip,
                None => return Err((start + v, len)),
            },
        }
    }
}

#[test]
fn perl() {
    let program = Program {
        command: "perl",
        probe: &["-MEncode", "-e", "1"],
        script: "peers.pl",
    };
    harness::run(
        &program,
        &[
            Peer::exact("Perl Encode UTF-8", "UTF-8", &UTF8, Reports::Offset)
                .deviating("noncharacters rejected", perl_strict),
            Peer::exact("Perl Encode utf8 (lax)", "utf8", &RFC2279, Reports::Offset)
                .deviating("Perl's 7-byte FE and 13-byte FF forms accepted", perl_lax),
        ],
    );
}

// -------------------------------------------------------------- Node ----

#[test]
fn node() {
    let program = Program {
        command: "node",
        probe: &["--version"],
        script: "peers.js",
    };
    harness::run(
        &program,
        &[
            Peer::exact(
                "Node TextDecoder('utf-8', {fatal: true})",
                "whatwg",
                &UTF8,
                Reports::Lossy,
            ),
            // Named for WTF-8, but a lead surrogate followed by a trail
            // passes: it implements Unicode 3.1's table.
            Peer::exact("npm wtf-8 1.0.1", "wtf-8", &UNICODE_3_1, Reports::Verdict),
            Peer::exact("npm mutf-8 1.2.4", "mutf-8", &MUTF8, Reports::Verdict)
                .deviating("overlong 2- and 3-byte forms accepted", |b| {
                    oracle(&MUTF8, &overlongs_as_plain(b))
                }),
        ],
    );
}

// -------------------------------------------------------------- Rust ----

/// The WTF-8 sequence (the pair rule aside) that starts `bytes[at..]`, if
/// it is there whole.
fn sequence_at(bytes: &[u8], at: usize) -> Option<&[u8]> {
    let len = match bytes[at] {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => return None,
    };
    let sequence = bytes.get(at..at + len)?;
    WTF8.is_valid(sequence).then_some(sequence)
}

/// tendril's `WTF8::validate` steps through the input with its `classify`,
/// which, given a continuation byte, looks back up to 3 bytes for the lead
/// byte of the sequence it belongs to, but does not check that the sequence
/// it finds reaches that byte: a stray continuation byte right after a 2-
/// or 3-byte character is taken for that character again, and validation
/// goes on that character's length past the stray byte, the bytes in
/// between unchecked. Elsewhere it is WTF-8: the oracle runs on, with a
/// lead surrogate read again kept in front for the pair rule.
fn tendril_wtf8(bytes: &[u8]) -> Outcome {
    let (mut start, mut lead): (usize, &[u8]) = (0, &[]);
    while start < bytes.len() {
        let rest = [lead, &bytes[start..]].concat();
        let Err((v, len)) = oracle(&WTF8, &rest) else {
            return Ok(());
        };
        let at = start + v - lead.len();
        // The look-back, from a stray continuation byte only.
        let lead_byte = (1..=3.min(at))
            .map(|back| at - back)
            .find(|&i| !is_continuation(bytes[i]));
        let again = match lead_byte {
            Some(i) if is_continuation(bytes[at]) => sequence_at(bytes, i),
            _ => None,
        };
        let Some(again) = again else {
            return Err((at, len));
        };
        // Read again right after a lead read again, a trail is a pair.
        if at == start && !lead.is_empty() && starts_with_surrogate(again, 0xB0, 0xBF) {
            return Err((at, len));
        }
        start = at + again.len();
        lead = if starts_with_surrogate(again, 0xA0, 0xAF) {
            again
        } else {
            &[]
        };
    }
    Ok(())
}

/// Strict UTF-8, or else `other`: what a decoder that first tries
/// `std::str::from_utf8` and takes the input as it is when that succeeds
/// accepts.
fn utf8_or(other: Outcome, bytes: &[u8]) -> Outcome {
    oracle(&UTF8, bytes).or(other)
}

/// Modified UTF-8 with CESU-8's pair rule: a lone surrogate is an error.
fn mutf8_paired(bytes: &[u8]) -> Outcome {
    match oracle(&MUTF8, bytes) {
        Ok(()) if has_lone_surrogate(bytes) => Err((0, None)),
        other => other,
    }
}

#[test]
fn rust_crates() {
    harness::run_in_process(&[
        (
            Peer::exact("cesu8 1.1 from_cesu8", "", &CESU8, Reports::Verdict).deviating(
                "any valid UTF-8 accepted as it is, 4-byte forms included",
                |b| utf8_or(oracle(&CESU8, b), b),
            ),
            |b| cesu8::from_cesu8(b).is_ok(),
        ),
        (
            Peer::exact("cesu8 1.1 from_java_cesu8", "", &MUTF8, Reports::Verdict).deviating(
                "any valid UTF-8 accepted as it is (00, 4-byte forms); else lone surrogates rejected",
                |b| utf8_or(mutf8_paired(b), b),
            ),
            |b| cesu8::from_java_cesu8(b).is_ok(),
        ),
        (
            Peer::exact("simd_cesu8 1.2 decode_strict", "", &CESU8, Reports::Verdict),
            |b| simd_cesu8::decode_strict(b).is_ok(),
        ),
        (
            Peer::exact("simd_cesu8 1.2 mutf8::decode_strict", "", &MUTF8, Reports::Verdict)
                .deviating("lone surrogates rejected", mutf8_paired),
            |b| simd_cesu8::mutf8::decode_strict(b).is_ok(),
        ),
        (
            Peer::exact("tendril 0.5 fmt::WTF8::validate", "", &WTF8, Reports::Verdict).deviating(
                "a stray continuation byte after a 2- or 3-byte character read as that character again",
                tendril_wtf8,
            ),
            |b| <tendril::fmt::WTF8 as tendril::fmt::Format>::validate(b),
        ),
    ]);
}

/// The examples docs/DIALECTS.md gives: the Rust implementations called
/// here, the others as their models answer (the tests above hold each
/// implementation to its model on inputs that include these).
#[test]
fn documented_examples() {
    use tendril::fmt::{Format, WTF8 as TendrilWtf8};

    assert_eq!(inputs::boundary_alphabet().len(), 42);

    // glibc: incomplete by shape; the grammar: one byte that can never be
    // completed.
    for b in [
        &b"\xE0\x80"[..],
        b"\xED\xA0",
        b"\xF4\x90",
        b"\xF5",
        b"\xFD\x80",
    ] {
        assert_eq!(glibc_iconv(b), Err((0, None)), "{b:02X?}");
        assert_eq!(oracle(&UTF8, b), Err((0, Some(1))), "{b:02X?}");
    }
    // Java: a surrogate is one 3-byte error.
    assert_eq!(java_utf8(b"\xED\xA0\x80"), Err((0, Some(3))));
    assert_eq!(java_utf8(b"\xED\xA0"), Err((0, None)));
    assert_eq!(oracle(&UTF8, b"\xED\xA0\x80"), Err((0, Some(1))));
    // Perl: noncharacters.
    assert_eq!(perl_strict(b"\xEF\xBF\xBF"), Err((0, Some(3))));
    assert_eq!(perl_strict(b"a\xEF\xB7\x90"), Err((1, Some(3))));
    assert_eq!(perl_strict(b"\xEF\xBF\xBD"), Ok(()));

    // Python surrogatepass: strict UTF-8's length at surrogates.
    assert_eq!(python_surrogatepass(b"\xED\xA0\x41"), Err((0, Some(1))));
    assert_eq!(oracle(&UNICODE_3_1, b"\xED\xA0\x41"), Err((0, Some(2))));
    assert_eq!(python_surrogatepass(b"\xED\xA0"), Err((0, Some(1))));
    assert_eq!(oracle(&UNICODE_3_1, b"\xED\xA0"), Err((0, None)));

    // WTF-8: tendril and a stray continuation byte; npm wtf-8 and a pair.
    let pair = b"\xED\xA0\xBD\xED\xB8\x80";
    assert!(TendrilWtf8::validate(b"\xC2\x80\x80\xFF"));
    assert!(!WTF8.is_valid(b"\xC2\x80\x80\xFF"));
    assert!(!TendrilWtf8::validate(pair));
    assert!(!WTF8.is_valid(pair) && UNICODE_3_1.is_valid(pair));

    // CESU-8.
    let emoji = b"\xF0\x9F\x98\x80";
    assert!(cesu8::from_cesu8(emoji).is_ok() && !CESU8.is_valid(emoji));
    assert!(simd_cesu8::decode_strict(emoji).is_err());
    assert_eq!(oracle(&CESU8, emoji), Err((0, Some(1))));
    assert_eq!(icu_cesu8(emoji), Err((0, Some(4))));
    assert_eq!(icu_cesu8(b"\xF0"), Err((0, None)));
    assert_eq!(oracle(&CESU8, b"\xF0"), Err((0, Some(1))));
    let java_cesu8 = |b: &[u8]| oracle(&CESU8, &surrogates_as_plain(b));
    for lone in [&b"\xED\xA0\x80\x41"[..], b"\xED\xB0\x80"] {
        assert_eq!(java_cesu8(lone), Ok(()));
        assert_eq!(icu_cesu8(lone), Ok(()));
        assert!(!CESU8.is_valid(lone));
    }
    assert_eq!(java_cesu8(b"\xED\xB0"), Err((0, None)));
    assert_eq!(icu_cesu8(b"\xED\xB0"), Err((0, None)));
    assert_eq!(oracle(&CESU8, b"\xED\xB0"), Err((0, Some(1))));

    // Modified UTF-8.
    let read_utf = |b: &[u8]| {
        let nul_as_one = rewritten(b, |b, _| (b == 0).then_some(1));
        oracle(&MUTF8, &overlongs_as_plain(&nul_as_one))
    };
    for b in [&b"\x00"[..], b"\xC0\xAF", b"\xC1\xBF", b"\xE0\x80\x80"] {
        assert_eq!(read_utf(b), Ok(()), "{b:02X?}");
        assert!(!MUTF8.is_valid(b), "{b:02X?}");
    }
    assert_eq!(read_utf(b"\xED\xA0\x80"), Ok(()));
    assert_eq!(
        oracle(&MUTF8, &overlongs_as_plain(b"\xC0\xAF\xE0\x80\x80")),
        Ok(())
    );
    assert!(oracle(&MUTF8, &overlongs_as_plain(b"\x00")).is_err());
    assert!(simd_cesu8::mutf8::decode_strict(b"\xED\xA0\x80").is_err());
    assert!(cesu8::from_java_cesu8(b"\xED\xA0\x80").is_err());
    assert!(cesu8::from_java_cesu8(b"\x00").is_ok() && cesu8::from_java_cesu8(emoji).is_ok());
    assert!(MUTF8.is_valid(b"\xED\xA0\x80") && MUTF8.is_valid(b"\xC0\x80"));

    // RFC 2279 and Perl's longer forms.
    let seven = b"\xFE\x82\x80\x80\x80\x80\x80";
    let thirteen = b"\xFF\x80\x80\x80\x80\x80\x81\x80\x80\x80\x80\x80\x80";
    assert_eq!(perl_lax(seven), Ok(()));
    assert_eq!(perl_lax(thirteen), Ok(()));
    assert_eq!(perl_lax(b"\xFE\x81\xBF\xBF\xBF\xBF\xBF"), Err((0, Some(1))));
    assert!(!RFC2279.is_valid(seven) && !RFC2279.is_valid(thirteen));
}

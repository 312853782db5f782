//! Every dialect on every kernel (and the dispatched API) against that
//! dialect's automaton, with exact `valid_up_to`, `error_len` and kind:
//! every input of 1 to 3 bytes, every 4-byte input led by `E0..FF` with
//! boundary bytes after it, the 5- and 6-byte rows at their boundaries,
//! every malformation at every offset up to 200 (across the 16-, 32- and
//! 64-byte boundaries) inside text of the dialect, surrogate pairs and
//! reserved runs at every offset, truncations, and random texts of each
//! dialect with bytes changed.

#[macro_use]
mod common;

use common::automaton;
use proptest::prelude::*;
use utf8guard::{Dialect, ErrorKind, Kernel, StreamValidator};

/// `Ok(())`, or the error's `valid_up_to`, `error_len` and kind.
type Outcome = Result<(), (usize, Option<usize>, ErrorKind)>;

/// The outcome of a check, which the exhaustive loops need not look at.
struct Checked(Outcome);

fn expected(dialect: Dialect, bytes: &[u8]) -> Outcome {
    automaton(dialect)
        .validate(bytes)
        .map_err(|e| (e.valid_up_to, e.error_len, ErrorKind::from(e.fault)))
}

/// Every kernel's `check_dialect` against the automaton (the cheap form,
/// for the exhaustive loops).
fn check_kernels(dialect: Dialect, bytes: &[u8]) -> Checked {
    check_these_kernels(dialect, bytes, Kernel::available())
}

/// The kernels the exhaustive loops of short inputs check: every one this
/// CPU has, but the portable kernel where `UTF8GUARD_TEST_EMULATED` is set
/// (scripts/test.sh sets it under qemu-aarch64). Its code is the same on
/// every little-endian target and the native run checks it on these very
/// inputs; under emulation, where these loops take minutes, they are for
/// the vector kernel.
fn exhaustive_kernels() -> Vec<Kernel> {
    Kernel::available()
        .filter(|&k| !(emulated() && k == Kernel::Scalar))
        .collect()
}

/// `true` under emulation (`UTF8GUARD_TEST_EMULATED`, see
/// [`exhaustive_kernels`]).
fn emulated() -> bool {
    std::env::var_os("UTF8GUARD_TEST_EMULATED").is_some()
}

/// [`check_kernels`] on `kernels` only.
fn check_these_kernels(
    dialect: Dialect,
    bytes: &[u8],
    kernels: impl IntoIterator<Item = Kernel>,
) -> Checked {
    let expected = expected(dialect, bytes);
    for kernel in kernels {
        let got = kernel
            .check_dialect(dialect, bytes)
            .map_err(|e| (e.valid_up_to(), e.error_len(), e.kind()));
        assert_eq!(got, expected, "{dialect} on {kernel}: {bytes:02X?}");
    }
    // On a CPU with AVX-512VBMI, `Kernel::Avx512` runs most dialects with
    // `vpermb`; the entry points with `vpshufb` are checked here too.
    #[cfg(target_arch = "x86_64")]
    if let Some(got) = utf8guard::__bench::avx512_dialect_without_vbmi(dialect, bytes) {
        let got = got.map_err(|e| (e.valid_up_to(), e.error_len(), e.kind()));
        assert_eq!(
            got, expected,
            "{dialect} on avx512 without VBMI: {bytes:02X?}"
        );
    }
    Checked(expected)
}

/// Everything: every kernel's `check_dialect` and `validate_dialect`, the
/// dispatched `check`, `validate` and `inspect`, against the automaton.
fn check(dialect: Dialect, bytes: &[u8]) -> Checked {
    let Checked(expected) = check_kernels(dialect, bytes);
    for kernel in Kernel::available() {
        assert_eq!(
            kernel.validate_dialect(dialect, bytes),
            expected.is_ok(),
            "{dialect} validate on {kernel}: {bytes:02X?}"
        );
    }
    let got = dialect
        .check(bytes)
        .map_err(|e| (e.valid_up_to(), e.error_len(), e.kind()));
    assert_eq!(got, expected, "{dialect} dispatched: {bytes:02X?}");
    assert_eq!(dialect.validate(bytes), expected.is_ok(), "{dialect}");
    let scan = automaton(dialect).scan(bytes);
    match dialect.inspect(bytes) {
        Ok(found) => {
            assert!(expected.is_ok(), "{dialect} inspect on {bytes:02X?}");
            assert_eq!(found.magic_number(), scan.magic, "{dialect} magic");
            assert_eq!(found.first_reserved_run(), scan.first_run, "{dialect} run");
        }
        Err(e) => assert_eq!(
            Err((e.valid_up_to(), e.error_len(), e.kind())),
            expected,
            "{dialect} inspect"
        ),
    }
    Checked(expected)
}

#[test]
fn dialect_names() {
    let names: Vec<_> = Dialect::ALL.iter().map(|d| d.name()).collect();
    assert_eq!(
        names,
        [
            "utf-8",
            "unicode-3.1",
            "wtf-8",
            "cesu-8",
            "mutf-8",
            "rfc2279",
            "corrected-utf-8"
        ]
    );
    for &d in Dialect::ALL {
        assert_eq!(Dialect::from_name(d.name()), Some(d));
        assert_eq!(Dialect::from_name(&d.name().to_uppercase()), Some(d));
        assert_eq!(d.to_string().parse::<Dialect>(), Ok(d));
        assert_eq!(automaton(d).grammar().name, d.name());
    }
    for (alias, d) in [
        ("utf8", Dialect::Utf8),
        ("UTF8", Dialect::Utf8),
        ("unicode31", Dialect::Unicode31),
        ("wtf8", Dialect::Wtf8),
        ("cesu8", Dialect::Cesu8),
        ("Java", Dialect::Mutf8),
        ("modified-utf-8", Dialect::Mutf8),
        ("MODIFIED_UTF8", Dialect::Mutf8),
        ("mutf8", Dialect::Mutf8),
        ("rfc-2279", Dialect::Rfc2279),
        ("corrected", Dialect::Corrected),
    ] {
        assert_eq!(Dialect::from_name(alias), Some(d), "{alias}");
    }
    for unknown in ["", "utf-16", "latin1", "utf-8-but-a-very-long-name-indeed"] {
        assert_eq!(Dialect::from_name(unknown), None, "{unknown}");
    }
    let err = "ebcdic".parse::<Dialect>().unwrap_err().to_string();
    assert_eq!(
        err,
        "unknown dialect; known: utf-8, unicode-3.1, wtf-8, cesu-8, mutf-8, rfc2279, corrected-utf-8"
    );
    let lens: Vec<_> = Dialect::ALL.iter().map(|d| d.max_sequence_len()).collect();
    assert_eq!(lens, [4, 4, 4, 6, 3, 6, 6]);
}

#[test]
fn strict_dialect_is_from_utf8() {
    for bytes in [&b"ok"[..], b"\xED\xA0\x80", b"\xC3", b"a\xF4\x90\x80\x80"] {
        let ours = Dialect::Utf8.check(bytes);
        let std = utf8guard::from_utf8(bytes).map(drop);
        assert_eq!(ours, std);
        for kernel in Kernel::available() {
            assert_eq!(kernel.check_dialect(Dialect::Utf8, bytes), std);
        }
    }
}

#[test]
fn every_input_of_up_to_two_bytes() {
    for &d in Dialect::ALL {
        check(d, b"");
        for a in 0..=255u8 {
            check(d, &[a]);
            for b in 0..=255u8 {
                check(d, &[a, b]);
            }
        }
    }
}

fn every_three_byte_input(d: Dialect) {
    let kernels = exhaustive_kernels();
    // The dispatched `validate` runs the same vector function as the
    // kernel's `check_dialect` (without `locate` after it); around it, the
    // dispatch is the same code on every target, which the native run
    // checks: under emulation the vector function runs once per input.
    let dispatched = !emulated();
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            for c in 0..=255u8 {
                let input = [a, b, c];
                let Checked(expected) = check_these_kernels(d, &input, kernels.iter().copied());
                if dispatched {
                    assert_eq!(d.validate(&input), expected.is_ok(), "{d}: {input:02X?}");
                }
            }
        }
    }
}

#[test]
fn every_three_byte_input_unicode31() {
    every_three_byte_input(Dialect::Unicode31);
}
#[test]
fn every_three_byte_input_wtf8() {
    every_three_byte_input(Dialect::Wtf8);
}
#[test]
fn every_three_byte_input_cesu8() {
    every_three_byte_input(Dialect::Cesu8);
}
#[test]
fn every_three_byte_input_mutf8() {
    every_three_byte_input(Dialect::Mutf8);
}
#[test]
fn every_three_byte_input_rfc2279() {
    every_three_byte_input(Dialect::Rfc2279);
}
#[test]
fn every_three_byte_input_corrected() {
    every_three_byte_input(Dialect::Corrected);
}

/// Bytes at the edges of the ranges the grammars use.
const BOUNDARY: [u8; 23] = [
    0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xAF, 0xB0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED,
    0xEF, 0xF0, 0xF4, 0xF8, 0xFC, 0xFE, 0xFF,
];

#[test]
fn four_byte_inputs_led_by_e0_to_ff() {
    let kernels = exhaustive_kernels();
    for &d in &Dialect::ALL[1..] {
        for a in 0xE0..=0xFFu8 {
            for b in 0..=255u8 {
                for c in BOUNDARY {
                    for e in BOUNDARY {
                        check_these_kernels(d, &[a, b, c, e], kernels.iter().copied());
                    }
                }
            }
        }
    }
}

#[test]
fn five_and_six_byte_rows_at_their_boundaries() {
    let rest = [0x41, 0x80, 0x83, 0x84, 0x87, 0x88, 0xBF, 0xC0, 0xED];
    for &d in &Dialect::ALL[1..] {
        for lead in 0xF7..=0xFFu8 {
            for second in 0x7F..=0xC0u8 {
                for &x in &rest {
                    for &y in &rest {
                        let mut input = vec![lead, second, 0x80, x, 0xBF, y];
                        check_kernels(d, &input);
                        input.extend([0x80, b'z']);
                        check_kernels(d, &input);
                        for cut in 2..6 {
                            check_kernels(d, &input[..cut]);
                        }
                    }
                }
            }
        }
    }
}

/// One well-formed sequence of each length the dialect has, used to build
/// text in it.
fn units(d: Dialect) -> Vec<&'static [u8]> {
    let mut units: Vec<&'static [u8]> = vec![b"a", "é".as_bytes(), "€".as_bytes()];
    match d {
        Dialect::Cesu8 | Dialect::Mutf8 => units.push(b"\xED\xA0\xBD\xED\xB8\x80"),
        _ => units.push("😀".as_bytes()),
    }
    match d {
        Dialect::Rfc2279 => {
            units.extend([&b"\xF8\x88\x80\x80\x80"[..], b"\xFD\xBF\xBF\xBF\xBF\xBF"])
        }
        Dialect::Corrected => {
            units.extend([&b"\xF8\x80\x80\x80\x80"[..], b"\xFC\x80\x80\x80\x80\x80"])
        }
        Dialect::Unicode31 | Dialect::Wtf8 => units.push(b"\xED\xA0\x80"),
        Dialect::Mutf8 => units.push(b"\xC0\x80"),
        _ => {}
    }
    units
}

/// Well-formed text of exactly `len` bytes in the dialect, built from one
/// unit (padded with ASCII).
fn filler(d: Dialect, len: usize, style: usize) -> Vec<u8> {
    let units = units(d);
    let unit = units[style % units.len()];
    let mut out = Vec::with_capacity(len);
    while out.len() + unit.len() <= len {
        out.extend_from_slice(unit);
    }
    out.resize(len, b'z');
    out
}

/// Ill-formed sequences of each dialect: the bytes, where the error starts
/// in them, and its kind.
fn malformed(d: Dialect) -> Vec<(&'static [u8], usize, ErrorKind)> {
    use ErrorKind::*;
    let mut list: Vec<(&'static [u8], usize, ErrorKind)> = vec![
        (b"\x80", 0, UnexpectedContinuation),
        (b"\xBF", 0, UnexpectedContinuation),
        (b"\xC3A", 0, TooShort),
        (b"\xE2\x82A", 0, TooShort),
        (b"\xE2A", 0, TooShort),
        (b"\xC3\xC3\xA9", 0, TooShort),
    ];
    let more: &[(&'static [u8], usize, ErrorKind)] = match d {
        Dialect::Utf8 => &[
            (b"\xED\xA0\x80", 0, Surrogate),
            (b"\xF4\x90\x80\x80", 0, TooLarge),
            (b"\xC0\xAF", 0, InvalidByte),
            (b"\xF8\x88\x80\x80\x80", 0, InvalidByte),
        ],
        Dialect::Unicode31 => &[
            (b"\xF4\x90\x80\x80", 0, TooLarge),
            (b"\xE0\x9F\xBF", 0, Overlong),
            (b"\xF0\x8F\xBF\xBF", 0, Overlong),
            (b"\xF5\x80\x80\x80", 0, InvalidByte),
            (b"\xED\xA0\x80\xED\xB0A", 3, TooShort),
        ],
        Dialect::Wtf8 => &[
            (b"\xED\xA0\x80\xED\xB0\x80", 3, SurrogatePair),
            (b"\xED\xAF\xBF\xED\xBF\xBF", 3, SurrogatePair),
            (b"\xED\xA0\x80\xED\xA0\x80\xED\xB0\x80", 6, SurrogatePair),
            (b"\xF4\x90\x80\x80", 0, TooLarge),
            (b"\xC1\x80", 0, InvalidByte),
        ],
        Dialect::Cesu8 => &[
            (b"\xF0\x9F\x98\x80", 0, FourByteForm),
            (b"\xED\xB0\x80", 0, LoneSurrogate),
            (b"\xED\xA0\x80A", 0, LoneSurrogate),
            (b"\xED\xA0\x80\xED\xA0\x80\xED\xB0\x80", 0, LoneSurrogate),
            (b"\xED\xA0\x80\xE2\x82\xAC", 0, LoneSurrogate),
            (b"\xED\xA0\x80\xED\x9F\xBF", 0, LoneSurrogate),
            (b"\xED\xA0\xBD\xED\xB8\x80\xED\xB8\x80", 6, LoneSurrogate),
            (b"\xED\xA0\x80\xED\xB0A", 0, TooShort),
            (b"\xC0\x80", 0, InvalidByte),
            (b"\xE0\x80\x80", 0, Overlong),
        ],
        Dialect::Mutf8 => &[
            (b"\x00", 0, Nul),
            (b"\xC0\x81", 0, Overlong),
            (b"\xC0\xBF", 0, Overlong),
            (b"\xC1\x80", 0, InvalidByte),
            (b"\xF0\x9F\x98\x80", 0, FourByteForm),
            (b"\xE0\x80\x80", 0, Overlong),
        ],
        Dialect::Rfc2279 => &[
            (b"\xF8\x87\xBF\xBF\xBF", 0, Overlong),
            (b"\xFC\x83\xBF\xBF\xBF\xBF", 0, Overlong),
            (b"\xFE\x80", 0, InvalidByte),
            (b"\xFF", 0, InvalidByte),
            (b"\xC0\xAF", 0, InvalidByte),
            (b"\xFD\xBF\xBF\xBF\xBFA", 0, TooShort),
            (b"\xF8\x88\x80\x80\x80\x80", 5, UnexpectedContinuation),
            (b"\xF0\x8F\xBF\xBF", 0, Overlong),
        ],
        Dialect::Corrected => &[
            (b"\x00", 0, Nul),
            (b"\xFE\x80\x00", 2, Nul),
            (b"\xF8\x80\x80\x80A", 0, TooShort),
            (b"\xFC\x80\x80\x80\x80\x80\x80", 6, UnexpectedContinuation),
            (b"\xC0A", 0, TooShort),
        ],
        other => panic!("no malformations listed for {other}"),
    };
    list.extend_from_slice(more);
    list
}

#[test]
fn every_malformation_at_every_offset() {
    for &d in Dialect::ALL {
        let styles = units(d).len();
        for (bad, at, kind) in malformed(d) {
            for offset in 0..=200 {
                for style in 0..styles {
                    // The longest tail: inputs past 256 bytes, where the
                    // AVX-512 kernel checks with 64-byte vectors.
                    for tail in [0, 1, 5, 70, 300] {
                        let mut input = filler(d, offset, style);
                        input.extend_from_slice(bad);
                        input.extend_from_slice(&filler(d, tail, style + 1));
                        let got = check(d, &input).0;
                        let (valid_up_to, _, got_kind) = got.expect_err("malformed");
                        assert_eq!(
                            (valid_up_to, got_kind),
                            (offset + at, kind),
                            "{d}: {bad:02X?} at {offset}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn truncations_at_every_offset() {
    for &d in Dialect::ALL {
        let styles = units(d).len();
        for unit in units(d) {
            for cut in 1..unit.len() {
                for offset in 0..=200 {
                    let mut input = filler(d, offset, offset % styles);
                    input.extend_from_slice(&unit[..cut]);
                    let got = check(d, &input).0;
                    // A cut after the first sequence of a modified UTF-8
                    // pair leaves a lone surrogate, which is well formed.
                    let whole = (0..=cut).rev().find(|&k| automaton(d).is_valid(&unit[..k]));
                    let want = match whole {
                        Some(k) if k == cut => Ok(()),
                        Some(k) => Err((offset + k, None, ErrorKind::Incomplete)),
                        None => unreachable!("the empty prefix is valid"),
                    };
                    assert_eq!(got, want, "{d}: {input:02X?}");
                }
            }
        }
    }
}

/// Malformations far into an input that starts with a dialect's rarer
/// form: the kernels check a block where the screen flags such a form,
/// and a few steps after it, with the dialect's own tables, then go back
/// to the screen. What those tables began (a CESU-8 lead surrogate waiting
/// for its trail, a 5- or 6-byte sequence, an `FE` that RFC 2279 forbids)
/// must be finished by them whatever the offset where the screen takes
/// over.
#[test]
fn malformations_where_the_screen_takes_over_again() {
    for &d in Dialect::ALL {
        let units = units(d);
        let rare = units[units.len() - 1];
        let mut bad = malformed(d);
        if d == Dialect::Rfc2279 {
            bad.push((b"\xFF\x9E\xB2\x87\xB5\xB5", 0, ErrorKind::InvalidByte));
            bad.push((b"\xFC\x84\x80\x80\x80A", 0, ErrorKind::TooShort));
        }
        for (bad, at, kind) in bad {
            for offset in 400..1100 {
                // Text with a non-ASCII character every 50 bytes, so that
                // few blocks are all ASCII.
                let mut input = rare.to_vec();
                let text = "é".bytes().chain([b'a'; 48]).cycle();
                input.extend(text.take(offset - rare.len()));
                if let Some(last @ 0xC3) = input.last_mut() {
                    *last = b'a';
                }
                input.extend_from_slice(bad);
                input.extend_from_slice(&[b'a'; 61]);
                let (valid_up_to, _, got_kind) = check_kernels(d, &input).0.expect_err("malformed");
                assert_eq!(
                    (valid_up_to, got_kind),
                    (offset + at, kind),
                    "{d}: {bad:02X?} at {offset}"
                );
            }
        }
    }
}

/// CESU-8 text dense in surrogate pairs (emoji), where the screen flags
/// every block and the runs of steps that skip it grow long: every
/// malformation at every offset of a window deep inside such a run, in
/// text of pairs alone, with a run of ASCII long enough to make whole
/// steps of it inside the run, and with a BMP character between pairs.
#[test]
fn malformations_in_text_dense_with_surrogate_pairs() {
    let d = Dialect::Cesu8;
    let pair: &[u8] = b"\xED\xA0\xBD\xED\xB8\x80"; // U+1F600
    let texts: [Vec<u8>; 3] = [
        pair.repeat(800),
        [pair.repeat(300), vec![b'a'; 700], pair.repeat(300)].concat(),
        [pair, "\u{20AC}".as_bytes()].concat().repeat(600),
    ];
    for text in &texts {
        check(d, text);
        for (bad, at, kind) in malformed(d) {
            // Past the first runs (4, 8, 16 steps of 128 bytes), inside a
            // longer one, at every alignment.
            for offset in 3000..3200 {
                let mut input = text[..offset].to_vec();
                // Cut at a character boundary, then move by ASCII bytes.
                while automaton(d).validate(&input).is_err() {
                    input.pop();
                }
                input.resize(offset, b'a');
                input.extend_from_slice(bad);
                input.extend_from_slice(&text[offset..]);
                // The rest may start inside a character: the first error is
                // the one put in (the checks below say so), whatever comes
                // after it.
                let (valid_up_to, _, got_kind) = check_kernels(d, &input).0.expect_err("malformed");
                assert_eq!(
                    (valid_up_to, got_kind),
                    (offset + at, kind),
                    "{bad:02X?} at {offset}"
                );
            }
        }
    }
}

/// Surrogates (pairs, lone ones, pairs where they are not allowed) placed
/// at every offset, so that their 6 bytes straddle every vector and block
/// boundary; the same for reserved runs.
#[test]
fn surrogates_and_runs_across_every_boundary() {
    let pair = b"\xED\xA0\xBD\xED\xB8\x80";
    let lone_lead = b"\xED\xA0\xBD";
    let lone_trail = b"\xED\xB8\x80";
    for offset in 0..=200 {
        for style in 0..3 {
            for piece in [
                &pair[..],
                lone_lead,
                lone_trail,
                b"\xED\xB8\x80\xED\xA0\xBD",
            ] {
                for tail in [0, 1, 2, 3, 64] {
                    let mut input = filler(Dialect::Utf8, offset, style);
                    input.extend_from_slice(piece);
                    input.extend_from_slice(&filler(Dialect::Utf8, tail, style));
                    for &d in Dialect::ALL {
                        check(d, &input);
                    }
                }
            }
            let mut input = filler(Dialect::Utf8, offset, style);
            input.extend_from_slice(b"\xFE\x80\x80\x80\x80\x80\x80\x80\x80");
            input.extend_from_slice(&filler(Dialect::Utf8, 70, style));
            check(Dialect::Corrected, &input);
            let found = Dialect::Corrected.inspect(&input).unwrap();
            assert_eq!(found.first_reserved_run(), Some(offset));
        }
    }
    // Pairs in every position of CESU-8 text, with every alignment.
    for before in 0..70 {
        let mut input = vec![b'x'; before];
        for _ in 0..40 {
            input.extend_from_slice(pair);
        }
        assert_eq!(check(Dialect::Cesu8, &input).0, Ok(()));
        assert_eq!(check(Dialect::Mutf8, &input).0, Ok(()));
        assert_eq!(check(Dialect::Unicode31, &input).0, Ok(()));
        let err = check(Dialect::Wtf8, &input).0.unwrap_err();
        assert_eq!(err, (before + 3, Some(1), ErrorKind::SurrogatePair));
    }
}

test_in_own_process!(
    /// Each dialect's tests above with the AVX-512 kernel's look-behind
    /// shifted in (its way with inputs of 16 MiB and more, without
    /// prefetch hints).
    the_tests_with_shuffles runs shuffles_everywhere {
        // A CESU-8 text of 16 MiB, where the shuffles start by default,
        // with a trail surrogate alone near its end.
        let pair: &[u8] = b"\xED\xA0\xBD\xED\xB8\x80";
        let mut input = [pair, "\u{20AC}".as_bytes()]
            .concat()
            .repeat((16 << 20) / 9 + 1);
        assert_eq!(check_kernels(Dialect::Cesu8, &input).0, Ok(()));
        let at = input.len() - 900;
        input[at..at + 3].copy_from_slice(b"abc");
        check_kernels(Dialect::Cesu8, &input)
            .0
            .expect_err("a trail alone");
        // Then from the shortest input the kernels' blocks take on.
        utf8guard::__bench::with_shuffles_from(Some(0), || {
            every_malformation_at_every_offset();
            truncations_at_every_offset();
            malformations_where_the_screen_takes_over_again();
            malformations_in_text_dense_with_surrogate_pairs();
            surrogates_and_runs_across_every_boundary();
        });
    }
);

#[test]
fn corrected_magic_number() {
    let magic = b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A";
    let mut doc = magic.to_vec();
    doc.extend_from_slice(&filler(Dialect::Corrected, 300, 2));
    let found = Dialect::Corrected.inspect(&doc).unwrap();
    assert!(found.magic_number());
    assert_eq!(found.first_reserved_run(), None);
    check(Dialect::Corrected, &doc);
    for cut in 0..magic.len() {
        check(Dialect::Corrected, &magic[..cut]);
    }
    assert_eq!(
        check(Dialect::Corrected, &magic[..7]).0,
        Err((6, None, ErrorKind::Incomplete))
    );
    let mut late = b"x".to_vec();
    late.extend_from_slice(magic);
    assert_eq!(
        check(Dialect::Corrected, &late).0,
        Err((7, Some(1), ErrorKind::Nul))
    );
    // Not magic in the other dialects.
    assert_eq!(
        check(Dialect::Mutf8, magic).0,
        Err((6, Some(1), ErrorKind::Nul))
    );
}

/// Text of a dialect, from its rows: a seeded random concatenation.
fn text_of(d: Dialect, seed: u64, sequences: usize) -> Vec<u8> {
    let rows = automaton(d).grammar().rows;
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = Vec::new();
    for _ in 0..sequences {
        // Mostly ASCII and short rows, as text is.
        let r = if next() % 3 == 0 {
            0
        } else {
            (next() % rows.len() as u64) as usize
        };
        for &(lo, hi) in rows[r] {
            out.push(lo + (next() % (hi as u64 - lo as u64 + 1)) as u8);
        }
    }
    out
}

/// The stream validator fed `bytes` in chunks ending at `cuts` (sorted),
/// against the one-shot check of the whole: the same first error (from
/// `update` as soon as a chunk holds it, else from `finish`), the same
/// magic number and first reserved run.
fn check_stream(d: Dialect, bytes: &[u8], cuts: &[usize]) {
    let expected = d.check(bytes);
    let mut stream = StreamValidator::with_dialect(d);
    let mut from = 0;
    let mut got = Ok(());
    for &cut in cuts.iter().chain([&bytes.len()]) {
        let cut = cut.clamp(from, bytes.len());
        if let Err(e) = stream.update(&bytes[from..cut]) {
            assert!(e.error_len().is_some(), "{d}: update reported {e:?}");
            // The error is reported once the chunk that shows it has come.
            assert!(e.valid_up_to() + e.error_len().unwrap_or(0) <= cut.max(e.valid_up_to() + 1));
            got = Err(e);
            break;
        }
        from = cut;
    }
    if got.is_ok() {
        let inspection = stream.inspection();
        got = stream.finish();
        if let Ok(found) = d.inspect(bytes) {
            assert_eq!(
                inspection, found,
                "{d}: inspection, cuts {cuts:?} of {bytes:02X?}"
            );
        }
    }
    assert_eq!(got, expected, "{d}: stream cut at {cuts:?}: {bytes:02X?}");
}

#[test]
fn streams_split_at_every_point() {
    let samples: &[(Dialect, &[u8])] = &[
        (
            Dialect::Cesu8,
            b"a\xED\xA0\xBD\xED\xB8\x80b\xED\xA0\xBD\xED\xB8\x80",
        ),
        (Dialect::Cesu8, b"a\xED\xA0\xBDb"),
        (Dialect::Cesu8, b"a\xED\xA0\xBD\xED\x9F\xBF"),
        (Dialect::Cesu8, b"a\xED\xA0\xBD"),
        (Dialect::Wtf8, b"a\xED\xA0\xBD\xED\xB8\x80"),
        (Dialect::Wtf8, b"a\xED\xB8\x80\xED\xA0\xBD"),
        (Dialect::Wtf8, b"\xED\xA0\xBD\xED\xA0\xBDx\xED\xB8\x80"),
        (Dialect::Mutf8, b"\xC0\x80\xED\xA0\xBD\x00"),
        (
            Dialect::Rfc2279,
            b"\xFD\xBF\xBF\xBF\xBF\xBF\xF8\x88\x80\x80\x80",
        ),
        (Dialect::Rfc2279, b"\xFC\x83\xBF\xBF\xBF\xBF"),
        (
            Dialect::Corrected,
            b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0Aab\xFE\x80\x80\x80c\xFF",
        ),
        (Dialect::Corrected, b"\xEF\xB7\x9D\xED\xB2\xAE\x00"),
        (Dialect::Corrected, b"\xEF\xB7\x9D\xED\xB2\xAE\x00x"),
        (
            Dialect::Corrected,
            b"\xEF\xB7\x9D\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A",
        ),
        (
            Dialect::Corrected,
            b"x\xFE\x80\x80\x80\x80\x80\x80\x80\x80\x00",
        ),
        (Dialect::Corrected, b"\xFE\x80\x80\xFC\x80\x80\x80\x80\x80"),
        (Dialect::Unicode31, b"\xED\xA0\xBD\xED\xB8\x80\xF4\x90"),
    ];
    for &(d, bytes) in samples {
        for a in 0..=bytes.len() {
            check_stream(d, bytes, &[a]);
            for b in a..=bytes.len() {
                check_stream(d, bytes, &[a, b]);
            }
        }
        let singles: Vec<usize> = (1..bytes.len()).collect();
        check_stream(d, bytes, &singles);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn streams_in_random_chunks(
        dialect in 0..7usize,
        seed in any::<u64>(),
        sequences in 0..300usize,
        edit in proptest::option::of((any::<prop::sample::Index>(), any::<u8>())),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
        magic in any::<bool>(),
    ) {
        let d = Dialect::ALL[dialect];
        let mut text = if magic && d == Dialect::Corrected {
            b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A".to_vec()
        } else {
            Vec::new()
        };
        text.extend(text_of(d, seed, sequences));
        if let Some((at, byte)) = edit {
            if !text.is_empty() {
                let i = at.index(text.len());
                text[i] = byte;
            }
        }
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(text.len() + 1)).collect();
        cuts.sort_unstable();
        check_stream(d, &text, &cuts);
    }

    #[test]
    fn random_texts_with_bytes_changed(
        dialect in 0..7usize,
        seed in any::<u64>(),
        sequences in 0..400usize,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
        cut in any::<prop::sample::Index>(),
    ) {
        let d = Dialect::ALL[dialect];
        let mut text = text_of(d, seed, sequences);
        check(d, &text);
        for (at, byte) in edits {
            if !text.is_empty() {
                let i = at.index(text.len());
                text[i] = byte;
            }
        }
        check(d, &text);
        let end = cut.index(text.len() + 1);
        check(d, &text[..end]);
        // Every other dialect on the same bytes.
        for &other in Dialect::ALL {
            check(other, &text[..end]);
        }
    }
}

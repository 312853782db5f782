//! `Dialect::decode` and `Dialect::encode` against the dialects' reference
//! automata and each other: the decoder accepts exactly what the automaton
//! accepts and reports every error as the automaton does (exhaustively over
//! short inputs, then on generated and damaged text); every well-formed
//! sequence decodes to the code point whose encoding it is; every code point
//! a dialect holds round-trips; Python's codecs agree where they exist.

mod common;

use std::process::Command;

use common::automaton;
use proptest::prelude::*;
use utf8guard::{Decoded, Dialect, EncodeError, ErrorKind};
use utf8guard_dfa::{Automaton, Fault, Invalid, State};

type Error = (usize, Option<usize>, ErrorKind);

fn error_of(invalid: Invalid) -> Error {
    (
        invalid.valid_up_to,
        invalid.error_len,
        ErrorKind::from(invalid.fault),
    )
}

/// The automaton's first error from `from`, started between sequences.
fn first_error_from(a: &Automaton, bytes: &[u8], from: usize) -> Option<Invalid> {
    let mut state = State::ACCEPT;
    let mut start = from;
    for (i, &b) in bytes.iter().enumerate().skip(from) {
        if a.is_accepting(state) {
            start = i;
        }
        let next = a.next(state, b);
        if next == State::REJECT {
            return Some(Invalid {
                valid_up_to: start,
                error_len: Some((i - start).max(1)),
                fault: a.fault(state, &bytes[start..=i]),
            });
        }
        state = next;
    }
    (!a.is_accepting(state)).then_some(Invalid {
        valid_up_to: start,
        error_len: None,
        fault: Fault::Incomplete,
    })
}

/// Every error of `bytes` by the automaton: the first as `scan` finds it
/// (the magic number included), then each next one found by starting
/// afresh after the one before.
fn every_error(dialect: Dialect, bytes: &[u8]) -> Vec<Error> {
    let a = automaton(dialect);
    let mut errors = Vec::new();
    let mut next = a.scan(bytes).result.err();
    while let Some(invalid) = next {
        errors.push(error_of(invalid));
        next = invalid
            .error_len
            .and_then(|len| first_error_from(a, bytes, invalid.valid_up_to + len));
    }
    errors
}

/// The bytes `encode` gives for a decoded item: for Unicode 3.1's 6-byte
/// pairs, the two surrogates' forms.
fn encoding_of(dialect: Dialect, cp: u32, len: usize) -> Vec<u8> {
    if dialect == Dialect::Unicode31 && len == 6 {
        let offset = cp - 0x1_0000;
        let mut out = dialect.encode(0xD800 + (offset >> 10)).unwrap().to_vec();
        out.extend_from_slice(&dialect.encode(0xDC00 + (offset & 0x3FF)).unwrap());
        return out;
    }
    dialect
        .encode(cp)
        .expect("a decoded code point is encodable")
        .to_vec()
}

/// Decode `bytes` and check everything against the automaton.
fn check(dialect: Dialect, bytes: &[u8]) {
    let mut decode = dialect.decode(bytes);
    let magic = dialect == Dialect::Corrected && bytes.starts_with(&CORRECTED_MAGIC);
    assert_eq!(decode.magic_number(), magic, "{dialect} {bytes:02X?}");
    let mut at = if magic { 8 } else { 0 };
    let mut errors = Vec::new();
    for item in decode.by_ref() {
        assert_eq!(item.offset(), at, "{dialect} {bytes:02X?}: {item:?}");
        let seq = &bytes[at..at + item.len()];
        match item {
            Decoded::Char {
                code_point, len, ..
            } => {
                assert_eq!(
                    encoding_of(dialect, code_point, len),
                    seq,
                    "{dialect} {bytes:02X?}: {item:?}"
                );
            }
            Decoded::Reserved { len, .. } => {
                assert_eq!(dialect, Dialect::Corrected);
                assert!(seq[0] >= 0xFE && seq[1..].iter().all(|&b| b & 0xC0 == 0x80));
                // The run takes every continuation byte after it.
                assert!(bytes.get(at + len).is_none_or(|&b| b & 0xC0 != 0x80));
            }
            Decoded::Invalid { error, len } => {
                assert_eq!(len, error.error_len().unwrap_or(bytes.len() - at));
                errors.push((error.valid_up_to(), error.error_len(), error.kind()));
            }
        }
        at += item.len();
    }
    assert_eq!(
        at,
        bytes.len(),
        "{dialect} {bytes:02X?}: items cover the input"
    );
    assert_eq!(decode.offset(), bytes.len());
    assert_eq!(
        errors,
        every_error(dialect, bytes),
        "{dialect} {bytes:02X?}"
    );
    let checked = dialect
        .check(bytes)
        .err()
        .map(|e| (e.valid_up_to(), e.error_len(), e.kind()));
    assert_eq!(errors.first().copied(), checked, "{dialect} {bytes:02X?}");
}

const CORRECTED_MAGIC: [u8; 8] = [0xEF, 0xB7, 0x9D, 0xED, 0xB2, 0xAE, 0x00, 0x0A];

/// Both ends of every byte range of every dialect's table, and the bytes
/// just outside them.
const ALPHABET: &[u8] = &[
    0x00, 0x01, 0x0A, 0x41, 0x7F, 0x80, 0x81, 0x83, 0x84, 0x87, 0x88, 0x8F, 0x90, 0x9F, 0xA0, 0xAF,
    0xB0, 0xBD, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF4, 0xF5, 0xF7,
    0xF8, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF,
];

fn for_each_word(alphabet: &[u8], len: usize, prefix: &mut Vec<u8>, f: &mut dyn FnMut(&[u8])) {
    if prefix.len() == len {
        f(prefix);
        return;
    }
    for &b in alphabet {
        prefix.push(b);
        for_each_word(alphabet, len, prefix, f);
        prefix.pop();
    }
}

#[test]
fn every_input_of_up_to_two_bytes() {
    for &d in Dialect::ALL {
        check(d, &[]);
        for a in 0..=255u8 {
            check(d, &[a]);
            for b in 0..=255u8 {
                check(d, &[a, b]);
            }
        }
    }
}

#[test]
fn every_three_byte_input_with_boundary_bytes_after_the_first() {
    for &d in Dialect::ALL {
        for a in 0..=255u8 {
            for &b in ALPHABET {
                for &c in ALPHABET {
                    check(d, &[a, b, c]);
                }
            }
        }
    }
}

#[test]
fn every_four_byte_input_over_the_boundary_bytes() {
    let alphabet = [
        0x00, 0x41, 0x80, 0x84, 0x88, 0x8F, 0x90, 0x9F, 0xA0, 0xAF, 0xB0, 0xBF, 0xC0, 0xC2, 0xE0,
        0xED, 0xEF, 0xF0, 0xF4, 0xF7, 0xF8, 0xFC, 0xFD, 0xFE,
    ];
    for &d in Dialect::ALL {
        for_each_word(&alphabet, 4, &mut Vec::new(), &mut |w| check(d, w));
    }
}

#[test]
fn long_rows_at_their_boundaries() {
    let alphabet = [
        0x41, 0x80, 0x83, 0x84, 0x87, 0x88, 0xBF, 0xF7, 0xF8, 0xFB, 0xFC, 0xFD,
    ];
    for d in [Dialect::Rfc2279, Dialect::Corrected] {
        for_each_word(&alphabet, 5, &mut Vec::new(), &mut |w| check(d, w));
        for lead in [0xFC, 0xFD, 0xFE] {
            for_each_word(
                &[0x41, 0x80, 0x83, 0x84, 0xBF],
                6,
                &mut vec![lead],
                &mut |w| check(d, w),
            );
        }
    }
}

#[test]
fn surrogate_bytes_up_to_six() {
    let alphabet = [0x41, 0x80, 0x9F, 0xA0, 0xAF, 0xB0, 0xBF, 0xED];
    for &d in Dialect::ALL {
        for len in 4..=5 {
            for_each_word(&alphabet, len, &mut Vec::new(), &mut |w| check(d, w));
        }
        for_each_word(&alphabet, 6, &mut vec![0xED], &mut |w| check(d, w));
    }
}

#[test]
fn the_magic_number_and_its_prefixes() {
    for len in 0..=8 {
        for &d in Dialect::ALL {
            check(d, &CORRECTED_MAGIC[..len]);
        }
    }
    let mut doc = CORRECTED_MAGIC.to_vec();
    doc.extend_from_slice(b"x\x00");
    doc.extend_from_slice(&CORRECTED_MAGIC);
    check(Dialect::Corrected, &doc);
    let items: Vec<Decoded> = Dialect::Corrected.decode(&doc).collect();
    assert_eq!(
        items[0],
        Decoded::Char {
            code_point: 0x78,
            offset: 8,
            len: 1
        }
    );
    // A magic number later on is text: its 00 is an error.
    assert_eq!(items[1].offset(), 9);
    assert!(matches!(items[1], Decoded::Invalid { error, .. } if error.kind() == ErrorKind::Nul));
    let cps: Vec<u32> = items.iter().filter_map(|d| d.code_point()).collect();
    assert_eq!(cps, [0x78, 0x1_0E7D, 0xED4E, 0x0A]);
    // A proper prefix that reaches the 00 may still become the number.
    let items: Vec<Decoded> = Dialect::Corrected.decode(&CORRECTED_MAGIC[..7]).collect();
    let Decoded::Invalid { error, len } = items[2] else {
        panic!("{items:?}")
    };
    assert_eq!((error.valid_up_to(), error.error_len(), len), (6, None, 1));
    assert_eq!(error.kind(), ErrorKind::Incomplete);
}

#[test]
fn items_with_exact_values() {
    let collect = |d: Dialect, b: &[u8]| d.decode(b).collect::<Vec<_>>();
    let ch = |code_point, offset, len| Decoded::Char {
        code_point,
        offset,
        len,
    };
    // Unicode 3.1: an irregular pair is one code point; a trail then a lead
    // are two.
    assert_eq!(
        collect(
            Dialect::Unicode31,
            b"\xED\xA0\xBD\xED\xB8\x80\xED\xB8\x80\xED\xA0\xBD"
        ),
        [ch(0x1F600, 0, 6), ch(0xDE00, 6, 3), ch(0xD83D, 9, 3)]
    );
    // WTF-8: the same pair is an error at the trail.
    let items = collect(Dialect::Wtf8, b"\xED\xA0\xBD\xED\xB8\x80");
    assert_eq!(items[0], ch(0xD83D, 0, 3));
    let Decoded::Invalid { error, len } = items[1] else {
        panic!("{items:?}")
    };
    assert_eq!(
        (error.valid_up_to(), error.error_len(), len),
        (3, Some(1), 1)
    );
    assert_eq!(error.kind(), ErrorKind::SurrogatePair);
    assert_eq!(items.len(), 4, "{items:?}");
    // RFC 2279: surrogates stay apart; 6-byte forms.
    assert_eq!(
        collect(
            Dialect::Rfc2279,
            b"\xED\xA0\xBD\xED\xB8\x80\xFD\xBF\xBF\xBF\xBF\xBF"
        ),
        [ch(0xD83D, 0, 3), ch(0xDE00, 3, 3), ch(0x7FFF_FFFF, 6, 6)]
    );
    // Corrected UTF-8 at both sides of the 3-byte split.
    assert_eq!(
        collect(Dialect::Corrected, b"\xEC\xBD\x9F\xEC\xBD\xA0\xFF"),
        [
            ch(0xD7FF, 0, 3),
            ch(0xE000, 3, 3),
            Decoded::Reserved { offset: 6, len: 1 }
        ]
    );
    // Modified UTF-8: a 00 byte is an error, C0 80 is U+0000.
    let items = collect(Dialect::Mutf8, b"\x00\xC0\x80");
    assert!(
        matches!(items[0], Decoded::Invalid { error, len: 1 } if error.kind() == ErrorKind::Nul)
    );
    assert_eq!(items[1], ch(0, 1, 2));
    // An input ending inside a sequence ends with that error.
    let items = collect(Dialect::Utf8, b"a\xF0\x9F\x98");
    let Decoded::Invalid { error, len } = items[1] else {
        panic!("{items:?}")
    };
    assert_eq!((error.valid_up_to(), error.error_len(), len), (1, None, 3));
    assert_eq!(items.len(), 2);
}

/// What `encode` must say of `cp` in `dialect`, from the dialects' tables.
fn encodable(dialect: Dialect, cp: u32) -> Result<(), EncodeError> {
    let surrogate = (0xD800..0xE000).contains(&cp);
    if cp > dialect.max_code_point() {
        Err(EncodeError::TooLarge)
    } else if surrogate && matches!(dialect, Dialect::Utf8 | Dialect::Cesu8 | Dialect::Corrected) {
        Err(EncodeError::Surrogate)
    } else if dialect == Dialect::Corrected && cp == 0 {
        Err(EncodeError::Nul)
    } else if dialect == Dialect::Corrected && (0x80..0xA0).contains(&cp) {
        Err(EncodeError::C1Control)
    } else {
        Ok(())
    }
}

/// `cp` encodes as `encodable` says, the bytes are well formed, and they
/// decode to `cp` alone.
fn round_trip(dialect: Dialect, cp: u32) {
    match (dialect.encode(cp), encodable(dialect, cp)) {
        (Ok(bytes), Ok(())) => {
            assert!(automaton(dialect).is_valid(&bytes), "{dialect} U+{cp:04X}");
            let items: Vec<Decoded> = dialect.decode(&bytes).collect();
            assert_eq!(
                items,
                [Decoded::Char {
                    code_point: cp,
                    offset: 0,
                    len: bytes.len()
                }],
                "{dialect} U+{cp:04X}"
            );
        }
        (got, expected) => assert_eq!(got.map(drop), expected, "{dialect} U+{cp:04X}"),
    }
}

#[test]
fn every_code_point_up_to_u10ffff_round_trips() {
    for &d in Dialect::ALL {
        for cp in 0..=0x11_0000 {
            round_trip(d, cp);
        }
    }
    // Strict UTF-8's encoder is std's.
    for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
        let mut buf = [0; 4];
        assert_eq!(
            &*Dialect::Utf8.encode(c as u32).unwrap(),
            c.encode_utf8(&mut buf).as_bytes()
        );
    }
}

#[test]
fn long_dialects_round_trip_at_every_boundary_and_at_random() {
    let mut state = 0x2279_u64;
    for d in [Dialect::Rfc2279, Dialect::Corrected] {
        for &b in common::CODE_POINT_EDGES {
            for cp in b.saturating_sub(2)..=b.saturating_add(2) {
                round_trip(d, cp);
            }
        }
        for _ in 0..1_000_000 {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            let z = z ^ (z >> 31);
            // Every length about as often: a random number of bits.
            let bits = (z >> 58) as u32 % 33;
            let cp = if bits == 0 {
                0
            } else {
                (z as u32) >> (32 - bits)
            };
            round_trip(d, cp.min(d.max_code_point()));
        }
    }
}

/// A code point sequence in `dialect` that encodes one code point at a time
/// to text that decodes back to it: no lead surrogate right before a trail
/// (which Unicode 3.1 and modified UTF-8 read as one code point, and WTF-8
/// forbids).
fn text_strategy(dialect: Dialect) -> impl Strategy<Value = Vec<u32>> {
    let max = dialect.max_code_point();
    let cp = common::code_point(max, 4);
    prop::collection::vec(cp, 0..40).prop_map(move |cps| {
        let mut out: Vec<u32> = Vec::new();
        for cp in cps {
            if encodable(dialect, cp).is_err() {
                continue;
            }
            let after_lead = out.last().is_some_and(|&p| (0xD800..0xDC00).contains(&p));
            if after_lead && (0xDC00..0xE000).contains(&cp) && dialect != Dialect::Rfc2279 {
                continue;
            }
            out.push(cp);
        }
        out
    })
}

fn encode_all(dialect: Dialect, cps: &[u32]) -> Vec<u8> {
    cps.iter()
        .flat_map(|&cp| dialect.encode(cp).unwrap().to_vec())
        .collect()
}

fn dialect_strategy() -> impl Strategy<Value = Dialect> {
    prop::sample::select(Dialect::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn text_round_trips((d, cps) in dialect_strategy().prop_flat_map(|d| (Just(d), text_strategy(d)))) {
        let bytes = encode_all(d, &cps);
        prop_assert!(automaton(d).is_valid(&bytes));
        let back: Vec<u32> = d.decode(&bytes).map(|i| i.code_point().unwrap()).collect();
        prop_assert_eq!(back, cps);
    }

    #[test]
    fn damaged_text_decodes_as_the_automaton_says(
        (d, cps) in dialect_strategy().prop_flat_map(|d| (Just(d), text_strategy(d))),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..4u8), 1..4),
        cut in any::<prop::sample::Index>(),
        splice in prop::sample::select(vec![
            &b"\x00"[..], b"\xC0\x80", b"\xED\xA0\x80", b"\xED\xB0\x80", b"\xED\xA0\xBD\xED\xB8\x80",
            b"\xF0\x9F\x98\x80", b"\xF8\x88\x80\x80\x80", b"\xFE\x80\x80", b"\xFF", b"\xE0\x80\xAF",
            &CORRECTED_MAGIC[..],
        ]),
    ) {
        let mut bytes = encode_all(d, &cps);
        for (at, byte, how) in edits {
            let i = at.index(bytes.len() + 1);
            match how {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                2 => { bytes.splice(i..i, splice.iter().copied()); }
                _ => { bytes.truncate(i); }
            }
        }
        check(d, &bytes);
        let cut = cut.index(bytes.len() + 1);
        check(d, &bytes[..cut]);
    }
}

/// Python's codecs agree: `utf-8` (strict, with every error's position),
/// `surrogatepass` (Unicode 3.1's set), and CESU-8 built from Python's
/// UTF-16 and `surrogatepass`. One Python process for all of it.
#[test]
fn python_codecs_agree() {
    let dir = std::env::temp_dir().join(format!("utf8guard-decode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Malformed inputs: every 1- and 2-byte input, every 3-byte one over
    // the boundary bytes.
    let mut cases: Vec<Vec<u8>> = Vec::new();
    for a in 0..=255u8 {
        cases.push(vec![a]);
        for b in 0..=255u8 {
            cases.push(vec![a, b]);
        }
    }
    for &a in ALPHABET {
        for_each_word(ALPHABET, 2, &mut vec![a], &mut |w| cases.push(w.to_vec()));
    }
    let hex: String = cases
        .iter()
        .map(|c| c.iter().map(|b| format!("{b:02x}")).collect::<String>() + "\n")
        .collect();
    std::fs::write(dir.join("cases.txt"), hex).unwrap();
    let script = r#"
import sys, codecs, os
d = sys.argv[1]
scalars = ''.join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
open(os.path.join(d, 'utf8.bin'), 'wb').write(scalars.encode('utf-8'))
allcps = ''.join(chr(c) for c in range(0x110000))
open(os.path.join(d, 'u31.bin'), 'wb').write(allcps.encode('utf-8', 'surrogatepass'))
units = scalars.encode('utf-16-be')
cesu = b''.join(chr(int.from_bytes(units[i:i+2], 'big')).encode('utf-8', 'surrogatepass')
                for i in range(0, len(units), 2))
open(os.path.join(d, 'cesu.bin'), 'wb').write(cesu)
lone = ''.join(chr(c) + 'x' for c in range(0xD800, 0xE000)).encode('utf-8', 'surrogatepass')
open(os.path.join(d, 'lone.txt'), 'w').write(' '.join('%x' % ord(c) for c in lone.decode('utf-8', 'surrogatepass')))
errs = []
def record(e):
    errs.append('%d-%d' % (e.start, e.end))
    return ('', e.end)
codecs.register_error('record', record)
out = []
for line in open(os.path.join(d, 'cases.txt')):
    errs.clear()
    text = bytes.fromhex(line.strip()).decode('utf-8', 'record')
    out.append(' '.join(['%x' % ord(c) for c in text] + ['!' + e for e in errs]))
open(os.path.join(d, 'errors.txt'), 'w').write('\n'.join(out) + '\n')
"#;
    let status = match Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&dir)
        .status()
    {
        Ok(status) => status,
        Err(e) => {
            eprintln!("SKIPPED python_codecs_agree: python3 could not be run ({e})");
            return;
        }
    };
    assert!(status.success(), "python3 failed: {status}");
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();

    let scalars: Vec<u32> = (0..=0x10_FFFF)
        .filter(|c| !(0xD800..0xE000).contains(c))
        .collect();
    let every: Vec<u32> = (0..=0x10_FFFF).collect();
    let utf8 = read("utf8.bin");
    assert_eq!(encode_all(Dialect::Utf8, &scalars), utf8);
    let u31 = read("u31.bin");
    assert_eq!(encode_all(Dialect::Unicode31, &every), u31);
    let cesu = read("cesu.bin");
    assert_eq!(encode_all(Dialect::Cesu8, &scalars), cesu);
    let decoded = |d: Dialect, bytes: &[u8]| -> Vec<u32> {
        d.decode(bytes)
            .map(|i| i.code_point().expect("well formed"))
            .collect()
    };
    assert_eq!(decoded(Dialect::Utf8, &utf8), scalars);
    assert_eq!(decoded(Dialect::Cesu8, &cesu), scalars);
    let lone: Vec<u8> = (0xD800..0xE000u32)
        .flat_map(|c| {
            let mut v = Dialect::Unicode31.encode(c).unwrap().to_vec();
            v.push(b'x');
            v
        })
        .collect();
    let python: Vec<u32> = String::from_utf8(read("lone.txt"))
        .unwrap()
        .split(' ')
        .map(|h| u32::from_str_radix(h, 16).unwrap())
        .collect();
    assert_eq!(decoded(Dialect::Unicode31, &lone), python);

    let lines = String::from_utf8(read("errors.txt")).unwrap();
    let mut lines = lines.lines();
    for case in &cases {
        let ours: Vec<String> = Dialect::Utf8
            .decode(case)
            .map(|item| match item {
                Decoded::Char { code_point, .. } => format!("{code_point:x}"),
                Decoded::Invalid { error, len } => {
                    format!("!{}-{}", error.valid_up_to(), error.valid_up_to() + len)
                }
                Decoded::Reserved { .. } => unreachable!(),
            })
            .collect();
        // Python lists the characters, then the errors.
        let (mut chars, errs): (Vec<String>, Vec<String>) =
            ours.into_iter().partition(|s| !s.starts_with('!'));
        chars.extend(errs);
        assert_eq!(chars.join(" "), lines.next().unwrap(), "{case:02X?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The ends of each range of Corrected UTF-8's table, and of RFC 2279's
/// lengths, byte for byte.
#[test]
fn encodings_at_the_table_boundaries() {
    let corrected = |cp| Dialect::Corrected.encode(cp).unwrap().to_vec();
    assert_eq!(corrected(0x7F), [0x7F]);
    assert_eq!(corrected(0xA0), [0xC0, 0x80]);
    assert_eq!(corrected(0x89F), [0xDF, 0xBF]);
    assert_eq!(corrected(0x8A0), [0xE0, 0x80, 0x80]);
    assert_eq!(corrected(0xD7FF), [0xEC, 0xBD, 0x9F]);
    assert_eq!(corrected(0xE000), [0xEC, 0xBD, 0xA0]);
    assert_eq!(corrected(0x1_109F), [0xEF, 0xBF, 0xBF]);
    assert_eq!(corrected(0x1_10A0), [0xF0, 0x80, 0x80, 0x80]);
    assert_eq!(corrected(0x21_109F), [0xF7, 0xBF, 0xBF, 0xBF]);
    assert_eq!(corrected(0x21_10A0), [0xF8, 0x80, 0x80, 0x80, 0x80]);
    assert_eq!(corrected(0x421_109F), [0xFB, 0xBF, 0xBF, 0xBF, 0xBF]);
    assert_eq!(corrected(0x421_10A0), [0xFC, 0x80, 0x80, 0x80, 0x80, 0x80]);
    assert_eq!(corrected(0x8421_109F), [0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF]);
    // The magic number's first two code points.
    assert_eq!(corrected(0x1_0E7D), [0xEF, 0xB7, 0x9D]);
    assert_eq!(corrected(0xED4E), [0xED, 0xB2, 0xAE]);
    assert_eq!(Dialect::Corrected.encode(0x85), Err(EncodeError::C1Control));
    assert_eq!(
        Dialect::Corrected.encode(0xDC00),
        Err(EncodeError::Surrogate)
    );
    assert_eq!(
        Dialect::Corrected.encode(0x8421_10A0),
        Err(EncodeError::TooLarge)
    );
    assert_eq!(Dialect::Corrected.encode(0), Err(EncodeError::Nul));

    let rfc = |cp| Dialect::Rfc2279.encode(cp).unwrap().to_vec();
    assert_eq!(rfc(0x7FF), [0xDF, 0xBF]);
    assert_eq!(rfc(0x1_0000), [0xF0, 0x90, 0x80, 0x80]);
    assert_eq!(rfc(0x1F_FFFF), [0xF7, 0xBF, 0xBF, 0xBF]);
    assert_eq!(rfc(0x20_0000), [0xF8, 0x88, 0x80, 0x80, 0x80]);
    assert_eq!(rfc(0x400_0000), [0xFC, 0x84, 0x80, 0x80, 0x80, 0x80]);
    assert_eq!(rfc(0x7FFF_FFFF), [0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF]);
    assert_eq!(rfc(0xD800), [0xED, 0xA0, 0x80]);
    assert_eq!(
        Dialect::Rfc2279.encode(0x8000_0000),
        Err(EncodeError::TooLarge)
    );

    assert_eq!(
        &*Dialect::Cesu8.encode(0x10_FFFF).unwrap(),
        b"\xED\xAF\xBF\xED\xBF\xBF"
    );
    assert_eq!(
        &*Dialect::Mutf8.encode(0x1_0000).unwrap(),
        b"\xED\xA0\x80\xED\xB0\x80"
    );
    assert_eq!(&*Dialect::Mutf8.encode(0xDC00).unwrap(), b"\xED\xB0\x80");
    assert_eq!(Dialect::Cesu8.encode(0xDC00), Err(EncodeError::Surrogate));
    assert_eq!(&*Dialect::Cesu8.encode(0).unwrap(), b"\x00");
    assert_eq!(&*Dialect::Wtf8.encode(0xD800).unwrap(), b"\xED\xA0\x80");
    assert_eq!(Dialect::Wtf8.encode(0x11_0000), Err(EncodeError::TooLarge));
}

//! The transcoders against a reference written from the grammar (decode
//! each item, then encode it), with exact output bytes and error positions,
//! on every pair of dialects and both policies; in one piece, in random
//! pieces, and into small output buffers.

mod common;

use proptest::prelude::*;
use utf8guard::{
    transcode, transcode_to_string, utf16_to_wtf8, utf16_to_wtf8_into, wtf8_to_utf16,
    wtf8_to_utf16_into, Cause, Decoded, Dialect, EncodeError, ErrorKind, Policy, Status,
    Transcoder,
};

const MAGIC: &[u8] = b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A";

type Outcome = Result<Vec<u8>, (usize, Option<usize>, Cause)>;

/// Decode, then encode, item by item; with how many items were replaced
/// and where the first one starts.
fn reference_counted(
    from: Dialect,
    to: Dialect,
    input: &[u8],
    policy: Policy,
    magic: bool,
) -> (Outcome, u64, Option<usize>) {
    let mut replaced: Vec<usize> = Vec::new();
    let items: Vec<Decoded> = from.decode(input).collect();
    let mut out = Vec::new();
    if magic && to == Dialect::Corrected {
        out.extend_from_slice(MAGIC);
    }
    let replacement = to.encode(0xFFFD).unwrap();
    let joins = matches!(
        to,
        Dialect::Unicode31 | Dialect::Wtf8 | Dialect::Mutf8 | Dialect::Cesu8
    );
    let mut i = 0;
    while i < items.len() {
        let item = items[i];
        i += 1;
        let refused = match item {
            Decoded::Char {
                code_point,
                len,
                offset,
            } => {
                let (mut cp, mut len) = (code_point, len);
                if joins && (0xD800..0xDC00).contains(&cp) {
                    if let Some(Decoded::Char {
                        code_point: t,
                        len: 3,
                        ..
                    }) = items.get(i)
                    {
                        if (0xDC00..0xE000).contains(t) {
                            cp = 0x1_0000 + ((cp - 0xD800) << 10) + (t - 0xDC00);
                            len = 6;
                            i += 1;
                        }
                    }
                }
                match to.encode(cp) {
                    Ok(bytes) => {
                        out.extend_from_slice(&bytes);
                        None
                    }
                    Err(why) => Some((offset, Some(len), Cause::Unencodable(why))),
                }
            }
            Decoded::Reserved { offset, len } if to == Dialect::Corrected => {
                out.extend_from_slice(&input[offset..offset + len]);
                None
            }
            Decoded::Reserved { offset, len } => Some((offset, Some(len), Cause::Reserved)),
            Decoded::Invalid { error, .. } => Some((
                error.valid_up_to(),
                error.error_len(),
                Cause::Malformed(error.kind()),
            )),
        };
        if let Some(error) = refused {
            match policy {
                Policy::Strict => return (Err(error), 0, None),
                Policy::Replace => {
                    out.extend_from_slice(&replacement);
                    replaced.push(error.0);
                }
            }
        }
    }
    (Ok(out), replaced.len() as u64, replaced.first().copied())
}

fn outcome(r: Result<Vec<u8>, utf8guard::TranscodeError>) -> Outcome {
    r.map_err(|e| (e.offset(), e.error_len(), e.cause()))
}

/// Through the streaming API: `input` in pieces cut at `cuts`, into an
/// output buffer of `room` bytes; with the transcoder's count of
/// replacements and the offset of the first.
fn streamed_counted(
    from: Dialect,
    to: Dialect,
    input: &[u8],
    policy: Policy,
    magic: bool,
    cuts: &[usize],
    room: usize,
) -> (Outcome, u64, Option<usize>) {
    let mut t = Transcoder::new(from, to, policy).with_magic_number(magic);
    let mut out = Vec::new();
    let mut buf = vec![0u8; room];
    let mut pending: Vec<u8> = Vec::new();
    let mut bounds: Vec<usize> = cuts.iter().map(|&c| c.min(input.len())).collect();
    bounds.sort_unstable();
    bounds.push(input.len());
    let mut start = 0;
    for (k, &end) in bounds.iter().enumerate() {
        let last = k + 1 == bounds.len();
        pending.extend_from_slice(&input[start..end]);
        start = end;
        loop {
            let p = t.transcode(&pending, &mut buf, last);
            out.extend_from_slice(&buf[..p.written]);
            pending.drain(..p.read);
            match p.result {
                Err(e) => return (Err((e.offset(), e.error_len(), e.cause())), 0, None),
                Ok(Status::OutputFull) => {
                    // Whatever the room: an item longer than it is
                    // written across calls.
                    assert!(p.read > 0 || p.written > 0, "no progress");
                    continue;
                }
                Ok(Status::InputEmpty) => {
                    if last {
                        assert!(pending.is_empty(), "{pending:02X?} left at the end");
                    } else {
                        assert!(pending.len() <= 7, "{} bytes left", pending.len());
                    }
                    break;
                }
            }
        }
    }
    (Ok(out), t.replacements(), t.first_replacement())
}

fn check(from: Dialect, to: Dialect, input: &[u8], cuts: &[usize], room: usize) {
    for policy in [Policy::Strict, Policy::Replace] {
        for magic in [false, true] {
            let (expected, count, first) = reference_counted(from, to, input, policy, magic);
            let mut t = Transcoder::new(from, to, policy).with_magic_number(magic);
            let mut got = Vec::new();
            let r = t.transcode_to_vec(input, &mut got, true);
            let got = r
                .map(|_| got)
                .map_err(|e| (e.offset(), e.error_len(), e.cause()));
            assert_eq!(got, expected, "{from}->{to} {policy:?} {input:02X?}");
            if got.is_ok() {
                assert_eq!(
                    (t.replacements(), t.first_replacement()),
                    (count, first),
                    "{from}->{to} {policy:?} replacements {input:02X?}"
                );
            }
            if !magic {
                assert_eq!(outcome(transcode(from, to, input, policy)), expected);
            }
            let room = room.max(1);
            let (mut got, streamed_count, streamed_first) =
                streamed_counted(from, to, input, policy, magic, cuts, room);
            if got.is_ok() {
                assert_eq!(
                    (streamed_count, streamed_first),
                    (count, first),
                    "{from}->{to} {policy:?} replacements streamed {cuts:?} {room} {input:02X?}"
                );
            }
            // A reserved run cut by a piece's end is reported as far as it
            // was seen.
            if let (Err((o, Some(n), Cause::Reserved)), Err((eo, Some(en), Cause::Reserved))) =
                (&got, &expected)
            {
                if o == eo && n <= en {
                    got = Err((*o, Some(*en), Cause::Reserved));
                }
            }
            assert_eq!(
                got, expected,
                "{from}->{to} {policy:?} streamed {cuts:?} {room} {input:02X?}"
            );
        }
    }
}

/// Text in `dialect` from code points, ASCII-heavy (so the fast phase
/// runs), with everything the dialect holds now and then.
fn text(dialect: Dialect) -> impl Strategy<Value = Vec<u8>> {
    let max = dialect.max_code_point();
    let cp = common::code_point(max, 12);
    prop::collection::vec(cp, 0..120).prop_map(move |cps| {
        let mut out = Vec::new();
        for cp in cps {
            if let Ok(bytes) = dialect.encode(cp) {
                out.extend_from_slice(&bytes);
            }
        }
        out
    })
}

fn dialect() -> impl Strategy<Value = Dialect> {
    prop::sample::select(Dialect::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn every_pair_matches_the_reference(
        (from, bytes) in dialect().prop_flat_map(|d| (Just(d), text(d))),
        to in dialect(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..5u8), 0..3),
        splice in prop::sample::select(vec![
            &b"\x00"[..], b"\xC0\x80", b"\xED\xA0\x80", b"\xED\xB0\x80", b"\xED\xA0\xBD\xED\xB8\x80",
            b"\xF0\x9F\x98\x80", b"\xF8\x88\x80\x80\x80", b"\xFE\x80\x80", b"\xFF", b"\xC2\x85",
            MAGIC,
        ]),
        cuts in prop::collection::vec(0usize..400, 0..4),
        room in 1usize..40,
        magic_first in any::<bool>(),
    ) {
        let mut bytes = bytes;
        if magic_first {
            bytes.splice(0..0, MAGIC.iter().copied());
        }
        for (at, byte, how) in edits {
            let i = at.index(bytes.len() + 1);
            match how {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                2 | 3 => { bytes.splice(i..i, splice.iter().copied()); }
                _ => { bytes.truncate(i); }
            }
        }
        check(from, to, &bytes, &cuts, room);
    }

    #[test]
    fn utf16_round_trips_and_matches_std(units in prop::collection::vec(prop_oneof![
        4 => 0u16..0x80, 2 => 0x80u16..0xD800, 2 => 0xD800u16..0xE000, 1 => 0xE000u16..=0xFFFF,
    ], 0..100)) {
        let mut wtf8 = Vec::new();
        utf16_to_wtf8(&units, &mut wtf8);
        prop_assert!(Dialect::Wtf8.validate(&wtf8));
        let mut back = Vec::new();
        wtf8_to_utf16(&wtf8, Policy::Strict, &mut back).unwrap();
        prop_assert_eq!(&back, &units);
        if let Ok(s) = String::from_utf16(&units) {
            prop_assert_eq!(&wtf8, s.as_bytes());
        }
    }

    #[test]
    fn wtf8_to_utf16_matches_the_reference(
        bytes in text(Dialect::Wtf8),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
        cuts in prop::collection::vec(0usize..200, 0..6),
        room in prop_oneof![3usize..12, 12usize..500],
    ) {
        check_wtf8_to_utf16(bytes, edits, &cuts, room)?;
    }
}

/// The input cut at `cuts` (modulo its length; the last piece ends it),
/// sorted: where each piece ends.
fn piece_ends(cuts: &[usize], len: usize) -> Vec<usize> {
    let mut ends: Vec<usize> = cuts.iter().map(|&c| c % (len + 1)).collect();
    ends.push(len);
    ends.sort_unstable();
    ends
}

/// `wtf8_to_utf16_into` over `bytes` in pieces ending at `cuts`, into a
/// buffer of `room` units: the units, or the error as (absolute offset,
/// length, cause).
fn wtf8_to_utf16_in_pieces(
    bytes: &[u8],
    policy: Policy,
    cuts: &[usize],
    room: usize,
) -> Result<Vec<u16>, (usize, Option<usize>, Cause)> {
    let mut out = Vec::new();
    let mut buf = vec![0u16; room];
    let mut start = 0;
    for end in piece_ends(cuts, bytes.len()) {
        loop {
            let p = wtf8_to_utf16_into(&bytes[start..end], policy, &mut buf, end == bytes.len());
            out.extend_from_slice(&buf[..p.written]);
            match p.result {
                Err(e) => return Err((start + e.offset(), e.error_len(), e.cause())),
                Ok(Status::OutputFull) => {
                    assert!(p.read > 0 || p.written > 0, "no progress at {start}");
                    start += p.read;
                }
                Ok(_) => {
                    start += p.read;
                    break;
                }
            }
        }
    }
    assert_eq!(start, bytes.len(), "the last piece is read whole");
    Ok(out)
}

/// `wtf8_to_utf16`, and `wtf8_to_utf16_into` in pieces, against the WTF-8
/// decoder, on `bytes` with `edits` (bytes inserted).
fn check_wtf8_to_utf16(
    mut bytes: Vec<u8>,
    edits: Vec<(prop::sample::Index, u8)>,
    cuts: &[usize],
    room: usize,
) -> Result<(), TestCaseError> {
    for (at, byte) in edits {
        let i = at.index(bytes.len() + 1);
        bytes.insert(i, byte);
    }
    for policy in [Policy::Strict, Policy::Replace] {
        let mut expected = Vec::new();
        let mut error = None;
        for item in Dialect::Wtf8.decode(&bytes) {
            match item {
                Decoded::Char { code_point, .. } => {
                    let c = code_point;
                    if c >= 0x1_0000 {
                        expected.push((0xD800 + ((c - 0x1_0000) >> 10)) as u16);
                        expected.push((0xDC00 + ((c - 0x1_0000) & 0x3FF)) as u16);
                    } else {
                        expected.push(c as u16);
                    }
                }
                Decoded::Invalid { error: e, .. } if policy == Policy::Strict => {
                    error = Some((e.valid_up_to(), e.error_len(), Cause::Malformed(e.kind())));
                    break;
                }
                _ => expected.push(0xFFFD),
            }
        }
        let mut got = Vec::new();
        let r = wtf8_to_utf16(&bytes, policy, &mut got);
        let pieces = wtf8_to_utf16_in_pieces(&bytes, policy, cuts, room);
        match error {
            Some(e) => {
                prop_assert_eq!(
                    r.map_err(|x| (x.offset(), x.error_len(), x.cause())),
                    Err(e)
                );
                prop_assert_eq!(pieces, Err(e));
            }
            None => {
                prop_assert!(r.is_ok());
                prop_assert_eq!(&got, &expected);
                prop_assert_eq!(pieces, Ok(expected));
            }
        }
    }
    Ok(())
}

#[test]
fn exact_bytes_of_each_conversion() {
    let strict = |from, to, input: &[u8]| transcode(from, to, input, Policy::Strict);
    let replace = |from, to, input: &[u8]| transcode(from, to, input, Policy::Replace).unwrap();
    use Dialect::*;
    // CESU-8 and modified UTF-8 to UTF-8, and back.
    let pair = b"\xED\xA0\xBD\xED\xB8\x80";
    assert_eq!(strict(Cesu8, Utf8, pair).unwrap(), "😀".as_bytes());
    assert_eq!(
        strict(Utf8, Cesu8, "a😀\0".as_bytes()).unwrap(),
        b"a\xED\xA0\xBD\xED\xB8\x80\x00"
    );
    assert_eq!(
        strict(Utf8, Mutf8, "a😀\0".as_bytes()).unwrap(),
        b"a\xED\xA0\xBD\xED\xB8\x80\xC0\x80"
    );
    assert_eq!(strict(Mutf8, Utf8, b"\xC0\x80x").unwrap(), b"\x00x");
    let e = strict(Mutf8, Utf8, b"ab\xED\xB0\x80").unwrap_err();
    assert_eq!(
        (e.offset(), e.error_len(), e.cause()),
        (2, Some(3), Cause::Unencodable(EncodeError::Surrogate))
    );
    assert_eq!(
        replace(Mutf8, Utf8, b"ab\xED\xB0\x80\x00"),
        "ab\u{FFFD}\u{FFFD}".as_bytes()
    );
    let e = strict(Cesu8, Utf8, b"xy\xF0\x9F\x98\x80").unwrap_err();
    assert_eq!(
        (e.offset(), e.error_len(), e.cause()),
        (2, Some(1), Cause::Malformed(ErrorKind::FourByteForm))
    );
    // Unicode 3.1 to UTF-8 and to WTF-8: irregular pairs join.
    assert_eq!(strict(Unicode31, Utf8, pair).unwrap(), "😀".as_bytes());
    assert_eq!(
        strict(Unicode31, Wtf8, b"\xED\xB8\x80\xED\xA0\xBD").unwrap(),
        b"\xED\xB8\x80\xED\xA0\xBD"
    );
    assert_eq!(strict(Unicode31, Wtf8, pair).unwrap(), "😀".as_bytes());
    assert_eq!(
        replace(Unicode31, Utf8, b"\xED\xB8\x80!"),
        "\u{FFFD}!".as_bytes()
    );
    // WTF-8 to UTF-8.
    // The lead cannot be written; the trail after it is ill formed (its
    // maximal subpart is the ED), and so are its two continuation bytes.
    assert_eq!(
        replace(Wtf8, Utf8, b"\xED\xA0\xBD\xED\xB8\x80"),
        "\u{FFFD}".repeat(4).as_bytes()
    );
    // RFC 2279 to UTF-8.
    let e = strict(Rfc2279, Utf8, b"ok\xF8\x88\x80\x80\x80").unwrap_err();
    assert_eq!(
        (e.offset(), e.error_len(), e.cause()),
        (2, Some(5), Cause::Unencodable(EncodeError::TooLarge))
    );
    assert_eq!(
        replace(Rfc2279, Utf8, b"\xF4\x90\x80\x80\xED\xA0\x80z"),
        "\u{FFFD}\u{FFFD}z".as_bytes()
    );
    // Corrected UTF-8 to and from UTF-8.
    let mut doc = MAGIC.to_vec();
    doc.extend_from_slice(b"\xC0\xAF\xEC\xBD\xA0\n");
    assert_eq!(
        transcode_to_string(Corrected, &doc, Policy::Strict).unwrap(),
        "Ï\u{E000}\n"
    );
    let e = strict(Corrected, Utf8, b"a\xFE\x80\x80b").unwrap_err();
    assert_eq!(
        (e.offset(), e.error_len(), e.cause()),
        (1, Some(3), Cause::Reserved)
    );
    assert_eq!(
        replace(Corrected, Utf8, b"a\xFE\x80\x80b\xFD\xBF\xBF\xBF\xBF\xBF"),
        "a\u{FFFD}b\u{FFFD}".as_bytes()
    );
    assert_eq!(
        strict(Utf8, Corrected, "Ï\u{E000}\n".as_bytes()).unwrap(),
        b"\xC0\xAF\xEC\xBD\xA0\n"
    );
    let e = strict(Utf8, Corrected, "ab\u{85}".as_bytes()).unwrap_err();
    assert_eq!(
        (e.offset(), e.error_len(), e.cause()),
        (2, Some(2), Cause::Unencodable(EncodeError::C1Control))
    );
    let e = strict(Utf8, Corrected, b"ab\x00").unwrap_err();
    assert_eq!(e.cause(), Cause::Unencodable(EncodeError::Nul));
    let mut t = Transcoder::new(Utf8, Corrected, Policy::Strict).with_magic_number(true);
    let mut out = Vec::new();
    t.transcode_to_vec(b"hi\n", &mut out, true).unwrap();
    assert_eq!(out, [MAGIC, b"hi\n"].concat());
    // Ill-formed input: one U+FFFD per maximal subpart; the error's place.
    assert_eq!(
        replace(Utf8, Cesu8, b"a\xF0\x9F\x98b\xC0\xAFc"),
        "a\u{FFFD}b\u{FFFD}\u{FFFD}c".as_bytes()
    );
    let e = strict(Utf8, Cesu8, b"abc\xE2\x82").unwrap_err();
    assert_eq!(
        (e.offset(), e.error_len(), e.cause()),
        (3, None, Cause::Malformed(ErrorKind::Incomplete))
    );
}

#[test]
fn long_text_is_copied_and_changed_only_where_needed() {
    // Long runs for the fast phase, with changes at every offset near the
    // vector blocks' boundaries.
    for at in 0..200 {
        let mut cesu = "é".repeat(at / 2).into_bytes();
        cesu.extend(std::iter::repeat_n(b'x', at % 2));
        let mut utf8 = cesu.clone();
        cesu.extend_from_slice(b"\xED\xA0\xBD\xED\xB8\x80");
        utf8.extend_from_slice("😀".as_bytes());
        let tail = "Grüße, 世界! ".repeat(20);
        cesu.extend_from_slice(tail.as_bytes());
        utf8.extend_from_slice(tail.as_bytes());
        assert_eq!(
            transcode(Dialect::Cesu8, Dialect::Utf8, &cesu, Policy::Strict).unwrap(),
            utf8
        );
        assert_eq!(
            transcode(Dialect::Utf8, Dialect::Cesu8, &utf8, Policy::Strict).unwrap(),
            cesu
        );
        for room in [6, 7, 64] {
            check(Dialect::Cesu8, Dialect::Utf8, &cesu, &[at, at + 3], room);
        }
    }
}

#[test]
fn reserved_runs_split_across_pieces() {
    let mut input = b"a\xFE".to_vec();
    input.extend(std::iter::repeat_n(0x80, 20));
    input.extend_from_slice(b"b\xFF\x80");
    for cut in 0..=input.len() {
        for to in [Dialect::Utf8, Dialect::Corrected] {
            for room in [8, 9, 30] {
                check(Dialect::Corrected, to, &input, &[cut], room);
            }
        }
    }
    assert_eq!(
        transcode(Dialect::Corrected, Dialect::Utf8, &input, Policy::Replace).unwrap(),
        "a\u{FFFD}b\u{FFFD}".as_bytes()
    );
}

/// A case the property test found: Corrected UTF-8 ending with its magic
/// number (not at offset 0, so its `00` is replaced), streamed in two
/// pieces into a small buffer; the final `0A` must not be lost.
#[test]
fn magic_number_at_the_end_streamed() {
    let input = [
        0xFD, 0x84, 0xB8, 0xA3, 0x99, 0xAB, 0xF1, 0x93, 0xBB, 0xBF, 0x64, 0x70, 0x77, 0x3A, 0xE3,
        0x8E, 0x9E, 0xFD, 0xB0, 0xA4, 0xB3, 0x96, 0x8C, 0x67, 0xF0, 0x9C, 0x9C, 0x8D, 0x75, 0xEF,
        0xB7, 0x9D, 0xED, 0xB2, 0xAE, 0x00, 0x0A,
    ];
    check(Dialect::Corrected, Dialect::Cesu8, &input, &[2], 14);
}

/// Dense text in `dialect` (the fast converters' kind: mostly non-ASCII,
/// ASCII in runs that fill 8-byte blocks) with, now and then, anything the
/// dialect holds (surrogates, code points above U+10FFFF, C1 controls,
/// U+0000), long enough to span several of the windows the kernel checks
/// ahead.
fn dense_text(dialect: Dialect) -> impl Strategy<Value = Vec<u8>> {
    let max = dialect.max_code_point();
    let item = prop_oneof![
        3 => (0x20u32..0x7F, 1usize..24),
        6 => (0xA0u32..0x800, Just(1)),
        6 => (0x800u32..0xD800, Just(1)),
        2 => (0xE000u32..0x1_0000, Just(1)),
        4 => (0x1_0000u32..0x11_0000, Just(1)),
        1 => (common::code_point(max, 1), Just(1)),
    ];
    prop::collection::vec(item, 0..700).prop_map(move |items| {
        let mut out = Vec::new();
        for (cp, repeat) in items {
            if let Ok(bytes) = dialect.encode(cp) {
                for _ in 0..repeat {
                    out.extend_from_slice(&bytes);
                }
            }
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// The fast converters (tight loops over kernel-checked windows) against
    /// the reference on dense text with mutations, both policies, in one
    /// piece and in random pieces into buffers of random sizes.
    #[test]
    fn dense_text_matches_the_reference(
        (from, bytes) in dialect().prop_flat_map(|d| (Just(d), dense_text(d))),
        to in dialect(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..4u8), 0..4),
        splice in prop::sample::select(vec![
            &b"\x00"[..], b"\xC0\x80", b"\xED\xA0\x80", b"\xED\xB0\x80", b"\xED\xA0\xBD\xED\xB8\x80",
            b"\xF0\x9F\x98\x80", b"\xF8\x88\x80\x80\x80", b"\xFE\x80\x80", b"\xC2\x85", b"\xF4\x90\x80\x80",
        ]),
        cuts in prop::collection::vec(0usize..3000, 0..6),
        room in prop_oneof![16usize..100, 100usize..5000],
    ) {
        let mut bytes = bytes;
        for (at, byte, how) in edits {
            let i = at.index(bytes.len() + 1);
            match how {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ => { bytes.splice(i..i, splice.iter().copied()); }
            }
        }
        check(from, to, &bytes, &cuts, room);
    }

    /// WTF-8 to UTF-16 on dense text, with lone surrogates and errors.
    #[test]
    fn dense_wtf8_to_utf16_matches_the_reference(
        bytes in dense_text(Dialect::Wtf8),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
        cuts in prop::collection::vec(0usize..3000, 0..6),
        room in prop_oneof![3usize..12, 12usize..5000],
    ) {
        check_wtf8_to_utf16(bytes, edits, &cuts, room)?;
    }

    /// UTF-16 to WTF-8 on dense units (lone surrogates too, also at the
    /// ends of the chunks it converts at a time) against a unit-by-unit
    /// reference.
    #[test]
    fn dense_utf16_to_wtf8_matches_the_reference(
        units in prop::collection::vec(prop_oneof![
            3 => 0u16..0x80, 3 => 0x80u16..0x800, 3 => 0x800u16..0xD800,
            3 => 0xD800u16..0xDC00, 3 => 0xDC00u16..0xE000, 2 => 0xE000u16..=0xFFFF,
        ], 0..9000),
        cuts in prop::collection::vec(0usize..9000, 0..6),
        room in prop_oneof![4usize..16, 16usize..20000],
    ) {
        check_utf16_to_wtf8(&units, &cuts, room)?;
    }

    /// UTF-16 to WTF-8 on runs of units of one class (ASCII, up to U+07FF,
    /// the rest of the BMP, surrogates alone or mostly so, surrogate
    /// pairs), which the vector loop converts 16 at a time, against the
    /// unit-by-unit reference.
    #[test]
    fn utf16_runs_to_wtf8_match_the_reference(
        runs in prop::collection::vec((0..6u8, 1usize..80, any::<u64>()), 0..40),
        cuts in prop::collection::vec(0usize..3000, 0..4),
        room in prop_oneof![4usize..70, 70usize..10000],
    ) {
        let mut units = Vec::new();
        for (class, len, seed) in runs {
            let (low, span) = match class {
                0 => (0, 0x80),
                1 => (0x80, 0x780),
                2 => (0x800, 0xD000),
                3 => (0xE000, 0x2000),
                4 => (0xD800, 0x800),
                // Surrogate pairs.
                _ => (0, 0x10_0000),
            };
            let mut x = seed | 1;
            for _ in 0..len {
                // A xorshift: the units of a run differ.
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let unit = low + x % span;
                if class == 5 {
                    units.extend([0xD800 | (unit >> 10) as u16, 0xDC00 | (unit & 0x3FF) as u16]);
                } else {
                    units.push(unit as u16);
                }
            }
        }
        check_utf16_to_wtf8(&units, &cuts, room)?;
    }
}

/// `utf16_to_wtf8` and `utf16_to_wtf8_into` (the input cut at `cuts`, into
/// a buffer of `room` bytes) against a unit-by-unit reference.
fn check_utf16_to_wtf8(units: &[u16], cuts: &[usize], room: usize) -> Result<(), TestCaseError> {
    let mut expected = Vec::new();
    let mut i = 0;
    while i < units.len() {
        let mut cp = u32::from(units[i]);
        i += 1;
        if (0xD800..0xDC00).contains(&cp) {
            if let Some(&t) = units.get(i).filter(|&&t| (0xDC00..0xE000).contains(&t)) {
                cp = 0x1_0000 + ((cp - 0xD800) << 10) + (u32::from(t) - 0xDC00);
                i += 1;
            }
        }
        expected.extend_from_slice(&Dialect::Wtf8.encode(cp).unwrap());
    }
    let mut got = Vec::new();
    utf16_to_wtf8(units, &mut got);
    prop_assert_eq!(&got, &expected);
    // Appended to bytes already there.
    let mut got = b"before".to_vec();
    utf16_to_wtf8(units, &mut got);
    prop_assert_eq!(&got[..6], b"before");
    prop_assert_eq!(&got[6..], &expected[..]);
    // In pieces, into a buffer of `room` bytes.
    let mut got = Vec::new();
    let mut buf = vec![0u8; room];
    let mut start = 0;
    for end in piece_ends(cuts, units.len()) {
        loop {
            let p = utf16_to_wtf8_into(&units[start..end], &mut buf, end == units.len());
            got.extend_from_slice(&buf[..p.written]);
            start += p.read;
            match p.result {
                Ok(Status::OutputFull) => prop_assert!(p.read > 0, "no progress at {}", start),
                Ok(Status::InputEmpty) => break,
                r => panic!("{r:?}"),
            }
        }
    }
    prop_assert_eq!(start, units.len());
    prop_assert_eq!(got, expected);
    Ok(())
}

/// Changes at every offset around the ends of the windows that the kernel
/// checks ahead (256 bytes, doubling): a surrogate pair cut by a window's
/// end, an item the target cannot hold, an ill-formed byte.
#[test]
fn changes_at_the_ends_of_the_windows() {
    let base = "Дом 😀 κόσμος ".repeat(80);
    let cases: [(Dialect, Dialect, &[u8]); 5] = [
        (Dialect::Cesu8, Dialect::Utf8, b"\xED\xA0\xBD\xED\xB8\x80"),
        (
            Dialect::Unicode31,
            Dialect::Wtf8,
            b"\xED\xA0\xBD\xED\xB8\x80",
        ),
        (Dialect::Wtf8, Dialect::Utf8, b"\xED\xA0\x80"),
        (Dialect::Utf8, Dialect::Corrected, b"\xC2\x85"),
        (Dialect::Corrected, Dialect::Utf8, b"\xFF"),
    ];
    for (from, to, odd) in cases {
        let text = transcode(Dialect::Utf8, from, base.as_bytes(), Policy::Strict).unwrap();
        for at in (250..262).chain(760..776).chain(1780..1800) {
            let mut input = text.clone();
            // At a sequence boundary at or after `at`.
            let at = (at..input.len())
                .find(|&i| input[i] < 0x80 || input[i] >= 0xC0)
                .unwrap();
            input.splice(at..at, odd.iter().copied());
            check(from, to, &input, &[at + 1, 2 * at], 4096);
        }
    }
}

/// A document that is a proper prefix of Corrected UTF-8's magic number
/// ends inside it, also when a full output makes the transcoder stop
/// before its last byte (the next call does not see the document's start).
#[test]
fn magic_number_prefix_with_a_full_output() {
    let input = &MAGIC[..7];
    let mut t = Transcoder::new(Dialect::Corrected, Dialect::Cesu8, Policy::Strict);
    let mut buf = [0u8; 8];
    let p = t.transcode(input, &mut buf, true);
    assert_eq!(
        (p.read, p.written, p.result),
        (3, 6, Ok(Status::OutputFull))
    );
    let p = t.transcode(&input[3..], &mut buf, true);
    assert_eq!((p.read, p.written), (3, 3));
    let e = p.result.unwrap_err();
    assert_eq!((e.offset(), e.error_len()), (6, None));
    assert_eq!(e.cause(), Cause::Malformed(ErrorKind::Incomplete));
    check(Dialect::Corrected, Dialect::Cesu8, input, &[], 8);
}

/// Unchanged text longer than the pieces the copy phase validates at a
/// time (16 KiB), which cut a 3-byte character, then a change.
#[test]
fn long_unchanged_text_then_a_change() {
    for extra in 0..3 {
        let mut utf8 = "x".repeat(extra);
        utf8.push_str(&"€".repeat(7000));
        utf8.push('😀');
        utf8.push_str("€ok");
        let out = transcode(
            Dialect::Utf8,
            Dialect::Cesu8,
            utf8.as_bytes(),
            Policy::Strict,
        )
        .unwrap();
        let mut expected = utf8.replace('😀', "").into_bytes();
        let at = utf8.find('😀').unwrap();
        expected.splice(at..at, *b"\xED\xA0\xBD\xED\xB8\x80");
        assert_eq!(out, expected);
        // Ill-formed after the long run: the error where it is.
        let mut bad = utf8.clone().into_bytes();
        bad[at] = 0xFF;
        let e = transcode(Dialect::Wtf8, Dialect::Utf8, &bad, Policy::Strict).unwrap_err();
        assert_eq!((e.offset(), e.error_len()), (at, Some(1)));
        check(
            Dialect::Utf8,
            Dialect::Cesu8,
            utf8.as_bytes(),
            &[16_000, 17_000],
            4096,
        );
    }
}

/// Supplementary code points at the edges of their forms' bit fields: the
/// first and last of the planes and of the surrogates' halves (`D800`,
/// `DBFF`, `DC00`, `DFFF`), where the 4-byte form's lead changes
/// (U+3FFFF, U+40000, U+FFFFF, U+100000), and U+1FFFF, U+20000.
const EDGES: [u32; 13] = [
    0x1_0000, 0x1_03FF, 0x1_0400, 0x1_F600, 0x1_FFFF, 0x2_0000, 0x3_FFFF, 0x4_0000, 0xF_FFFF,
    0x10_0000, 0x10_FC00, 0x10_FFFE, 0x10_FFFF,
];

/// Beyond U+10FFFF in RFC 2279's 4-byte forms (ill formed in the other
/// dialects): the first, the last, and around the lead's change.
const BEYOND: [u32; 4] = [0x11_0000, 0x13_FFFF, 0x14_0000, 0x1F_FFFF];

/// `n` supplementary code points (pseudo-random, so that every bit field
/// varies), with `edge` at `pos` (if `pos < n`).
fn supplementary_run(n: usize, pos: usize, edge: u32, seed: u32) -> Vec<u32> {
    let mut state = seed.wrapping_mul(0x9E37_79B9) | 1;
    (0..n)
        .map(|k| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            if k == pos {
                edge
            } else {
                0x1_0000 + state % 0x10_0000
            }
        })
        .collect()
}

/// The run `cps` in the form `from` holds supplementary characters in:
/// surrogate pairs in 6 bytes (`pairs`) or 4-byte forms.
fn run_bytes(cps: &[u32], pairs: bool) -> Vec<u8> {
    // RFC 2279's 4-byte forms are UTF-8's, and go on beyond U+10FFFF.
    let form = if pairs {
        Dialect::Cesu8
    } else {
        Dialect::Rfc2279
    };
    cps.iter()
        .flat_map(|&cp| form.encode(cp).unwrap().to_vec())
        .collect()
}

/// What may come before or after a run: nothing, ASCII, 2- and 3-byte
/// characters, lone surrogates, the other form of a supplementary
/// character, RFC 2279's U+110000, ill-formed bytes; after it, also a
/// sequence cut by the end.
const AROUND: [&[u8]; 9] = [
    b"",
    b"a",
    b"\xC3\xA9",
    b"\xE2\x82\xAC",
    b"\xED\xA0\x80",
    b"\xED\xBF\xBF",
    b"\xF0\x9F\x98\x80",
    b"\xF4\x90\x80\x80",
    b"\xFF",
];
/// Text after a run and what follows it, long enough that the vector
/// loops' blocks (up to 64 bytes) reach past the run's end.
const TAIL: &[u8] = "; é € 😀 and some ASCII: abcdefghijklmnopqrstuvwxyz 0123456789".as_bytes();

/// What may come after a run: [`AROUND`], the same followed by [`TAIL`],
/// and sequences cut by the end of the input.
fn ends() -> Vec<Vec<u8>> {
    let around = AROUND.iter().map(|a| a.to_vec());
    let tailed = AROUND.iter().map(|a| [a, TAIL].concat());
    let cut = CUT_ENDS.iter().map(|a| a.to_vec());
    around.chain(tailed).chain(cut).collect()
}

const CUT_ENDS: [&[u8]; 5] = [
    b"\xED",
    b"\xED\xA0\xBD",
    b"\xED\xA0\xBD\xED\xB8",
    b"\xF0\x9F",
    b"\xF4\x8F\xBF",
];

/// The pairs of dialects whose runs of supplementary characters change
/// form: from surrogate pairs to 4-byte forms (`true`), or back.
const RUN_CONVERSIONS: [(Dialect, Dialect, bool); 11] = [
    (Dialect::Cesu8, Dialect::Utf8, true),
    (Dialect::Mutf8, Dialect::Utf8, true),
    (Dialect::Unicode31, Dialect::Utf8, true),
    (Dialect::Unicode31, Dialect::Wtf8, true),
    (Dialect::Cesu8, Dialect::Rfc2279, true),
    (Dialect::Mutf8, Dialect::Unicode31, true),
    (Dialect::Utf8, Dialect::Cesu8, false),
    (Dialect::Utf8, Dialect::Mutf8, false),
    (Dialect::Wtf8, Dialect::Cesu8, false),
    (Dialect::Unicode31, Dialect::Mutf8, false),
    (Dialect::Rfc2279, Dialect::Cesu8, false),
];

/// `transcode` of `input` with each policy: the reference's output or
/// error exactly.
fn both_policies_match_the_reference(from: Dialect, to: Dialect, input: &[u8]) {
    for policy in [Policy::Strict, Policy::Replace] {
        let (expected, _, _) = reference_counted(from, to, input, policy, false);
        assert_eq!(
            outcome(transcode(from, to, input, policy)),
            expected,
            "{from}->{to} {policy:?} {input:02X?}"
        );
    }
}

/// Runs of supplementary characters of every length up to 40, with each
/// edge code point at each position, between everything that may come
/// before and after them: the output (or the error) of both policies
/// exactly as the reference's.
#[test]
fn runs_of_supplementary_characters() {
    let ends = ends();
    let mut case = 0usize;
    for (from, to, pairs) in RUN_CONVERSIONS {
        for n in 0..=40 {
            for pos in 0..n.max(1) {
                let beyond = if pairs { &[][..] } else { &BEYOND[..] };
                for &edge in EDGES.iter().chain(beyond) {
                    case += 1;
                    let before = AROUND[case % AROUND.len()];
                    let after = &ends[(case / AROUND.len()) % ends.len()];
                    let cps = supplementary_run(n, pos, edge, case as u32);
                    let input = [before, &run_bytes(&cps, pairs), after].concat();
                    both_policies_match_the_reference(from, to, &input);
                }
            }
        }
    }
}

/// Runs of every length up to 40 between each pair of contexts, also in
/// pieces cut inside the run and into small output buffers.
#[test]
fn runs_of_supplementary_characters_streamed() {
    for (from, to, pairs) in RUN_CONVERSIONS {
        for n in 0..=40 {
            for (b, before) in AROUND.iter().enumerate() {
                for (a, after) in ends().iter().enumerate() {
                    let seed = (n * 100 + b * 10 + a) as u32;
                    let cps = supplementary_run(n, n / 2, EDGES[seed as usize % EDGES.len()], seed);
                    let input = [*before, &run_bytes(&cps, pairs), after].concat();
                    let expected = reference_counted(from, to, &input, Policy::Strict, false).0;
                    assert_eq!(
                        outcome(transcode(from, to, &input, Policy::Strict)),
                        expected,
                        "{from}->{to} {input:02X?}"
                    );
                    if (b + a) % 8 == n % 8 {
                        let room = [8, 13, 50, 97][n % 4];
                        check(
                            from,
                            to,
                            &input,
                            &[before.len() + 3 * n, input.len() / 3],
                            room,
                        );
                    }
                }
            }
        }
    }
}

/// `wtf8_to_utf16` on runs of 4-byte forms of every length up to 40, each
/// edge at each position, between everything that may come before and
/// after them.
#[test]
fn runs_of_supplementary_characters_to_utf16() {
    let ends = ends();
    let mut case = 0usize;
    for n in 0..=40 {
        for pos in 0..n.max(1) {
            for &edge in EDGES.iter().chain(&BEYOND) {
                case += 1;
                let before = AROUND[case % AROUND.len()];
                let after = &ends[(case / AROUND.len()) % ends.len()];
                let cps = supplementary_run(n, pos, edge, case as u32);
                let input = [before, &run_bytes(&cps, false), after].concat();
                // In one piece, and in three into a small buffer.
                let len = input.len();
                check_wtf8_to_utf16(input, Vec::new(), &[len / 3, 2 * len / 3], 11).unwrap();
            }
        }
    }
}

/// `wtf8_to_utf16` on text of 1- to 3-byte characters (lone surrogates
/// among them) of every length up to 80 bytes, in every rhythm of widths
/// and at every offset after a short prefix, whole and with one item (a
/// 4-byte form, a lone surrogate, an error, an ASCII byte, a 2-byte form)
/// at each position: the vector loop takes 16 bytes a step, and a
/// character may straddle two steps or stop the loop; runs of 3-byte forms
/// go 30 bytes at a time.
#[test]
fn runs_of_bmp_characters_to_utf16() {
    let widths: [&[&str]; 7] = [
        &["a"],
        &["é"],
        &["€"],
        &["é", "€"],
        &["€", "lone", "a"],
        &["€", "€", "é", "a", "é"],
        // 3-byte forms only, the first and last of them among them.
        &["\u{800}", "字", "lone", "\u{FFFF}", "€", "\u{E000}"],
    ];
    let items: [&[u8]; 5] = [
        b"\xF0\x9F\x98\x80",
        b"\xED\xA0\x80",
        b"\xFF",
        b"z",
        b"\xC2\x80",
    ];
    for rhythm in widths {
        for prefix in 0..3 {
            let mut text = "a".repeat(prefix).into_bytes();
            let mut k = 0;
            while text.len() < 80 {
                let w = rhythm[k % rhythm.len()];
                // A lone lead surrogate now and then.
                if w == "lone" {
                    text.extend_from_slice(b"\xED\xA0\x80");
                } else {
                    text.extend_from_slice(w.as_bytes());
                }
                k += 1;
            }
            let bounds: Vec<usize> = (0..=text.len())
                .filter(|&i| i == text.len() || text[i] & 0xC0 != 0x80)
                .collect();
            for &len in &bounds {
                let base = &text[..len];
                check_wtf8_to_utf16(base.to_vec(), Vec::new(), &[], 4 * len + 4).unwrap();
                for item in items {
                    for &at in bounds.iter().filter(|&&b| b <= len) {
                        let input = [&base[..at], item, &base[at..]].concat();
                        check_wtf8_to_utf16(input, Vec::new(), &[], 4 * len + 8).unwrap();
                    }
                }
            }
        }
    }
}

/// Text that needs no change, longer than the pieces the copy phase scans
/// and validates at a time (256 bytes at first, doubling), with a change,
/// an ill-formed byte or a cut sequence at every offset around the pieces'
/// ends.
#[test]
fn changes_at_the_ends_of_the_copy_pieces() {
    let base = "Дом κόσμος € ok ".repeat(300);
    let cases: [(Dialect, Dialect, &[u8]); 7] = [
        (Dialect::Utf8, Dialect::Cesu8, "😀".as_bytes()),
        (Dialect::Utf8, Dialect::Cesu8, b"\xE2\x82\xF0\x9F\x98\x80"),
        (Dialect::Utf8, Dialect::Mutf8, b"\x00"),
        (Dialect::Utf8, Dialect::Cesu8, b"\xFF"),
        (Dialect::Utf8, Dialect::Cesu8, b"\xE2\x82"),
        (Dialect::Cesu8, Dialect::Utf8, b"\xED\xA0\xBD\xED\xB8\x80"),
        (Dialect::Wtf8, Dialect::Utf8, b"\xED\xA0\x80"),
    ];
    for (from, to, odd) in cases {
        for at in (250..262)
            .chain(762..776)
            .chain(1786..1800)
            .chain(3834..3848)
        {
            let mut input = base.as_bytes().to_vec();
            // At a sequence boundary at or after `at`.
            let at = (at..).find(|&i| base.is_char_boundary(i)).unwrap();
            input.splice(at..at, odd.iter().copied());
            for policy in [Policy::Strict, Policy::Replace] {
                let (expected, _, _) = reference_counted(from, to, &input, policy, false);
                assert_eq!(
                    outcome(transcode(from, to, &input, policy)),
                    expected,
                    "{from}->{to} {policy:?} at {at}"
                );
            }
        }
        check(
            from,
            to,
            &[&base.as_bytes()[..1000], odd].concat(),
            &[300, 900],
            600,
        );
    }
}

/// Corrected UTF-8's 4-byte values around the ends of the two-a-step loop
/// between it and UTF-8's layout: U+10000..U+1109F are 3 bytes long in
/// Corrected UTF-8, U+110A0 its first 4-byte value (`F0 80 80 80`), and
/// its 4-byte values go on past U+10FFFF (`F0 BF BF BF` is U+21109F),
/// which the other dialects but RFC 2279 cannot hold, nor RFC 2279 past
/// U+1FFFFF.
const CORRECTED_EDGES: [u32; 14] = [
    0x1_0000, 0x1_109F, 0x1_10A0, 0x1_10A1, 0x1_10DF, 0x1_10E0, 0x1_1FFF, 0x1_F600, 0x10_FFFF,
    0x11_0000, 0x1F_FFFF, 0x20_0000, 0x21_109F, 0x21_10A0,
];

/// The pairs of dialects between which 4-byte forms keep their length.
const CORRECTED_FOURS: [(Dialect, Dialect); 8] = [
    (Dialect::Utf8, Dialect::Corrected),
    (Dialect::Unicode31, Dialect::Corrected),
    (Dialect::Wtf8, Dialect::Corrected),
    (Dialect::Rfc2279, Dialect::Corrected),
    (Dialect::Corrected, Dialect::Utf8),
    (Dialect::Corrected, Dialect::Unicode31),
    (Dialect::Corrected, Dialect::Wtf8),
    (Dialect::Corrected, Dialect::Rfc2279),
];

/// Runs of 4-byte forms of every length up to 24 between Corrected UTF-8
/// and the dialects that write UTF-8's, with each edge at each position
/// (the others pseudo-random, so that every bit field takes borrows and
/// carries), between everything that may come before and after them: the
/// output (or the error) of both policies exactly as the reference's.
#[test]
fn runs_of_four_byte_forms_to_and_from_corrected() {
    // Exact bytes: U+1F600 is Corrected UTF-8's 0xE560.
    let two = "😀😀".as_bytes();
    let corrected = b"\xF0\x8E\x95\xA0\xF0\x8E\x95\xA0";
    let ours = transcode(Dialect::Utf8, Dialect::Corrected, two, Policy::Strict);
    assert_eq!(ours.as_deref(), Ok(&corrected[..]));
    let back = transcode(Dialect::Corrected, Dialect::Utf8, corrected, Policy::Strict);
    assert_eq!(back.as_deref(), Ok(two));
    let ends = ends();
    let mut case = 0usize;
    for (from, to) in CORRECTED_FOURS {
        for n in 0..=24 {
            for pos in 0..n.max(1) {
                for &edge in &CORRECTED_EDGES {
                    case += 1;
                    let before = AROUND[case % AROUND.len()];
                    let after = &ends[(case / AROUND.len()) % ends.len()];
                    let mut state = (case as u32).wrapping_mul(0x9E37_79B9) | 1;
                    let input: Vec<u8> = (0..n)
                        .flat_map(|k| {
                            state ^= state << 13;
                            state ^= state >> 17;
                            state ^= state << 5;
                            let cp = if k == pos {
                                edge
                            } else {
                                0x1_10A0 + state % (0x11_0000 - 0x1_10A0)
                            };
                            let form = if from == Dialect::Corrected {
                                Dialect::Corrected
                            } else {
                                Dialect::Rfc2279
                            };
                            form.encode(cp).unwrap().to_vec()
                        })
                        .collect();
                    let input = [before, &input, after].concat();
                    both_policies_match_the_reference(from, to, &input);
                    if case.is_multiple_of(16) {
                        let len = input.len();
                        check(from, to, &input, &[len / 3, len / 2 + 1], 13);
                    }
                }
            }
        }
    }
}

/// Text that changes every `gap` bytes (an emoji, a `00`, an ill-formed
/// byte, a lone surrogate) appended to a vector that already holds bytes:
/// the bytes before are kept, and the output after them is the reference's
/// exactly, with nothing left over from the room each step asked for (the
/// conversion phase asks for room for its whole window, and keeps what it
/// wrote), in one piece and streamed.
#[test]
fn frequent_changes_appended_to_a_vector() {
    let cases: [(Dialect, Dialect, &[u8]); 5] = [
        (Dialect::Utf8, Dialect::Cesu8, "😀".as_bytes()),
        (Dialect::Utf8, Dialect::Mutf8, b"\x00"),
        (Dialect::Utf8, Dialect::Cesu8, b"\xFF"),
        (Dialect::Wtf8, Dialect::Utf8, b"\xED\xA0\x80"),
        (Dialect::Cesu8, Dialect::Utf8, b"\xED\xA0\xBD\xED\xB8\x80"),
    ];
    for (from, to, odd) in cases {
        for gap in [0, 1, 7, 50, 127, 128, 129, 200, 255, 256, 257, 1000, 5000] {
            let mut input = Vec::new();
            while input.len() < 12_000 {
                input.extend((0..gap).map(|i| b"ab\xC3\xA9cd"[i % 4]));
                input.extend_from_slice(odd);
            }
            for policy in [Policy::Strict, Policy::Replace] {
                let (expected, _, _) = reference_counted(from, to, &input, policy, false);
                let mut t = Transcoder::new(from, to, policy);
                let mut got = b"kept".to_vec();
                let r = t.transcode_to_vec(&input, &mut got, true);
                let got = match r {
                    Ok(read) => {
                        assert_eq!(read, input.len());
                        assert_eq!(&got[..4], b"kept");
                        Ok(got[4..].to_vec())
                    }
                    Err(e) => Err((e.offset(), e.error_len(), e.cause())),
                };
                assert_eq!(got, expected, "{from}->{to} {policy:?} gap {gap}");
            }
        }
        let mut input = Vec::new();
        while input.len() < 3000 {
            input.extend_from_slice(&b"ab\xC3\xA9cd".repeat(40));
            input.extend_from_slice(odd);
        }
        check(from, to, &input, &[700, 1500], 300);
    }
}

/// Between two dialects, the conversion copies 32 bytes a step and writes
/// the new form of an item that changes over the copy: a change in every
/// lane of a step and right at the end of the input, two changes in a row,
/// and text with changes after runs of unchanged bytes long enough to send
/// the conversion back to the copy phase (where a step's end cuts a
/// character); for every kind of item each pair of dialects stops at (those
/// that change, and some that only may), and some that the careful path
/// takes (a lone surrogate into UTF-8, RFC 2279's 5-byte forms, U+0000 into
/// Corrected UTF-8).
#[test]
fn changes_in_every_lane_of_the_copy_steps() {
    // Characters of 1, 2 and 3 bytes, 11 bytes in all; U+D55C has the
    // lead byte of a surrogate.
    let base = "añ字bc한".repeat(12);
    let encode = |from: Dialect, text: &str| {
        transcode(Dialect::Utf8, from, text.as_bytes(), Policy::Strict).unwrap()
    };
    let mut cases: Vec<(Dialect, Dialect, Vec<u8>)> = [
        (Dialect::Utf8, Dialect::Cesu8, "😀"),
        (Dialect::Utf8, Dialect::Cesu8, "😀\u{10FFFF}"),
        (Dialect::Utf8, Dialect::Mutf8, "\0"),
        (Dialect::Utf8, Dialect::Mutf8, "\u{10000}"),
        (Dialect::Utf8, Dialect::Mutf8, "\0\0"),
        (Dialect::Utf8, Dialect::Mutf8, "😀\0"),
        (Dialect::Cesu8, Dialect::Utf8, "😀"),
        (Dialect::Cesu8, Dialect::Utf8, "😀\u{10FFFF}"),
        (Dialect::Mutf8, Dialect::Utf8, "\0"),
        (Dialect::Mutf8, Dialect::Utf8, "😀\0"),
        (Dialect::Mutf8, Dialect::Utf8, "\u{10000}\u{10000}"),
        (Dialect::Wtf8, Dialect::Cesu8, "😀"),
        (Dialect::Cesu8, Dialect::Wtf8, "😀"),
        (Dialect::Cesu8, Dialect::Mutf8, "😀\0"),
        (Dialect::Mutf8, Dialect::Cesu8, "\0😀"),
        (Dialect::Rfc2279, Dialect::Unicode31, "\u{10FFFF}😀"),
        (Dialect::Utf8, Dialect::Corrected, "é"),
        (Dialect::Utf8, Dialect::Corrected, "😀"),
        (Dialect::Corrected, Dialect::Utf8, "é"),
        (Dialect::Corrected, Dialect::Utf8, "é😀"),
        (Dialect::Corrected, Dialect::Cesu8, "😀"),
        (Dialect::Mutf8, Dialect::Corrected, "é\0"),
        (Dialect::Utf8, Dialect::Corrected, "\0"),
        (Dialect::Cesu8, Dialect::Corrected, "a\0"),
    ]
    .into_iter()
    .map(|(from, to, odd)| (from, to, encode(from, odd)))
    .collect();
    cases.extend([
        (Dialect::Wtf8, Dialect::Utf8, b"\xED\xA0\x80".to_vec()),
        (Dialect::Wtf8, Dialect::Cesu8, b"\xED\xB0\x80".to_vec()),
        (
            Dialect::Unicode31,
            Dialect::Wtf8,
            b"\xED\xA0\xBD\xED\xB8\x80".to_vec(),
        ),
        (
            Dialect::Rfc2279,
            Dialect::Utf8,
            b"\xF8\x88\x80\x80\x80".to_vec(),
        ),
        (
            Dialect::Rfc2279,
            Dialect::Cesu8,
            b"\xF4\x90\x80\x80".to_vec(),
        ),
    ]);
    for (from, to, odd) in cases {
        let with = |before: &str, after: &str| {
            let mut input = encode(from, before);
            input.extend_from_slice(&odd);
            input.extend(encode(from, after));
            input
        };
        for at in (0..=base.len()).filter(|&at| base.is_char_boundary(at)) {
            check(
                from,
                to,
                &with(&base[..at], &base[at..]),
                &[at + 1, 2 * at + 3],
                40,
            );
            check(from, to, &with(&base[..at], ""), &[], 4096);
        }
        // The conversion starts at a change; the next one `gap` bytes
        // after it is in lane `gap % 32` of a step.
        for text in [base.as_str(), &"abcdefgh".repeat(16)] {
            for gap in (0..=80).filter(|&gap| text.is_char_boundary(gap)) {
                let input = with("", &text[..gap]).repeat(6);
                check(from, to, &input, &[gap + 2], 4096);
            }
        }
        for gap in [31, 32, 33, 1000, 1023, 1024, 1025, 1100, 3000] {
            let mut input = Vec::new();
            while input.len() < 8000 {
                let text: String = base.chars().cycle().take(gap).collect();
                input.extend(with(&text, ""));
            }
            check(from, to, &input, &[4000], 4096);
        }
    }
}

/// Outputs of 1 to 8 bytes, shorter than some items (a 6-byte surrogate
/// pair, a 6-byte RFC 2279 form, the 8-byte magic number): every call
/// makes progress, and the pieces put together are the whole conversion
/// (with room under 8 the same call was returned `OutputFull` with
/// nothing done, forever).
#[test]
fn every_output_of_one_byte_or_more_makes_progress() {
    for &from in Dialect::ALL {
        let mut input = Vec::new();
        for cp in [0x41, 0xE9, 0x20AC, 0x1F600, 0x10FFFF, 0x7FFF_FFFF, 0x41] {
            if let Ok(encoded) = from.encode(cp) {
                input.extend_from_slice(&encoded);
            }
        }
        input.extend_from_slice(b"\xFFz");
        for &to in Dialect::ALL {
            for room in 1..=8 {
                check(from, to, &input, &[], room);
                check(from, to, &input, &[5, 9], room);
            }
        }
    }
}

/// `wtf8_to_utf16_into` keeps its documented promise: an output as long as
/// the input always has room for all of it, on every input of 1 and 2
/// bytes and on 3- and 4-byte inputs led by the bytes of the longer forms,
/// with either policy (`E4` alone into one unit was `OutputFull`, never the
/// error).
#[test]
fn an_output_as_long_as_the_input_always_has_room() {
    let check = |input: &[u8]| {
        for policy in [Policy::Strict, Policy::Replace] {
            let mut out = vec![0u16; input.len()];
            let p = wtf8_to_utf16_into(input, policy, &mut out, true);
            match p.result {
                Ok(status) => {
                    assert_eq!(status, Status::InputEmpty, "{policy:?} {input:02X?}");
                    assert_eq!(p.read, input.len(), "{policy:?} {input:02X?}");
                }
                Err(e) => assert_eq!(p.read, e.offset(), "{policy:?} {input:02X?}"),
            }
        }
    };
    for a in 0..=255u8 {
        check(&[a]);
        for b in 0..=255u8 {
            check(&[a, b]);
        }
    }
    for a in [0xE0, 0xE4, 0xED, 0xEF, 0xF0, 0xF4] {
        for b in 0x80..=0xBFu8 {
            for c in [0x41, 0x80, 0xBF, 0xC0] {
                check(&[a, b, c]);
                check(&[a, b, c, 0x80]);
            }
        }
    }
    let mut out = [0u16; 1];
    let p = wtf8_to_utf16_into(b"\xE4", Policy::Strict, &mut out, true);
    let e = p.result.unwrap_err();
    assert_eq!((e.offset(), e.error_len()), (0, None));
    let p = wtf8_to_utf16_into(b"\xE4", Policy::Replace, &mut out, true);
    assert_eq!(
        (p.read, p.written, p.result),
        (1, 1, Ok(Status::InputEmpty))
    );
    assert_eq!(out, [0xFFFD]);
}

/// Every unit of the Basic Multilingual Plane but the surrogates, at every
/// lane of the vector steps (the whole plane shifted by 0 to 15 units),
/// in an order that mixes their lengths, against std's encoding.
#[test]
fn every_bmp_unit_at_every_lane_to_wtf8() {
    let scalars: Vec<u16> = (0..=0xFFFFu16)
        .filter(|u| !(0xD800..0xE000).contains(u))
        .collect();
    // A stride coprime to the count visits each once, lengths mixed.
    let n = scalars.len();
    let mixed: Vec<u16> = (0..n).map(|k| scalars[k * 7919 % n]).collect();
    let mut sorted = mixed.clone();
    sorted.sort_unstable();
    assert!(sorted == scalars, "the stride visits every unit once");
    let mut expected = String::new();
    for &u in &mixed {
        expected.push(char::from_u32(u32::from(u)).expect("not a surrogate"));
    }
    for shift in 0..16 {
        let mut units = vec![u16::from(b'a'); shift];
        units.extend_from_slice(&mixed);
        let mut got = Vec::new();
        utf16_to_wtf8(&units, &mut got);
        assert_eq!(got.len(), shift + expected.len(), "shift {shift}");
        assert_eq!(&got[..shift], "a".repeat(shift).as_bytes());
        assert!(got[shift..] == *expected.as_bytes(), "shift {shift}");
    }
}

//! Corrected UTF-8 to and from UTF-8 where the vector block converter runs
//! (text of 1-, 2- and 3-byte sequences, which keep their length): every
//! 2- and 3-byte code point at every offset of a context, and long text
//! whose sequences straddle the blocks' ends, both ways, against the
//! reference encoder's bytes (each code point encoded on its own).

use utf8guard::{transcode, Cause, Dialect, EncodeError, ErrorKind, Policy, Status, Transcoder};

/// The bytes of `cps` in `dialect`, a code point at a time with the
/// reference encoder.
fn encode(dialect: Dialect, cps: &[u32]) -> Vec<u8> {
    let mut out = Vec::new();
    for &cp in cps {
        out.extend_from_slice(&dialect.encode(cp).expect("encodable"));
    }
    out
}

/// Both ways between the UTF-8 and the Corrected UTF-8 forms of `cps`,
/// exact bytes.
fn both_ways(cps: &[u32]) {
    let utf8 = encode(Dialect::Utf8, cps);
    let corrected = encode(Dialect::Corrected, cps);
    let to = transcode(Dialect::Utf8, Dialect::Corrected, &utf8, Policy::Strict);
    assert!(
        to.as_deref() == Ok(&corrected[..]),
        "UTF-8 to Corrected UTF-8: {cps:X?}"
    );
    let from = transcode(
        Dialect::Corrected,
        Dialect::Utf8,
        &corrected,
        Policy::Strict,
    );
    assert!(
        from.as_deref() == Ok(&utf8[..]),
        "Corrected UTF-8 to UTF-8: {cps:X?}"
    );
}

/// Every code point of 2 or 3 bytes in UTF-8 or in Corrected UTF-8
/// (U+0080..U+1109F without the surrogates and the C1 controls, which
/// Corrected UTF-8 cannot hold).
fn two_and_three_byte() -> impl Iterator<Item = u32> {
    (0xA0..0xD800).chain(0xE000..0x1_10A0)
}

/// Code points of `context` (its first one not ASCII, so that the
/// converter starts with the document) filling `len` bytes in UTF-8, with
/// ASCII where its characters do not fit exactly.
fn context_of(context: &[u32], len: usize) -> Vec<u32> {
    let mut out = vec![context[0]];
    let mut bytes = Dialect::Utf8.encode(context[0]).unwrap().len();
    for &cp in context.iter().cycle().skip(1) {
        let n = Dialect::Utf8.encode(cp).unwrap().len();
        if bytes + n > len {
            break;
        }
        out.push(cp);
        bytes += n;
    }
    out.extend((bytes..len).map(|_| u32::from(b'x')));
    out
}

/// The documents with something at every byte offset from 3 to 43 of 100
/// bytes made of `context`: the code points before it and after it.
fn around(context: &str) -> Vec<(Vec<u32>, Vec<u32>)> {
    let context: Vec<u32> = context.chars().map(u32::from).collect();
    (3..=43)
        .map(|at| {
            (
                context_of(&context, at),
                context_of(&context[1..], 100 - at),
            )
        })
        .collect()
}

/// Every code point of 2 and 3 bytes placed at every byte offset from 3 to
/// 43 of a 100-byte document made of `context`, both ways: the blocks
/// start after the document's first character, so that the code point
/// takes every lane of a block, and straddles its end.
fn every_offset(context: &str) {
    let docs = around(context);
    let mut cps = Vec::new();
    // Under emulation (scripts/test.sh sets `UTF8GUARD_TEST_EMULATED` for
    // the cross steps), where there is no block converter and the portable
    // path the native run checks with every code point runs: every 61st
    // code point and the edges, at every offset.
    let stride = if std::env::var_os("UTF8GUARD_TEST_EMULATED").is_some() {
        61
    } else {
        1
    };
    let sample = two_and_three_byte()
        .enumerate()
        .filter(|&(i, cp)| i % stride == 0 || EDGES.contains(&cp))
        .map(|(_, cp)| cp);
    for cp in sample {
        for (before, after) in &docs {
            cps.clear();
            cps.extend_from_slice(before);
            cps.push(cp);
            cps.extend_from_slice(after);
            both_ways(&cps);
        }
    }
}

#[test]
fn every_code_point_at_every_offset_in_hangul() {
    every_offset("한국어 문장의 예시 텍스트 입니다 ");
}

#[test]
fn every_code_point_at_every_offset_in_cyrillic() {
    every_offset("Пример русского текста для проверки ");
}

#[test]
fn every_code_point_at_every_offset_in_ascii() {
    every_offset("éxample of some plain text to check ");
}

/// The code points where the conversion changes its arithmetic, or the
/// length of its sequences.
const EDGES: [u32; 18] = [
    0x7F, 0xA0, 0xBF, 0xC0, 0x7FF, 0x800, 0x89F, 0x8A0, 0x8DF, 0x8E0, 0xFFF, 0x1000, 0xD7FF,
    0xE000, 0xE03F, 0xE040, 0xFFFF, 0x1_0000,
];

/// A small deterministic generator (xorshift).
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Long runs of 1-, 2- and 3-byte characters in random order (with the
/// edge code points among them, some of which change length), so that
/// sequences straddle every block's end.
#[test]
fn random_text_across_blocks() {
    let mut state = 0x9E37_79B9_7F4A_7C15;
    for round in 0..2000 {
        let len = 1 + (next(&mut state) % 400) as usize;
        let cps: Vec<u32> = (0..len)
            .map(|_| {
                let r = next(&mut state);
                let cp = match r % 16 {
                    0..=3 => 0x20 + (r >> 8) as u32 % 0x5F,
                    4..=7 => 0xA0 + (r >> 8) as u32 % (0x800 - 0xA0),
                    8..=12 => 0x8A0 + (r >> 8) as u32 % (0x1_0000 - 0x8A0),
                    13 if round % 2 == 0 => EDGES[(r >> 8) as usize % EDGES.len()],
                    14 if round % 3 == 0 => 0x1_0000 + (r >> 8) as u32 % 0x10_0000,
                    _ => 0xAC00 + (r >> 8) as u32 % 0x2BA4,
                };
                if (0xD800..0xE000).contains(&cp) {
                    0xE000
                } else {
                    cp
                }
            })
            .collect();
        both_ways(&cps);
    }
}

/// What the transcoders cannot convert (U+0000, C1 controls one way;
/// `00`, a reserved run the other), at every offset of each context: the
/// error's exact place, length and cause, and with replacements the exact
/// output.
#[test]
fn refused_items_at_every_offset() {
    use Dialect::{Corrected, Utf8};
    let items: [(Dialect, &[u8], Cause); 6] = [
        (Utf8, b"\x00", Cause::Unencodable(EncodeError::Nul)),
        (
            Utf8,
            b"\xC2\x80",
            Cause::Unencodable(EncodeError::C1Control),
        ),
        (
            Utf8,
            b"\xC2\x85",
            Cause::Unencodable(EncodeError::C1Control),
        ),
        (
            Utf8,
            b"\xC2\x9F",
            Cause::Unencodable(EncodeError::C1Control),
        ),
        (Corrected, b"\x00", Cause::Malformed(ErrorKind::Nul)),
        (Corrected, b"\xFE\x80\x80", Cause::Reserved),
    ];
    for context in [
        "한국어 문장의 예시 텍스트 입니다 ",
        "Пример русского текста ",
        "éxample text ",
    ] {
        for (before, after) in around(context) {
            for &(from, item, cause) in &items {
                let to = if from == Utf8 { Corrected } else { Utf8 };
                let before = encode(from, &before);
                let input = [&before[..], item, &encode(from, &after)].concat();
                let e = transcode(from, to, &input, Policy::Strict).unwrap_err();
                assert_eq!(
                    (e.offset(), e.error_len(), e.cause()),
                    (before.len(), Some(item.len()), cause),
                    "{from:?} {input:X?}"
                );
                let mut cps: Vec<u32> = from.decode(&before).map(code_point).collect();
                cps.push(0xFFFD);
                let rest = &input[before.len() + item.len()..];
                cps.extend(from.decode(rest).map(code_point));
                let replaced = transcode(from, to, &input, Policy::Replace).unwrap();
                assert_eq!(replaced, encode(to, &cps), "{from:?} {input:X?}");
            }
        }
    }
}

/// The code point of a well-formed item.
fn code_point(item: utf8guard::Decoded) -> u32 {
    match item {
        utf8guard::Decoded::Char { code_point, .. } => code_point,
        other => panic!("not a character: {other:?}"),
    }
}

/// Into output buffers of every size from 3 (the longest character here)
/// to 100 bytes (the blocks stop
/// for want of room, maybe inside a sequence, and start again after each
/// call), the whole text in one piece: the concatenated output is exact.
#[test]
fn small_output_buffers() {
    let text: Vec<u32> = "Пример русского текста 한국어 문장의 예시 텍스트 中文 "
        .repeat(8)
        .chars()
        .map(u32::from)
        .collect();
    for (from, to) in [
        (Dialect::Utf8, Dialect::Corrected),
        (Dialect::Corrected, Dialect::Utf8),
    ] {
        let (input, expected) = (encode(from, &text), encode(to, &text));
        for room in 3..=100 {
            let mut t = Transcoder::new(from, to, Policy::Strict);
            let (mut out, mut at) = (Vec::new(), 0);
            loop {
                let mut buf = vec![0u8; room];
                let p = t.transcode(&input[at..], &mut buf, true);
                out.extend_from_slice(&buf[..p.written]);
                at += p.read;
                match p.result {
                    Ok(Status::OutputFull) => assert!(p.written > 0, "{from:?} room {room}"),
                    Ok(Status::InputEmpty) => break,
                    Err(e) => panic!("{from:?} room {room}: {e}"),
                }
            }
            assert_eq!(at, input.len(), "{from:?} room {room}");
            assert!(out == expected, "{from:?} room {room}");
        }
    }
}

//! Strict UTF-8 to and from UTF-16 (`utf8_to_utf16`, `utf16_to_utf8` and
//! their `_into` forms) against std's conversions, strict and lossy: exact
//! units, bytes and error positions, in one call and in pieces. Run with
//! every kernel forced by scripts/test.sh.

use proptest::prelude::*;
use utf8guard::{
    utf16_to_utf8, utf16_to_utf8_into, utf8_to_utf16, utf8_to_utf16_into, Cause, ErrorKind, Policy,
    Status,
};

/// UTF-16 of every kind: ASCII, 2- and 3-byte BMP, pairs, lone leads
/// and trails, a lead before a lead, at every position around the
/// chunk's end and the vector steps, each against std's strict and
/// lossy conversions, in one call and in pieces of every size.
#[test]
fn utf16_to_utf8_agrees_with_std() {
    let pieces: &[&[u16]] = &[
        &[0x61],
        &[0xE9],
        &[0x20AC],
        &[0xD83D, 0xDE00],
        &[0xD800],
        &[0xDC00],
        &[0xDBFF, 0xD800],
    ];
    let lengths: &[usize] = if cfg!(miri) {
        &[0, 1, 40]
    } else {
        &[0, 1, 15, 33, 4095, 4096, 4098]
    };
    for &len in lengths {
        for piece in pieces {
            for before in [0x61u16, 0x416] {
                let mut input = vec![before; len];
                input.extend_from_slice(piece);
                input.extend_from_slice(&[0x62, 0x4E2D, 0x63]);
                check_utf16(&input);
            }
        }
    }
    check_utf16(&[0xD800; 40]);
    check_utf16(&[0xDC00, 0xD800]);
}

fn check_utf16(input: &[u16]) {
    let lossy = String::from_utf16_lossy(input);
    let mut out = Vec::new();
    utf16_to_utf8(input, Policy::Replace, &mut out).unwrap();
    assert_eq!(out, lossy.as_bytes(), "{input:X?}");
    out.clear();
    let strict = utf16_to_utf8(input, Policy::Strict, &mut out);
    match String::from_utf16(input) {
        Ok(s) => {
            assert_eq!(strict, Ok(()));
            assert_eq!(out, s.as_bytes());
        }
        Err(_) => {
            let e = strict.unwrap_err();
            let bad = char::decode_utf16(input.iter().copied())
                .scan(0, |at, c| {
                    let here = *at;
                    *at += c.as_ref().map_or(1, |c| c.len_utf16());
                    Some((here, c.is_err()))
                })
                .find(|&(_, bad)| bad)
                .unwrap()
                .0;
            assert_eq!((e.offset(), e.error_len()), (bad, Some(1)), "{input:X?}");
            assert_eq!(e.cause(), Cause::Malformed(ErrorKind::LoneSurrogate));
            assert_eq!(out, String::from_utf16(&input[..bad]).unwrap().as_bytes());
        }
    }
    // In pieces: each call's unread units passed again with the next.
    for size in [1, 2, 3, 7] {
        let (mut bytes, mut pending) = (Vec::new(), Vec::new());
        let mut room = [0u8; 24];
        for (k, chunk) in input.chunks(size).enumerate() {
            pending.extend_from_slice(chunk);
            let last = (k + 1) * size >= input.len();
            loop {
                let p = utf16_to_utf8_into(&pending, Policy::Replace, &mut room, last);
                bytes.extend_from_slice(&room[..p.written]);
                pending.drain(..p.read);
                if p.result.unwrap() == Status::InputEmpty {
                    break;
                }
            }
        }
        assert!(pending.is_empty() || input.is_empty());
        assert_eq!(bytes, lossy.as_bytes(), "pieces of {size}: {input:X?}");
    }
}

/// UTF-8 with surrogates' forms and other errors at positions around
/// the windows' ends, against std's strict and lossy decoding.
#[test]
fn utf8_to_utf16_agrees_with_std() {
    let pieces: &[&[u8]] = &[
        b"a",
        "é€😀".as_bytes(),
        b"\xED\xA0\x80",
        b"\xED\xB0\x80",
        b"\xED\xA0\xBD\xED\xB8\x80",
        b"\xF0\x9F\x98",
        b"\xC0\x80",
        b"\xFF",
    ];
    let lengths: &[usize] = if cfg!(miri) {
        &[0, 1, 40]
    } else {
        &[0, 1, 15, 33, 255, 256, 4097]
    };
    for &len in lengths {
        for piece in pieces {
            let mut input = vec![b'x'; len];
            input.extend_from_slice(piece);
            input.extend_from_slice("b中c".as_bytes());
            let lossy: Vec<u16> = String::from_utf8_lossy(&input).encode_utf16().collect();
            let mut out = Vec::new();
            utf8_to_utf16(&input, Policy::Replace, &mut out).unwrap();
            assert_eq!(out, lossy, "{input:X?}");
            out.clear();
            let strict = utf8_to_utf16(&input, Policy::Strict, &mut out);
            match core::str::from_utf8(&input) {
                Ok(s) => {
                    assert_eq!(strict, Ok(()));
                    assert_eq!(out, s.encode_utf16().collect::<Vec<u16>>());
                }
                Err(std_error) => {
                    let e = strict.unwrap_err();
                    assert_eq!(e.offset(), std_error.valid_up_to(), "{input:X?}");
                    assert_eq!(e.error_len(), std_error.error_len(), "{input:X?}");
                    let good = core::str::from_utf8(&input[..e.offset()]).unwrap();
                    assert_eq!(out, good.encode_utf16().collect::<Vec<u16>>());
                }
            }
        }
    }
}

/// What std makes of `input`, strict and lossy, against the converter's
/// answer in pieces into a small buffer, where a piece may end inside a
/// sequence.
fn check_utf8_in_pieces(input: &[u8], size: usize) {
    let lossy: Vec<u16> = String::from_utf8_lossy(input).encode_utf16().collect();
    let (mut units, mut pending) = (Vec::new(), Vec::new());
    let mut room = [0u16; 9];
    for (k, chunk) in input.chunks(size).enumerate() {
        pending.extend_from_slice(chunk);
        let last = (k + 1) * size >= input.len();
        loop {
            let p = utf8_to_utf16_into(&pending, Policy::Replace, &mut room, last);
            units.extend_from_slice(&room[..p.written]);
            pending.drain(..p.read);
            if p.result.unwrap() == Status::InputEmpty {
                break;
            }
        }
    }
    assert_eq!(units, lossy, "pieces of {size}: {input:X?}");
}

proptest! {
    #[test]
    fn random_utf16_agrees_with_std(
        input in proptest::collection::vec(
            prop_oneof![
                0x20u16..0x80,
                0x80u16..0x800,
                0x800u16..0xD800,
                0xD800u16..0xDC00,
                0xDC00u16..0xE000,
                0xE000u16..=0xFFFF,
            ],
            0..200,
        )
    ) {
        check_utf16(&input);
    }

    #[test]
    fn random_utf8_agrees_with_std(
        text in "\\PC{0,80}",
        bad in proptest::collection::vec((0usize..100, prop_oneof![
            Just(&b"\xED\xA0\x80"[..]), Just(&b"\xF0\x9F"[..]), Just(&b"\x80"[..]), Just(&b"\xC1\xBF"[..]),
        ]), 0..4),
        size in 1usize..9,
    ) {
        let mut input = text.into_bytes();
        for (at, bytes) in bad {
            let at = at.min(input.len());
            input.splice(at..at, bytes.iter().copied());
        }
        check_utf8_in_pieces(&input, size);
    }
}

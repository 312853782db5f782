//! `from_utf8_lossy` against `String::from_utf8_lossy`, byte for byte.

mod common;

use std::borrow::Cow;

use common::{filler, MALFORMED, TRUNCATED};
use proptest::prelude::*;
use utf8guard::from_utf8_lossy;

/// Same text as std, borrowed exactly when std borrows (when the input is
/// valid), and then the very same slice.
fn check(bytes: &[u8]) {
    let ours = from_utf8_lossy(bytes);
    let std = String::from_utf8_lossy(bytes);
    assert_eq!(ours.as_bytes(), std.as_bytes(), "on {bytes:02X?}");
    match (&ours, &std) {
        (Cow::Borrowed(o), Cow::Borrowed(_)) => assert_eq!(o.as_ptr(), bytes.as_ptr()),
        (Cow::Owned(_), Cow::Owned(_)) => {}
        _ => panic!("borrowed/owned differs from std on {bytes:02X?}"),
    }
}

#[test]
fn documented_cases() {
    assert!(matches!(from_utf8_lossy(b""), Cow::Borrowed("")));
    assert!(matches!(
        from_utf8_lossy("żółw".as_bytes()),
        Cow::Borrowed("żółw")
    ));
    assert_eq!(from_utf8_lossy(b"\xFF"), "\u{FFFD}");
    assert_eq!(from_utf8_lossy(b"a\xC3"), "a\u{FFFD}");
    // One replacement for a maximal subpart (F0 9F 98), two for bytes that
    // can start nothing (C0, then AF).
    assert_eq!(
        from_utf8_lossy(b"a\xF0\x9F\x98b\xC0\xAFc"),
        "a\u{FFFD}b\u{FFFD}\u{FFFD}c"
    );
    // A surrogate is three maximal subparts of one byte each.
    assert_eq!(
        from_utf8_lossy(b"\xED\xA0\x80!"),
        "\u{FFFD}\u{FFFD}\u{FFFD}!"
    );
    // Cut short by a lead byte, which then starts a character.
    assert_eq!(from_utf8_lossy(b"\xE2\x82\xC3\xA9"), "\u{FFFD}é");
}

#[test]
fn all_one_and_two_byte_inputs() {
    for a in 0..=255u8 {
        check(&[a]);
        for b in 0..=255u8 {
            check(&[a, b]);
        }
    }
}

#[test]
fn all_three_byte_inputs_after_a_prefix() {
    // After a prefix, so that the interesting bytes are not at offset 0.
    let mut bytes = *b"xy\0\0\0";
    for a in 0x80..=0xFFu8 {
        for b in 0..=255u8 {
            for c in [
                0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC3, 0xE2, 0xF0, 0xFF,
            ] {
                bytes[2..].copy_from_slice(&[a, b, c]);
                check(&bytes);
            }
        }
    }
}

#[test]
fn malformed_and_truncated_in_text() {
    for &(bad, _) in MALFORMED {
        for style in 0..4 {
            for len in [0, 1, 31, 32, 33, 63, 64, 65, 200] {
                let mut bytes = filler(len, style);
                bytes.extend_from_slice(bad);
                check(&bytes);
                bytes.extend_from_slice(&filler(len, style + 1));
                check(&bytes);
                bytes.extend_from_slice(bad);
                bytes.extend_from_slice(bad);
                check(&bytes);
            }
        }
    }
    for &cut in TRUNCATED {
        for len in [0, 5, 64, 100] {
            let mut bytes = filler(len, 1);
            bytes.extend_from_slice(cut);
            check(&bytes);
        }
    }
}

#[test]
fn dense_errors_and_binary_data() {
    // Pseudo-random bytes: errors everywhere.
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let noise: Vec<u8> = (0..20_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect();
    check(&noise);
    // Long runs of one bad byte, then text, then bad bytes again, with
    // lengths around the DFA window.
    for run in [1, 31, 32, 33, 64, 1000] {
        let mut bytes = vec![0xFF; run];
        bytes.extend_from_slice(&filler(run, 2));
        bytes.extend(std::iter::repeat_n(0x80, run));
        bytes.extend_from_slice(&filler(run, 3));
        bytes.push(0xF0);
        check(&bytes);
        // A character that the DFA window cuts.
        for shift in 0..4 {
            let mut bytes = vec![0xFF];
            bytes.extend_from_slice(&filler(29 + shift, 0));
            bytes.extend_from_slice("😀".repeat(20).as_bytes());
            bytes.push(0xFF);
            bytes.extend_from_slice(&filler(29 + shift, 3));
            check(&bytes);
        }
    }
}

#[test]
fn errors_spaced_around_the_hand_back_to_the_kernels() {
    // Valid stretches of every length around the point where decoding goes
    // back to the kernels, in characters of every width, between errors
    // of every kind: the kernels then restart right after multi-byte
    // characters, and flag an error in their first block.
    for &(bad, _) in MALFORMED {
        for style in 0..4 {
            for gap in 0..48 {
                let mut bytes = Vec::new();
                for _ in 0..4 {
                    bytes.extend_from_slice(bad);
                    bytes.extend_from_slice(&filler(gap, style));
                }
                check(&bytes);
                bytes.extend_from_slice(b"\xF0\x9F");
                check(&bytes);
            }
        }
    }
}

#[test]
fn real_text_with_sparse_errors() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/lipsum");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipping: corpus folder {} is absent", dir.display());
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".utf8.txt") {
            continue;
        }
        let text = std::fs::read(&path).unwrap();
        check(&text);
        // Overwrite every 997th byte, which breaks characters in all ways.
        for bad in [0xFF, 0x80, 0xE2, 0xF0] {
            let mut damaged = text.clone();
            for i in (500..damaged.len()).step_by(997) {
                damaged[i] = bad;
            }
            check(&damaged);
        }
    }
}

fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => any::<String>().prop_map(String::into_bytes),
        2 => (0usize..120, 0usize..4).prop_map(|(len, style)| filler(len, style)),
        1 => prop::sample::select(MALFORMED.iter().map(|m| m.0.to_vec()).collect::<Vec<_>>()),
        1 => prop::sample::select(TRUNCATED.iter().map(|t| t.to_vec()).collect::<Vec<_>>()),
        2 => prop::collection::vec(any::<u8>(), 0..40),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_inputs_agree_with_std(pieces in prop::collection::vec(piece(), 0..16)) {
        check(&pieces.concat());
    }
}

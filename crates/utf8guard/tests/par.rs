//! `par::validate` and `par::from_utf8` against the sequential API, with
//! errors on and around the places where the input is cut into chunks.

#[macro_use]
mod common;

use common::{filler, MALFORMED, TRUNCATED};
use proptest::prelude::*;
use utf8guard::par;

/// The split validation with chunks of `chunk_len` agrees with the
/// sequential one on `bytes`.
fn check_split(bytes: &[u8], chunk_len: usize) {
    let expected = utf8guard::from_utf8(bytes).map(|_| ());
    let valid = par::validate_split(bytes, chunk_len);
    let result = par::check_split(bytes, chunk_len);
    assert_eq!(
        valid,
        expected.is_ok(),
        "chunks of {chunk_len} on {bytes:02X?}"
    );
    assert_eq!(result, expected, "chunks of {chunk_len} on {bytes:02X?}");
}

/// The public functions agree with the sequential ones (and with core).
fn check_public(bytes: &[u8]) {
    let expected = utf8guard::from_utf8(bytes);
    assert_eq!(par::validate(bytes), expected.is_ok());
    let ours = par::from_utf8(bytes);
    assert_eq!(ours, expected);
    if let Ok(s) = ours {
        assert_eq!(s.as_ptr(), bytes.as_ptr());
    }
    let core = std::str::from_utf8(bytes);
    assert_eq!(
        ours.map_err(|e| (e.valid_up_to(), e.error_len()))
            .map(|_| ()),
        core.map_err(|e| (e.valid_up_to(), e.error_len()))
            .map(|_| ())
    );
}

#[test]
fn every_small_chunking_of_the_hard_cases() {
    for &(bad, _) in MALFORMED {
        for style in 0..4 {
            let mut bytes = filler(13, style);
            bytes.extend_from_slice(bad);
            bytes.extend_from_slice(&filler(13, style + 1));
            bytes.extend_from_slice(bad);
            for chunk_len in 4..=bytes.len() + 1 {
                check_split(&bytes, chunk_len);
            }
        }
    }
    for &cut in TRUNCATED {
        for style in 0..4 {
            let mut bytes = filler(11, style);
            bytes.extend_from_slice(cut);
            for chunk_len in 4..=bytes.len() + 1 {
                check_split(&bytes, chunk_len);
            }
            // Cut short by what follows.
            for next in [&b"z"[..], b"\xC3\xA9", b"\xE2\x82\xAC"] {
                let mut bytes = bytes.clone();
                bytes.extend_from_slice(next);
                bytes.extend_from_slice(&filler(9, style + 2));
                for chunk_len in 4..=bytes.len() + 1 {
                    check_split(&bytes, chunk_len);
                }
            }
        }
    }
}

#[test]
fn runs_of_continuation_bytes_across_cuts() {
    // No character start within 3 bytes of a cut: the cut stays put.
    for run in 1..=9 {
        for prefix in ["", "a", "é", "€", "😀", "ab"] {
            let mut bytes = prefix.as_bytes().to_vec();
            bytes.extend(std::iter::repeat_n(0x80, run));
            bytes.extend_from_slice(b"tail");
            for chunk_len in 4..=bytes.len() + 1 {
                check_split(&bytes, chunk_len);
            }
            // A 4-byte character followed by stray continuation bytes.
            let mut bytes = "x😀".as_bytes().to_vec();
            bytes.extend(std::iter::repeat_n(0xBF, run));
            for chunk_len in 4..=bytes.len() + 1 {
                check_split(&bytes, chunk_len);
            }
        }
    }
}

#[test]
fn valid_text_in_every_chunking() {
    let text = "a\u{80}\u{7FF}\u{800}€\u{FFFF}\u{10000}😀\u{10FFFF}z".repeat(3);
    for chunk_len in 4..=text.len() + 1 {
        check_split(text.as_bytes(), chunk_len);
    }
}

#[test]
fn large_inputs_with_errors_near_cuts() {
    // 4 MiB of mixed text: above the threshold, several chunks per thread.
    let base: Vec<u8> = (0..4).flat_map(|s| filler(1 << 20, s)).collect();
    assert!(base.len() >= par::THRESHOLD);
    check_public(&base);
    // Errors at and around multiples of 256 KiB and of the chunk sizes the
    // pool may choose, and near both ends.
    let mut positions = vec![0, 1, 2, 3, base.len() - 3, base.len() - 1];
    for k in 1..16 {
        let at = k * (256 << 10);
        positions.extend([at - 3, at - 2, at - 1, at, at + 1]);
    }
    for &(bad, _) in [MALFORMED[0], MALFORMED[19]].iter() {
        for &at in &positions {
            let mut bytes = base.clone();
            bytes[at..at + bad.len().min(base.len() - at)]
                .copy_from_slice(&bad[..bad.len().min(base.len() - at)]);
            check_public(&bytes);
        }
    }
    // Truncated at the very end.
    let mut bytes = base.clone();
    bytes.extend_from_slice(b"\xF0\x9F\x98");
    check_public(&bytes);
}

#[test]
fn the_first_of_several_errors() {
    let mut bytes: Vec<u8> = (0..4).flat_map(|s| filler(1 << 20, s)).collect();
    bytes[3_000_000] = 0xFF;
    bytes[2_000_001] = 0x41; // inside an "é" run: C3 41
    bytes[1_000_000] = 0xC0;
    let err = par::from_utf8(&bytes).unwrap_err();
    assert_eq!((err.valid_up_to(), err.error_len()), (1_000_000, Some(1)));
    assert_eq!(err.kind(), utf8guard::ErrorKind::InvalidByte);
    assert!(!par::validate(&bytes));
    bytes[1_000_000] = b'a';
    let err = par::from_utf8(&bytes).unwrap_err();
    assert_eq!((err.valid_up_to(), err.error_len()), (2_000_000, Some(1)));
    assert_eq!(err.kind(), utf8guard::ErrorKind::TooShort);
}

#[test]
fn around_the_threshold() {
    for len in [0, 1, par::THRESHOLD - 1, par::THRESHOLD, par::THRESHOLD + 1] {
        let bytes = filler(len, 3);
        check_public(&bytes);
        if len > 2 {
            let mut bad = bytes.clone();
            bad[len / 2] = 0x80;
            check_public(&bad);
        }
    }
}

#[test]
fn real_text() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/lipsum");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipping: corpus folder {} is absent", dir.display());
        return;
    };
    let mut text = Vec::new();
    for entry in entries {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".utf8.txt") {
            text.extend_from_slice(&std::fs::read(&path).unwrap());
        }
    }
    while text.len() < 3 * par::THRESHOLD {
        text.extend_from_within(..);
    }
    check_public(&text);
    for at in [text.len() / 3, text.len() / 2 + 1, text.len() - 2] {
        let mut bad = text.clone();
        bad[at] = 0xFE;
        check_public(&bad);
    }
}

/// The tests above, one after another.
#[cfg(target_arch = "x86_64")]
fn the_tests_above() {
    every_small_chunking_of_the_hard_cases();
    runs_of_continuation_bytes_across_cuts();
    valid_text_in_every_chunking();
    large_inputs_with_errors_near_cuts();
    the_first_of_several_errors();
    around_the_threshold();
    real_text();
}

test_in_own_process!(
    /// The tests above with every chunk checked as part of a long input,
    /// as the chunks of inputs of 16 MiB and more are where the CPU takes
    /// no prefetch hints (the AVX-512 kernel's look-behind shifted in).
    the_tests_as_a_long_input runs long_input_everywhere {
        utf8guard::__bench::with_shuffles_from(Some(0), the_tests_above);
    }
);

/// The tests above with every chunk checked as part of a long input where
/// the CPU takes prefetch hints: the chunks longer than 1 KiB through the
/// kernels' entry point for them, with the hints of a long input. Run with
/// each kernel forced (`UTF8GUARD_KERNEL`, as `scripts/test.sh` does), it
/// covers each kernel's.
#[cfg(target_arch = "x86_64")]
#[test]
fn the_tests_as_a_long_input_with_hints() {
    common::run_in_own_process("long_input_with_hints_everywhere");
}

#[cfg(target_arch = "x86_64")]
#[test]
#[ignore = "run by another test of this binary, in a process of its own"]
fn long_input_with_hints_everywhere() {
    utf8guard::__bench::with_prefetch(Some(true), || {
        utf8guard::__bench::with_shuffles_from(Some(0), the_tests_above)
    });
}

fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => any::<String>().prop_map(String::into_bytes),
        1 => prop::sample::select(MALFORMED.iter().map(|m| m.0.to_vec()).collect::<Vec<_>>()),
        1 => prop::sample::select(TRUNCATED.iter().map(|t| t.to_vec()).collect::<Vec<_>>()),
        1 => prop::collection::vec(0x80u8..0xC0, 0..6),
        1 => prop::collection::vec(any::<u8>(), 0..6),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_inputs_and_chunk_sizes(
        pieces in prop::collection::vec(piece(), 0..12),
        chunk_len in 4usize..64,
    ) {
        check_split(&pieces.concat(), chunk_len);
    }
}

//! Every kernel against core and the reference DFA, with exact positions.

#[macro_use]
mod common;

use common::{check, filler, MALFORMED, TRUNCATED};
use proptest::prelude::*;
use utf8guard::{ErrorKind, Kernel};

#[test]
fn the_kernels_under_test() {
    let names: Vec<_> = Kernel::available().map(|k| k.name()).collect();
    eprintln!(
        "kernels available here: {names:?}; active: {}",
        utf8guard::active_kernel()
    );
    assert!(names.contains(&"scalar"));
}

#[test]
fn all_one_and_two_byte_sequences() {
    check(b"");
    for a in 0..=255u8 {
        check(&[a]);
        for b in 0..=255u8 {
            check(&[a, b]);
        }
    }
}

#[test]
fn all_three_byte_sequences() {
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            for c in 0..=255u8 {
                check(&[a, b, c]);
            }
        }
    }
}

/// The same on the vector kernels alone, against the DFA: the slim form of
/// the test above that emulated runs (NEON under qemu) can afford.
#[test]
fn all_three_byte_sequences_vector_kernels() {
    for kernel in Kernel::available().filter(|&k| k != Kernel::Scalar) {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                for c in 0..=255u8 {
                    let input = [a, b, c];
                    let expected =
                        utf8guard_dfa::validate(&input).map_err(|e| (e.valid_up_to, e.error_len));
                    let got = kernel
                        .from_utf8(&input)
                        .map(|_| ())
                        .map_err(|e| (e.valid_up_to(), e.error_len()));
                    assert_eq!(got, expected, "{kernel} on {input:02X?}");
                }
            }
        }
    }
}

#[test]
fn four_byte_sequences_with_four_byte_leads() {
    for a in 0xF0..=0xF4u8 {
        for b in 0x80..=0xC0u8 {
            for c in [0x41, 0x80, 0xBF, 0xC3] {
                for d in 0..=255u8 {
                    check(&[a, b, c, d]);
                }
            }
        }
    }
}

/// Each malformation after `offset` bytes of well-formed text of each
/// style, followed by more text: every lane of every vector width, and
/// across the 16-, 32- and 64-byte boundaries; the longest tail makes every
/// input longer than 256 bytes, where the AVX-512 kernel stops using
/// 32-byte vectors.
#[test]
fn every_malformation_at_every_offset() {
    for &(bad, kind) in MALFORMED {
        for offset in 0..=200 {
            for style in 0..4 {
                for tail in [0, 1, 3, 17, 70, 300] {
                    let mut input = filler(offset, style);
                    input.extend_from_slice(bad);
                    input.extend_from_slice(&filler(tail, style + 1));
                    check(&input);
                    let err = utf8guard::from_utf8(&input).unwrap_err();
                    assert_eq!(err.valid_up_to(), offset);
                    assert_eq!(err.kind(), kind, "{bad:02X?} at {offset}");
                }
            }
        }
    }
}

#[test]
fn truncation_at_the_end() {
    for &cut in TRUNCATED {
        for offset in 0..=200 {
            for style in 0..4 {
                let mut input = filler(offset, style);
                input.extend_from_slice(cut);
                check(&input);
                let err = utf8guard::from_utf8(&input).unwrap_err();
                assert_eq!((err.valid_up_to(), err.error_len()), (offset, None));
                assert_eq!(err.kind(), ErrorKind::Incomplete);
            }
        }
    }
}

/// Valid text cut at every length: a cut inside a character is an error
/// with `error_len() == None`.
#[test]
fn every_prefix_of_mixed_text() {
    let text = "ASCII, Ελληνικά, Кириллица, עברית, العربية, हिन्दी, ไทย, 中文, 한국어, 😀🚀🌍 and back to ASCII. "
        .repeat(3);
    let bytes = text.as_bytes();
    for end in 0..=bytes.len() {
        check(&bytes[..end]);
        for start in [1, 2, 3, 31, 33, 63, 65] {
            if start < end {
                check(&bytes[start..end]);
            }
        }
    }
}

/// ASCII of every length up to past the kernels' ASCII scan of short
/// inputs (1024 bytes), then a character, a malformation or a cut-off
/// sequence, then ASCII or nothing: where the scan stops, and whether what
/// follows is checked from there.
#[test]
fn ascii_prefix_of_every_length_then_text_or_error() {
    let ascii = filler(1100, 0);
    let after: [&[u8]; 6] = [
        "é".as_bytes(),
        "😀".as_bytes(),
        b"\xFF",
        b"\xE0\x80\x80",
        b"\xED\xA0\x80",
        b"\xF0\x9F\x98",
    ];
    for prefix in 0..=1100 {
        for what in after {
            for tail in [0, 1, 5, 64] {
                let mut input = ascii[..prefix].to_vec();
                input.extend_from_slice(what);
                input.extend_from_slice(&ascii[..tail]);
                check(&input);
            }
        }
        check(&ascii[..prefix]);
    }
}

/// Inputs the vector kernels prefetch ahead of where they check (on
/// x86_64: blocks with non-ASCII bytes from 64 KiB less a block on, runs
/// of ASCII from 1 MiB on), and inputs just short of either length: an
/// error at the start, in the middle and at offsets from the end that
/// reach back past the prefetch distance. With the hints forced on and
/// off, so that both paths are checked whatever this CPU's default.
#[test]
fn large_inputs_with_errors_near_their_ends() {
    for hints in [true, false] {
        utf8guard::__bench::with_prefetch(Some(hints), errors_near_the_ends_of_large_inputs);
    }
}

fn errors_near_the_ends_of_large_inputs() {
    let sizes = [
        (1, 1 << 20),
        (3, (1 << 20) + 77),
        (0, (1 << 20) + 4096),
        (2, (1 << 20) - 1),
        (1, 64 << 10),
        (3, (64 << 10) + 5),
        (2, (64 << 10) - 1),
        (1, (64 << 10) - 64),
        (3, (64 << 10) - 65),
    ];
    for (style, size) in sizes {
        let clean = filler(size, style);
        let len = clean.len();
        let mut offsets = vec![0, 1, 63, 64, 127, 128, 2047, 2048, 2111, len / 2];
        offsets.extend([1, 2, 3, 64, 65, 200, 2048, 2049, 2100, 4096].map(|k| len - k));
        for at in offsets {
            let mut input = clean.clone();
            input[at] = 0xFF;
            check(&input);
        }
    }
}

#[test]
fn large_inputs_with_late_errors() {
    for style in 0..4 {
        let mut input = filler(1 << 20, style);
        check(&input);
        let len = input.len();
        input[len - 2] = 0xC0;
        check(&input);
        input[len - 2] = b'a';
        input.push(0xF0);
        check(&input);
    }
}

#[test]
fn unaligned_slices() {
    let text = filler(4096, 2);
    let mut buf = vec![0u8; 4096 + 64];
    for shift in 0..64 {
        buf[shift..shift + 4096].copy_from_slice(&text);
        check(&buf[shift..shift + 4096]);
        buf[shift + 1000] = 0xFF;
        check(&buf[shift..shift + 4096]);
    }
}

test_in_own_process!(
    /// The strict tests above with the AVX-512 kernel shifting in its
    /// look-behind bytes, as it does from 16 MiB on where the CPU takes no
    /// prefetch hints.
    the_tests_with_shuffles runs shuffles_everywhere {
        // At the length where the shuffles start by default, with errors
        // near the end and in the middle.
        let input = filler((16 << 20) + 3, 2);
        check(&input);
        let len = input.len();
        for at in [len / 2, len - 2100, len - 65, len - 1] {
            let mut bad = input.clone();
            bad[at] = 0xFF;
            check(&bad);
        }
        // Then from the shortest input the kernels' blocks take on.
        utf8guard::__bench::with_shuffles_from(Some(0), || {
            every_malformation_at_every_offset();
            truncation_at_the_end();
            every_prefix_of_mixed_text();
            ascii_prefix_of_every_length_then_text_or_error();
            errors_near_the_ends_of_large_inputs();
            large_inputs_with_late_errors();
            unaligned_slices();
        });
    }
);

fn mutate(mut bytes: Vec<u8>, op: u8, at: usize, val: u8) -> Vec<u8> {
    if bytes.is_empty() {
        return vec![val];
    }
    let at = at % bytes.len();
    match op % 5 {
        0 => bytes[at] ^= 1 << (val % 8),
        1 => bytes.truncate(at),
        2 => {
            bytes.remove(at);
        }
        3 => bytes.insert(at, val),
        _ => {
            let (bad, _) = MALFORMED[val as usize % MALFORMED.len()];
            bytes.splice(at..at, bad.iter().copied());
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        check(&bytes);
    }

    #[test]
    fn random_text(text in "\\PC{0,200}") {
        check(text.as_bytes());
    }

    #[test]
    fn mutated_text(text in "\\PC{0,200}", ops in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 1..4)) {
        let mut bytes = text.into_bytes();
        for (op, at, val) in ops {
            bytes = mutate(bytes, op, at, val);
        }
        check(&bytes);
    }
}

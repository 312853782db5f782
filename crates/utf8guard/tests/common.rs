//! Shared by the integration tests: compare every kernel (and the
//! dispatched API) with `core::str::from_utf8` and the reference DFA.

#![allow(dead_code)]

use utf8guard::{Dialect, ErrorKind, Kernel};
use utf8guard_dfa::Automaton;

/// The code points where the dialects' encodings change: each length's
/// first and last, Corrected UTF-8's offsets and gaps, the surrogates, the
/// highest of each dialect and the first past it.
pub const CODE_POINT_EDGES: &[u32] = &[
    0x7F,
    0x80,
    0x9F,
    0xA0,
    0x7FF,
    0x800,
    0x89F,
    0x8A0,
    0xD7FF,
    0xE000,
    0xFFFF,
    0x1_0000,
    0x1_109F,
    0x1_10A0,
    0x10_FFFF,
    0x11_0000,
    0x1F_FFFF,
    0x20_0000,
    0x21_109F,
    0x21_10A0,
    0x3FF_FFFF,
    0x400_0000,
    0x421_109F,
    0x421_10A0,
    0x7FFF_FFFF,
    0x8000_0000,
    0x8421_109F,
    0x8421_10A0,
    u32::MAX,
];

/// The ill-formed sequences, one or more per cause, as they would appear in
/// the middle of text.
pub const MALFORMED: &[(&[u8], ErrorKind)] = &[
    (b"\x80", ErrorKind::UnexpectedContinuation),
    (b"\xBF", ErrorKind::UnexpectedContinuation),
    (b"\xC0\xAF", ErrorKind::InvalidByte),
    (b"\xC1\xBF", ErrorKind::InvalidByte),
    (b"\xF5\x80\x80\x80", ErrorKind::InvalidByte),
    (b"\xF8\x88\x80\x80\x80", ErrorKind::InvalidByte),
    (b"\xFF", ErrorKind::InvalidByte),
    (b"\xE0\x80\x80", ErrorKind::Overlong),
    (b"\xE0\x9F\xBF", ErrorKind::Overlong),
    (b"\xF0\x80\x80\x80", ErrorKind::Overlong),
    (b"\xF0\x8F\xBF\xBF", ErrorKind::Overlong),
    (b"\xED\xA0\x80", ErrorKind::Surrogate),
    (b"\xED\xBF\xBF", ErrorKind::Surrogate),
    (b"\xF4\x90\x80\x80", ErrorKind::TooLarge),
    (b"\xF4\xBF\xBF\xBF", ErrorKind::TooLarge),
    (b"\xC3A", ErrorKind::TooShort),
    (b"\xE2\x82A", ErrorKind::TooShort),
    (b"\xE2A", ErrorKind::TooShort),
    (b"\xF0\x9F\x98A", ErrorKind::TooShort),
    (b"\xF0\x9F\xC3\xA9", ErrorKind::TooShort),
    (b"\xC3\xC3\xA9", ErrorKind::TooShort),
];

/// Sequences that are ill formed only because the input ends there.
pub const TRUNCATED: &[&[u8]] = &[
    b"\xC3",
    b"\xE2",
    b"\xE2\x82",
    b"\xF0",
    b"\xF0\x9F",
    b"\xF0\x9F\x98",
];

/// Well-formed text of exactly `len` bytes in the given style.
pub fn filler(len: usize, style: usize) -> Vec<u8> {
    let unit: &str = match style % 4 {
        0 => "a",
        1 => "é",
        2 => "€",
        _ => "😀",
    };
    let mut out = Vec::with_capacity(len);
    while out.len() + unit.len() <= len {
        out.extend_from_slice(unit.as_bytes());
    }
    while out.len() < len {
        out.push(b'z');
    }
    out
}

/// Assert that every available kernel, `validate` and `from_utf8` agree
/// with core on `bytes`, with exact positions and the DFA's cause.
pub fn check(bytes: &[u8]) {
    let expected = core::str::from_utf8(bytes);
    let oracle = utf8guard_dfa::validate(bytes);
    assert_eq!(
        oracle.is_ok(),
        expected.is_ok(),
        "DFA vs core on {bytes:02X?}"
    );
    let mut results = vec![(
        "dispatched",
        utf8guard::validate(bytes),
        utf8guard::from_utf8(bytes),
    )];
    for kernel in Kernel::available() {
        results.push((
            kernel.name(),
            kernel.validate(bytes),
            kernel.from_utf8(bytes),
        ));
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(result) = utf8guard::__bench::avx512_without_vbmi(bytes) {
        results.push(("avx512 without VBMI", result.is_ok(), result));
    }
    // The entry points for `par`'s chunks of a long input, with prefetch
    // hints.
    #[cfg(target_arch = "x86_64")]
    for (name, kernel, vbmi) in [
        ("sse42 far", Kernel::Sse42, false),
        ("avx2 far", Kernel::Avx2, false),
        ("avx512 far", Kernel::Avx512, true),
        ("avx512 without VBMI far", Kernel::Avx512, false),
    ] {
        if let Some(result) = utf8guard::__bench::far_hinted(kernel, vbmi, bytes) {
            results.push((name, result.is_ok(), result));
        }
    }
    for (name, valid, result) in results {
        assert_eq!(valid, expected.is_ok(), "{name}: validate on {bytes:02X?}");
        match (&result, &expected) {
            (Ok(s), Ok(e)) => assert_eq!(s.as_ptr(), e.as_ptr(), "{name}"),
            (Err(ours), Err(theirs)) => {
                let dfa = oracle.unwrap_err();
                assert_eq!(
                    (ours.valid_up_to(), ours.error_len()),
                    (theirs.valid_up_to(), theirs.error_len()),
                    "{name}: error position on {bytes:02X?}"
                );
                // The engine's kinds are named as the DFA's faults.
                assert_eq!(
                    format!("{:?}", ours.kind()),
                    format!("{:?}", dfa.fault),
                    "{name}: kind"
                );
                assert_eq!(ours.to_string(), theirs.to_string(), "{name}: Display");
            }
            _ => panic!("{name}: {result:?}, core says {expected:?} on {bytes:02X?}"),
        }
    }
}

/// The reference automaton of `dialect`.
pub fn automaton(dialect: Dialect) -> &'static Automaton {
    utf8guard_dfa::ALL
        .iter()
        .copied()
        .find(|a| a.grammar().name == dialect.name())
        .expect("an automaton per dialect")
}

/// A code point for text in a dialect whose highest is `max`: ASCII with
/// weight `ascii` (against 10 for the rest), every length, surrogates, above
/// U+10FFFF where `max` allows, and the code points at the dialects'
/// boundaries.
pub fn code_point(max: u32, ascii: u32) -> impl proptest::strategy::Strategy<Value = u32> {
    use proptest::prelude::*;
    prop_oneof![
        ascii => 0x01u32..0x80,
        2 => 0x80u32..0x800,
        2 => 0x800u32..0x1_0000,
        2 => 0xD800u32..0xE000,
        2 => 0x1_0000u32..0x11_0000,
        1 => 0x11_0000u32..=max.max(0x11_0000),
        1 => prop::sample::select(vec![
            0u32, 0x7F, 0x80, 0x85, 0x9F, 0xA0, 0xD7FF, 0xE000, 0xFFFD, 0x1_109F, 0x10_FFFF
        ]),
    ]
}

/// Runs the ignored test `name` of this test binary in a process of its
/// own (with the same arguments a test binary takes) and asserts that it
/// passed. For the tests that change a setting global to the process
/// (`utf8guard::__bench::with_shuffles_from`): in a process of their own
/// they do not change what the other tests cover while they run.
#[cfg(target_arch = "x86_64")]
pub fn run_in_own_process(name: &str) {
    let exe = std::env::current_exe().expect("the test binary's path");
    let output = std::process::Command::new(exe)
        .args(["--ignored", "--exact", name, "--test-threads=1"])
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{name} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The filter matched the test, and it ran.
    assert!(stdout.contains("1 passed"), "{name} did not run:\n{stdout}");
}

/// A test `$name` that runs `$child`, an ignored test of the same binary
/// with `$body`, in a process of its own ([`run_in_own_process`]), with
/// the kernels' prefetch hints off.
#[allow(unused_macros)]
macro_rules! test_in_own_process {
    ($(#[$doc:meta])* $name:ident runs $child:ident $body:block) => {
        $(#[$doc])*
        #[cfg(target_arch = "x86_64")]
        #[test]
        fn $name() {
            common::run_in_own_process(stringify!($child));
        }

        #[cfg(target_arch = "x86_64")]
        #[test]
        #[ignore = "run by another test of this binary, in a process of its own"]
        fn $child() {
            utf8guard::__bench::with_prefetch(Some(false), || $body);
        }
    };
}

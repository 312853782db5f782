//! The std counterparts against std itself, on every short input and on
//! errors at every offset around the kernels' block edges: `compat` (std's
//! error type), `Debug` of the error, `string_from_utf8` and its lossy
//! form, `utf8_chunks`.

mod common;

use common::{filler, MALFORMED, TRUNCATED};
use proptest::prelude::*;

/// Inputs: every one of up to 2 bytes, and text with each malformation and
/// truncation at offsets around 16, 32, 64 and 128 bytes, in each filler
/// style, several errors in a row, and an unfinished character at the end.
fn inputs() -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    for a in 0..=255u8 {
        out.push(vec![a]);
        for b in 0..=255u8 {
            out.push(vec![a, b]);
        }
    }
    let offsets = [
        0, 1, 2, 3, 13, 15, 16, 17, 31, 32, 33, 61, 63, 64, 65, 127, 128, 130,
    ];
    let bads: Vec<&[u8]> = MALFORMED
        .iter()
        .map(|&(b, _)| b)
        .chain(TRUNCATED.iter().copied())
        .collect();
    for &at in &offsets {
        for style in 0..4 {
            for bad in &bads {
                let mut input = filler(at, style);
                input.extend_from_slice(bad);
                out.push(input.clone());
                input.extend_from_slice(&filler(70, style + 1));
                out.push(input.clone());
                input.extend_from_slice(bad);
                input.extend_from_slice(b"\xFF\x80\xC3");
                out.push(input);
            }
        }
    }
    out
}

fn check_compat(bytes: &[u8]) {
    assert_eq!(
        utf8guard::compat::from_utf8(bytes),
        std::str::from_utf8(bytes),
        "{bytes:02X?}"
    );
    let (mut ours, mut theirs) = (bytes.to_vec(), bytes.to_vec());
    assert_eq!(
        utf8guard::compat::from_utf8_mut(&mut ours),
        std::str::from_utf8_mut(&mut theirs),
        "{bytes:02X?}"
    );
}

fn check_debug(bytes: &[u8]) {
    if let (Err(ours), Err(theirs)) = (utf8guard::from_utf8(bytes), std::str::from_utf8(bytes)) {
        let std_debug = format!("{theirs:?}");
        let expected = format!(
            "{}, kind: {:?} }}",
            std_debug.strip_suffix(" }").unwrap(),
            ours.kind()
        );
        assert_eq!(format!("{ours:?}"), expected, "{bytes:02X?}");
    }
}

fn check_owned(bytes: &[u8]) {
    let ours = utf8guard::string_from_utf8(bytes.to_vec());
    let theirs = String::from_utf8(bytes.to_vec());
    match (ours, theirs) {
        (Ok(o), Ok(t)) => assert_eq!(o, t),
        (Err(o), Err(t)) => {
            assert_eq!(o.as_bytes(), t.as_bytes());
            assert_eq!(o.to_string(), t.to_string(), "{bytes:02X?}");
            let (oe, te) = (o.utf8_error(), t.utf8_error());
            assert_eq!(
                (oe.valid_up_to(), oe.error_len()),
                (te.valid_up_to(), te.error_len()),
                "{bytes:02X?}"
            );
            assert_eq!(o.clone().into_bytes(), t.into_bytes());
            assert_eq!(
                o.into_utf8_lossy(),
                String::from_utf8_lossy(bytes),
                "{bytes:02X?}"
            );
        }
        (o, t) => panic!("{bytes:02X?}: {o:?} vs {t:?}"),
    }
    assert_eq!(
        utf8guard::string_from_utf8_lossy(bytes.to_vec()),
        String::from_utf8_lossy(bytes),
        "{bytes:02X?}"
    );
}

fn check_chunks(bytes: &[u8]) {
    let ours: Vec<(&str, &[u8])> = utf8guard::utf8_chunks(bytes)
        .map(|c| (c.valid(), c.invalid()))
        .collect();
    let theirs: Vec<(&str, &[u8])> = bytes
        .utf8_chunks()
        .map(|c| (c.valid(), c.invalid()))
        .collect();
    assert_eq!(ours, theirs, "{bytes:02X?}");
}

fn check_all(bytes: &[u8]) {
    check_compat(bytes);
    check_debug(bytes);
    check_owned(bytes);
    check_chunks(bytes);
}

#[test]
fn every_short_input_and_every_error_near_block_edges() {
    for input in inputs() {
        check_all(&input);
    }
}

#[test]
fn debug_shows_what_std_shows_and_the_kind() {
    let err = utf8guard::from_utf8(b"abc\xE2\x82").unwrap_err();
    assert_eq!(
        format!("{err:?}"),
        "Utf8Error { valid_up_to: 3, error_len: None, kind: Incomplete }"
    );
    let err = utf8guard::from_utf8(b"ab\xC0\xAF").unwrap_err();
    assert_eq!(
        format!("{err:?}"),
        "Utf8Error { valid_up_to: 2, error_len: Some(1), kind: InvalidByte }"
    );
}

#[test]
fn owned_conversions_keep_the_allocation_when_valid() {
    let bytes = "Größe ✓".repeat(100).into_bytes();
    let address = bytes.as_ptr();
    let text = utf8guard::string_from_utf8(bytes).unwrap();
    assert_eq!(text.as_ptr(), address);
    let bytes = text.into_bytes();
    let text = utf8guard::string_from_utf8_lossy(bytes);
    assert_eq!(text.as_ptr(), address);
    // Invalid: the error gives back the very same vector.
    let mut bytes = text.into_bytes();
    bytes[5] = 0xFF;
    let err = utf8guard::string_from_utf8(bytes).unwrap_err();
    assert_eq!(err.as_bytes().as_ptr(), address);
    let back = err.into_bytes();
    assert_eq!(back.as_ptr(), address);
}

#[test]
fn chunks_of_a_large_input_with_sparse_errors() {
    let mut bytes = "κόσμε 😀 abc ".repeat(50_000).into_bytes();
    for at in [0, 17, 4096, 100_000, 900_001, bytes.len() - 1] {
        bytes[at] = 0xFF;
    }
    check_chunks(&bytes);
    let mut chunks = utf8guard::utf8_chunks(b"a\xFFb");
    assert_eq!(chunks.next().unwrap().valid(), "a");
    assert_eq!(chunks.remainder(), b"b");
}

proptest! {
    #[test]
    fn random_mixes_agree_with_std(
        parts in prop::collection::vec(
            prop_oneof![
                "[a-z ]{0,40}".prop_map(String::into_bytes),
                "\\PC{0,20}".prop_map(String::into_bytes),
                prop::collection::vec(any::<u8>(), 0..6),
                prop::sample::select(vec![
                    &b"\xF0\x9F\x98"[..], b"\xED\xA0\x80", b"\xE2\x82", b"\xC0\xAF", b"\x80",
                ]).prop_map(<[u8]>::to_vec),
            ],
            0..30,
        )
    ) {
        let bytes: Vec<u8> = parts.concat();
        check_all(&bytes);
    }
}

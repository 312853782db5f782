//! `StreamValidator` against `from_utf8` (and core) on the concatenation of
//! its chunks, for every way of splitting the hard cases and for random
//! chunkings.

#[macro_use]
mod common;

use common::{filler, MALFORMED, TRUNCATED};
use proptest::prelude::*;
use utf8guard::{ErrorKind, StreamValidator, Utf8Error};

/// Feed `chunks` and finish, checking after every chunk that the
/// validator's state is what the reference DFA says of the bytes so far:
/// an error exactly when the DFA has rejected, and otherwise the same
/// number of pending bytes. Returns the first error.
fn run_stream(chunks: &[&[u8]]) -> Result<(), Utf8Error> {
    let mut stream = StreamValidator::new();
    // The reference DFA, fed the same bytes, knows how many bytes of an
    // unfinished character are pending after each chunk.
    let mut dfa = utf8guard_dfa::State::ACCEPT;
    let mut fed = 0;
    for chunk in chunks {
        fed += chunk.len();
        for &b in *chunk {
            if dfa != utf8guard_dfa::State::REJECT {
                dfa = dfa.next(b);
            }
        }
        match stream.update(chunk) {
            Ok(()) => {
                // Everything so far is valid, or valid up to a character
                // that the next chunk may complete.
                assert_ne!(dfa, utf8guard_dfa::State::REJECT, "update said Ok");
                let pending = dfa.depth();
                assert_eq!(stream.pending(), pending, "pending after {fed} bytes");
                assert_eq!(stream.valid_up_to(), fed - pending);
                assert_eq!(stream.bytes_seen(), fed);
            }
            Err(e) => {
                assert_eq!(dfa, utf8guard_dfa::State::REJECT, "update failed early");
                assert_eq!(stream.error(), Some(e));
                assert_eq!(stream.valid_up_to(), e.valid_up_to());
                // The error sticks.
                assert_eq!(stream.update(b"more"), Err(e));
                assert_eq!(stream.clone().finish(), Err(e));
                return Err(e);
            }
        }
    }
    let at_end = stream.check_complete();
    assert_eq!(stream.finish(), at_end);
    at_end
}

/// The streamed result equals `from_utf8` on the concatenation, and its
/// positions equal core's.
fn check_chunks(chunks: &[&[u8]]) {
    let whole: Vec<u8> = chunks.concat();
    let streamed = run_stream(chunks);
    let expected = utf8guard::from_utf8(&whole).map(|_| ());
    assert_eq!(streamed, expected, "chunks {chunks:02X?}");
    let core = core::str::from_utf8(&whole);
    match (streamed, core) {
        (Ok(()), Ok(_)) => {}
        (Err(ours), Err(theirs)) => assert_eq!(
            (ours.valid_up_to(), ours.error_len()),
            (theirs.valid_up_to(), theirs.error_len())
        ),
        (ours, theirs) => panic!("stream {ours:?}, core {theirs:?} on {chunks:02X?}"),
    }
}

/// Every split of `bytes` into two and into three chunks.
fn check_all_splits(bytes: &[u8]) {
    check_chunks(&[bytes]);
    for i in 0..=bytes.len() {
        check_chunks(&[&bytes[..i], &bytes[i..]]);
        for j in i..=bytes.len() {
            check_chunks(&[&bytes[..i], &bytes[i..j], &bytes[j..]]);
        }
    }
}

#[test]
fn documented_examples() {
    // A three-byte character split one byte at a time.
    let mut stream = StreamValidator::new();
    assert_eq!(stream.update(b"x\xE2"), Ok(()));
    assert_eq!((stream.valid_up_to(), stream.pending()), (1, 1));
    assert_eq!(stream.update(b"\x82"), Ok(()));
    assert_eq!((stream.valid_up_to(), stream.pending()), (1, 2));
    assert_eq!(stream.update(b"\xAC"), Ok(()));
    assert_eq!((stream.valid_up_to(), stream.pending()), (4, 0));
    assert_eq!(stream.finish(), Ok(()));

    // An error in the third chunk, placed in the whole stream.
    let mut stream = StreamValidator::new();
    stream.update(b"0123456789").unwrap();
    stream.update(b"abc\xC3").unwrap();
    let err = stream.update(b"\xA9\xA9").unwrap_err();
    assert_eq!(err.valid_up_to(), 15);
    assert_eq!(err.error_len(), Some(1));
    assert_eq!(err.kind(), ErrorKind::UnexpectedContinuation);
    assert_eq!(stream.bytes_seen(), 16);

    // A cut-short character completed by a byte that cannot continue it.
    let mut stream = StreamValidator::new();
    stream.update(b"ab\xF0\x9F").unwrap();
    let err = stream.update(b"\x98!").unwrap_err();
    assert_eq!((err.valid_up_to(), err.error_len()), (2, Some(3)));
    assert_eq!(err.kind(), ErrorKind::TooShort);

    // An error in the carried bytes' second byte: E0 80 is overlong.
    let mut stream = StreamValidator::new();
    stream.update(b"abcd\xE0").unwrap();
    let err = stream.update(b"\x80\x80").unwrap_err();
    assert_eq!((err.valid_up_to(), err.error_len()), (4, Some(1)));
    assert_eq!(err.kind(), ErrorKind::Overlong);

    // Truncated at the end.
    let mut stream = StreamValidator::new();
    stream.update(b"12345\xF4").unwrap();
    stream.update(b"\x8F\xBF").unwrap();
    let err = stream.finish().unwrap_err();
    assert_eq!((err.valid_up_to(), err.error_len()), (5, None));
    assert_eq!(err.kind(), ErrorKind::Incomplete);
    assert_eq!(
        err.to_string(),
        "incomplete utf-8 byte sequence from index 5"
    );
}

#[test]
fn empty_stream_and_empty_chunks() {
    assert_eq!(StreamValidator::new().finish(), Ok(()));
    assert_eq!(StreamValidator::default().finish(), Ok(()));
    let mut stream = StreamValidator::new();
    for chunk in [
        &b""[..],
        b"\xF0",
        b"",
        b"\x9F",
        b"",
        b"\x98",
        b"",
        b"\x80",
        b"",
    ] {
        assert_eq!(stream.update(chunk), Ok(()));
    }
    assert_eq!(stream.bytes_seen(), 4);
    assert_eq!(stream.valid_up_to(), 4);
    assert_eq!(stream.finish(), Ok(()));
}

#[test]
fn reset_starts_over() {
    let mut stream = StreamValidator::new();
    stream.update(b"\xFF").unwrap_err();
    stream.reset();
    assert_eq!(stream.error(), None);
    assert_eq!(stream.update("née".as_bytes()), Ok(()));
    assert_eq!(stream.bytes_seen(), 4);
    assert_eq!(stream.finish(), Ok(()));
}

#[test]
fn every_split_of_every_malformed_sequence() {
    for &(bad, _) in MALFORMED {
        for style in 0..4 {
            let mut bytes = filler(5, style);
            bytes.extend_from_slice(bad);
            bytes.extend_from_slice(&filler(5, style + 1));
            check_all_splits(&bytes);
        }
    }
}

#[test]
fn every_split_of_every_truncated_ending() {
    for &cut in TRUNCATED {
        for style in 0..4 {
            let mut bytes = filler(6, style);
            bytes.extend_from_slice(cut);
            check_all_splits(&bytes);
            // Followed by ASCII or a lead byte, the cut is an error.
            for next in [&b"z"[..], b"\xC3\xA9", b"\xF0\x9F\x98\x80"] {
                let mut bytes = bytes.clone();
                bytes.extend_from_slice(next);
                check_all_splits(&bytes);
            }
        }
    }
}

#[test]
fn every_split_of_valid_characters() {
    let text =
        "a\u{7F}\u{80}é\u{7FF}\u{800}€\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}\u{10000}😀\u{10FFFF}z";
    check_all_splits(text.as_bytes());
}

#[test]
fn one_byte_at_a_time() {
    let mut bytes = Vec::new();
    for style in 0..4 {
        bytes.extend_from_slice(&filler(100, style));
    }
    let chunks: Vec<&[u8]> = bytes.chunks(1).collect();
    check_chunks(&chunks);
    for &(bad, _) in MALFORMED {
        let mut with_error = bytes.clone();
        with_error.splice(201..201, bad.iter().copied());
        let chunks: Vec<&[u8]> = with_error.chunks(1).collect();
        check_chunks(&chunks);
    }
}

#[test]
fn large_chunks_with_errors_near_their_edges() {
    // 4 KiB chunks and up go through the kernels; put errors and split
    // characters on and around chunk edges.
    let chunk = 4096;
    let base: Vec<u8> = (0..4).flat_map(|s| filler(3 * chunk, s)).collect();
    for &chunk_len in &[chunk, chunk + 1, 65536] {
        for delta in [-4isize, -3, -2, -1, 0, 1, 2, 3] {
            let at = (2 * chunk_len) as isize + delta;
            let at = at as usize;
            if at >= base.len() {
                continue;
            }
            for &(bad, _) in MALFORMED
                .iter()
                .chain(&[(&b"\xF0\x9F\x98\x80"[..], ErrorKind::Incomplete)])
            {
                let mut bytes = base.clone();
                bytes.splice(at..at, bad.iter().copied());
                let chunks: Vec<&[u8]> = bytes.chunks(chunk_len).collect();
                check_chunks(&chunks);
            }
        }
    }
}

#[test]
fn real_text_in_odd_chunks() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/lipsum");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipping: corpus folder {} is absent", dir.display());
        return;
    };
    let mut files = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".utf8.txt") {
            continue;
        }
        files += 1;
        let text = std::fs::read(&path).unwrap();
        for chunk_len in [1, 7, 4093, 65536] {
            let chunks: Vec<&[u8]> = text.chunks(chunk_len).collect();
            assert_eq!(run_stream(&chunks), Ok(()), "{}", path.display());
        }
        // One stray continuation byte inserted two thirds of the way in,
        // on a character boundary.
        let mut at = text.len() * 2 / 3;
        while text[at] & 0xC0 == 0x80 {
            at += 1;
        }
        let mut bad = text.clone();
        bad.insert(at, 0x80);
        for chunk_len in [1, 3, 4096, 65536] {
            let chunks: Vec<&[u8]> = bad.chunks(chunk_len).collect();
            let err = run_stream(&chunks).unwrap_err();
            assert_eq!((err.valid_up_to(), err.error_len()), (at, Some(1)));
        }
    }
    assert!(files > 0, "no corpus files in {}", dir.display());
}

/// Pieces that make hard inputs when strung together.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-z ]{0,40}".prop_map(String::into_bytes),
        4 => any::<String>().prop_map(String::into_bytes),
        1 => prop::sample::select(MALFORMED.iter().map(|m| m.0.to_vec()).collect::<Vec<_>>()),
        1 => prop::sample::select(TRUNCATED.iter().map(|t| t.to_vec()).collect::<Vec<_>>()),
        1 => prop::collection::vec(any::<u8>(), 0..6),
        1 => (0usize..200, 0usize..4).prop_map(|(len, style)| filler(len, style)),
    ]
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(piece(), 0..12).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_chunkings_agree_with_from_utf8(
        bytes in bytes(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for cut in cuts {
            chunks.push(&bytes[start..cut]);
            start = cut;
        }
        chunks.push(&bytes[start..]);
        check_chunks(&chunks);
    }
}

test_in_own_process!(
    /// The tests above with every piece checked as part of a buffer longer
    /// than the caches, as the pieces of one stretch of memory of 16 MiB
    /// and more are where the CPU takes no prefetch hints (the AVX-512
    /// kernel's look-behind shifted in, up to the last character of each
    /// piece, which goes the usual way).
    the_tests_as_pieces_of_a_long_buffer runs long_buffer_everywhere {
        utf8guard::__bench::with_shuffles_from(Some(0), || {
            documented_examples();
            empty_stream_and_empty_chunks();
            every_split_of_every_malformed_sequence();
            every_split_of_every_truncated_ending();
            every_split_of_valid_characters();
            one_byte_at_a_time();
            large_chunks_with_errors_near_their_edges();
            real_text_in_odd_chunks();
            random_chunkings_agree_with_from_utf8();
        })
    }
);

/// `trim_partial_utf8` holds back a lead byte in the last 3 bytes and the
/// continuation bytes after it, and nothing else; and a cut there splits
/// no character: each side's `from_utf8_lossy` put together is the whole's.
#[test]
fn trim_partial_utf8_cuts_before_a_last_lead_byte() {
    use utf8guard::trim_partial_utf8;
    let cases: [(&[u8], usize); 9] = [
        (b"", 0),
        (b"ab", 2),
        (b"a\xE2\x82", 1),
        (b"a\xE2\x82\xAC", 1),
        (b"\x80\x80\x80", 3),
        (b"\xF0\x80\x80\x80", 4),
        (b"a\x80\x80", 3),
        (b"ab\xF4", 2),
        (b"\xC3\xA9z", 3),
    ];
    for (bytes, want) in cases {
        assert_eq!(trim_partial_utf8(bytes), want, "{bytes:02X?}");
    }
    let text = b"a\xE2\x82\xACb\xE2\x82c\xF0\x9F\x98\x80\xF0\x9F\x98\xED\xA0\x80\xC3";
    for end in 0..=text.len() {
        for tail in 0..=text.len() - end {
            let piece = &text[..end];
            let cut = trim_partial_utf8(piece);
            let whole = &text[..end + tail];
            let apart =
                String::from_utf8_lossy(&whole[..cut]) + String::from_utf8_lossy(&whole[cut..]);
            assert_eq!(
                apart,
                String::from_utf8_lossy(whole),
                "{whole:02X?} cut at {cut}"
            );
        }
    }
}

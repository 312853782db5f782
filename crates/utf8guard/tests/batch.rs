//! `validate_offsets`, `invalid_strings` and `validate_batch` against a
//! plain reference: check the offsets one by one, then every string with
//! `from_utf8`.

mod common;

use common::{filler, MALFORMED, TRUNCATED};
use proptest::prelude::*;
use utf8guard::{invalid_strings, validate_batch, validate_offsets, BatchError, Utf8Error};

/// The specification, written the slow way, over `i64` offsets.
fn reference(values: &[u8], offsets: &[i64]) -> Result<(), BatchError> {
    for (index, &o) in offsets.iter().enumerate() {
        if o < 0 {
            return Err(BatchError::Negative { index });
        }
        if index > 0 && o < offsets[index - 1] {
            return Err(BatchError::Decreasing {
                index,
                offset: o as u64,
                previous: offsets[index - 1] as u64,
            });
        }
        if o as usize > values.len() {
            return Err(BatchError::OutOfRange {
                index,
                offset: o as u64,
                len: values.len(),
            });
        }
    }
    for (index, pair) in offsets.windows(2).enumerate() {
        let string = &values[pair[0] as usize..pair[1] as usize];
        let core = std::str::from_utf8(string);
        if let Err(error) = utf8guard::from_utf8(string) {
            let core = core.unwrap_err();
            assert_eq!(
                (error.valid_up_to(), error.error_len()),
                (core.valid_up_to(), core.error_len())
            );
            return Err(BatchError::Invalid { index, error });
        }
        assert!(core.is_ok());
    }
    Ok(())
}

/// Every string that is not UTF-8, with its error, the slow way (for
/// offsets the reference accepts).
fn reference_all(values: &[u8], offsets: &[i64]) -> Vec<(usize, Utf8Error)> {
    offsets
        .windows(2)
        .enumerate()
        .filter_map(|(index, pair)| {
            let string = &values[pair[0] as usize..pair[1] as usize];
            utf8guard::from_utf8(string)
                .err()
                .map(|error| (index, error))
        })
        .collect()
}

/// `validate_offsets` agrees with the reference for every offset type that
/// can hold the offsets, and `invalid_strings` finds every bad string.
fn check(values: &[u8], offsets: &[i64]) {
    let expected = reference(values, offsets);
    let every = invalid_strings(values, offsets).map(|bad| bad.collect::<Vec<_>>());
    match expected {
        Ok(()) | Err(BatchError::Invalid { .. }) => {
            let every = every.expect("sound offsets");
            assert_eq!(
                every,
                reference_all(values, offsets),
                "invalid_strings {offsets:?} over {values:02X?}"
            );
            let first = every
                .first()
                .map(|&(index, error)| BatchError::Invalid { index, error });
            assert_eq!(first.map_or(Ok(()), Err), expected);
        }
        Err(offsets_error) => assert_eq!(every, Err(offsets_error), "invalid_strings"),
    }
    let as_i64 = validate_offsets(values, offsets);
    assert_eq!(
        as_i64, expected,
        "i64 offsets {offsets:?} over {values:02X?}"
    );
    if offsets.iter().all(|&o| i32::try_from(o).is_ok()) {
        let narrow: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
        assert_eq!(validate_offsets(values, &narrow), expected, "i32");
    }
    if offsets.iter().all(|&o| o >= 0) {
        let wide: Vec<usize> = offsets.iter().map(|&o| o as usize).collect();
        assert_eq!(validate_offsets(values, &wide), expected, "usize");
        let wide: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
        assert_eq!(validate_offsets(values, &wide), expected, "u32");
    }
    // The same strings, as separate slices (when the offsets are sound).
    if !matches!(
        expected,
        Err(BatchError::Negative { .. }
            | BatchError::Decreasing { .. }
            | BatchError::OutOfRange { .. })
    ) {
        let strings: Vec<&[u8]> = offsets
            .windows(2)
            .map(|p| &values[p[0] as usize..p[1] as usize])
            .collect();
        assert_eq!(validate_batch(&strings), expected, "validate_batch");
    }
}

#[test]
fn documented_cases() {
    let values = "aé€😀".as_bytes(); // 1 + 2 + 3 + 4 bytes
    assert_eq!(validate_offsets(values, &[0i32, 1, 3, 6, 10]), Ok(()));
    assert_eq!(validate_offsets(values, &[0i32, 10]), Ok(()));
    assert_eq!(validate_offsets(values, &[0i32, 0, 0, 10, 10]), Ok(()));
    assert_eq!(validate_offsets(values, &[0i32]), Ok(()));
    assert_eq!(validate_offsets::<i64>(values, &[]), Ok(()));
    // Bytes after the last offset belong to no string.
    assert_eq!(validate_offsets(b"ok\xFF", &[0usize, 2]), Ok(()));

    // An offset inside "€" (E2 82 AC): string 2 ends inside it.
    let err = validate_offsets(values, &[0i32, 1, 3, 5, 10]).unwrap_err();
    let BatchError::Invalid { index, error } = err else {
        panic!("{err:?}")
    };
    assert_eq!(index, 2);
    assert_eq!((error.valid_up_to(), error.error_len()), (0, None));
    assert_eq!(
        err.to_string(),
        "string 2 is not valid UTF-8: incomplete utf-8 byte sequence from index 0"
    );

    // An error in the values, in the middle of string 1.
    let values = b"first second\xC0 third!"; // 20 bytes
    let err = validate_offsets(values, &[0i64, 6, 14, 20]).unwrap_err();
    assert_eq!(err.index(), 1);
    let error = err.utf8_error().unwrap();
    assert_eq!((error.valid_up_to(), error.error_len()), (6, Some(1)));
    assert_eq!(error.kind(), utf8guard::ErrorKind::InvalidByte);

    // Offset problems, with their messages.
    let cases: [(&[i64], BatchError, &str); 5] = [
        (
            &[5, 2],
            BatchError::Decreasing {
                index: 1,
                offset: 2,
                previous: 5,
            },
            "offsets[1] = 2 is less than offsets[0] = 5",
        ),
        (
            &[0, -1, 5],
            BatchError::Negative { index: 1 },
            "offsets[1] is negative",
        ),
        (
            &[0, 9, 4, 20],
            BatchError::Decreasing {
                index: 2,
                offset: 4,
                previous: 9,
            },
            "offsets[2] = 4 is less than offsets[1] = 9",
        ),
        (
            &[0, 4, 21],
            BatchError::OutOfRange {
                index: 2,
                offset: 21,
                len: 20,
            },
            "offsets[2] = 21 is past the end of the values (20 bytes)",
        ),
        // Past the end in the middle, back in range at the end.
        (
            &[0, 30, 10],
            BatchError::OutOfRange {
                index: 1,
                offset: 30,
                len: 20,
            },
            "offsets[1] = 30 is past the end of the values (20 bytes)",
        ),
    ];
    for (offsets, error, message) in cases {
        assert_eq!(validate_offsets(values, offsets), Err(error));
        assert_eq!(error.to_string(), message);
        assert_eq!(error.utf8_error(), None);
    }
    // Extreme values never index out of bounds.
    assert_eq!(
        validate_offsets(values, &[0usize, usize::MAX]),
        Err(BatchError::OutOfRange {
            index: 1,
            offset: usize::MAX as u64,
            len: 20
        })
    );
    assert_eq!(
        validate_offsets(values, &[0i64, i64::MAX, 3]),
        Err(BatchError::OutOfRange {
            index: 1,
            offset: i64::MAX as u64,
            len: 20
        })
    );
    assert_eq!(
        validate_offsets(values, &[0i32, 5, i32::MIN]),
        Err(BatchError::Negative { index: 2 })
    );
    assert_eq!(
        validate_offsets(values, &[i32::MIN]),
        Err(BatchError::Negative { index: 0 })
    );
    assert_eq!(
        validate_offsets(values, &[21i64]),
        Err(BatchError::OutOfRange {
            index: 0,
            offset: 21,
            len: 20
        })
    );
}

/// Offsets of a sliced column start where its first string does; a single
/// offset (anywhere in range) describes no strings.
#[test]
fn offsets_that_do_not_start_at_zero() {
    let values = "aé€😀".as_bytes(); // strings at 0, 1, 3, 6, 10
    assert_eq!(validate_offsets(values, &[1i32, 3, 6, 10]), Ok(()));
    assert_eq!(validate_offsets(values, &[3i64, 6]), Ok(()));
    assert_eq!(validate_offsets(values, &[6usize, 6, 10, 10]), Ok(()));
    for at in 0..=10i32 {
        // Even inside a character: no string, no byte to check.
        assert_eq!(validate_offsets(values, &[at]), Ok(()), "[{at}]");
        assert_eq!(validate_offsets(values, &[at, at]), Ok(()), "[{at}, {at}]");
    }
    // Bytes before the first offset are not checked.
    assert_eq!(validate_offsets(b"\xFF\xC0ok", &[2u32, 3, 4]), Ok(()));

    // A first string that starts inside "€" (E2 82 AC): its first byte is
    // a continuation byte.
    let err = validate_offsets(values, &[4i32, 6, 10]).unwrap_err();
    assert_eq!(err.index(), 0);
    let error = err.utf8_error().unwrap();
    assert_eq!((error.valid_up_to(), error.error_len()), (0, Some(1)));
    assert_eq!(error.kind(), utf8guard::ErrorKind::UnexpectedContinuation);
    // The same, after an empty first string.
    let err = validate_offsets(values, &[4i32, 4, 10]).unwrap_err();
    assert_eq!(err.index(), 1);
    assert_eq!(err.utf8_error().unwrap().valid_up_to(), 0);
    // A last string that ends inside "😀" (F0 9F 98 80).
    let err = validate_offsets(values, &[1i64, 3, 8]).unwrap_err();
    assert_eq!(err.index(), 1);
    let error = err.utf8_error().unwrap();
    assert_eq!((error.valid_up_to(), error.error_len()), (3, None));
    assert_eq!(error.kind(), utf8guard::ErrorKind::Incomplete);

    // An error inside the slice, in its third string ("ine b\xE9d").
    let values = b"skip\xFFme, then ok fine b\xE9d end"; // 29 bytes
    let err = validate_offsets(values, &[10i32, 15, 18, 25, 29]).unwrap_err();
    assert_eq!(err.index(), 2);
    let error = err.utf8_error().unwrap();
    assert_eq!((error.valid_up_to(), error.error_len()), (5, Some(1)));
    assert_eq!(error.kind(), utf8guard::ErrorKind::TooShort);

    // Offset problems are still found, at the lowest index.
    assert_eq!(
        validate_offsets(values, &[10i32, 9, 12]),
        Err(BatchError::Decreasing {
            index: 1,
            offset: 9,
            previous: 10
        })
    );
    assert_eq!(
        validate_offsets(values, &[10i32, 40, 29]),
        Err(BatchError::OutOfRange {
            index: 1,
            offset: 40,
            len: 29
        })
    );
    assert_eq!(
        validate_offsets(values, &[40i32, 41]),
        Err(BatchError::OutOfRange {
            index: 0,
            offset: 40,
            len: 29
        })
    );
}

/// Every slice of a column is judged as the reference judges its strings.
#[test]
fn every_slice_of_a_column() {
    let strings: [&[u8]; 8] = [
        b"id",
        "é".as_bytes(),
        b"\xE2\x82",
        b"\xAC",
        b"",
        "日本".as_bytes(),
        b"x\xFF",
        "😀".as_bytes(),
    ];
    let mut values = Vec::new();
    let mut offsets = vec![0i64];
    for s in strings {
        values.extend_from_slice(s);
        offsets.push(values.len() as i64);
    }
    for from in 0..offsets.len() {
        for to in from..offsets.len() {
            check(&values, &offsets[from..=to]);
        }
    }
}

#[test]
fn the_first_bad_string_wins() {
    // String 1 ends inside "é", string 3 holds an invalid byte: 1 first.
    let values = "aaé\u{0}bb\u{0}".as_bytes().to_vec();
    let mut values = values;
    values[5] = 0xFF; // the first "b"
    check(&values, &[0, 3, 4, 5, 7]);
    // And the other way round.
    check(&values, &[0, 2, 4, 6, 7]);
    check(&values, &[0, 2, 4, 5, 6]);
}

#[test]
fn every_offset_array_over_small_values() {
    let samples: &[&[u8]] = &[
        "a€é".as_bytes(),
        b"\xE2\x82\xAC\x80a",
        b"a\xF0\x9F\x98\x80",
        b"ab\xF0\x9F\x98",
        b"\xC0\xAFx",
        b"\xED\xA0\x80",
        "😀".as_bytes(),
    ];
    for values in samples {
        let n = values.len() as i64;
        // Every non-decreasing array of up to 4 offsets, plus one out of
        // range, and a few that decrease.
        for s in 0..=n {
            check(values, &[s]);
            for a in s..=n {
                check(values, &[s, a]);
                check(values, &[a, s]);
                for b in a..=n {
                    check(values, &[s, a, b]);
                    for c in b..=n + 1 {
                        check(values, &[s, a, b, c]);
                    }
                }
            }
        }
    }
}

#[test]
fn malformed_and_truncated_in_many_strings() {
    for &(bad, _) in MALFORMED {
        for style in 0..4 {
            let mut values = Vec::new();
            let mut offsets = vec![0i64];
            for i in 0..50 {
                values.extend_from_slice(&filler(i % 7, style));
                if i == 31 {
                    values.extend_from_slice(bad);
                }
                offsets.push(values.len() as i64);
            }
            check(&values, &offsets);
        }
    }
    for &cut in TRUNCATED {
        let mut values = filler(40, 2);
        values.extend_from_slice(cut);
        check(&values, &[0, 10, 20, values.len() as i64]);
        check(&values, &[0, 10, 20, values.len() as i64 - 1]);
    }
}

#[test]
fn a_million_short_strings() {
    let words = ["", "a", "ok", "née", "€", "日本", "😀x", "Größe", "ab"];
    let mut values = Vec::new();
    let mut offsets = vec![0i64];
    for i in 0..1_000_000 {
        values.extend_from_slice(words[i % words.len()].as_bytes());
        offsets.push(values.len() as i64);
    }
    check(&values, &offsets);
    // An offset moved into the middle of a "€" far in.
    let i = (800_000..).find(|&i| i % words.len() == 4).unwrap();
    let mut moved = offsets.clone();
    moved[i + 1] -= 1;
    let err = validate_offsets(&values, &moved).unwrap_err();
    assert_eq!(err.index(), i);
    let error = err.utf8_error().unwrap();
    assert_eq!((error.valid_up_to(), error.error_len()), (0, None));
    check(&values, &moved);
}

fn string() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => "\\PC{0,6}".prop_map(String::into_bytes),
        1 => prop::sample::select(MALFORMED.iter().map(|m| m.0.to_vec()).collect::<Vec<_>>()),
        1 => prop::sample::select(TRUNCATED.iter().map(|t| t.to_vec()).collect::<Vec<_>>()),
        1 => prop::collection::vec(any::<u8>(), 0..4),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_columns(
        strings in prop::collection::vec(string(), 0..30),
        nudge in prop::option::of((any::<prop::sample::Index>(), -4i64..5)),
    ) {
        let mut values = Vec::new();
        let mut offsets = vec![0i64];
        for s in &strings {
            values.extend_from_slice(s);
            offsets.push(values.len() as i64);
        }
        check(&values, &offsets);
        // Move one offset: into a character, out of order, out of range,
        // below zero.
        if let Some((which, by)) = nudge {
            let i = which.index(offsets.len());
            offsets[i] += by;
            check(&values, &offsets);
        }
    }
}

/// Many bad strings, of every kind, next to each other and apart:
/// `invalid_strings` finds each one with its exact error.
#[test]
fn every_bad_string_of_a_column() {
    let kinds: [&[u8]; 7] = [
        b"\xFF",
        b"ab\xE2\x82",
        b"\xAC rest",
        b"\xED\xA0\x80",
        "fine".as_bytes(),
        b"",
        "ok ✓".as_bytes(),
    ];
    let mut values = Vec::new();
    let mut offsets = vec![0i64];
    for i in 0..10_000 {
        values.extend_from_slice(kinds[(i * 5 + i / 7) % kinds.len()]);
        offsets.push(values.len() as i64);
    }
    check(&values, &offsets);
    let bad = invalid_strings(&values, &offsets).unwrap().count();
    let expected = (0..10_000)
        .filter(|i| (i * 5 + i / 7) % kinds.len() < 4)
        .count();
    assert_eq!(bad, expected);
    // "ab\xE2\x82" then "\xAC rest": valid together, both invalid apart.
    let values = b"ab\xE2\x82\xAC rest";
    let bad: Vec<_> = invalid_strings(values, &[0u32, 4, 10])
        .unwrap()
        .map(|(row, e)| (row, e.valid_up_to(), e.error_len()))
        .collect();
    assert_eq!(bad, [(0, 2, None), (1, 0, Some(1))]);
    assert_eq!(invalid_strings(values, &[0u32, 10]).unwrap().count(), 0);
}

//! `Binary`/`LargeBinary` conversions and `Utf8`/`LargeUtf8` checks against
//! Arrow's own: `try_from_binary`, `ArrayData::validate_full`, `cast`.

mod common;

use arrow_array::{
    Array, BinaryArray, GenericBinaryArray, GenericStringArray, LargeBinaryArray, OffsetSizeTrait,
    StringArray,
};
use arrow_cast::{cast_with_options, CastOptions};
use arrow_data::ArrayDataBuilder;
use arrow_schema::DataType;
use common::*;
use proptest::prelude::*;
use utf8guard::ErrorKind;
use utf8guard_arrow::{
    binary_to_string, binary_to_string_lossy, binary_to_string_or_null, binary_to_string_repaired,
    invalid_values, validate, validate_binary, validate_string, Error, Replacement,
};

/// The same bytes as a string array, unchecked: an array "from an
/// untrusted source".
fn untrusted_strings<O: OffsetSizeTrait>(array: &GenericBinaryArray<O>) -> GenericStringArray<O> {
    let data_type = if O::IS_LARGE {
        DataType::LargeUtf8
    } else {
        DataType::Utf8
    };
    let builder = ArrayDataBuilder::from(array.to_data()).data_type(data_type);
    // SAFETY: the tests only hand this array to the functions under test,
    // which read its values as bytes.
    GenericStringArray::from(unsafe { builder.build_unchecked() })
}

/// The parts of a string array pass Arrow's own checks: what
/// `new_unchecked` promised.
fn assert_sound<O: OffsetSizeTrait>(strings: &GenericStringArray<O>) {
    let (offsets, values, nulls) = strings.clone().into_parts();
    GenericStringArray::<O>::try_new(offsets, values, nulls).expect("parts that try_new accepts");
}

/// Every check of the crate on `rows[from..from + len]` of a column of
/// `rows`, against the reference and Arrow.
fn check<O: OffsetSizeTrait>(all_rows: &[Row], from: usize, len: usize) {
    let full: GenericBinaryArray<O> = binary(all_rows);
    let array = full.slice(from, len);
    let rows = &all_rows[from..from + len];
    let expected = std_errors(rows);

    // Every bad row, with its error.
    let bad: Vec<_> = invalid_values(&array)
        .unwrap()
        .iter()
        .map(|(r, e)| found(*r, e))
        .collect();
    assert_eq!(bad, expected);
    for (row, e) in invalid_values(&array).unwrap() {
        assert_eq!(e, utf8guard::from_utf8(&rows[row].bytes).unwrap_err());
    }
    // The first one, from each entry point.
    let first =
        validate_binary(&array).map_err(|e| found(e.row().unwrap(), &e.utf8_error().unwrap()));
    assert_eq!(first, expected.first().map_or(Ok(()), |&f| Err(f)));
    assert_eq!(validate(&array), validate_binary(&array));
    let strings = untrusted_strings(&array);
    assert_eq!(validate_string(&strings), validate_binary(&array));
    assert_eq!(invalid_values(&strings), invalid_values(&array));

    // Arrow's full validation finds the same first row (and error).
    match (arrow_validate_full(&array), expected.first()) {
        (None, None) => {}
        (Some((row, at, len)), Some(&ours)) => {
            if rows[row].bytes.is_empty() {
                // Arrow rejects an empty string at a position inside a
                // character of the values; it is valid UTF-8 all the same.
                assert!(ours.0 > row);
            } else if at == usize::MAX {
                assert_eq!(row, ours.0, "split character");
            } else {
                assert_eq!((row, at, len), ours);
            }
        }
        (arrow, ours) => panic!("Arrow: {arrow:?}, expected {ours:?}"),
    }

    // The conversions.
    let expected_strings: GenericStringArray<O> = rows
        .iter()
        .map(|r| (!r.null).then(|| String::from_utf8_lossy(&r.bytes).into_owned()))
        .collect();
    let arrow = GenericStringArray::<O>::try_from_binary(array.clone());
    match binary_to_string(&array) {
        Ok(strings) => {
            assert!(expected.is_empty());
            assert_eq!(strings, expected_strings);
            assert_sound(&strings);
            // Zero-copy: the values are the input's.
            let input = full.value_data().as_ptr_range();
            assert!(
                strings.value_data().is_empty() || input.contains(&strings.value_data().as_ptr())
            );
            match arrow {
                Ok(arrow) => assert_eq!(strings, arrow),
                // Arrow checks the whole buffer, including other rows.
                Err(_) => assert!(len < all_rows.len() && !std_errors(all_rows).is_empty()),
            }
        }
        Err(error) => {
            assert_eq!(
                Some(found(error.row().unwrap(), &error.utf8_error().unwrap())),
                expected.first().copied()
            );
            assert!(arrow.is_err());
        }
    }
    let to = if O::IS_LARGE {
        DataType::LargeUtf8
    } else {
        DataType::Utf8
    };
    let safe = CastOptions {
        safe: true,
        ..Default::default()
    };
    let cast = cast_with_options(&array, &to, &safe).unwrap();
    let or_null = binary_to_string_or_null(&array);
    assert_eq!(&or_null as &dyn Array, cast.as_ref());
    assert_sound(&or_null);
    let lossy = binary_to_string_lossy(&array);
    assert_eq!(lossy, expected_strings);
    assert_sound(&lossy);
    // Every repair policy: each row as the library repairs it alone.
    for policy in Replacement::ALL {
        let expected: GenericStringArray<O> = rows
            .iter()
            .map(|r| (!r.null).then(|| utf8guard::repair(&r.bytes, policy).into_owned()))
            .collect();
        let repaired = binary_to_string_repaired(&array, policy);
        assert_eq!(repaired, expected, "{policy}");
        assert_sound(&repaired);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_columns_i32(rows in prop::collection::vec(row(), 0..40), a in any::<prop::sample::Index>(), b in any::<prop::sample::Index>()) {
        let (x, y) = (a.index(rows.len() + 1), b.index(rows.len() + 1));
        let (from, to) = (x.min(y), x.max(y));
        check::<i32>(&rows, 0, rows.len());
        check::<i32>(&rows, from, to - from);
    }

    #[test]
    fn random_columns_i64(rows in prop::collection::vec(row(), 0..40), a in any::<prop::sample::Index>(), b in any::<prop::sample::Index>()) {
        let (x, y) = (a.index(rows.len() + 1), b.index(rows.len() + 1));
        let (from, to) = (x.min(y), x.max(y));
        check::<i64>(&rows, 0, rows.len());
        check::<i64>(&rows, from, to - from);
    }
}

#[test]
fn every_slice_of_a_small_column() {
    let mut rows = rows_of(&[
        b"head",
        "é".as_bytes(),
        b"\xE2\x82",
        b"\xAC",
        b"",
        b"x\xFF",
        "日本語".as_bytes(),
        b"",
        b"\xF0\x9F\x98\x80",
    ]);
    rows[1].null = true;
    rows[5].null = true;
    for from in 0..=rows.len() {
        for to in from..=rows.len() {
            check::<i32>(&rows, from, to - from);
            check::<i64>(&rows, from, to - from);
        }
    }
}

#[test]
fn errors_name_the_row_the_offset_and_the_cause() {
    let array = BinaryArray::from(vec![
        Some(&b"fine"[..]),
        None,
        Some(b"caf\xC3\xA9 \xED\xA0\x80"),
    ]);
    let err = validate_binary(&array).unwrap_err();
    assert_eq!(err.row(), Some(2));
    assert_eq!(err.kind(), Some(ErrorKind::Surrogate));
    let e = err.utf8_error().unwrap();
    assert_eq!((e.valid_up_to(), e.error_len()), (6, Some(1)));
    assert_eq!(
        err.to_string(),
        "row 2: invalid UTF-8 at byte 6 of the value (UTF-16 surrogate code point)"
    );
    assert_eq!(
        arrow_schema::ArrowError::from(err).to_string(),
        "Invalid argument error: row 2: invalid UTF-8 at byte 6 of the value (UTF-16 surrogate code point)"
    );
    // Rows count from the slice's first row.
    let err = binary_to_string(&array.slice(1, 2)).unwrap_err();
    assert_eq!(err, Error::Invalid { row: 1, error: e });
    let err = validate(&arrow_array::Int32Array::from(vec![1])).unwrap_err();
    assert_eq!(err, Error::Unsupported(DataType::Int32));
    assert_eq!(err.to_string(), "Int32 is not a binary or string type");
}

#[test]
fn bytes_under_null_slots_are_checked() {
    let mut rows = rows_of(&[b"ok", b"\xC0\x80", b"ok"]);
    rows[1].null = true;
    let array: BinaryArray = binary(&rows);
    let err = binary_to_string(&array).unwrap_err();
    assert_eq!(err.row(), Some(1));
    assert_eq!(err.kind(), Some(ErrorKind::InvalidByte));
    // As Arrow's conversion: it rejects the array too.
    assert!(StringArray::try_from_binary(array.clone()).is_err());
    // The lossy forms keep the row null.
    assert_eq!(
        binary_to_string_or_null(&array),
        StringArray::from(vec![Some("ok"), None, Some("ok")])
    );
    assert_eq!(
        binary_to_string_lossy(&array),
        StringArray::from(vec![Some("ok"), None, Some("ok")])
    );
}

#[test]
fn empty_arrays() {
    let empty = BinaryArray::from(Vec::<&[u8]>::new());
    assert_eq!(empty.value_offsets(), &[0]);
    assert_eq!(binary_to_string(&empty).unwrap().len(), 0);
    assert_eq!(invalid_values(&empty).unwrap(), []);
    let column = LargeBinaryArray::from(vec![&b"\xFF"[..], b"ab", b"\xFE"]);
    for at in 0..=3 {
        let none = column.slice(at, 0);
        assert_eq!(none.value_offsets().len(), 1);
        let strings = binary_to_string(&none).unwrap();
        assert_eq!(strings.len(), 0);
        assert_sound(&strings);
        assert_eq!(binary_to_string_lossy(&none).len(), 0);
    }
}

/// A slice of good rows converts even when rows outside it are bad (Arrow's
/// `try_from_binary` checks the whole buffer and refuses), with the values
/// shared; the bytes before the slice are kept when they are few and UTF-8,
/// and cut off (the offsets moved down) otherwise.
#[test]
fn slices_convert_on_their_own_rows() {
    let mut values: Vec<&[u8]> = vec![b"\xFF bad"];
    values.extend(std::iter::repeat_n(&b"good value"[..], 100));
    values.push(b"\xC3 bad");
    let array = BinaryArray::from(values);
    let slice = array.slice(1, 100);
    assert!(StringArray::try_from_binary(slice.clone()).is_err());
    let strings = binary_to_string(&slice).unwrap();
    assert_sound(&strings);
    assert_eq!(strings.value(0), "good value");
    assert_eq!(strings.value(99), "good value");
    // The head is "\xFF bad": not UTF-8, so it is cut off.
    assert_eq!(strings.value_offsets()[0], 0);
    assert_eq!(
        strings.value_data().as_ptr(),
        array.value_data()[5..].as_ptr()
    );

    // A short valid head stays: the offsets are the input's.
    let array = BinaryArray::from(vec![&b"head"[..], b"one", "two\u{e9}".as_bytes()]);
    let strings = binary_to_string(&array.slice(1, 2)).unwrap();
    assert_sound(&strings);
    assert_eq!(strings.value_offsets(), &[4, 7, 12]);
    assert_eq!(strings.value_data().as_ptr(), array.value_data().as_ptr());
    assert_eq!(strings.value_data().len(), 12);

    // A head longer than the offsets is cut off without being read.
    let long = "x".repeat(1000);
    let array = BinaryArray::from(vec![long.as_bytes(), b"a", b"b"]);
    let strings = binary_to_string(&array.slice(1, 2)).unwrap();
    assert_sound(&strings);
    assert_eq!(strings.value_offsets(), &[0, 1, 2]);
    assert_eq!(
        strings.value_data().as_ptr(),
        array.value_data()[1000..].as_ptr()
    );
}

#[test]
fn a_million_rows_with_a_few_bad() {
    let words: [&[u8]; 6] = [
        b"",
        b"alpha",
        "βήτα".as_bytes(),
        b"gamma ray",
        "日本".as_bytes(),
        b"x",
    ];
    let mut rows: Vec<Row> = (0..1_000_000)
        .map(|i| Row {
            bytes: words[i % 6].to_vec(),
            null: i % 97 == 0,
        })
        .collect();
    for (at, bad) in [
        (123_457, &b"\xFF"[..]),
        (500_000, b"ab\xE2\x82"),
        (500_001, b"\xAC"),
        (999_999, b"\xF4\x90\x80\x80"),
    ] {
        rows[at].bytes = bad.to_vec();
    }
    let array: LargeBinaryArray = binary(&rows);
    let bad: Vec<usize> = invalid_values(&array)
        .unwrap()
        .iter()
        .map(|(r, _)| *r)
        .collect();
    assert_eq!(bad, [123_457, 500_000, 500_001, 999_999]);
    check::<i64>(&rows, 0, rows.len());
    check::<i32>(&rows, 200_000, 600_000);
}

/// ASCII rows, enough of them for the vector fast path (many 256-byte
/// blocks), some null.
fn ascii_rows(count: usize) -> Vec<Row> {
    (0..count)
        .map(|i| Row {
            bytes: format!("row {i:04}").into_bytes(),
            null: i % 7 == 3,
        })
        .collect()
}

/// An ASCII column with one row that is not ASCII, valid or not, at the
/// start, at block edges (row 32 starts at byte 256) and at the end: the
/// ASCII fast path must hand over to the full check at the right row.
#[test]
fn ascii_columns_with_one_row_that_is_not() {
    let odd: &[&[u8]] = &[
        "caf\u{e9}".as_bytes(),
        b"\xFF",
        b"ab\xE2\x82",
        b"\x80 ok",
        b"a\xF0\x9F\x98\x80b",
        b"\xED\xA0\x80",
    ];
    let base = ascii_rows(300);
    for at in [0, 1, 31, 32, 33, 150, 298, 299] {
        for &value in odd {
            let mut rows = base.clone();
            rows[at].bytes = value.to_vec();
            check::<i32>(&rows, 0, rows.len());
            check::<i64>(&rows, 0, rows.len());
            check::<i32>(&rows, 5, 290);
        }
    }
}

/// A character split by an offset, in a buffer that is otherwise ASCII
/// and, as a whole, UTF-8: the row that ends inside the character is the
/// error, wherever it falls.
#[test]
fn an_offset_inside_a_character_of_an_ascii_column() {
    let base = ascii_rows(300);
    for at in [0, 30, 31, 32, 100, 298] {
        let mut rows = base.clone();
        rows[at].bytes = b"ab\xC3".to_vec();
        rows[at + 1].bytes = b"\xA9cd".to_vec();
        rows[at].null = false;
        let values: Vec<u8> = rows.iter().flat_map(|r| r.bytes.clone()).collect();
        assert!(std::str::from_utf8(&values).is_ok());
        check::<i32>(&rows, 0, rows.len());
        check::<i64>(&rows, 0, rows.len());
        let err = validate_binary(&binary::<i32>(&rows)).unwrap_err();
        assert_eq!(err.row(), Some(at));
        let utf8 = err.utf8_error().unwrap();
        assert_eq!((utf8.valid_up_to(), utf8.error_len()), (2, None));
    }
}

/// Bytes outside a slice's rows are never read: bad rows just before and
/// just after an ASCII slice.
#[test]
fn bad_bytes_around_an_ascii_slice() {
    let mut rows = ascii_rows(300);
    rows[0].bytes = b"\xFF".to_vec();
    rows[299].bytes = b"\xE2\x82".to_vec();
    check::<i32>(&rows, 1, 298);
    check::<i64>(&rows, 1, 298);
    let slice = binary::<i32>(&rows).slice(1, 298);
    assert!(StringArray::try_from_binary(slice.clone()).is_err());
    assert_eq!(binary_to_string(&slice).unwrap().value(0), "row 0001");
}

/// Offsets that decrease (only unchecked constructors make them), before
/// and after the first row that is not ASCII: the same error as the
/// engine's check of the offsets gives.
#[test]
fn decreasing_offsets_in_an_ascii_column() {
    let rows = 1000;
    let mut values = b"abcd".repeat(rows);
    values[4 * 500] = 0xC3;
    values[4 * 500 + 1] = 0xA9;
    for (broken, at) in [(false, 10), (true, 10), (true, 800), (false, 800)] {
        let mut values = values.clone();
        if !broken {
            // No row that is not ASCII.
            values[4 * 500..4 * 500 + 2].copy_from_slice(b"ab");
        }
        let mut offsets: Vec<i32> = (0..=rows as i32).map(|i| 4 * i).collect();
        offsets[at] = offsets[at - 1] - 1;
        let expected = utf8guard::validate_offsets(&values, &offsets).unwrap_err();
        assert_eq!(expected.index(), at);
        // SAFETY: only the checks under test read this array, as bytes and
        // offsets; they must not trust the offsets' order.
        let array = unsafe {
            StringArray::new_unchecked(
                arrow_buffer::OffsetBuffer::new_unchecked(offsets.into()),
                values.into(),
                None,
            )
        };
        assert_eq!(validate_string(&array), Err(Error::Offsets(expected)));
    }
}

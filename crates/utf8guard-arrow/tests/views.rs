//! `BinaryView` conversions and `Utf8View` checks against Arrow's own:
//! `StringViewArray::try_new`, `to_string_view`, `cast`.

mod common;

use std::sync::Arc;

use arrow_array::builder::make_view;
use arrow_array::{Array, BinaryViewArray, StringViewArray};
use arrow_buffer::{Buffer, NullBuffer, ScalarBuffer};
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::DataType;
use common::*;
use proptest::prelude::*;
use utf8guard::ErrorKind;
use utf8guard_arrow::{
    binary_view_to_string_view, binary_view_to_string_view_lossy,
    binary_view_to_string_view_or_null, binary_view_to_string_view_repaired, invalid_values,
    validate, validate_binary_view, validate_string_view, Error, Replacement,
};

/// The parts of a view array pass Arrow's own checks: what `new_unchecked`
/// promised.
fn assert_sound(strings: &StringViewArray) {
    let (views, buffers, nulls) = strings.clone().into_parts();
    StringViewArray::try_new(views, buffers, nulls).expect("parts that try_new accepts");
}

/// Every check of the crate on a view array whose rows are `rows`, against
/// the reference and Arrow.
fn check(array: &BinaryViewArray, rows: &[Row]) {
    assert_eq!(array.len(), rows.len());
    let expected = std_errors(rows);

    let bad: Vec<_> = invalid_values(array)
        .unwrap()
        .iter()
        .map(|(r, e)| found(*r, e))
        .collect();
    assert_eq!(bad, expected, "rows {rows:?}");
    for (row, e) in invalid_values(array).unwrap() {
        assert_eq!(e, utf8guard::from_utf8(&rows[row].bytes).unwrap_err());
    }
    let first =
        validate_binary_view(array).map_err(|e| found(e.row().unwrap(), &e.utf8_error().unwrap()));
    assert_eq!(first, expected.first().map_or(Ok(()), |&f| Err(f)));
    assert_eq!(validate(array), validate_binary_view(array));
    // Arrow finds the same first row, and the same error in it.
    assert_eq!(arrow_string_view_try_new(array), expected.first().copied());
    // The same views as an untrusted string view array.
    let (views, buffers, nulls) = array.clone().into_parts();
    // SAFETY: the array is only handed to the functions under test, which
    // read its values as bytes.
    let untrusted = unsafe { StringViewArray::new_unchecked(views, buffers, nulls) };
    assert_eq!(
        validate_string_view(&untrusted),
        validate_binary_view(array)
    );
    assert_eq!(invalid_values(&untrusted), invalid_values(array));

    let expected_strings: StringViewArray = rows
        .iter()
        .map(|r| (!r.null).then(|| String::from_utf8_lossy(&r.bytes).into_owned()))
        .collect();
    let arrow = array.clone().to_string_view();
    match binary_view_to_string_view(array) {
        Ok(strings) => {
            assert_eq!(strings, expected_strings);
            assert_eq!(strings, arrow.unwrap());
            assert_sound(&strings);
            // Zero-copy: the same views and buffers.
            assert_eq!(strings.views().as_ptr(), array.views().as_ptr());
            for (a, b) in strings.data_buffers().iter().zip(array.data_buffers()) {
                assert_eq!(a.as_ptr(), b.as_ptr());
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
    let safe = CastOptions {
        safe: true,
        ..Default::default()
    };
    let cast = cast_with_options(array, &DataType::Utf8View, &safe).unwrap();
    let or_null = binary_view_to_string_view_or_null(array);
    assert_eq!(&or_null as &dyn Array, cast.as_ref());
    assert_sound(&or_null);
    let lossy = binary_view_to_string_view_lossy(array);
    assert_eq!(lossy, expected_strings);
    assert_sound(&lossy);
    // Every repair policy: each value as the library repairs it alone.
    for policy in Replacement::ALL {
        let expected: StringViewArray = rows
            .iter()
            .map(|r| (!r.null).then(|| utf8guard::repair(&r.bytes, policy).into_owned()))
            .collect();
        let repaired = binary_view_to_string_view_repaired(array, policy);
        assert_eq!(repaired, expected, "{policy}");
        assert_sound(&repaired);
    }
}

/// The same rows as `array`, with the views in reverse order: the views
/// leave a buffer and come back to it.
fn reversed(array: &BinaryViewArray) -> BinaryViewArray {
    let views: Vec<u128> = array.views().iter().rev().copied().collect();
    let nulls = array
        .nulls()
        .map(|n| NullBuffer::from(n.iter().rev().collect::<Vec<_>>()));
    BinaryViewArray::try_new(
        ScalarBuffer::from(views),
        array.data_buffers().to_vec(),
        nulls,
    )
    .unwrap()
}

/// The rows split over two data buffers, alternating.
fn two_buffers(rows: &[Row]) -> BinaryViewArray {
    let mut data = [Vec::new(), Vec::new()];
    let views: Vec<u128> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let b = i % 2;
            let offset = data[b].len() as u32;
            data[b].extend_from_slice(&r.bytes);
            make_view(&r.bytes, b as u32, offset)
        })
        .collect();
    let buffers: Vec<Buffer> = data.into_iter().map(Buffer::from_vec).collect();
    BinaryViewArray::try_new(ScalarBuffer::from(views), buffers, nulls(rows)).unwrap()
}

fn check_layouts(rows: &[Row], from: usize, len: usize) {
    let slice = &rows[from..from + len];
    let mut reversed_rows = rows.to_vec();
    reversed_rows.reverse();
    // As a builder lays them out; gaps of valid bytes (runs break); gaps
    // that are not UTF-8 (views past the error are checked alone).
    for gap in [&b""[..], b"-", b"\xFF"] {
        let array = binary_view_with_gaps(rows, gap);
        check(&array, rows);
        check(&array.slice(from, len), slice);
        check(&reversed(&array), &reversed_rows);
    }
    let array = two_buffers(rows);
    check(&array, rows);
    check(&array.slice(from, len), slice);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_columns(rows in prop::collection::vec(row(), 0..40), a in any::<prop::sample::Index>(), b in any::<prop::sample::Index>()) {
        let (x, y) = (a.index(rows.len() + 1), b.index(rows.len() + 1));
        check_layouts(&rows, x.min(y), x.max(y) - x.min(y));
    }
}

#[test]
fn every_slice_of_a_small_column() {
    let mut rows = rows_of(&[
        b"inline",
        "a long value, é and €".as_bytes(),
        b"\xE2\x82",
        b"\xACcontinued past twelve",
        b"",
        b"x\xFF",
        "日本語日本語".as_bytes(),
        b"twelve bytes",
        b"thirteen \xF0\x9F\x98\x80",
    ]);
    rows[1].null = true;
    rows[5].null = true;
    for from in 0..=rows.len() {
        for to in from..=rows.len() {
            check_layouts(&rows, from, to - from);
        }
    }
}

/// Inline values in many batches, bad ones at the batches' edges.
#[test]
fn many_inline_values() {
    let mut rows: Vec<Row> = (0..5000)
        .map(|i| Row {
            bytes: format!("v{i}é").into_bytes(),
            null: false,
        })
        .collect();
    for at in [0, 700, 701, 1299, 4999] {
        rows[at].bytes = b"\xC3".to_vec();
    }
    // A value cut short, then one that completes it: valid together.
    rows[2000].bytes = b"ab\xE2\x82".to_vec();
    rows[2001].bytes = b"\xAC".to_vec();
    let array = binary_view(&rows);
    let bad: Vec<usize> = invalid_values(&array)
        .unwrap()
        .iter()
        .map(|(r, _)| *r)
        .collect();
    assert_eq!(bad, [0, 700, 701, 1299, 2000, 2001, 4999]);
    check_layouts(&rows, 1000, 3000);
}

#[test]
fn errors_name_the_row_the_offset_and_the_cause() {
    let array = BinaryViewArray::from(vec![
        Some(&b"fine"[..]),
        None,
        Some(b"a longer value, then \xF4\x90\x80\x80"),
    ]);
    let err = binary_view_to_string_view(&array).unwrap_err();
    assert_eq!(err.row(), Some(2));
    assert_eq!(err.kind(), Some(ErrorKind::TooLarge));
    assert_eq!(err.utf8_error().unwrap().valid_up_to(), 21);
    assert_eq!(
        err.to_string(),
        "row 2: invalid UTF-8 at byte 21 of the value (code point above U+10FFFF)"
    );
}

/// A view that points outside the buffers (only unchecked constructors can
/// make one) is an error, not a panic.
#[test]
fn views_outside_the_buffers() {
    let long = b"a value of twenty bytes";
    let views = vec![
        make_view(b"ok", 0, 0),
        make_view(long, 1, 0),
        make_view(long, 0, 2),
    ];
    let buffers = vec![Buffer::from_vec(long.to_vec())];
    // SAFETY: the array is only handed to the checks, which must not read
    // past the buffers.
    let array = unsafe {
        StringViewArray::new_unchecked(
            ScalarBuffer::from(views),
            Arc::<[Buffer]>::from(buffers),
            None,
        )
    };
    let err = validate_string_view(&array).unwrap_err();
    assert_eq!(
        err,
        Error::View {
            row: 1,
            buffer: 1,
            offset: 0,
            len: 23
        }
    );
    assert_eq!(
        err.to_string(),
        "row 1: the view's 23 bytes at offset 0 of data buffer 1 are outside the array's buffers"
    );
    assert_eq!(invalid_values(&array), Err(err));
}

#[test]
fn empty_arrays() {
    let empty = BinaryViewArray::from(Vec::<&[u8]>::new());
    assert_eq!(binary_view_to_string_view(&empty).unwrap().len(), 0);
    let column = BinaryViewArray::from(vec![&b"\xFF"[..], b"ab"]);
    for at in 0..=2 {
        assert_eq!(
            binary_view_to_string_view(&column.slice(at, 0))
                .unwrap()
                .len(),
            0
        );
        assert_eq!(
            binary_view_to_string_view_lossy(&column.slice(at, 0)).len(),
            0
        );
    }
}

/// Repaired values longer than 12 bytes go into one more buffer; the
/// others stay where they were.
#[test]
fn repairs_add_one_buffer() {
    let array = BinaryViewArray::from(vec![
        &b"\xFF"[..],
        b"a valid value, long",
        b"bad \xC0 and long too",
    ]);
    let lossy = binary_view_to_string_view_lossy(&array);
    assert_eq!(lossy.data_buffers().len(), array.data_buffers().len() + 1);
    assert_eq!(
        lossy.data_buffers()[0].as_ptr(),
        array.data_buffers()[0].as_ptr()
    );
    assert_eq!(
        lossy,
        StringViewArray::from(vec![
            "\u{FFFD}",
            "a valid value, long",
            "bad \u{FFFD} and long too"
        ])
    );
    assert_sound(&lossy);
}

/// Long values cut inside a character, next to each other in the data
/// buffer: valid together, both invalid apart. In a builder's layout the
/// second extends the first's run; in reverse order each is checked
/// against the buffer validated whole.
#[test]
fn long_values_cut_inside_a_character() {
    let rows = rows_of(&[
        b"a long value that ends \xE2\x82",
        b"\xAC starts the next long value",
        b"then a valid long value",
        b"and one more valid value",
    ]);
    let expected = [(0, 23, None), (1, 0, Some(1))];
    for array in [binary_view(&rows), two_buffers(&rows)] {
        let bad: Vec<_> = invalid_values(&array)
            .unwrap()
            .iter()
            .map(|(r, e)| found(*r, e))
            .collect();
        assert_eq!(bad, expected);
    }
    let reversed_array = reversed(&binary_view(&rows));
    let bad: Vec<_> = invalid_values(&reversed_array)
        .unwrap()
        .iter()
        .map(|(r, e)| found(*r, e))
        .collect();
    assert_eq!(bad, [(2, 0, Some(1)), (3, 23, None)]);
    check_layouts(&rows, 1, 2);
}

/// ASCII rows, inline and not, enough of them for several chunks of the
/// ASCII fast path (1024 views each).
fn ascii_view_rows(count: usize) -> Vec<Row> {
    (0..count)
        .map(|i| Row {
            bytes: if i % 3 == 0 {
                format!("v{i}").into_bytes()
            } else {
                format!("a value longer than twelve bytes, {i}").into_bytes()
            },
            null: i % 11 == 5,
        })
        .collect()
}

/// An ASCII column with one value that is not ASCII, valid or not, inline
/// or not, at the edges of the fast path's chunks: it hands over to the
/// full check, which finds the right row.
#[test]
fn ascii_columns_with_one_value_that_is_not() {
    let odd: &[&[u8]] = &[
        "\u{e9}t\u{e9}".as_bytes(),
        "a long value with caf\u{e9} in it".as_bytes(),
        b"\xFF",
        b"a long value cut short \xE2\x82",
        b"\xC3",
        b"\x80 then twelve more",
    ];
    let base = ascii_view_rows(2100);
    for at in [0, 1, 1023, 1024, 1025, 2099] {
        for &value in odd {
            let mut rows = base.clone();
            rows[at].bytes = value.to_vec();
            check(&binary_view(&rows), &rows);
        }
    }
    check_layouts(&base, 100, 1500);
}

/// Bytes after an inline value (which no row covers) are not read as part
/// of it, even when they are not ASCII: Arrow's layout wants them zero, but
/// an unchecked array may hold anything there.
#[test]
fn bytes_past_inline_values_do_not_count() {
    let mut views = Vec::new();
    for i in 0..3000u32 {
        let len = i % 13;
        let value = &b"abcdefghijkl"[..len as usize];
        // Every byte after the value: FF.
        let garbage = (!0u128).checked_shl(32 + 8 * len).unwrap_or(0);
        views.push(make_view(value, 0, 0) | garbage);
    }
    let views = ScalarBuffer::from(views);
    // SAFETY: the array is only handed to the checks, which read each
    // inline value's bytes, and no byte past them.
    let array =
        unsafe { BinaryViewArray::new_unchecked(views.clone(), Vec::<Buffer>::new(), None) };
    assert_eq!(validate_binary_view(&array), Ok(()));
    assert_eq!(invalid_values(&array), Ok(vec![]));
    // SAFETY: as above.
    let strings = unsafe { StringViewArray::new_unchecked(views, Vec::<Buffer>::new(), None) };
    assert_eq!(validate_string_view(&strings), Ok(()));
    assert_eq!(
        binary_view_to_string_view(&array).unwrap().value(2999),
        "abcdefghi"
    );
}

/// Two ASCII values far apart in one buffer whose bytes between them are
/// not UTF-8 (as after a `filter`): valid; and a value that reaches past
/// its buffer in an otherwise ASCII column is the error it was.
#[test]
fn ascii_views_over_bytes_no_view_covers() {
    let mut data = b"first value, ASCII".to_vec();
    data.extend_from_slice(&[0xFF; 10_000]);
    data.extend_from_slice(b"second value, ASCII");
    let views = vec![
        make_view(b"first value, ASCII", 0, 0),
        make_view(b"second value, ASCII", 0, 10_018),
    ];
    let array = BinaryViewArray::try_new(
        ScalarBuffer::from(views.clone()),
        vec![Buffer::from_vec(data.clone())],
        None,
    )
    .unwrap();
    assert_eq!(validate_binary_view(&array), Ok(()));
    let mut views = views;
    views.push(make_view(b"second value, ASCII", 0, 10_019));
    // SAFETY: the array is only handed to the checks, which must not read
    // past the buffers.
    let array = unsafe {
        BinaryViewArray::new_unchecked(
            ScalarBuffer::from(views),
            vec![Buffer::from_vec(data)],
            None,
        )
    };
    assert_eq!(
        validate_binary_view(&array),
        Err(Error::View {
            row: 2,
            buffer: 0,
            offset: 10_019,
            len: 19
        })
    );
}

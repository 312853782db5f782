//! Columns for the tests, and what Arrow itself says about them.

#![allow(dead_code)]

use std::sync::Arc;

use arrow_array::builder::make_view;
use arrow_array::{Array, BinaryViewArray, GenericBinaryArray, OffsetSizeTrait, StringViewArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_data::ArrayDataBuilder;
use arrow_schema::DataType;
use proptest::prelude::*;

/// Values that are not UTF-8, one of each kind, some cut short.
pub const BAD: &[&[u8]] = &[
    b"\xFF",
    b"\x80",
    b"\xC0\xAF",
    b"\xE0\x80\xAF",
    b"\xED\xA0\x80",
    b"\xF4\x90\x80\x80",
    b"\xE2\x82",
    b"\xF0\x9F\x98",
    b"\xC3(",
];

/// One row: its bytes, and whether it is null (the bytes are there all the
/// same: a null slot may cover any bytes).
#[derive(Clone, Debug)]
pub struct Row {
    pub bytes: Vec<u8>,
    pub null: bool,
}

pub fn rows_of(values: &[&[u8]]) -> Vec<Row> {
    values
        .iter()
        .map(|v| Row {
            bytes: v.to_vec(),
            null: false,
        })
        .collect()
}

/// Rows of text (ASCII or not, short or over 12 bytes), bad values,
/// values with a bad byte inside, random bytes; some null.
pub fn row() -> impl Strategy<Value = Row> {
    let text = prop_oneof![
        3 => "[a-z ]{0,20}",
        3 => "\\PC{0,12}",
        1 => "[a-zé€😀]{10,40}",
    ];
    let bytes = prop_oneof![
        6 => text.prop_map(String::into_bytes),
        1 => prop::sample::select(BAD).prop_map(|b| b.to_vec()),
        1 => ("[a-z€]{0,14}", prop::sample::select(BAD), "[a-z]{0,3}").prop_map(|(a, bad, b)| {
            let mut v = a.into_bytes();
            v.extend_from_slice(bad);
            v.extend_from_slice(b.as_bytes());
            v
        }),
        1 => prop::collection::vec(any::<u8>(), 0..20),
    ];
    (bytes, prop::bool::weighted(0.15)).prop_map(|(bytes, null)| Row { bytes, null })
}

pub fn nulls(rows: &[Row]) -> Option<NullBuffer> {
    rows.iter()
        .any(|r| r.null)
        .then(|| NullBuffer::from(rows.iter().map(|r| !r.null).collect::<Vec<_>>()))
}

/// A binary array holding exactly these bytes, null rows included.
pub fn binary<O: OffsetSizeTrait>(rows: &[Row]) -> GenericBinaryArray<O> {
    let mut values = Vec::new();
    let mut offsets = vec![O::usize_as(0)];
    for r in rows {
        values.extend_from_slice(&r.bytes);
        offsets.push(O::usize_as(values.len()));
    }
    GenericBinaryArray::try_new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Buffer::from_vec(values),
        nulls(rows),
    )
    .unwrap()
}

/// A binary view array holding exactly these bytes: long values in one data
/// buffer in row order (as a builder lays them out), with `gap` before
/// each long value (bytes no view covers).
pub fn binary_view_with_gaps(rows: &[Row], gap: &[u8]) -> BinaryViewArray {
    let mut data = Vec::new();
    let views: Vec<u128> = rows
        .iter()
        .map(|r| {
            if r.bytes.len() <= 12 {
                make_view(&r.bytes, 0, 0)
            } else {
                data.extend_from_slice(gap);
                let offset = data.len() as u32;
                data.extend_from_slice(&r.bytes);
                make_view(&r.bytes, 0, offset)
            }
        })
        .collect();
    BinaryViewArray::try_new(
        ScalarBuffer::from(views),
        vec![Buffer::from_vec(data)],
        nulls(rows),
    )
    .unwrap()
}

pub fn binary_view(rows: &[Row]) -> BinaryViewArray {
    binary_view_with_gaps(rows, b"")
}

/// The rows' errors as std reports them: `(row, valid_up_to, error_len)`.
pub fn std_errors(rows: &[Row]) -> Vec<(usize, usize, Option<usize>)> {
    rows.iter()
        .enumerate()
        .filter_map(|(i, r)| {
            std::str::from_utf8(&r.bytes)
                .err()
                .map(|e| (i, e.valid_up_to(), e.error_len()))
        })
        .collect()
}

/// `(row, valid_up_to, error_len)` of a utf8guard error.
pub fn found(row: usize, e: &utf8guard::Utf8Error) -> (usize, usize, Option<usize>) {
    (row, e.valid_up_to(), e.error_len())
}

/// The std error in an Arrow message ("... from index N"), as
/// `(valid_up_to, error_len)`.
fn std_error_in(message: &str) -> (usize, Option<usize>) {
    let tail = &message[message.rfind("utf-8").expect(message)..];
    let at: usize = tail.rsplit(' ').next().unwrap().parse().expect(message);
    let len = tail
        .strip_prefix("utf-8 sequence of ")
        .map(|rest| rest.split(' ').next().unwrap().parse().expect(message));
    (at, len)
}

/// The first bad row as Arrow's `ArrayData::validate_full` finds it in a
/// `Utf8` (or `LargeUtf8`) array over the same buffers, `None` when it
/// accepts the array.
pub fn arrow_validate_full<O: OffsetSizeTrait>(
    array: &GenericBinaryArray<O>,
) -> Option<(usize, usize, Option<usize>)> {
    let data_type = if O::IS_LARGE {
        DataType::LargeUtf8
    } else {
        DataType::Utf8
    };
    let data = array.to_data();
    let builder = ArrayDataBuilder::from(data).data_type(data_type);
    // SAFETY: only the UTF-8 of the values is unchecked, and that is what
    // `validate_full` checks next; nothing reads the data as strings.
    let strings = unsafe { builder.build_unchecked() };
    let message = strings.validate_full().err()?.to_string();
    if let Some(rest) = message
        .split("Invalid UTF8 sequence at string index ")
        .nth(1)
    {
        let index = rest.split(' ').next().unwrap();
        let index: usize = index.parse().unwrap_or_else(|e| panic!("{message}: {e}"));
        let (at, len) = std_error_in(&message);
        return Some((index, at, len));
    }
    let rest = message
        .split("incomplete utf-8 byte sequence from index ")
        .nth(1)
        .expect(&message);
    // A split character: the whole buffer is UTF-8, an offset is not at a
    // boundary; Arrow names the offset, not the error inside the string.
    let index: usize = rest.parse().unwrap_or_else(|e| panic!("{message}: {e}"));
    Some((index, usize::MAX, None))
}

/// The first bad row as `StringViewArray::try_new` finds it over the same
/// views and buffers, `None` when it accepts them.
pub fn arrow_string_view_try_new(array: &BinaryViewArray) -> Option<(usize, usize, Option<usize>)> {
    let (views, buffers, nulls) = array.clone().into_parts();
    let message = StringViewArray::try_new(views, Arc::clone(&buffers), nulls)
        .err()?
        .to_string();
    let rest = message
        .split("non-UTF-8 data at index ")
        .nth(1)
        .expect(&message);
    let index: usize = rest.split(':').next().unwrap().parse().unwrap();
    let (at, len) = std_error_in(&message);
    Some((index, at, len))
}

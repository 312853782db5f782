//! `validate_batch` and `repair_batch`: every column of a batch, each
//! checked or repaired as the column functions do.

mod common;

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BinaryViewArray, GenericBinaryArray, GenericStringArray, Int32Array,
    RecordBatch, RecordBatchOptions, StringArray, StringViewArray,
};
use arrow_data::ArrayDataBuilder;
use arrow_schema::{ArrowError, DataType, Field, Schema};
use common::{binary, binary_view, rows_of, Row, BAD};
use utf8guard::ErrorKind;
use utf8guard_arrow::{
    binary_to_string_repaired, binary_view_to_string_view_repaired, repair_batch, validate_batch,
    Error, Replacement,
};

/// The same bytes as a string array of `data_type`, unchecked: a column as
/// it comes from IPC or the C Data Interface with validation skipped.
fn untrusted(array: &dyn Array, data_type: DataType) -> ArrayRef {
    let builder = ArrayDataBuilder::from(array.to_data()).data_type(data_type);
    // SAFETY: the tests only hand this array to the functions under test,
    // which read its values as bytes.
    arrow_array::make_array(unsafe { builder.build_unchecked() })
}

/// Rows of text with one bad value at `bad_row` (and a null row).
fn rows(bad_row: usize, bad: &[u8]) -> Vec<Row> {
    let mut rows = rows_of(&[
        b"plain",
        "Größe".as_bytes(),
        b"a value longer than twelve bytes",
        b"",
        "東京".as_bytes(),
    ]);
    rows[3].null = true;
    rows[bad_row].bytes = [b"x".as_slice(), bad].concat();
    rows
}

/// The six binary and string types of one column of rows, and an integer
/// column: a batch as IPC would give it.
fn batch_of(rows: &[Row]) -> RecordBatch {
    let small: GenericBinaryArray<i32> = binary(rows);
    let large: GenericBinaryArray<i64> = binary(rows);
    let views: BinaryViewArray = binary_view(rows);
    RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int32Array::from_iter_values(0..rows.len() as i32)) as ArrayRef,
        ),
        ("binary", Arc::new(small.clone()) as ArrayRef),
        ("large_binary", Arc::new(large.clone()) as ArrayRef),
        ("binary_view", Arc::new(views.clone()) as ArrayRef),
        ("utf8", untrusted(&small, DataType::Utf8)),
        ("large_utf8", untrusted(&large, DataType::LargeUtf8)),
        ("utf8_view", untrusted(&views, DataType::Utf8View)),
    ])
    .unwrap()
}

#[test]
fn a_valid_batch_passes() {
    let rows = rows(0, b"");
    assert_eq!(validate_batch(&batch_of(&rows)), Ok(()));
}

#[test]
fn the_first_bad_column_is_named_with_its_row_and_cause() {
    for bad in BAD {
        for bad_row in 0..5 {
            let batch = batch_of(&rows(bad_row, bad));
            let err = validate_batch(&batch).unwrap_err();
            let expected = std::str::from_utf8(&[b"x".as_slice(), bad].concat()).unwrap_err();
            assert_eq!((err.column(), err.name()), (1, "binary"), "{bad:02X?}");
            assert_eq!(err.error().row(), Some(bad_row));
            let found = err.error().utf8_error().unwrap();
            assert_eq!(found.valid_up_to(), expected.valid_up_to());
            assert_eq!(found.error_len(), expected.error_len());
            // Every other binary or string column holds the same bytes, so
            // without the first, the next one is the error.
            for column in 2..7 {
                let rest = batch.project(&[0, column]).unwrap();
                let err = validate_batch(&rest).unwrap_err();
                assert_eq!(err.column(), 1);
                assert_eq!(err.name(), batch.schema().field(column).name());
                assert_eq!(err.error().row(), Some(bad_row));
                assert_eq!(err.error().utf8_error(), Some(found));
            }
        }
    }
    let batch = batch_of(&rows(2, b"\xED\xA0\x80"));
    let err = validate_batch(&batch).unwrap_err();
    assert_eq!(err.error().kind(), Some(ErrorKind::Surrogate));
    assert_eq!(
        err.to_string(),
        format!(
            "column 1 (binary): row 2: invalid UTF-8 at byte 1 of the value ({})",
            ErrorKind::Surrogate
        )
    );
    let arrow: ArrowError = err.into();
    assert!(matches!(arrow, ArrowError::InvalidArgumentError(_)));
}

/// Repairs a string column as the column functions repair the same bytes;
/// valid string columns, binary columns and other columns are the same
/// arrays, not copies; the schema and row count are kept.
#[test]
fn string_columns_are_repaired_as_the_column_functions_repair() {
    for replacement in Replacement::ALL {
        for bad in BAD {
            let rows = rows(1, bad);
            let batch = batch_of(&rows);
            let repaired = repair_batch(&batch, replacement).unwrap();
            assert_eq!(repaired.schema(), batch.schema());
            assert_eq!(repaired.num_rows(), batch.num_rows());
            for column in 0..4 {
                assert!(Arc::ptr_eq(repaired.column(column), batch.column(column)));
            }
            let small: GenericBinaryArray<i32> = binary(&rows);
            let large: GenericBinaryArray<i64> = binary(&rows);
            let expected: [ArrayRef; 3] = [
                Arc::new(binary_to_string_repaired(&small, replacement)),
                Arc::new(binary_to_string_repaired(&large, replacement)),
                Arc::new(binary_view_to_string_view_repaired(
                    &binary_view(&rows),
                    replacement,
                )),
            ];
            for (column, expected) in (4..7).zip(expected) {
                assert_eq!(
                    repaired.column(column).as_ref(),
                    expected.as_ref(),
                    "{replacement:?} {bad:02X?}"
                );
            }
            // Only the binary columns are left with bad bytes.
            assert_eq!(validate_batch(&repaired), validate_batch(&batch));
            let strings = repaired.project(&[4, 5, 6]).unwrap();
            assert_eq!(validate_batch(&strings), Ok(()));
        }
    }
    let rows = rows(0, b"");
    let batch = batch_of(&rows);
    let repaired = repair_batch(&batch, Replacement::Jvm).unwrap();
    for column in 0..7 {
        assert!(Arc::ptr_eq(repaired.column(column), batch.column(column)));
    }
}

#[test]
fn a_repaired_column_reads_as_text() {
    let small: GenericBinaryArray<i32> = binary(&rows_of(&[b"caf\xE9", b"ok"]));
    let batch = RecordBatch::try_from_iter([("name", untrusted(&small, DataType::Utf8))]).unwrap();
    let repaired = repair_batch(&batch, Replacement::Windows1252).unwrap();
    let names: &GenericStringArray<i32> = repaired.column(0).as_any().downcast_ref().unwrap();
    assert_eq!(names, &StringArray::from(vec!["café", "ok"]));
    let views = binary_view(&rows_of(&[b"a long value, caf\xE9", b"\xF0\x9F\x98"]));
    let batch = RecordBatch::try_from_iter([("v", untrusted(&views, DataType::Utf8View))]).unwrap();
    let repaired = repair_batch(&batch, Replacement::Backslash).unwrap();
    let values: &StringViewArray = repaired.column(0).as_any().downcast_ref().unwrap();
    assert_eq!(
        values,
        &StringViewArray::from(vec!["a long value, caf\\xe9", "\\xf0\\x9f\\x98"])
    );
}

/// A string column whose offsets run backwards cannot be repaired: the
/// error names it, as `validate` does.
#[test]
fn broken_offsets_are_the_error() {
    let values = b"abcdefgh".to_vec();
    // SAFETY: only the functions under test read this array, as bytes and
    // offsets; they must not trust the offsets' order.
    let broken = unsafe {
        StringArray::new_unchecked(
            arrow_buffer::OffsetBuffer::new_unchecked(vec![0, 4, 2, 8].into()),
            values.into(),
            None,
        )
    };
    let batch = RecordBatch::try_from_iter([("s", Arc::new(broken) as ArrayRef)]).unwrap();
    let err = repair_batch(&batch, Replacement::MaximalSubpart).unwrap_err();
    assert_eq!((err.column(), err.name()), (0, "s"));
    assert!(matches!(err.error(), Error::Offsets(_)));
    assert_eq!(validate_batch(&batch).unwrap_err(), err);
}

/// A batch with no columns keeps its row count.
#[test]
fn a_batch_without_columns_keeps_its_rows() {
    let schema = Arc::new(Schema::new(Vec::<Field>::new()));
    let options = RecordBatchOptions::new().with_row_count(Some(3));
    let batch = RecordBatch::try_new_with_options(schema, vec![], &options).unwrap();
    assert_eq!(validate_batch(&batch), Ok(()));
    assert_eq!(
        repair_batch(&batch, Replacement::Drop).unwrap().num_rows(),
        3
    );
}

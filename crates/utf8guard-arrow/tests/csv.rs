//! A CSV file that mixes UTF-8 and Windows-1252 lines, read into Arrow
//! through utf8guard's repairing reader: arrow-csv alone refuses it.

use std::io::Cursor;
use std::sync::Arc;

use arrow_array::{Array, Int64Array, StringArray};
use arrow_csv::ReaderBuilder;
use arrow_schema::{DataType, Field, Schema};
use utf8guard::{RepairReader, Replacement};

/// Two writers' lines: UTF-8 (`é` as `C3 A9`) and Windows-1252 (`é` as
/// `E9`, `€` as `80`).
const MIXED: &[u8] =
    b"id,name,note\n1,Jos\xC3\xA9,caf\xC3\xA9 \xE2\x82\xAC\n2,Jos\xE9,caf\xE9 \x80\n";

fn schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("note", DataType::Utf8, false),
    ]))
}

#[test]
fn arrow_csv_refuses_the_file_as_it_is() {
    let mut reader = ReaderBuilder::new(schema())
        .with_header(true)
        .build(Cursor::new(MIXED))
        .unwrap();
    let err = reader.next().unwrap().unwrap_err();
    assert_eq!(
        err.to_string(),
        "Csv error: Encountered invalid UTF-8 data for line 3 and field 2"
    );
}

#[test]
fn the_repairing_reader_gives_arrow_csv_the_text() {
    let repaired = RepairReader::new(MIXED, Replacement::Windows1252);
    let mut reader = ReaderBuilder::new(schema())
        .with_header(true)
        .build(repaired)
        .unwrap();
    let batch = reader.next().unwrap().unwrap();
    assert!(reader.next().is_none());
    let column = |i: usize| {
        batch
            .column(i)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap()
            .clone()
    };
    assert_eq!(
        batch.column(0).as_ref(),
        &Int64Array::from(vec![1, 2]) as &dyn Array
    );
    assert_eq!(column(1), StringArray::from(vec!["José", "José"]));
    assert_eq!(column(2), StringArray::from(vec!["café €", "café €"]));
}

/// The default policy keeps the row count and marks what it could not read.
#[test]
fn maximal_subpart_marks_the_bytes_it_replaced() {
    let repaired = RepairReader::new(MIXED, Replacement::MaximalSubpart);
    let mut reader = ReaderBuilder::new(schema())
        .with_header(true)
        .build(repaired)
        .unwrap();
    let batch = reader.next().unwrap().unwrap();
    let names = batch
        .column(1)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(names, &StringArray::from(vec!["José", "Jos\u{FFFD}"]));
}

//! What the tests of the repairing formats share.

// Each test binary that includes this module uses a part of it.
#![allow(dead_code)]

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::parquet::data_type::{ByteArray, ByteArrayType, Int64Type as ParquetInt64};
use datafusion::parquet::file::properties::WriterProperties;
use datafusion::parquet::file::writer::SerializedFileWriter;
use datafusion::parquet::schema::parser::parse_message_type;
use datafusion::prelude::{SessionConfig, SessionContext};
use utf8guard::Replacement;

/// `sql`'s result, as a table in text.
pub async fn answer(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    pretty_format_batches(&batches).unwrap().to_string()
}

/// A session with the repairing formats, reading each file in up to
/// `partitions` byte ranges (however small the file).
pub fn session(partitions: usize) -> SessionContext {
    let config = SessionConfig::new()
        .with_target_partitions(partitions)
        .set_usize("datafusion.optimizer.repartition_file_min_size", 1);
    let ctx = SessionContext::new_with_config(config);
    utf8guard_datafusion::register_file_formats(&ctx).unwrap();
    ctx
}

/// `bytes`, gzip-compressed.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(bytes).unwrap();
    gzip.finish().unwrap()
}

/// `CREATE EXTERNAL TABLE t STORED AS <stored_as>` over `location`, with
/// `options` (the text between the parentheses of `OPTIONS`).
pub async fn create(ctx: &SessionContext, stored_as: &str, location: &Path, options: &str) {
    let mut sql = format!(
        "CREATE EXTERNAL TABLE t STORED AS {stored_as} LOCATION '{}'",
        location.display()
    );
    if !options.is_empty() {
        sql += &format!(" OPTIONS ({options})");
    }
    ctx.sql(&sql).await.unwrap();
}

/// DataFusion's own answer to `sql` over `bytes` repaired first under
/// `policy`, in a file of `dir` named `reference.<extension>` read as
/// [`create`] reads it (`stored_as`, `options`) in a session of its own.
pub async fn reference(
    dir: &Path,
    bytes: &[u8],
    policy: Replacement,
    (stored_as, extension, options): (&str, &str, &str),
    sql: &str,
) -> String {
    let clean = dir.join(format!("reference.{extension}"));
    std::fs::write(&clean, utf8guard::repair(bytes, policy).as_bytes()).unwrap();
    let ctx = SessionContext::new();
    create(&ctx, stored_as, &clean, options).await;
    let reference = answer(&ctx, sql).await;
    std::fs::remove_file(clean).unwrap();
    reference
}

/// A row of the file with bad strings: `(id, name)`.
pub type Row = (i64, Option<&'static [u8]>);

/// Writes `groups` as a Parquet file: `id` (required INT64) and `name`
/// (optional BYTE_ARRAY annotated STRING), a row group each.
pub fn write_bad_strings(path: &Path, groups: &[&[Row]]) {
    let schema =
        parse_message_type("message people { required int64 id; optional binary name (STRING); }")
            .unwrap();
    let properties = Arc::new(WriterProperties::builder().build());
    let file = File::create(path).unwrap();
    let mut writer = SerializedFileWriter::new(file, Arc::new(schema), properties).unwrap();
    for group in groups {
        let mut row_group = writer.next_row_group().unwrap();
        let ids: Vec<i64> = group.iter().map(|(id, _)| *id).collect();
        let mut column = row_group.next_column().unwrap().unwrap();
        column
            .typed::<ParquetInt64>()
            .write_batch(&ids, None, None)
            .unwrap();
        column.close().unwrap();
        let names: Vec<ByteArray> = group
            .iter()
            .filter_map(|(_, name)| name.map(|n| ByteArray::from(n.to_vec())))
            .collect();
        let present: Vec<i16> = group.iter().map(|(_, n)| i16::from(n.is_some())).collect();
        let mut column = row_group.next_column().unwrap().unwrap();
        column
            .typed::<ByteArrayType>()
            .write_batch(&names, Some(&present), None)
            .unwrap();
        column.close().unwrap();
        row_group.close().unwrap();
    }
    writer.close().unwrap();
}

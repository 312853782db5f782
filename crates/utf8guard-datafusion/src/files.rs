//! Tables over CSV and NDJSON files whose bytes are not all UTF-8: the
//! bytes go through utf8guard's `RepairReader` on their way into Arrow's
//! readers, which refuse invalid UTF-8 (apache/datafusion#5204), so SQL
//! sees the file repaired under a chosen policy.

use std::fs::File;
use std::io::{BufReader, Seek};
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::csv;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::json;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use datafusion_common::{DataFusionError, Result};
use utf8guard::{RepairReader, Replacement};

/// How many records the schema is inferred from.
const INFER_RECORDS: usize = 1000;

/// Registers as table `name` the CSV file at `path` (a header line, `,` as
/// the delimiter), its bytes repaired under `replacement` as they are read:
/// a file that mixes UTF-8 and Windows-1252 lines, say, with
/// [`Replacement::Windows1252`]. The schema is inferred from the first
/// 1000 records; the table is held in memory.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use datafusion::prelude::SessionContext;
/// use utf8guard::Replacement;
///
/// let dir = std::env::temp_dir().join(format!("utf8guard-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("people.csv");
/// std::fs::write(&path, b"id,name\n1,Jos\xC3\xA9\n2,Jos\xE9\n")?; // line 3 is Windows-1252
///
/// let ctx = SessionContext::new();
/// utf8guard_datafusion::register_csv_repaired(&ctx, "people", &path, Replacement::Windows1252)?;
/// let rows = ctx.sql("SELECT count(*) FROM people WHERE name = 'José'").await?.collect().await?;
/// let count = datafusion::arrow::util::pretty::pretty_format_batches(&rows)?.to_string();
/// assert!(count.contains("| 2 "));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
pub fn register_csv_repaired(
    ctx: &SessionContext,
    name: &str,
    path: impl AsRef<Path>,
    replacement: Replacement,
) -> Result<()> {
    let path = path.as_ref();
    let mut file = File::open(path).map_err(|e| io_error(path, e))?;
    let format = csv::reader::Format::default().with_header(true);
    let (schema, _) = format
        .infer_schema(RepairReader::new(&file, replacement), Some(INFER_RECORDS))
        .map_err(DataFusionError::from)?;
    let schema = Arc::new(schema);
    file.rewind().map_err(|e| io_error(path, e))?;
    let reader = csv::ReaderBuilder::new(Arc::clone(&schema))
        .with_header(true)
        .build_buffered(RepairReader::new(file, replacement))
        .map_err(DataFusionError::from)?;
    register(ctx, name, schema, reader.collect::<Result<Vec<_>, _>>()?)
}

/// Registers as table `name` the newline-delimited JSON file at `path`,
/// its bytes repaired under `replacement` as they are read. The schema is
/// inferred from the first 1000 records; the table is held in memory.
pub fn register_ndjson_repaired(
    ctx: &SessionContext,
    name: &str,
    path: impl AsRef<Path>,
    replacement: Replacement,
) -> Result<()> {
    let path = path.as_ref();
    let mut file = File::open(path).map_err(|e| io_error(path, e))?;
    let (schema, _) = json::reader::infer_json_schema(
        BufReader::new(RepairReader::new(&file, replacement)),
        Some(INFER_RECORDS),
    )
    .map_err(DataFusionError::from)?;
    let schema = Arc::new(schema);
    file.rewind().map_err(|e| io_error(path, e))?;
    let reader = json::ReaderBuilder::new(Arc::clone(&schema))
        .build(RepairReader::new(file, replacement))
        .map_err(DataFusionError::from)?;
    register(ctx, name, schema, reader.collect::<Result<Vec<_>, _>>()?)
}

fn register(
    ctx: &SessionContext,
    name: &str,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> Result<()> {
    let table = MemTable::try_new(schema, vec![batches])?;
    ctx.register_table(name, Arc::new(table))?;
    Ok(())
}

fn io_error(path: &Path, error: std::io::Error) -> DataFusionError {
    DataFusionError::Execution(format!("{}: {error}", path.display()))
}

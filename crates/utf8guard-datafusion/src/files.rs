//! Tables over CSV and NDJSON files whose bytes are not all UTF-8: the
//! bytes go through utf8guard's repair on their way into Arrow's readers,
//! which refuse invalid UTF-8 (apache/datafusion#5204), so SQL sees the
//! file repaired under a chosen policy. Parquet files whose string
//! columns are not all UTF-8, likewise, column by column.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::csv;
use datafusion::arrow::datatypes::Schema;
use datafusion::arrow::json;
use datafusion::datasource::file_format::csv::CsvFormat;
use datafusion::datasource::file_format::json::JsonFormat;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::prelude::SessionContext;
use datafusion_common::{DataFusionError, Result};
use utf8guard::{RepairReader, Replacement};

use crate::{RepairedCsvFormat, RepairedJsonFormat, RepairedListingTable};

/// How many records the schema is inferred from.
const INFER_RECORDS: usize = 1000;

/// Registers as table `name` the CSV file at `path` (a header line, `,` as
/// the delimiter), its bytes repaired under `replacement` as they are read:
/// a file that mixes UTF-8 and Windows-1252 lines, say, with
/// [`Replacement::Windows1252`]. The schema is inferred from the first
/// 1000 records; the table is a `ListingTable` over a
/// [`RepairedCsvFormat`](crate::RepairedCsvFormat), so a query streams
/// the file (split in byte ranges across the session's partitions, as
/// DataFusion's own CSV tables are) and holds a few batches at a time,
/// however large the file. For other options, a folder or a glob, see
/// [`register_file_formats`](crate::register_file_formats).
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
    // Inferred here, from the first records, so that registering stays a
    // plain function call (a listing table infers asynchronously).
    let file = File::open(path).map_err(|e| io_error(path, e))?;
    let (schema, _) = csv::reader::Format::default()
        .with_header(true)
        .infer_schema(RepairReader::new(file, replacement), Some(INFER_RECORDS))
        .map_err(DataFusionError::from)?;
    let csv = CsvFormat::default().with_has_header(true);
    let format = RepairedCsvFormat::try_new(csv, replacement)?;
    register(ctx, name, path, Arc::new(format), schema)
}

/// Registers as table `name` the newline-delimited JSON file at `path`,
/// its bytes repaired under `replacement` as they are read. The schema is
/// inferred from the first 1000 records; the table is a `ListingTable`
/// over a [`RepairedJsonFormat`](crate::RepairedJsonFormat), read as
/// [`register_csv_repaired`]'s is.
pub fn register_ndjson_repaired(
    ctx: &SessionContext,
    name: &str,
    path: impl AsRef<Path>,
    replacement: Replacement,
) -> Result<()> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|e| io_error(path, e))?;
    let (schema, _) =
        json::reader::infer_json_schema(RepairReader::new(file, replacement), Some(INFER_RECORDS))
            .map_err(DataFusionError::from)?;
    let format = RepairedJsonFormat::try_new(JsonFormat::default(), replacement)?;
    register(ctx, name, path, Arc::new(format), schema)
}

/// Registers as table `name` the Parquet files at `path` (a file, a
/// folder of `*.parquet` files or a glob), their string columns read as
/// bytes and repaired or checked as `strings` says (see
/// [`RepairedParquetFormat`](crate::RepairedParquetFormat)); the session's
/// Parquet options apply, and the schema is read from the files' footers.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use datafusion::prelude::SessionContext;
/// use utf8guard::Replacement;
/// use utf8guard_datafusion::StringHandling;
///
/// let ctx = SessionContext::new();
/// let dir = std::env::temp_dir().join(format!("utf8guard-parquet-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("people.parquet");
/// ctx.sql("SELECT 'José' AS name").await?.write_parquet(
///     path.to_str().unwrap(),
///     Default::default(),
///     None,
/// ).await?;
/// let strings = StringHandling::Repair(Replacement::Windows1252);
/// utf8guard_datafusion::register_parquet_repaired(&ctx, "people", path.to_str().unwrap(), strings).await?;
/// let rows = ctx.sql("SELECT count(*) FROM people WHERE name = 'José'").await?.collect().await?;
/// let count = datafusion::arrow::util::pretty::pretty_format_batches(&rows)?.to_string();
/// assert!(count.contains("| 1 "));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[cfg(feature = "parquet")]
pub async fn register_parquet_repaired(
    ctx: &SessionContext,
    name: &str,
    path: &str,
    strings: crate::StringHandling,
) -> Result<()> {
    use datafusion::datasource::file_format::parquet::ParquetFormat;

    let options = ctx.state().table_options().parquet.clone();
    let format =
        crate::RepairedParquetFormat::new(ParquetFormat::default().with_options(options), strings);
    let options = ListingOptions::new(Arc::new(format)).with_file_extension(".parquet");
    ctx.register_listing_table(name, path, options, None, None)
        .await?;
    // The listing table made, as a table a plan sent to a cluster carries.
    let table = ctx.table_provider(name).await?;
    if let Some(listing) = table.downcast_ref::<ListingTable>() {
        let table = RepairedListingTable::try_new(listing.clone())?;
        ctx.deregister_table(name)?;
        ctx.register_table(name, Arc::new(table))?;
    }
    Ok(())
}

/// Registers as table `name` a listing table of the one file at `path`.
fn register(
    ctx: &SessionContext,
    name: &str,
    path: &Path,
    format: Arc<dyn FileFormat>,
    schema: Schema,
) -> Result<()> {
    let path = path
        .to_str()
        .ok_or_else(|| DataFusionError::Plan(format!("{}: not a UTF-8 path", path.display())))?;
    // Any name: the file is named, not found by its extension.
    let options = ListingOptions::new(format).with_file_extension("");
    let config = ListingTableConfig::new(ListingTableUrl::parse(path)?)
        .with_listing_options(options)
        .with_schema(Arc::new(schema));
    let table = RepairedListingTable::try_new(ListingTable::try_new(config)?)?;
    ctx.register_table(name, Arc::new(table))?;
    Ok(())
}

fn io_error(path: &Path, error: std::io::Error) -> DataFusionError {
    DataFusionError::Execution(format!("{}: {error}", path.display()))
}

//! File formats whose bytes are repaired as they are read, for
//! `ListingTable`s and `CREATE EXTERNAL TABLE`.

mod csv;
mod factory;
mod json;
#[cfg(feature = "parquet")]
mod parquet;
mod repaired;
mod source;
mod stream;
mod table;

use std::sync::Arc;

use datafusion::datasource::file_format::csv::CsvFormatFactory;
use datafusion::datasource::file_format::json::JsonFormatFactory;
#[cfg(feature = "parquet")]
use datafusion::datasource::file_format::parquet::ParquetFormatFactory;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::prelude::SessionContext;
use datafusion_common::Result;
use table::RepairingTableFactory;

pub use csv::RepairedCsvFormat;
pub use factory::{RepairingFormatFactory, REPAIR_OPTION};
pub use json::RepairedJsonFormat;
#[cfg(feature = "parquet")]
pub use parquet::{RepairedParquetFormat, RepairedParquetSource};
pub use repaired::RepairedFormat;
pub use table::RepairedListingTable;

// For the codecs, which write and read these formats into plans.
#[cfg(feature = "proto")]
pub(crate) use factory::{repaired_format, unrepaired_format};
#[cfg(feature = "proto")]
pub(crate) use source::{repaired_file_source, unrepaired_file_source};
#[cfg(feature = "proto")]
pub(crate) use table::with_format;

/// Lets SQL read files through a repair: wraps the session's CSV, JSON
/// and Parquet format factories in [`RepairingFormatFactory`]s, after
/// which
///
/// ```sql
/// CREATE EXTERNAL TABLE t STORED AS CSV LOCATION 'data/'
/// OPTIONS ('format.has_header' 'true', 'utf8guard.repair' 'windows-1252')
/// ```
///
/// reads every file of `data/` with its bytes repaired under the policy
/// named (any name or alias `utf8guard::Replacement::from_name` reads;
/// another is an error of the `CREATE`); `STORED AS JSON` (newline-
/// delimited) takes the same option. `STORED AS PARQUET` takes a policy
/// or `validate` (see `RepairedParquetFormat`): its string columns
/// are read as bytes and repaired, or checked. Without `utf8guard.repair`
/// a table is DataFusion's own. Running it twice changes nothing.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use datafusion::prelude::SessionContext;
///
/// let dir = std::env::temp_dir().join(format!("utf8guard-formats-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("people.csv"), b"id,name\n1,Jos\xC3\xA9\n2,Jos\xE9\n")?;
///
/// let ctx = SessionContext::new();
/// utf8guard_datafusion::register_file_formats(&ctx)?;
/// let create = format!(
///     "CREATE EXTERNAL TABLE people STORED AS CSV LOCATION '{}/' \
///      OPTIONS ('format.has_header' 'true', 'utf8guard.repair' 'windows-1252')",
///     dir.display()
/// );
/// ctx.sql(&create).await?;
/// let rows = ctx.sql("SELECT count(*) FROM people WHERE name = 'José'").await?.collect().await?;
/// let count = datafusion::arrow::util::pretty::pretty_format_batches(&rows)?.to_string();
/// assert!(count.contains("| 2 "));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
pub fn register_file_formats(ctx: &SessionContext) -> Result<()> {
    let state = ctx.state_ref();
    let mut state = state.write();
    let defaults: Vec<(&str, Arc<dyn FileFormatFactory>)> = vec![
        ("csv", Arc::new(CsvFormatFactory::new())),
        ("json", Arc::new(JsonFormatFactory::new())),
        #[cfg(feature = "parquet")]
        ("parquet", Arc::new(ParquetFormatFactory::new())),
    ];
    let wrapped = state
        .get_file_format_factory("csv")
        .is_some_and(|factory| factory.is::<RepairingFormatFactory>());
    for (name, default) in defaults {
        let inner = state.get_file_format_factory(name).unwrap_or(default);
        if !inner.is::<RepairingFormatFactory>() {
            state.register_file_format(Arc::new(RepairingFormatFactory::new(inner)), true)?;
        }
    }
    // Every table factory, so that a listing table over a repairing
    // format is made a `RepairedListingTable`, which a plan sent to a
    // cluster can carry; other tables are left as they are made. Once:
    // a table factory cannot be told from its wrapper, the CSV format's
    // factory can.
    if !wrapped {
        for factory in state.table_factories_mut().values_mut() {
            let inner = Arc::clone(factory);
            *factory = Arc::new(RepairingTableFactory { inner });
        }
    }
    Ok(())
}

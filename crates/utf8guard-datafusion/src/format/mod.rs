//! File formats whose bytes are repaired as they are read, for
//! `ListingTable`s and `CREATE EXTERNAL TABLE`.

mod csv;
mod factory;
mod json;
mod repaired;
mod source;
mod stream;

use std::sync::Arc;

use datafusion::datasource::file_format::csv::CsvFormatFactory;
use datafusion::datasource::file_format::json::JsonFormatFactory;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::prelude::SessionContext;
use datafusion_common::Result;

pub use csv::RepairedCsvFormat;
pub use factory::{RepairingFormatFactory, REPAIR_OPTION};
pub use json::RepairedJsonFormat;
pub use repaired::RepairedFormat;

/// Lets SQL read files through a repair: wraps the session's CSV and JSON
/// format factories in [`RepairingFormatFactory`]s, after which
///
/// ```sql
/// CREATE EXTERNAL TABLE t STORED AS CSV LOCATION 'data/'
/// OPTIONS ('format.has_header' 'true', 'utf8guard.repair' 'windows-1252')
/// ```
///
/// reads every file of `data/` with its bytes repaired under the policy
/// named (any name or alias `utf8guard::Replacement::from_name` reads;
/// another is an error of the `CREATE`); `STORED AS JSON` (newline-
/// delimited) takes the same option. Without `utf8guard.repair` a table is
/// DataFusion's own. Running it twice changes nothing.
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
    let defaults: [(&str, Arc<dyn FileFormatFactory>); 2] = [
        ("csv", Arc::new(CsvFormatFactory::new())),
        ("json", Arc::new(JsonFormatFactory::new())),
    ];
    for (name, default) in defaults {
        let inner = state.get_file_format_factory(name).unwrap_or(default);
        if !inner.is::<RepairingFormatFactory>() {
            state.register_file_format(Arc::new(RepairingFormatFactory::new(inner)), true)?;
        }
    }
    Ok(())
}

//! `CREATE EXTERNAL TABLE ... STORED AS CSV OPTIONS ('utf8guard.repair'
//! '<policy>')` (and `STORED AS JSON`, `STORED AS PARQUET`): the
//! session's format factories, wrapped.
//!
//! DataFusion's `ListingTableFactory` hands every key of `OPTIONS` to the
//! `FileFormatFactory` registered for the `STORED AS` name, and
//! `CsvFormatFactory` / `JsonFormatFactory` apply them all to the
//! session's `TableOptions`, which refuse a key outside `format.` unless a
//! `ConfigExtension` owns its prefix. The wrapper takes its own key out
//! first and hands the rest on: without the key a table is exactly
//! DataFusion's (a misspelt `format.` key is refused as before), with it
//! the same format is read through a repair, and a policy that names none
//! is refused when the table is created. A `ConfigExtension` would only
//! move the check of the name into `TableOptions`; the factory would still
//! have to read it.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use datafusion::catalog::Session;
use datafusion::common::GetExt;
use datafusion::datasource::file_format::csv::CsvFormat;
use datafusion::datasource::file_format::json::JsonFormat;
#[cfg(feature = "parquet")]
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::file_format::{FileFormat, FileFormatFactory};
use datafusion_common::{plan_err, Result};

use super::csv::RepairedCsvFormat;
use super::json::RepairedJsonFormat;
#[cfg(feature = "parquet")]
use super::parquet::RepairedParquetFormat;
#[cfg(feature = "parquet")]
use crate::policy::handling_named;
use crate::policy::policy_named;

/// The key of `CREATE EXTERNAL TABLE`'s `OPTIONS` that names the repair
/// policy, once [`register_file_formats`](crate::register_file_formats)
/// has run.
pub const REPAIR_OPTION: &str = "utf8guard.repair";

/// A CSV, JSON or Parquet [`FileFormatFactory`] (DataFusion's, or whichever the
/// session had) whose tables are read through a repair when their options
/// name a policy under [`REPAIR_OPTION`] (for Parquet, a policy or
/// `validate`), and are the wrapped factory's otherwise.
pub struct RepairingFormatFactory {
    inner: Arc<dyn FileFormatFactory>,
}

impl RepairingFormatFactory {
    /// Wraps `inner`, a factory whose formats are `CsvFormat`s,
    /// `JsonFormat`s or `ParquetFormat`s.
    pub fn new(inner: Arc<dyn FileFormatFactory>) -> RepairingFormatFactory {
        RepairingFormatFactory { inner }
    }
}

impl fmt::Debug for RepairingFormatFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RepairingFormatFactory")
            .field("inner", &self.inner)
            .finish()
    }
}

impl FileFormatFactory for RepairingFormatFactory {
    fn create(
        &self,
        state: &dyn Session,
        options: &HashMap<String, String>,
    ) -> Result<Arc<dyn FileFormat>> {
        let mut options = options.clone();
        let Some(name) = options.remove(REPAIR_OPTION) else {
            return self.inner.create(state, &options);
        };
        let format = self.inner.create(state, &options)?;
        repaired_format(format.as_ref(), &name).unwrap_or_else(|| {
            plan_err!(
                "{REPAIR_OPTION}: the session's {} format is none of DataFusion's CSV, JSON and Parquet",
                self.inner.get_ext()
            )
        })
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        self.inner.default()
    }
}

/// DataFusion's CSV, JSON or Parquet `format` read through a repair,
/// `name` naming how (a policy; for Parquet, `validate` too), or the error
/// of a name or of options a repair cannot take; `None` for another format.
pub(crate) fn repaired_format(
    format: &dyn FileFormat,
    name: &str,
) -> Option<Result<Arc<dyn FileFormat>>> {
    // The formats are not `Clone`; their options are.
    #[cfg(feature = "parquet")]
    if let Some(parquet) = format.downcast_ref::<ParquetFormat>() {
        let parquet = ParquetFormat::default().with_options(parquet.options().clone());
        let format = handling_named(REPAIR_OPTION, name)
            .map(|strings| Arc::new(RepairedParquetFormat::new(parquet, strings)) as _);
        return Some(format);
    }
    if let Some(csv) = format.downcast_ref::<CsvFormat>() {
        let csv = CsvFormat::default().with_options(csv.options().clone());
        let format = policy_named(REPAIR_OPTION, name)
            .and_then(|replacement| RepairedCsvFormat::try_new(csv, replacement));
        return Some(format.map(|f| Arc::new(f) as _));
    }
    if let Some(json) = format.downcast_ref::<JsonFormat>() {
        let json = JsonFormat::default().with_options(json.options().clone());
        let format = policy_named(REPAIR_OPTION, name)
            .and_then(|replacement| RepairedJsonFormat::try_new(json, replacement));
        return Some(format.map(|f| Arc::new(f) as _));
    }
    None
}

/// The format a repairing `format` wraps, and the name of how it repairs
/// ([`repaired_format`]'s `name`); `None` for a format that does not.
pub(crate) fn unrepaired_format(format: &dyn FileFormat) -> Option<(Arc<dyn FileFormat>, String)> {
    #[cfg(feature = "parquet")]
    if let Some(parquet) = format.downcast_ref::<RepairedParquetFormat>() {
        let inner = ParquetFormat::default().with_options(parquet.parquet().options().clone());
        return Some((Arc::new(inner), parquet.strings().to_string()));
    }
    if let Some(csv) = format.downcast_ref::<RepairedCsvFormat>() {
        let inner = CsvFormat::default().with_options(csv.csv().options().clone());
        return Some((Arc::new(inner), csv.replacement().name().to_string()));
    }
    if let Some(json) = format.downcast_ref::<RepairedJsonFormat>() {
        let inner = JsonFormat::default().with_options(json.json().options().clone());
        return Some((Arc::new(inner), json.replacement().name().to_string()));
    }
    None
}

impl GetExt for RepairingFormatFactory {
    fn get_ext(&self) -> String {
        self.inner.get_ext()
    }
}

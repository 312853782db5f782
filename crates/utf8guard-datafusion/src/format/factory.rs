//! `CREATE EXTERNAL TABLE ... STORED AS CSV OPTIONS ('utf8guard.repair'
//! '<policy>')`: the session's CSV format factory, wrapped.
//!
//! DataFusion's `ListingTableFactory` hands every key of `OPTIONS` to the
//! `FileFormatFactory` registered for the `STORED AS` name, and
//! `CsvFormatFactory` applies them all to the session's `TableOptions`,
//! which refuse a key outside `format.` unless a `ConfigExtension` owns
//! its prefix. The wrapper takes its own key out first and hands the rest
//! on: without the key a table is exactly DataFusion's (a misspelt
//! `format.` key is refused as before), with it the same `CsvFormat` is
//! read through a repair, and a policy that names none is refused when the
//! table is created. A `ConfigExtension` would only move the check of the
//! name into `TableOptions`; the factory would still have to read it.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use datafusion::catalog::Session;
use datafusion::common::GetExt;
use datafusion::datasource::file_format::csv::CsvFormat;
use datafusion::datasource::file_format::{FileFormat, FileFormatFactory};
use datafusion_common::{plan_err, Result};

use super::csv::RepairedCsvFormat;
use crate::policy::policy_named;

/// The key of `CREATE EXTERNAL TABLE`'s `OPTIONS` that names the repair
/// policy, once [`register_file_formats`](crate::register_file_formats)
/// has run.
pub const REPAIR_OPTION: &str = "utf8guard.repair";

/// A CSV [`FileFormatFactory`] (DataFusion's, or whichever the session
/// had) whose tables are read through a repair when their options name a
/// policy under [`REPAIR_OPTION`], and are the wrapped factory's otherwise.
pub struct RepairingCsvFormatFactory {
    csv: Arc<dyn FileFormatFactory>,
}

impl RepairingCsvFormatFactory {
    /// Wraps `csv`, a factory whose formats are `CsvFormat`s.
    pub fn new(csv: Arc<dyn FileFormatFactory>) -> RepairingCsvFormatFactory {
        RepairingCsvFormatFactory { csv }
    }
}

impl fmt::Debug for RepairingCsvFormatFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RepairingCsvFormatFactory")
            .field("csv", &self.csv)
            .finish()
    }
}

impl FileFormatFactory for RepairingCsvFormatFactory {
    fn create(
        &self,
        state: &dyn Session,
        options: &HashMap<String, String>,
    ) -> Result<Arc<dyn FileFormat>> {
        let mut options = options.clone();
        let Some(name) = options.remove(REPAIR_OPTION) else {
            return self.csv.create(state, &options);
        };
        let replacement = policy_named(REPAIR_OPTION, &name)?;
        let format = self.csv.create(state, &options)?;
        let Some(csv) = format.downcast_ref::<CsvFormat>() else {
            return plan_err!("{REPAIR_OPTION}: the session's CSV format is not DataFusion's");
        };
        let csv = CsvFormat::default().with_options(csv.options().clone());
        Ok(Arc::new(RepairedCsvFormat::try_new(csv, replacement)?))
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        self.csv.default()
    }
}

impl GetExt for RepairingCsvFormatFactory {
    fn get_ext(&self) -> String {
        self.csv.get_ext()
    }
}

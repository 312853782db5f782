//! Parquet whose `STRING` columns may hold bytes that are not UTF-8, which
//! Arrow's Parquet reader refuses: the columns are read as bytes and made
//! strings again, repaired under a policy or checked with an error that
//! says where the bad value is.

mod bytes_schema;
mod columns;
mod opener;
mod source;

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::Session;
use datafusion::common::stats::ColumnStatistics;
use datafusion::common::Statistics;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::physical_plan::{
    FileScanConfig, FileSinkConfig, FileSource, ParquetSource,
};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::object_store::{ObjectMeta, ObjectStore};
use datafusion::physical_expr_common::sort_expr::LexRequirement;
use datafusion::physical_plan::ExecutionPlan;
use datafusion_common::{internal_datafusion_err, Result};

pub use source::RepairedParquetSource;

use super::repaired::plan_wrapped;
use crate::policy::StringHandling;

/// DataFusion's Parquet format with its string columns read as bytes and
/// made strings under a [`StringHandling`]: repaired under a policy, or
/// checked, a value that is not UTF-8 failing the scan with an error that
/// names the file, row group, row, column and byte.
///
/// The table's schema, statistics (row counts), options and writer are
/// `ParquetFormat`'s, and files are split across partitions by byte range
/// as DataFusion splits them. What is given up: filters are not pushed
/// into the scan (DataFusion applies them above it), so no row group,
/// page or row is skipped by statistics, page index or bloom filter; the
/// minimum and maximum of string columns are not used. Strings nested in
/// lists, maps or structs are read as DataFusion reads them (checked).
///
/// ```
/// use datafusion::datasource::file_format::parquet::ParquetFormat;
/// use utf8guard::Replacement;
/// use utf8guard_datafusion::{RepairedParquetFormat, StringHandling};
///
/// let strings = StringHandling::Repair(Replacement::Windows1252);
/// let format = RepairedParquetFormat::new(ParquetFormat::default(), strings);
/// assert_eq!(format.strings(), strings);
/// ```
#[derive(Debug)]
pub struct RepairedParquetFormat {
    inner: ParquetFormat,
    strings: StringHandling,
}

impl RepairedParquetFormat {
    /// `parquet` with its string columns handled as `strings` says.
    pub fn new(parquet: ParquetFormat, strings: StringHandling) -> RepairedParquetFormat {
        RepairedParquetFormat {
            inner: parquet,
            strings,
        }
    }

    /// DataFusion's format inside, with its options.
    pub fn parquet(&self) -> &ParquetFormat {
        &self.inner
    }

    /// What is done with a string value that is not UTF-8.
    pub fn strings(&self) -> StringHandling {
        self.strings
    }
}

#[async_trait]
impl FileFormat for RepairedParquetFormat {
    fn get_ext(&self) -> String {
        self.inner.get_ext()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        self.inner.get_ext_with_compression(compression)
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        self.inner.compression_type()
    }

    /// `ParquetFormat`'s: the schema is read from the files' footers,
    /// whose string columns are strings whatever their bytes.
    async fn infer_schema(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        self.inner.infer_schema(state, store, objects).await
    }

    /// `ParquetFormat`'s, without the statistics of string columns: their
    /// minimum and maximum are of the bytes, not of the strings the scan
    /// gives.
    async fn infer_stats(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        let mut statistics = self
            .inner
            .infer_stats(state, store, Arc::clone(&table_schema), object)
            .await?;
        for (field, column) in table_schema
            .fields()
            .iter()
            .zip(&mut statistics.column_statistics)
        {
            if columns::holds_strings(field.data_type()) {
                *column = ColumnStatistics::new_unknown();
            }
        }
        Ok(statistics)
    }

    /// `ParquetFormat`'s plan (its options, its caching reader factory,
    /// which keeps each file's footer across scans), over the source
    /// wrapped again.
    async fn create_physical_plan(
        &self,
        state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let source = conf
            .file_source
            .downcast_ref::<RepairedParquetSource>()
            .ok_or_else(|| internal_datafusion_err!("a repaired scan needs its own source"))?
            .clone();
        let inner: Arc<dyn FileSource> = Arc::new(source.parquet().clone());
        plan_wrapped(&self.inner, state, conf, inner, |planned| {
            let parquet = planned
                .downcast_ref::<ParquetSource>()
                .ok_or_else(|| internal_datafusion_err!("a Parquet plan without its source"))?;
            Ok(Arc::new(source.with_parquet(parquet.clone())))
        })
        .await
    }

    /// Writing is `ParquetFormat`'s: what is written is UTF-8 already.
    async fn create_writer_physical_plan(
        &self,
        input: Arc<dyn ExecutionPlan>,
        state: &dyn Session,
        conf: FileSinkConfig,
        order_requirements: Option<LexRequirement>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.inner
            .create_writer_physical_plan(input, state, conf, order_requirements)
            .await
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        let parquet = ParquetSource::new(table_schema)
            .with_table_parquet_options(self.inner.options().clone());
        Arc::new(RepairedParquetSource::new(parquet, self.strings))
    }
}

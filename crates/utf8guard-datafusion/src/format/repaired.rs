//! A DataFusion file format (`CsvFormat`, `JsonFormat`) read through a
//! repair: one wrapper for both, which leaves the format its options, plan
//! and writer and puts its own source (and opener) in the plan.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::Statistics;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::{FileFormat, DEFAULT_SCHEMA_INFER_MAX_RECORD};
use datafusion::datasource::physical_plan::{
    FileScanConfig, FileScanConfigBuilder, FileSinkConfig, FileSource,
};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::object_store::{ObjectMeta, ObjectStore};
use datafusion::physical_expr_common::sort_expr::LexRequirement;
use datafusion::physical_plan::ExecutionPlan;
use datafusion_common::{internal_datafusion_err, Result};
use utf8guard::Replacement;

use super::source::{Repairable, RepairedSource};

/// A format of DataFusion's that [`RepairedFormat`] wraps.
#[async_trait]
pub(crate) trait Wrapped: FileFormat + fmt::Debug {
    /// The format's own source.
    type Source: Repairable;

    /// `schema_infer_max_rec`, or DataFusion's default.
    fn records_to_infer(&self) -> Option<usize>;

    /// The schema of one file's first `records` records, read through a
    /// repair, and how many records were read.
    async fn infer_repaired(
        &self,
        replacement: Replacement,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        object: &ObjectMeta,
        records: usize,
    ) -> Result<(Schema, usize)>;
}

/// A DataFusion file format (`F`: `CsvFormat` or `JsonFormat`) with each
/// file's bytes repaired under a [`Replacement`] policy as they are read:
/// after decompression, before Arrow's decoder, so that a file with bytes
/// that are not UTF-8 (which DataFusion's readers refuse) reads as the
/// repaired file would. Schema inference sees the repaired bytes too.
/// Everything else is `F`'s: its options, its plan, its splitting of a
/// file into byte ranges across partitions, its writer.
///
/// [`RepairedCsvFormat`] and [`RepairedJsonFormat`] name the two. In SQL
/// they are reached through [`register_file_formats`]; from Rust, give one
/// to a `ListingOptions`.
///
/// [`RepairedCsvFormat`]: crate::RepairedCsvFormat
/// [`RepairedJsonFormat`]: crate::RepairedJsonFormat
/// [`register_file_formats`]: crate::register_file_formats
#[derive(Debug)]
pub struct RepairedFormat<F> {
    pub(crate) inner: F,
    pub(crate) replacement: Replacement,
}

impl<F> RepairedFormat<F> {
    /// The policy the bytes are repaired under.
    pub fn replacement(&self) -> Replacement {
        self.replacement
    }
}

#[async_trait]
impl<F: Wrapped> FileFormat for RepairedFormat<F> {
    fn get_ext(&self) -> String {
        self.inner.get_ext()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        self.inner.get_ext_with_compression(compression)
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        self.inner.compression_type()
    }

    /// The format's inference over each file decompressed and repaired:
    /// up to `schema_infer_max_rec` records over all the files, the files'
    /// schemas merged.
    async fn infer_schema(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        let mut records = self
            .inner
            .records_to_infer()
            .unwrap_or(DEFAULT_SCHEMA_INFER_MAX_RECORD);
        let mut schemas = Vec::new();
        for object in objects {
            let (schema, read) = self
                .inner
                .infer_repaired(self.replacement, state, store, object, records)
                .await?;
            schemas.push(schema);
            records = records.saturating_sub(read);
            if records == 0 {
                break;
            }
        }
        Ok(Arc::new(Schema::try_merge(schemas)?))
    }

    async fn infer_stats(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        self.inner
            .infer_stats(state, store, table_schema, object)
            .await
    }

    /// The format's plan (for CSV, the session's defaults for the header
    /// and for newlines in values; the compression), made over the
    /// format's own source, which is then wrapped again.
    async fn create_physical_plan(
        &self,
        state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let source = conf
            .file_source
            .downcast_ref::<RepairedSource<F::Source>>()
            .ok_or_else(|| internal_datafusion_err!("a repaired scan needs its own source"))?;
        let inner: Arc<dyn FileSource> = Arc::new(source.inner.clone());
        plan_wrapped(&self.inner, state, conf, inner, |planned| {
            repaired_source::<F>(planned, self.replacement)
        })
        .await
    }

    /// Writing is the format's: what is written is UTF-8 already.
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
        repaired_source::<F>(self.inner.file_source(table_schema), self.replacement)
            .expect("a format's source is its own")
    }
}

/// The plan `format` makes of the scan `conf` over its own source
/// (`inner`), with the source it planned then wrapped by `wrap`: the
/// format's planning (the session's defaults, its reader factory) is kept.
pub(crate) async fn plan_wrapped(
    format: &dyn FileFormat,
    state: &dyn Session,
    conf: FileScanConfig,
    inner: Arc<dyn FileSource>,
    wrap: impl FnOnce(Arc<dyn FileSource>) -> Result<Arc<dyn FileSource>>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let conf = FileScanConfigBuilder::from(conf).with_source(inner).build();
    let plan = format.create_physical_plan(state, conf).await?;
    let conf = plan
        .downcast_ref::<DataSourceExec>()
        .and_then(|exec| exec.data_source().downcast_ref::<FileScanConfig>())
        .ok_or_else(|| internal_datafusion_err!("a format planned no file scan"))?;
    let source = wrap(Arc::clone(&conf.file_source))?;
    let conf = FileScanConfigBuilder::from(conf.clone())
        .with_source(source)
        .build();
    Ok(DataSourceExec::from_data_source(conf))
}

/// `F`'s own source, wrapped in the repairing one.
fn repaired_source<F: Wrapped>(
    inner: Arc<dyn FileSource>,
    replacement: Replacement,
) -> Result<Arc<dyn FileSource>> {
    let inner = inner
        .downcast_ref::<F::Source>()
        .ok_or_else(|| internal_datafusion_err!("a format gave another source than its own"))?;
    Ok(Arc::new(RepairedSource::new(inner.clone(), replacement)))
}

//! DataFusion's `ParquetSource` (its options, projection, metrics and
//! byte ranges) with files opened by [`BytesOpener`] instead of
//! DataFusion's opener.

use std::fmt;
use std::sync::Arc;

use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::physical_plan::parquet::DefaultParquetFileReaderFactory;
use datafusion::datasource::physical_plan::{
    FileOpener, FileScanConfig, FileSource, ParquetFileReaderFactory, ParquetSource,
};
use datafusion::datasource::projection::ProjectionOpener;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::object_store::ObjectStore;
use datafusion::physical_expr::projection::ProjectionExprs;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::DisplayFormatType;
use datafusion_common::Result;

use super::opener::BytesOpener;
use crate::format::source::{batch_size_set, projected, split_projection};
use crate::policy::StringHandling;

/// A `ParquetSource` whose string columns are read as bytes and repaired
/// or checked. Filters are not pushed into it (DataFusion filters above
/// the scan), so neither row groups nor pages are pruned.
#[derive(Debug, Clone)]
pub struct RepairedParquetSource {
    inner: ParquetSource,
    strings: StringHandling,
    batch_size: Option<usize>,
}

impl RepairedParquetSource {
    /// `inner` with its string columns handled as `strings` says.
    pub fn new(inner: ParquetSource, strings: StringHandling) -> RepairedParquetSource {
        RepairedParquetSource {
            inner,
            strings,
            batch_size: None,
        }
    }

    /// DataFusion's source inside: the table schema, the options and the
    /// projection.
    pub fn parquet(&self) -> &ParquetSource {
        &self.inner
    }

    /// What is done with a string value that is not UTF-8.
    pub fn strings(&self) -> StringHandling {
        self.strings
    }

    /// The same source over `inner` (the one DataFusion's plan made).
    pub(crate) fn with_parquet(&self, inner: ParquetSource) -> RepairedParquetSource {
        RepairedParquetSource {
            inner,
            ..self.clone()
        }
    }

    /// The batch size set by the plan, if it was set yet.
    pub fn batch_size(&self) -> Option<usize> {
        self.batch_size
    }
}

impl FileSource for RepairedParquetSource {
    fn create_file_opener(
        &self,
        store: Arc<dyn ObjectStore>,
        _base_config: &FileScanConfig,
        partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let batch_size = batch_size_set(self.batch_size)?;
        let table = self.inner.table_schema();
        let projection = split_projection(&self.inner);
        let schema = Arc::new(table.file_schema().project(&projection.file_indices)?);
        // The source's reader factory (DataFusion's caching one, from the
        // format's plan), or DataFusion's plain one.
        let readers = match self.inner.parquet_file_reader_factory() {
            Some(readers) => Arc::clone(readers),
            None => Arc::new(DefaultParquetFileReaderFactory::new(store))
                as Arc<dyn ParquetFileReaderFactory>,
        };
        let opener = Arc::new(BytesOpener {
            readers,
            partition,
            metadata_size_hint: self.inner.table_parquet_options().global.metadata_size_hint,
            metrics: self.inner.metrics().clone(),
            schema,
            strings: self.strings,
            batch_size,
        });
        ProjectionOpener::try_new(projection, opener, table.file_schema())
    }

    fn table_schema(&self) -> &TableSchema {
        self.inner.table_schema()
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        Arc::new(RepairedParquetSource {
            batch_size: Some(batch_size),
            ..self.clone()
        })
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        self.inner.projection()
    }

    /// DataFusion's, unless it would add a virtual column (the row index)
    /// to the table, which this source's reader does not make.
    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let Some(inner) = projected(&self.inner, projection)? else {
            return Ok(None);
        };
        if inner.table_schema().table_schema() != self.inner.table_schema().table_schema() {
            return Ok(None);
        }
        Ok(Some(Arc::new(self.with_parquet(inner))))
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        self.inner.metrics()
    }

    fn file_type(&self) -> &str {
        self.inner.file_type()
    }

    fn fmt_extra(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, ", strings={}", self.strings)
            }
            DisplayFormatType::TreeRender => Ok(()),
        }
    }

    fn supports_repartitioning(&self) -> bool {
        true
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        self.inner.apply_expressions(f)
    }
}

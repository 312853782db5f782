//! Opens a Parquet file, or the row groups of a byte range of one, with
//! its string columns read as bytes and made strings again under the
//! table's handling.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener, ParquetFileReaderFactory};
use datafusion::parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use datafusion::parquet::arrow::async_reader::AsyncFileReader;
use datafusion::parquet::arrow::{ParquetRecordBatchStreamBuilder, ProjectionMask};
use datafusion::parquet::errors::Result as ParquetResult;
use datafusion::parquet::file::metadata::ParquetMetaData;
use datafusion::parquet::file::metadata::RowGroupMetaData;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion_common::{DataFusionError, Result};
use datafusion_datasource::{FileRange, PartitionedFile};
use futures::future::BoxFuture;
use futures::{StreamExt, TryStreamExt};

use super::bytes_schema::strings_as_bytes;
use super::columns::{RowGroupSpans, TableColumns};
use crate::policy::StringHandling;

/// Opens the files of one partition of a scan.
pub(crate) struct BytesOpener {
    /// DataFusion's readers of Parquet files on the scan's object store.
    pub(crate) readers: Arc<dyn ParquetFileReaderFactory>,
    pub(crate) partition: usize,
    pub(crate) metadata_size_hint: Option<usize>,
    pub(crate) metrics: ExecutionPlanMetricsSet,
    /// The columns read, with the table's types.
    pub(crate) schema: SchemaRef,
    pub(crate) strings: StringHandling,
    pub(crate) batch_size: usize,
}

impl FileOpener for BytesOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let mut reader = Reader(self.readers.create_reader(
            self.partition,
            file.clone(),
            self.metadata_size_hint,
            &self.metrics,
        )?);
        let schema = Arc::clone(&self.schema);
        let strings = self.strings;
        let batch_size = self.batch_size;
        Ok(Box::pin(async move {
            let location = file.object_meta.location.clone();
            let metadata = reader.get_metadata(None).await?;
            let metadata = Arc::new(strings_as_bytes(&metadata)?);
            // The embedded Arrow schema would make the bytes strings
            // (checked) again; the table's types are restored afterwards.
            let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
            let metadata = ArrowReaderMetadata::try_new(metadata, options)?;

            let groups = row_groups_in(metadata.metadata().row_groups(), file.range.as_ref());
            let mut spans = RowGroupSpans::new(metadata.metadata().row_groups(), &groups);
            let parquet_schema = metadata.parquet_schema();
            let roots = parquet_schema.root_schema().get_fields();
            let read = roots
                .iter()
                .enumerate()
                .filter(|(_, root)| schema.field_with_name(root.name()).is_ok())
                .map(|(index, _)| index);
            let mask = ProjectionMask::roots(parquet_schema, read);
            let batches = ParquetRecordBatchStreamBuilder::new_with_metadata(reader, metadata)
                .with_projection(mask)
                .with_row_groups(groups)
                .with_batch_size(batch_size)
                .build()?;

            let columns = TableColumns {
                schema,
                strings,
                file: location.to_string(),
            };
            Ok(batches
                .map_err(DataFusionError::from)
                .and_then(move |batch| futures::future::ready(columns.convert(&batch, &mut spans)))
                .boxed())
        }))
    }
}

/// The row groups a scan of `range` reads: as DataFusion's Parquet scan,
/// those whose first page (dictionary or data) starts in the range, so
/// that the ranges of a file read each row group once. All of them
/// without a range.
fn row_groups_in(groups: &[RowGroupMetaData], range: Option<&FileRange>) -> Vec<usize> {
    (0..groups.len())
        .filter(|&index| {
            let Some(range) = range else { return true };
            let Some(first) = groups[index].columns().first() else {
                return false;
            };
            let offset = first
                .dictionary_page_offset()
                .unwrap_or_else(|| first.data_page_offset());
            range.contains(offset)
        })
        .collect()
}

/// A reader a factory made: Parquet's stream takes an `AsyncFileReader`
/// that is `Send`, which the factory's boxed one is but does not say.
struct Reader(Box<dyn AsyncFileReader + Send>);

impl AsyncFileReader for Reader {
    fn get_bytes(&mut self, range: Range<u64>) -> BoxFuture<'_, ParquetResult<Bytes>> {
        self.0.get_bytes(range)
    }

    fn get_byte_ranges(
        &mut self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'_, ParquetResult<Vec<Bytes>>> {
        self.0.get_byte_ranges(ranges)
    }

    fn get_metadata<'a>(
        &'a mut self,
        options: Option<&'a ArrowReaderOptions>,
    ) -> BoxFuture<'a, ParquetResult<Arc<ParquetMetaData>>> {
        self.0.get_metadata(options)
    }
}

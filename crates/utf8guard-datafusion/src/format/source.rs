//! A file source of DataFusion's (`CsvSource`, `JsonSource`) whose files
//! are opened through a repair: the source keeps its options, projection,
//! metrics and byte ranges; only the opener differs, with the repair
//! between the (decompressed) bytes and Arrow's decoder.

use std::fmt;
use std::io::Read;
use std::sync::Arc;

use bytes::Bytes;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::physical_plan::{
    CsvSource, FileOpenFuture, FileOpener, FileScanConfig, FileSource, JsonSource,
};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::object_store::{GetOptions, GetResultPayload, ObjectStore};
use datafusion::physical_expr::projection::ProjectionExprs;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet};
use datafusion::physical_plan::DisplayFormatType;
use datafusion_common::{exec_datafusion_err, internal_datafusion_err};
use datafusion_common::{DataFusionError, Result};
use datafusion_datasource::boundary_stream::AlignedBoundaryStream;
use datafusion_datasource::decoder::{deserialize_stream, Decoder, DecoderDeserializer};
use datafusion_datasource::PartitionedFile;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use utf8guard::{RepairReader, Replacement};

use super::stream::repaired;
#[cfg(feature = "parquet")]
use super::RepairedParquetSource;
#[cfg(feature = "parquet")]
use crate::policy::StringHandling;
#[cfg(feature = "parquet")]
use datafusion::datasource::physical_plan::ParquetSource;

/// Record batches read from a local file, on the thread that asks.
pub(crate) type Batches = Box<dyn Iterator<Item = Result<RecordBatch, ArrowError>> + Send>;

/// A DataFusion file source whose files can be read from repaired bytes.
pub(crate) trait Repairable: FileSource + Clone {
    /// How its files are decoded.
    type Reading: Reading;

    /// The decoding of `columns` of its files, in batches of `batch_size`.
    fn reading(&self, batch_size: usize, columns: Vec<usize>) -> Result<Self::Reading>;
}

/// How a format decodes text: pushed a piece at a time (a stream, or a
/// byte range), or pulled from a reader (a local file).
pub(crate) trait Reading: Send + Sync + 'static {
    type Decoder: Decoder + 'static;

    /// The byte records end with, which byte ranges are aligned to.
    fn terminator(&self) -> u8;

    /// A push decoder, for text from the start of a file or not.
    fn decoder(&self, at_file_start: bool) -> Result<Self::Decoder>;

    /// The batches of a whole file's text.
    fn batches(&self, text: RepairReader<Box<dyn Read + Send>>) -> Result<Batches>;
}

/// `S`, with its files opened through a repair under a policy.
#[derive(Debug, Clone)]
pub(crate) struct RepairedSource<S> {
    pub(crate) inner: S,
    pub(crate) replacement: Replacement,
    batch_size: Option<usize>,
}

impl<S: Repairable> RepairedSource<S> {
    pub(crate) fn new(inner: S, replacement: Replacement) -> RepairedSource<S> {
        RepairedSource {
            inner,
            replacement,
            batch_size: None,
        }
    }
}

/// The columns a source reads from its files, and the projection done
/// over them.
pub(crate) fn split_projection(source: &dyn FileSource) -> SplitProjection {
    let schema = source.table_schema();
    match source.projection() {
        Some(projection) => SplitProjection::new(schema.file_schema(), projection),
        None => SplitProjection::unprojected(schema),
    }
}

/// The batch size a plan set on a source, or the error of a scan opened
/// before.
pub(crate) fn batch_size_set(batch_size: Option<usize>) -> Result<usize> {
    batch_size
        .ok_or_else(|| internal_datafusion_err!("a scan opened before its batch size was set"))
}

/// `inner` with `projection` pushed into it, if it takes it.
pub(crate) fn projected<S: FileSource + Clone>(
    inner: &S,
    projection: &ProjectionExprs,
) -> Result<Option<S>> {
    let Some(inner) = inner.try_pushdown_projection(projection)? else {
        return Ok(None);
    };
    let inner = inner
        .downcast_ref::<S>()
        .ok_or_else(|| internal_datafusion_err!("a projection changed the source's type"))?;
    Ok(Some(inner.clone()))
}

impl<S: Repairable> FileSource for RepairedSource<S> {
    fn create_file_opener(
        &self,
        store: Arc<dyn ObjectStore>,
        base_config: &FileScanConfig,
        partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let batch_size = batch_size_set(self.batch_size)?;
        let projection = split_projection(&self.inner);
        let reading = self
            .inner
            .reading(batch_size, projection.file_indices.clone())?;
        let opener = Arc::new(RepairingOpener {
            reading: Arc::new(reading),
            replacement: self.replacement,
            compression: base_config.file_compression_type,
            store,
            metrics: BaselineMetrics::new(self.inner.metrics(), partition),
        });
        ProjectionOpener::try_new(projection, opener, self.inner.table_schema().file_schema())
    }

    fn table_schema(&self) -> &TableSchema {
        self.inner.table_schema()
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        Arc::new(RepairedSource {
            batch_size: Some(batch_size),
            ..self.clone()
        })
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        self.inner.projection()
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let Some(inner) = projected(&self.inner, projection)? else {
            return Ok(None);
        };
        Ok(Some(Arc::new(RepairedSource {
            inner,
            ..self.clone()
        })))
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        self.inner.metrics()
    }

    fn file_type(&self) -> &str {
        self.inner.file_type()
    }

    fn fmt_extra(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.fmt_extra(t, f)?;
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, ", repair={}", self.replacement)
            }
            DisplayFormatType::TreeRender => Ok(()),
        }
    }

    fn supports_repartitioning(&self) -> bool {
        self.inner.supports_repartitioning()
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        self.inner.apply_expressions(f)
    }
}

/// DataFusion's CSV, JSON or Parquet file `source` wrapped in the
/// repairing one, `name` naming how (as `repaired_format`'s); `None` for
/// another source, or a name that names nothing.
// Used by the codecs alone.
#[cfg_attr(not(feature = "proto"), allow(dead_code))]
pub(crate) fn repaired_file_source(
    source: &dyn FileSource,
    name: &str,
) -> Option<Arc<dyn FileSource>> {
    #[cfg(feature = "parquet")]
    if let Some(parquet) = source.downcast_ref::<ParquetSource>() {
        let strings = StringHandling::from_name(name)?;
        return Some(Arc::new(RepairedParquetSource::new(
            parquet.clone(),
            strings,
        )));
    }
    let replacement = Replacement::from_name(name)?;
    if let Some(csv) = source.downcast_ref::<CsvSource>() {
        return Some(Arc::new(RepairedSource::new(csv.clone(), replacement)));
    }
    let json = source.downcast_ref::<JsonSource>()?;
    Some(Arc::new(RepairedSource::new(json.clone(), replacement)))
}

/// The source a repairing `source` wraps, and the name of how it repairs;
/// `None` for a source that does not.
// Used by the codecs alone.
#[cfg_attr(not(feature = "proto"), allow(dead_code))]
pub(crate) fn unrepaired_file_source(
    source: &dyn FileSource,
) -> Option<(Arc<dyn FileSource>, String)> {
    #[cfg(feature = "parquet")]
    if let Some(parquet) = source.downcast_ref::<RepairedParquetSource>() {
        return Some((
            Arc::new(parquet.parquet().clone()),
            parquet.strings().to_string(),
        ));
    }
    if let Some(csv) = source.downcast_ref::<RepairedSource<CsvSource>>() {
        return Some((
            Arc::new(csv.inner.clone()),
            csv.replacement.name().to_string(),
        ));
    }
    let json = source.downcast_ref::<RepairedSource<JsonSource>>()?;
    Some((
        Arc::new(json.inner.clone()),
        json.replacement.name().to_string(),
    ))
}

/// Opens a file, or a byte range of one, as DataFusion's CSV and JSON
/// openers do, with the repair between the bytes and the decoder.
struct RepairingOpener<R> {
    reading: Arc<R>,
    replacement: Replacement,
    compression: FileCompressionType,
    store: Arc<dyn ObjectStore>,
    metrics: BaselineMetrics,
}

impl<R: Reading> FileOpener for RepairingOpener<R> {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let range = file.range.clone();
        if range.is_some() && self.compression.is_compressed() {
            return Err(internal_datafusion_err!(
                "a compressed file cannot be read in byte ranges"
            ));
        }
        let reading = Arc::clone(&self.reading);
        let replacement = self.replacement;
        let compression = self.compression;
        let store = Arc::clone(&self.store);
        let metrics = self.metrics.clone();

        Ok(Box::pin(async move {
            let location = file.object_meta.location;
            if let Some(range) = range {
                let offset = |at: i64| {
                    u64::try_from(at).map_err(|_| {
                        exec_datafusion_err!("a byte range at offset {at} of {location}")
                    })
                };
                // The range is widened to whole records: it starts just
                // after a terminator (or at the file's start) and ends
                // with one. The terminator is ASCII, and an ASCII byte
                // always ends any UTF-8 sequence before it, so a repair
                // that starts afresh here gives exactly the bytes the
                // repair of the whole file gives for these records.
                let bytes = AlignedBoundaryStream::new(
                    store,
                    location.clone(),
                    offset(range.start)?,
                    offset(range.end)?,
                    file.object_meta.size,
                    reading.terminator(),
                )
                .await?
                .map_err(DataFusionError::from)
                .boxed();
                let decoder = reading.decoder(range.start == 0)?;
                return Ok(decode(repaired(bytes, replacement), decoder));
            }
            let file = store.get_opts(&location, GetOptions::default()).await?;
            match file.payload {
                // A local file: read on this thread, as DataFusion's
                // openers do, through a reader that hands on unchanged
                // what needs no repair.
                #[cfg(not(target_arch = "wasm32"))]
                GetResultPayload::File(file, _) => {
                    let bytes = compression.convert_read(file)?;
                    let mut batches = reading.batches(RepairReader::new(bytes, replacement))?;
                    let batches = std::iter::from_fn(move || {
                        let _timer = metrics.elapsed_compute().timer();
                        batches.next()
                    });
                    Ok(futures::stream::iter(batches)
                        .map(|batch| batch.map_err(DataFusionError::from))
                        .boxed())
                }
                GetResultPayload::Stream(bytes) => {
                    let bytes = bytes.map_err(DataFusionError::from).boxed();
                    let bytes = compression.convert_stream(bytes)?;
                    Ok(decode(repaired(bytes, replacement), reading.decoder(true)?))
                }
            }
        }))
    }
}

/// A push decoder over repaired text, driven as DataFusion drives it.
fn decode(
    text: BoxStream<'static, Result<Bytes>>,
    decoder: impl Decoder + 'static,
) -> BoxStream<'static, Result<RecordBatch>> {
    deserialize_stream(text.fuse(), DecoderDeserializer::new(decoder))
        .map_err(DataFusionError::from)
        .boxed()
}

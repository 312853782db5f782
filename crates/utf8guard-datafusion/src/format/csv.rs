//! CSV read through a repair: DataFusion's `CsvFormat` and `CsvSource`
//! kept whole (every option, inference, the plan, writing), with the bytes
//! of each file repaired between decompression and Arrow's CSV decoder.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::csv;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::config::CsvOptions;
use datafusion::common::parsers::CompressionTypeVariant;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::Statistics;
use datafusion::datasource::file_format::csv::{CsvDecoder, CsvFormat};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::{FileFormat, DEFAULT_SCHEMA_INFER_MAX_RECORD};
use datafusion::datasource::physical_plan::{
    CsvSource, FileOpenFuture, FileOpener, FileScanConfig, FileScanConfigBuilder, FileSinkConfig,
    FileSource,
};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::object_store::{GetOptions, GetResultPayload, ObjectMeta, ObjectStore};
use datafusion::physical_expr::projection::ProjectionExprs;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::sort_expr::LexRequirement;
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet};
use datafusion::physical_plan::{DisplayFormatType, ExecutionPlan};
use datafusion_common::{exec_datafusion_err, internal_datafusion_err, plan_err};
use datafusion_common::{DataFusionError, Result};
use datafusion_datasource::boundary_stream::AlignedBoundaryStream;
use datafusion_datasource::decoder::{deserialize_stream, DecoderDeserializer};
use datafusion_datasource::PartitionedFile;
use futures::{StreamExt, TryStreamExt};
use utf8guard::{RepairReader, Replacement};

use super::stream::repaired;

/// DataFusion's CSV [`FileFormat`] with each file's bytes repaired under a
/// [`Replacement`] policy as they are read: after decompression, before
/// the CSV decoder, so that a file with bytes that are not UTF-8 (which
/// DataFusion's own reader refuses) reads as the repaired file would.
/// Schema inference sees the repaired bytes too.
///
/// Everything else is `CsvFormat`'s: its options (header, delimiter,
/// quote, escape, comment, terminator, compression, newlines in values,
/// inference), its plan, its splitting of a file into byte ranges, its
/// writer. The structural bytes (delimiter, quote, escape, comment,
/// terminator) must be ASCII, which a repair never changes.
///
/// In SQL it is reached through [`register_file_formats`]
/// (`CREATE EXTERNAL TABLE ... STORED AS CSV OPTIONS ('utf8guard.repair'
/// 'windows-1252')`); from Rust, give it to a `ListingOptions`.
///
/// [`register_file_formats`]: crate::register_file_formats
///
/// ```
/// use datafusion::datasource::file_format::csv::CsvFormat;
/// use utf8guard::Replacement;
/// use utf8guard_datafusion::RepairedCsvFormat;
///
/// let csv = CsvFormat::default().with_delimiter(b';');
/// let format = RepairedCsvFormat::try_new(csv, Replacement::Windows1252)?;
/// assert_eq!(format.replacement(), Replacement::Windows1252);
///
/// let error = RepairedCsvFormat::try_new(CsvFormat::default().with_delimiter(0xA7), Replacement::Jvm);
/// assert!(error.unwrap_err().to_string().contains("ASCII"));
/// # Ok::<(), datafusion::error::DataFusionError>(())
/// ```
#[derive(Debug)]
pub struct RepairedCsvFormat {
    csv: CsvFormat,
    replacement: Replacement,
}

impl RepairedCsvFormat {
    /// `csv` read through a repair under `replacement`; an error when one
    /// of its structural bytes is not ASCII (a repair turns such a byte
    /// into a character of two or three bytes, or keeps it only inside
    /// one).
    pub fn try_new(csv: CsvFormat, replacement: Replacement) -> Result<RepairedCsvFormat> {
        let options = csv.options();
        let bytes = [
            ("delimiter", Some(options.delimiter)),
            ("quote", Some(options.quote)),
            ("escape", options.escape),
            ("comment", options.comment),
            ("terminator", options.terminator),
        ];
        for (name, byte) in bytes {
            if let Some(byte) = byte.filter(|b| !b.is_ascii()) {
                return plan_err!(
                    "a repaired CSV file needs an ASCII {name}, not byte 0x{byte:02X}"
                );
            }
        }
        Ok(RepairedCsvFormat { csv, replacement })
    }

    /// The CSV format read through the repair.
    pub fn csv(&self) -> &CsvFormat {
        &self.csv
    }

    /// The policy the bytes are repaired under.
    pub fn replacement(&self) -> Replacement {
        self.replacement
    }

    /// A `CsvFormat` with this one's options but no compression: it finds
    /// the records in bytes this format has already decompressed and
    /// repaired.
    fn plain_csv(&self) -> CsvFormat {
        CsvFormat::default().with_options(CsvOptions {
            compression: CompressionTypeVariant::UNCOMPRESSED,
            ..self.csv.options().clone()
        })
    }
}

#[async_trait]
impl FileFormat for RepairedCsvFormat {
    fn get_ext(&self) -> String {
        self.csv.get_ext()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        self.csv.get_ext_with_compression(compression)
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        self.csv.compression_type()
    }

    /// `CsvFormat`'s inference, over each file decompressed and repaired:
    /// the same records (up to `schema_infer_max_rec` over all the files)
    /// and the same merging of the files' schemas.
    async fn infer_schema(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        let compression: FileCompressionType = self.csv.options().compression.into();
        let plain = self.plain_csv();
        let mut records_to_read = self
            .csv
            .options()
            .schema_infer_max_rec
            .unwrap_or(DEFAULT_SCHEMA_INFER_MAX_RECORD);
        let mut schemas = Vec::new();
        for object in objects {
            let bytes = store
                .get_opts(&object.location, GetOptions::default())
                .await?
                .into_stream()
                .map_err(DataFusionError::from)
                .boxed();
            let text = repaired(compression.convert_stream(bytes)?, self.replacement);
            let records = plain.read_to_delimited_chunks_from_stream(text);
            let (schema, records_read) = plain
                .infer_schema_from_stream(state, records_to_read, records)
                .await
                .map_err(|error| {
                    DataFusionError::Context(
                        format!("Error when processing CSV file {}", object.location),
                        Box::new(error),
                    )
                })?;
            records_to_read -= records_read;
            schemas.push(schema);
            if records_to_read == 0 {
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
        self.csv
            .infer_stats(state, store, table_schema, object)
            .await
    }

    /// `CsvFormat`'s plan (the session's defaults for the header and for
    /// newlines in values, the compression), with its `CsvSource` wrapped
    /// again in the repairing source.
    async fn create_physical_plan(
        &self,
        state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let source = conf
            .file_source
            .downcast_ref::<RepairedCsvSource>()
            .ok_or_else(|| internal_datafusion_err!("a repaired CSV scan needs its own source"))?
            .clone();
        let conf = FileScanConfigBuilder::from(conf)
            .with_source(Arc::new(source.csv.clone()))
            .build();
        let plan = self.csv.create_physical_plan(state, conf).await?;
        let (conf, csv) = plan
            .downcast_ref::<DataSourceExec>()
            .and_then(|exec| exec.downcast_to_file_source::<CsvSource>())
            .ok_or_else(|| internal_datafusion_err!("CsvFormat planned no CSV scan"))?;
        let source = RepairedCsvSource {
            csv: csv.clone(),
            ..source
        };
        let conf = FileScanConfigBuilder::from(conf.clone())
            .with_source(Arc::new(source))
            .build();
        Ok(DataSourceExec::from_data_source(conf))
    }

    /// Writing is `CsvFormat`'s: what is written is UTF-8 already.
    async fn create_writer_physical_plan(
        &self,
        input: Arc<dyn ExecutionPlan>,
        state: &dyn Session,
        conf: FileSinkConfig,
        order_requirements: Option<LexRequirement>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.csv
            .create_writer_physical_plan(input, state, conf, order_requirements)
            .await
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        let csv = self.csv.file_source(table_schema);
        let csv = csv
            .downcast_ref::<CsvSource>()
            .expect("CsvFormat's source is a CsvSource")
            .clone();
        Arc::new(RepairedCsvSource {
            csv,
            replacement: self.replacement,
            batch_size: None,
        })
    }
}

/// DataFusion's `CsvSource` (its options, projection, metrics and byte
/// ranges), whose files are opened through a repair.
#[derive(Debug, Clone)]
pub struct RepairedCsvSource {
    csv: CsvSource,
    replacement: Replacement,
    batch_size: Option<usize>,
}

impl RepairedCsvSource {
    /// The CSV source the repaired bytes are read as.
    pub fn csv(&self) -> &CsvSource {
        &self.csv
    }

    /// The policy the bytes are repaired under.
    pub fn replacement(&self) -> Replacement {
        self.replacement
    }

    /// `CsvSource` keeps its reader builder to itself; this is the same
    /// reader, built from what it shows.
    fn reader_builder(&self, has_header: bool, columns: Vec<usize>) -> Result<csv::ReaderBuilder> {
        let csv = &self.csv;
        let batch_size = self.batch_size.ok_or_else(|| {
            internal_datafusion_err!("a CSV scan opened before its batch size was set")
        })?;
        let mut builder = csv::ReaderBuilder::new(Arc::clone(csv.table_schema().file_schema()))
            .with_delimiter(csv.delimiter())
            .with_batch_size(batch_size)
            .with_header(has_header)
            .with_quote(csv.quote())
            .with_truncated_rows(csv.truncate_rows())
            .with_projection(columns);
        if let Some(terminator) = csv.terminator() {
            builder = builder.with_terminator(terminator);
        }
        if let Some(escape) = csv.escape() {
            builder = builder.with_escape(escape);
        }
        if let Some(comment) = csv.comment() {
            builder = builder.with_comment(comment);
        }
        Ok(builder)
    }

    fn split_projection(&self) -> SplitProjection {
        let schema = self.csv.table_schema();
        match self.csv.projection() {
            Some(projection) => SplitProjection::new(schema.file_schema(), projection),
            None => SplitProjection::unprojected(schema),
        }
    }
}

impl FileSource for RepairedCsvSource {
    fn create_file_opener(
        &self,
        store: Arc<dyn ObjectStore>,
        base_config: &FileScanConfig,
        partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let projection = self.split_projection();
        let opener = Arc::new(RepairedCsvOpener {
            source: Arc::new(self.clone()),
            columns: projection.file_indices.clone(),
            compression: base_config.file_compression_type,
            store,
            partition,
        });
        ProjectionOpener::try_new(projection, opener, self.csv.table_schema().file_schema())
    }

    fn table_schema(&self) -> &TableSchema {
        self.csv.table_schema()
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        Arc::new(RepairedCsvSource {
            batch_size: Some(batch_size),
            ..self.clone()
        })
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        self.csv.projection()
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let Some(csv) = self.csv.try_pushdown_projection(projection)? else {
            return Ok(None);
        };
        let csv = csv
            .downcast_ref::<CsvSource>()
            .ok_or_else(|| internal_datafusion_err!("CsvSource projected into another source"))?
            .clone();
        Ok(Some(Arc::new(RepairedCsvSource {
            csv,
            ..self.clone()
        })))
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        self.csv.metrics()
    }

    fn file_type(&self) -> &str {
        self.csv.file_type()
    }

    fn fmt_extra(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        self.csv.fmt_extra(t, f)?;
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, ", repair={}", self.replacement)
            }
            DisplayFormatType::TreeRender => Ok(()),
        }
    }

    fn supports_repartitioning(&self) -> bool {
        self.csv.supports_repartitioning()
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        self.csv.apply_expressions(f)
    }
}

/// Opens a file, or a byte range of one, as `CsvOpener` does, with the
/// repair between the bytes and the decoder.
struct RepairedCsvOpener {
    source: Arc<RepairedCsvSource>,
    /// The file's columns the scan reads.
    columns: Vec<usize>,
    compression: FileCompressionType,
    store: Arc<dyn ObjectStore>,
    partition: usize,
}

impl FileOpener for RepairedCsvOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let csv = &self.source.csv;
        // Only the range at the file's start holds the header.
        let range = file.range.clone();
        let starts_file = range.as_ref().is_none_or(|range| range.start == 0);
        let builder = self
            .source
            .reader_builder(csv.has_header() && starts_file, self.columns.clone())?;
        if range.is_some() && self.compression.is_compressed() {
            return Err(internal_datafusion_err!(
                "a compressed CSV file cannot be read in byte ranges"
            ));
        }
        let replacement = self.source.replacement;
        let compression = self.compression;
        let store = Arc::clone(&self.store);
        let terminator = csv.terminator().unwrap_or(b'\n');
        let metrics = BaselineMetrics::new(csv.metrics(), self.partition);

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
                    terminator,
                )
                .await?
                .map_err(DataFusionError::from)
                .boxed();
                return Ok(decode(repaired(bytes, replacement), builder));
            }
            let file = store.get_opts(&location, GetOptions::default()).await?;
            match file.payload {
                // A local file: read on this thread, as `CsvOpener` does,
                // through a reader that hands on unchanged what needs no
                // repair.
                #[cfg(not(target_arch = "wasm32"))]
                GetResultPayload::File(file, _) => {
                    let bytes = compression.convert_read(file)?;
                    let mut reader = builder.build(RepairReader::new(bytes, replacement))?;
                    let batches = std::iter::from_fn(move || {
                        let _timer = metrics.elapsed_compute().timer();
                        reader.next()
                    });
                    Ok(futures::stream::iter(batches)
                        .map(|batch| batch.map_err(DataFusionError::from))
                        .boxed())
                }
                GetResultPayload::Stream(bytes) => {
                    let bytes =
                        compression.convert_stream(bytes.map_err(DataFusionError::from).boxed())?;
                    Ok(decode(repaired(bytes, replacement), builder))
                }
            }
        }))
    }
}

/// Arrow's push decoder over repaired text, as DataFusion drives it.
fn decode(
    text: futures::stream::BoxStream<'static, Result<bytes::Bytes>>,
    builder: csv::ReaderBuilder,
) -> futures::stream::BoxStream<'static, Result<datafusion::arrow::record_batch::RecordBatch>> {
    let decoder = DecoderDeserializer::new(CsvDecoder::new(builder.build_decoder()));
    deserialize_stream(text.fuse(), decoder)
        .map_err(DataFusionError::from)
        .boxed()
}

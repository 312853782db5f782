//! CSV read through a repair: DataFusion's `CsvFormat` and `CsvSource`
//! kept whole (every option, inference, the plan, writing), with the bytes
//! of each file repaired between decompression and Arrow's CSV decoder.

use std::io::Read;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::csv;
use datafusion::arrow::datatypes::Schema;
use datafusion::catalog::Session;
use datafusion::common::config::CsvOptions;
use datafusion::common::parsers::CompressionTypeVariant;
use datafusion::datasource::file_format::csv::{CsvDecoder, CsvFormat};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::physical_plan::{CsvSource, FileSource};
use datafusion::object_store::{GetOptions, ObjectMeta, ObjectStore};
use datafusion_common::{plan_err, DataFusionError, Result};
use futures::{StreamExt, TryStreamExt};
use utf8guard::{RepairReader, Replacement};

use super::repaired::{RepairedFormat, Wrapped};
use super::source::{Batches, Reading, Repairable};
use super::stream::repaired;

/// DataFusion's CSV format read through a repair (see [`RepairedFormat`]):
/// every `CsvFormat` option is kept (header, delimiter, quote, escape,
/// comment, terminator, compression, newlines in values, inference). The
/// structural bytes (delimiter, quote, escape, comment, terminator) must
/// be ASCII, which a repair never changes.
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
pub type RepairedCsvFormat = RepairedFormat<CsvFormat>;

impl RepairedFormat<CsvFormat> {
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
        Ok(RepairedFormat {
            inner: csv,
            replacement,
        })
    }

    /// The CSV format read through the repair.
    pub fn csv(&self) -> &CsvFormat {
        &self.inner
    }
}

#[async_trait]
impl Wrapped for CsvFormat {
    type Source = CsvSource;

    fn records_to_infer(&self) -> Option<usize> {
        self.options().schema_infer_max_rec
    }

    /// `CsvFormat`'s own inference (its record chunker, its merging of
    /// the types seen) over the bytes decompressed and repaired.
    async fn infer_repaired(
        &self,
        replacement: Replacement,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        object: &ObjectMeta,
        records: usize,
    ) -> Result<(Schema, usize)> {
        let compression: FileCompressionType = self.options().compression.into();
        // This format's options but no compression: the bytes it is given
        // are decompressed (and repaired) already.
        let plain = CsvFormat::default().with_options(CsvOptions {
            compression: CompressionTypeVariant::UNCOMPRESSED,
            ..self.options().clone()
        });
        let bytes = store
            .get_opts(&object.location, GetOptions::default())
            .await?
            .into_stream()
            .map_err(DataFusionError::from)
            .boxed();
        let text = repaired(compression.convert_stream(bytes)?, replacement);
        let chunks = plain.read_to_delimited_chunks_from_stream(text);
        plain
            .infer_schema_from_stream(state, records, chunks)
            .await
            .map_err(|error| {
                DataFusionError::Context(
                    format!("Error when processing CSV file {}", object.location),
                    Box::new(error),
                )
            })
    }
}

impl Repairable for CsvSource {
    type Reading = CsvReading;

    fn reading(&self, batch_size: usize, columns: Vec<usize>) -> Result<CsvReading> {
        Ok(CsvReading {
            csv: self.clone(),
            batch_size,
            columns,
        })
    }
}

/// Arrow's CSV reader as `CsvSource` builds it.
pub(crate) struct CsvReading {
    csv: CsvSource,
    batch_size: usize,
    columns: Vec<usize>,
}

impl CsvReading {
    /// `CsvSource` keeps its reader builder to itself; this is the same
    /// reader, built from what it shows. Only the text at a file's start
    /// has the header.
    fn builder(&self, at_file_start: bool) -> csv::ReaderBuilder {
        let csv = &self.csv;
        let mut builder = csv::ReaderBuilder::new(Arc::clone(csv.table_schema().file_schema()))
            .with_delimiter(csv.delimiter())
            .with_batch_size(self.batch_size)
            .with_header(csv.has_header() && at_file_start)
            .with_quote(csv.quote())
            .with_truncated_rows(csv.truncate_rows())
            .with_projection(self.columns.clone());
        if let Some(terminator) = csv.terminator() {
            builder = builder.with_terminator(terminator);
        }
        if let Some(escape) = csv.escape() {
            builder = builder.with_escape(escape);
        }
        if let Some(comment) = csv.comment() {
            builder = builder.with_comment(comment);
        }
        builder
    }
}

impl Reading for CsvReading {
    type Decoder = CsvDecoder;

    fn terminator(&self) -> u8 {
        self.csv.terminator().unwrap_or(b'\n')
    }

    fn decoder(&self, at_file_start: bool) -> Result<CsvDecoder> {
        Ok(CsvDecoder::new(self.builder(at_file_start).build_decoder()))
    }

    fn batches(&self, text: RepairReader<Box<dyn Read + Send>>) -> Result<Batches> {
        Ok(Box::new(self.builder(true).build(text)?))
    }
}

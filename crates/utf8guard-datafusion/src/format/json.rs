//! Newline-delimited JSON read through a repair: DataFusion's `JsonFormat`
//! and `JsonSource` kept whole, with the bytes of each file repaired
//! between decompression and Arrow's JSON decoder.

use std::io::Read;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Buf;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::arrow::json;
use datafusion::catalog::Session;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::json::{JsonDecoder, JsonFormat};
use datafusion::datasource::physical_plan::{FileSource, JsonSource};
use datafusion::object_store::{GetOptions, GetResultPayload, ObjectMeta, ObjectStore};
use datafusion_common::{plan_err, Result};
use utf8guard::{RepairReader, Replacement};

use super::repaired::{RepairedFormat, Wrapped};
use super::source::{Batches, Reading, Repairable};

/// DataFusion's newline-delimited JSON format read through a repair (see
/// [`RepairedFormat`]), its options kept.
///
/// ```
/// use datafusion::datasource::file_format::json::JsonFormat;
/// use utf8guard::Replacement;
/// use utf8guard_datafusion::RepairedJsonFormat;
///
/// let format = RepairedJsonFormat::try_new(JsonFormat::default(), Replacement::Jvm)?;
/// assert_eq!(format.replacement(), Replacement::Jvm);
///
/// let array = JsonFormat::default().with_newline_delimited(false);
/// let error = RepairedJsonFormat::try_new(array, Replacement::Jvm).unwrap_err();
/// assert!(error.to_string().contains("newline-delimited"));
/// # Ok::<(), datafusion::error::DataFusionError>(())
/// ```
pub type RepairedJsonFormat = RepairedFormat<JsonFormat>;

impl RepairedFormat<JsonFormat> {
    /// `json` read through a repair under `replacement`; an error for a
    /// JSON array file (`format.newline_delimited` false), which DataFusion
    /// reads through a converter of its own.
    pub fn try_new(json: JsonFormat, replacement: Replacement) -> Result<RepairedJsonFormat> {
        if !json.is_newline_delimited() {
            return plan_err!("a repaired JSON file must be newline-delimited, not an array");
        }
        Ok(RepairedFormat {
            inner: json,
            replacement,
        })
    }

    /// The JSON format read through the repair.
    pub fn json(&self) -> &JsonFormat {
        &self.inner
    }
}

#[async_trait]
impl Wrapped for JsonFormat {
    type Source = JsonSource;

    fn records_to_infer(&self) -> Option<usize> {
        self.options().schema_infer_max_rec
    }

    /// Arrow's inference, as `JsonFormat`'s (which reads a file that is
    /// not local whole, too), over the bytes decompressed and repaired.
    async fn infer_repaired(
        &self,
        replacement: Replacement,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        object: &ObjectMeta,
        records: usize,
    ) -> Result<(Schema, usize)> {
        let compression: FileCompressionType = self.options().compression.into();
        let file = store
            .get_opts(&object.location, GetOptions::default())
            .await?;
        let bytes: Box<dyn Read + Send> = match file.payload {
            #[cfg(not(target_arch = "wasm32"))]
            GetResultPayload::File(file, _) => compression.convert_read(file)?,
            GetResultPayload::Stream(_) => {
                compression.convert_read(file.bytes().await?.reader())?
            }
        };
        let text = RepairReader::new(bytes, replacement);
        Ok(json::reader::infer_json_schema(text, Some(records))?)
    }
}

impl Repairable for JsonSource {
    type Reading = JsonReading;

    fn reading(&self, batch_size: usize, columns: Vec<usize>) -> Result<JsonReading> {
        let schema = self.table_schema().file_schema().project(&columns)?;
        Ok(JsonReading {
            schema: Arc::new(schema),
            batch_size,
        })
    }
}

/// Arrow's JSON reader as `JsonSource` builds it, for the columns read.
pub(crate) struct JsonReading {
    schema: SchemaRef,
    batch_size: usize,
}

impl JsonReading {
    fn builder(&self) -> json::ReaderBuilder {
        json::ReaderBuilder::new(Arc::clone(&self.schema)).with_batch_size(self.batch_size)
    }
}

impl Reading for JsonReading {
    type Decoder = JsonDecoder;

    fn terminator(&self) -> u8 {
        b'\n'
    }

    fn decoder(&self, _at_file_start: bool) -> Result<JsonDecoder> {
        Ok(JsonDecoder::new(self.builder().build_decoder()?))
    }

    fn batches(&self, text: RepairReader<Box<dyn Read + Send>>) -> Result<Batches> {
        Ok(Box::new(self.builder().build(text)?))
    }
}

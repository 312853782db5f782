//! Plan codecs that carry the repairing tables and scans across processes:
//! from a Ballista client to its scheduler (a logical plan) and from the
//! scheduler to its executors (a physical plan).
//!
//! datafusion-proto writes DataFusion's own listing tables and file scans
//! and hands anything else to an extension codec. Ours writes a repairing
//! table or scan as the same table or scan over DataFusion's own format or
//! source, which datafusion-proto knows, after a marker and the name of
//! the repair; reading it back wraps the format or source again. Everything not
//! ours goes to the codec wrapped (Ballista's, on a cluster), so these
//! codecs sit in front of it.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::parsers::CompressionTypeVariant;
use datafusion::common::TableReference;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::listing::ListingTable;
use datafusion::datasource::physical_plan::{CsvSource, FileScanConfig, FileScanConfigBuilder};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::{provider_as_source, source_as_provider};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{AggregateUDF, Extension, LogicalPlan, LogicalPlanBuilder};
use datafusion::logical_expr::{HigherOrderUDF, ScalarUDF, WindowUDF};
use datafusion::physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx;
use datafusion::physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx;
use datafusion::physical_plan::{ExecutionPlan, PhysicalExpr};
use datafusion_common::{internal_datafusion_err, internal_err, Result};
use datafusion_proto::bytes::{
    logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    physical_plan_from_bytes_with_proto_converter, physical_plan_to_bytes_with_proto_converter,
};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};

use crate::format::{
    repaired_file_source, repaired_format, unrepaired_file_source, unrepaired_format, with_format,
    RepairedListingTable,
};

/// What our encodings start with. A protobuf message never starts with a
/// zero byte (field number 0 does not exist), so nothing the wrapped codec
/// writes is mistaken for ours.
const MARKER: &[u8] = b"\0utf8guard.repaired\0";

/// The marker, then each of `fields` (short names, none with a newline:
/// how the bytes are repaired, as `repaired_format` reads it, and so on)
/// and a newline, then `plan`.
fn frame(fields: &[&str], plan: &[u8], buf: &mut Vec<u8>) {
    buf.extend_from_slice(MARKER);
    for field in fields {
        buf.extend_from_slice(field.as_bytes());
        buf.push(b'\n');
    }
    buf.extend_from_slice(plan);
}

/// The `N` fields and the plan of a buffer [`frame`] wrote; `None` for
/// one it did not.
fn unframe<const N: usize>(buf: &[u8]) -> Option<Result<([String; N], &[u8])>> {
    let mut rest = buf.strip_prefix(MARKER)?;
    let mut fields = [const { String::new() }; N];
    for field in &mut fields {
        let Some(end) = rest.iter().position(|&b| b == b'\n') else {
            return Some(internal_err!("a repaired plan cut short"));
        };
        *field = String::from_utf8_lossy(&rest[..end]).into_owned();
        rest = &rest[end + 1..];
    }
    Some(Ok((fields, rest)))
}

/// The methods for functions (scalar, higher-order, aggregate, window),
/// which the logical and the physical codec traits declare alike: handed to
/// the wrapped codec, since the repairing formats bring no function.
macro_rules! delegate_functions {
    () => {
        fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
            self.inner.try_decode_udf(name, buf)
        }

        fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.inner.try_encode_udf(node, buf)
        }

        fn try_decode_higher_order_function(
            &self,
            name: &str,
            buf: &[u8],
        ) -> Result<Arc<HigherOrderUDF>> {
            self.inner.try_decode_higher_order_function(name, buf)
        }

        fn try_encode_higher_order_function(
            &self,
            node: &HigherOrderUDF,
            buf: &mut Vec<u8>,
        ) -> Result<()> {
            self.inner.try_encode_higher_order_function(node, buf)
        }

        fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
            self.inner.try_decode_udaf(name, buf)
        }

        fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.inner.try_encode_udaf(node, buf)
        }

        fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
            self.inner.try_decode_udwf(name, buf)
        }

        fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.inner.try_encode_udwf(node, buf)
        }
    };
}

/// A logical codec that writes and reads [`RepairedListingTable`]s and
/// leaves everything else to the codec it wraps (on a Ballista cluster,
/// `BallistaLogicalExtensionCodec`): give it to the client's session
/// config and to the scheduler.
pub struct RepairedFormatsLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
}

impl RepairedFormatsLogicalCodec {
    /// In front of `inner`.
    pub fn new(inner: Arc<dyn LogicalExtensionCodec>) -> RepairedFormatsLogicalCodec {
        RepairedFormatsLogicalCodec { inner }
    }
}

impl fmt::Debug for RepairedFormatsLogicalCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RepairedFormatsLogicalCodec")
            .field("inner", &self.inner)
            .finish()
    }
}

impl LogicalExtensionCodec for RepairedFormatsLogicalCodec {
    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let Some(table) = node.downcast_ref::<RepairedListingTable>() else {
            return self.inner.try_encode_table_provider(table_ref, node, buf);
        };
        // The same table over DataFusion's own format, as a scan, which
        // datafusion-proto writes whole (paths, options, schema).
        let listing = table.listing_table();
        let (format, repair) = unrepaired_format(listing.options().format.as_ref())
            .ok_or_else(|| internal_datafusion_err!("a repaired table without its format"))?;
        let plain = Arc::new(with_format(listing, format)?);
        let scan = LogicalPlanBuilder::scan(table_ref.clone(), provider_as_source(plain), None)?
            .build()?;
        let plan = logical_plan_to_bytes_with_extension_codec(&scan, self)?;
        frame(&[&repair], &plan, buf);
        Ok(())
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let Some(framed) = unframe(buf) else {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        let ([repair], plan) = framed?;
        let LogicalPlan::TableScan(scan) =
            logical_plan_from_bytes_with_extension_codec(plan, ctx, self)?
        else {
            return internal_err!("a repaired table's plan is not a scan");
        };
        let provider = source_as_provider(&scan.source)?;
        let listing = provider
            .downcast_ref::<ListingTable>()
            .ok_or_else(|| internal_datafusion_err!("a repaired table's scan is not a listing"))?;
        let format = repaired_format(listing.options().format.as_ref(), &repair)
            .ok_or_else(|| internal_datafusion_err!("a repaired table over another format"))??;
        Ok(Arc::new(RepairedListingTable::try_new(with_format(
            listing, format,
        )?)?))
    }

    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    delegate_functions!();
}

/// A physical codec that writes and reads the scans of the repairing
/// formats and leaves everything else to the codec it wraps (on a Ballista
/// cluster, `BallistaPhysicalExtensionCodec`): give it to the scheduler
/// and to every executor.
pub struct RepairedFormatsPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
}

impl RepairedFormatsPhysicalCodec {
    /// In front of `inner`.
    pub fn new(inner: Arc<dyn PhysicalExtensionCodec>) -> RepairedFormatsPhysicalCodec {
        RepairedFormatsPhysicalCodec { inner }
    }
}

impl fmt::Debug for RepairedFormatsPhysicalCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RepairedFormatsPhysicalCodec")
            .field("inner", &self.inner)
            .finish()
    }
}

/// The file scan `plan` is, if it is one.
fn file_scan(plan: &dyn ExecutionPlan) -> Option<&FileScanConfig> {
    plan.downcast_ref::<DataSourceExec>()?
        .data_source()
        .downcast_ref::<FileScanConfig>()
}

impl PhysicalExtensionCodec for RepairedFormatsPhysicalCodec {
    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let unrepaired = file_scan(node.as_ref()).and_then(|scan| {
            let (source, repair) = unrepaired_file_source(scan.file_source.as_ref())?;
            Some((scan, source, repair))
        });
        let Some((scan, source, repair)) = unrepaired else {
            return self.inner.try_encode(node, buf, proto_converter);
        };
        // The same scan over DataFusion's own source. DataFusion's form
        // of a CSV or JSON scan leaves out the compression and a CSV
        // file's terminator, which are written beside it.
        let compression = scan.file_compression_type.get_variant().to_string();
        let terminator = source
            .downcast_ref::<CsvSource>()
            .and_then(CsvSource::terminator)
            .map_or_else(String::new, |byte| byte.to_string());
        let plain = FileScanConfigBuilder::from(scan.clone())
            .with_source(source)
            .build();
        let plain = DataSourceExec::from_data_source(plain);
        let plan = physical_plan_to_bytes_with_proto_converter(plain, self, proto_converter)?;
        frame(&[&repair, &compression, &terminator], &plan, buf);
        Ok(())
    }

    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(framed) = unframe(buf) else {
            return self.inner.try_decode(buf, inputs, ctx, proto_converter);
        };
        let ([repair, compression, terminator], plan) = framed?;
        let compression: CompressionTypeVariant = compression.parse()?;
        let plain =
            physical_plan_from_bytes_with_proto_converter(plan, ctx, self, proto_converter)?;
        let scan = file_scan(plain.as_ref())
            .ok_or_else(|| internal_datafusion_err!("a repaired scan's plan is not a file scan"))?;
        let mut source = Arc::clone(&scan.file_source);
        if let (Some(csv), false) = (source.downcast_ref::<CsvSource>(), terminator.is_empty()) {
            let byte = terminator
                .parse()
                .map_err(|_| internal_datafusion_err!("a CSV terminator '{terminator}'"))?;
            source = Arc::new(csv.with_terminator(Some(byte)));
        }
        let source = repaired_file_source(source.as_ref(), &repair).ok_or_else(|| {
            internal_datafusion_err!("a scan repaired as '{repair}' over another source")
        })?;
        let scan = FileScanConfigBuilder::from(scan.clone())
            .with_source(source)
            .with_file_compression_type(FileCompressionType::from(compression))
            .build();
        Ok(DataSourceExec::from_data_source(scan))
    }

    delegate_functions!();

    fn try_decode_expr(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn PhysicalExpr>],
        ctx: &PhysicalExprDecodeCtx<'_>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        self.inner.try_decode_expr(buf, inputs, ctx)
    }

    fn try_encode_expr(
        &self,
        node: &Arc<dyn PhysicalExpr>,
        buf: &mut Vec<u8>,
        ctx: &PhysicalExprEncodeCtx<'_>,
    ) -> Result<()> {
        self.inner.try_encode_expr(node, buf, ctx)
    }
}

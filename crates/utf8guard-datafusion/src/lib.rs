//! DataFusion scalar functions that check and repair UTF-8 with utf8guard,
//! for SQL and the DataFrame API.
//!
//! | Function | Argument | Result |
//! |---|---|---|
//! | `utf8_valid(x)` | binary or string | `boolean`: the value is UTF-8 |
//! | `utf8_error_offset(x)` | binary or string | `bigint`: the byte offset in the value where it stops being UTF-8; null when it is UTF-8 |
//! | `utf8_repair(x [, policy])` | binary or string, and a constant string | string: the value with each invalid sequence replaced as `policy` says (one of utf8guard's repair policies: `maximal-subpart`, the default, as `String::from_utf8_lossy`; `jvm`, `per-byte`, `windows-1252`, `latin-1`, `backslash`, `drop`, and their aliases) |
//! | `utf8_decode_jvm(x)` | binary or string | string: as the JVM's `new String(bytes, UTF_8)` (Spark's `decode(x, 'UTF-8')`), that is `utf8_repair(x, 'jvm')`, under a name of its own for Spark-compatible engines |
//! | `is_valid_utf8(x)` | binary or string | as `datafusion-spark`'s function of that name |
//! | `make_valid_utf8(x)` | binary or string | as `datafusion-spark`'s function of that name |
//!
//! The argument may be `Binary`, `LargeBinary`, `BinaryView`, `Utf8`,
//! `LargeUtf8` or `Utf8View` (other types are coerced as for
//! `datafusion-spark`'s functions); a null gives a null. `utf8_repair` and
//! `utf8_decode_jvm` give `Utf8` for `Binary` and `Utf8`, `LargeUtf8` for
//! the large types, `Utf8View` for the view types. A policy that is not a
//! constant string, or that names no policy (or the surrogate escape,
//! whose output a string column cannot hold), is an error.
//!
//! `utf8_valid`, `utf8_error_offset` and `utf8_repair` check the bytes of
//! string columns too: Arrow requires them to be UTF-8, but arrays from
//! the C Data Interface or from IPC read without validation may not be.
//! `is_valid_utf8` and `make_valid_utf8` have exactly the semantics of
//! `datafusion-spark`'s (which take string columns as valid without
//! looking), with the same names, argument types, return types and
//! nullability, so registering these over `datafusion-spark`'s makes an
//! existing query faster without changing its results.
//!
//! A column is checked as a whole first (the values in one pass with the
//! SIMD kernels, one byte per row for the character boundaries): a column
//! that is all UTF-8 is answered at once, and `utf8_repair` /
//! `make_valid_utf8` then hand its buffers on without copying them (except
//! where the result type asks for another layout). Only a column with bad
//! rows is looked at row by row, and only its bad rows are checked alone.
//!
//! ```
//! # #[cfg(feature = "session")]
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use datafusion::prelude::SessionContext;
//!
//! let ctx = SessionContext::new();
//! utf8guard_datafusion::register(&ctx);
//! let batches = ctx
//!     .sql("SELECT utf8_valid(X'C3A9'), utf8_error_offset(X'61C3'), utf8_repair(X'61FF62'), \
//!           utf8_repair(X'636166E9', 'windows-1252'), utf8_decode_jvm(X'EDA080')")
//!     .await?
//!     .collect()
//!     .await?;
//! let row = datafusion::arrow::util::pretty::pretty_format_batches(&batches)?.to_string();
//! assert!(row.contains("| true ") && row.contains("| 1 ") && row.contains("| a\u{FFFD}b "));
//! assert!(row.contains("| café ") && row.contains("| \u{FFFD} "));
//! # Ok::<(), datafusion::error::DataFusionError>(())
//! # }).unwrap();
//! ```
//!
//! # Which DataFusion
//!
//! DataFusion 55 (Arrow 59): the newest Ballista release (55) is built on
//! it, so these functions load into a Ballista scheduler and executors as
//! they are (see the repository's `cluster/`).
//!
//! # Files with bad bytes
//!
//! DataFusion's CSV and JSON readers stop at the first invalid UTF-8
//! (apache/datafusion#5204). After [`register_file_formats`], SQL reads
//! such files with their bytes repaired as they are read, under a policy
//! named in the table's options (with `windows-1252`, a file that mixes
//! UTF-8 and Windows-1252 lines comes out right):
//!
//! ```sql
//! CREATE EXTERNAL TABLE people STORED AS CSV LOCATION 'data/people/'
//! OPTIONS ('format.has_header' 'true', 'utf8guard.repair' 'windows-1252')
//! ```
//!
//! Every other option is DataFusion's, files are split across partitions
//! as DataFusion's own are, and a scan streams (see [`RepairedFormat`]).
//! [`register_csv_repaired`] and [`register_ndjson_repaired`] register one
//! file from Rust.
//!
//! Parquet `STRING` columns whose bytes are not UTF-8, which Arrow's reader
//! refuses, take the same option: a policy, or `validate`, whose error
//! names the file, row group, row, column and byte (see
//! `RepairedParquetFormat`; `register_parquet_repaired` from Rust, with
//! feature `parquet`):
//!
//! ```sql
//! CREATE EXTERNAL TABLE events STORED AS PARQUET LOCATION 'data/events/'
//! OPTIONS ('utf8guard.repair' 'validate')
//! ```
//!
//! # Features
//!
//! - `session` (default): [`register`], the file formats
//!   ([`register_file_formats`], [`RepairedFormat`]),
//!   [`register_csv_repaired`] and [`register_ndjson_repaired`], which take
//!   a `SessionContext` and so need the `datafusion` crate (without its
//!   default features).
//!   Without it the crate depends on `datafusion-common` and
//!   `datafusion-expr` only, and [`register_all`] fills any
//!   `FunctionRegistry` (a `SessionState`, Ballista's function registry).
//! - `proto`: the plan codecs that carry the repairing tables and scans to
//!   a Ballista scheduler and its executors
//!   (`RepairedFormatsLogicalCodec`, `RepairedFormatsPhysicalCodec`).
//! - `parquet` (default, implies `session`): the Parquet format
//!   (`RepairedParquetFormat`, `STORED AS PARQUET` with the option),
//!   through DataFusion's `parquet` feature.
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

#[cfg(feature = "proto")]
mod codec;
#[cfg(feature = "session")]
mod files;
#[cfg(feature = "session")]
mod format;
mod functions;
mod policy;

use std::sync::Arc;

use datafusion_common::Result;
use datafusion_expr::registry::FunctionRegistry;
use datafusion_expr::ScalarUDF;

#[cfg(feature = "proto")]
pub use codec::{RepairedFormatsLogicalCodec, RepairedFormatsPhysicalCodec};
#[cfg(feature = "parquet")]
pub use files::register_parquet_repaired;
#[cfg(feature = "session")]
pub use files::{register_csv_repaired, register_ndjson_repaired};
#[cfg(feature = "session")]
pub use format::{
    register_file_formats, RepairedCsvFormat, RepairedFormat, RepairedJsonFormat,
    RepairedListingTable, RepairingFormatFactory, REPAIR_OPTION,
};
#[cfg(feature = "parquet")]
pub use format::{RepairedParquetFormat, RepairedParquetSource};
pub use functions::{
    IsValidUtf8, MakeValidUtf8, Utf8DecodeJvm, Utf8ErrorOffset, Utf8Repair, Utf8Valid,
};
#[cfg(feature = "parquet")]
pub use policy::StringHandling;

/// The `utf8_valid` function.
pub fn utf8_valid() -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::new_from_impl(Utf8Valid::new()))
}

/// The `utf8_error_offset` function.
pub fn utf8_error_offset() -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::new_from_impl(Utf8ErrorOffset::new()))
}

/// The `utf8_repair` function.
pub fn utf8_repair() -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::new_from_impl(Utf8Repair::new()))
}

/// The `utf8_decode_jvm` function.
pub fn utf8_decode_jvm() -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::new_from_impl(Utf8DecodeJvm::new()))
}

/// `is_valid_utf8`, with `datafusion-spark`'s semantics.
pub fn is_valid_utf8() -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::new_from_impl(IsValidUtf8::new()))
}

/// `make_valid_utf8`, with `datafusion-spark`'s semantics.
pub fn make_valid_utf8() -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::new_from_impl(MakeValidUtf8::new()))
}

/// Every function of the crate: `utf8_valid`, `utf8_error_offset`,
/// `utf8_repair`, `utf8_decode_jvm`, `is_valid_utf8` and
/// `make_valid_utf8`.
///
/// ```
/// let names: Vec<String> = utf8guard_datafusion::all_functions()
///     .iter()
///     .map(|f| f.name().to_string())
///     .collect();
/// assert_eq!(
///     names,
///     [
///         "utf8_valid",
///         "utf8_error_offset",
///         "utf8_repair",
///         "utf8_decode_jvm",
///         "is_valid_utf8",
///         "make_valid_utf8"
///     ]
/// );
/// ```
pub fn all_functions() -> Vec<Arc<ScalarUDF>> {
    vec![
        utf8_valid(),
        utf8_error_offset(),
        utf8_repair(),
        utf8_decode_jvm(),
        is_valid_utf8(),
        make_valid_utf8(),
    ]
}

/// Registers [`all_functions`] into a function registry (a
/// `SessionState`, a `SessionContext`, Ballista's executor registry),
/// replacing functions of the same names (`datafusion-spark`'s
/// `is_valid_utf8` and `make_valid_utf8`, if registered before).
pub fn register_all(registry: &mut dyn FunctionRegistry) -> Result<()> {
    for function in all_functions() {
        registry.register_udf(function)?;
    }
    Ok(())
}

/// Registers [`all_functions`] into a `SessionContext`, replacing
/// functions of the same names.
///
/// ```
/// use datafusion::execution::FunctionRegistry;
/// use datafusion::prelude::SessionContext;
///
/// let ctx = SessionContext::new();
/// utf8guard_datafusion::register(&ctx);
/// assert!(ctx.udf("utf8_repair").is_ok());
/// ```
#[cfg(feature = "session")]
pub fn register(ctx: &datafusion::prelude::SessionContext) {
    for function in all_functions() {
        ctx.register_udf(function.as_ref().clone());
    }
}

/// The functions as expressions, for the DataFrame API.
///
/// ```
/// # #[cfg(feature = "session")]
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use datafusion::arrow::array::{ArrayRef, BinaryArray, Int64Array, RecordBatch};
/// use datafusion::prelude::{col, SessionContext};
/// use std::sync::Arc;
/// use utf8guard_datafusion::expr_fn::utf8_error_offset;
///
/// let column: ArrayRef = Arc::new(BinaryArray::from(vec![&b"ok"[..], b"no\xFF"]));
/// let batch = RecordBatch::try_from_iter([("b", column)])?;
/// let ctx = SessionContext::new();
/// let df = ctx.read_batch(batch)?.select(vec![utf8_error_offset(col("b")).alias("at")])?;
/// let out = df.collect().await?;
/// let at = out[0].column(0).as_any().downcast_ref::<Int64Array>().unwrap();
/// assert_eq!(at, &Int64Array::from(vec![None, Some(2)]));
/// # Ok::<(), datafusion::error::DataFusionError>(())
/// # }).unwrap();
/// ```
pub mod expr_fn {
    use datafusion_expr::Expr;

    /// `utf8_valid(x)`.
    pub fn utf8_valid(x: Expr) -> Expr {
        super::utf8_valid().call(vec![x])
    }

    /// `utf8_error_offset(x)`.
    pub fn utf8_error_offset(x: Expr) -> Expr {
        super::utf8_error_offset().call(vec![x])
    }

    /// `utf8_repair(x)`.
    pub fn utf8_repair(x: Expr) -> Expr {
        super::utf8_repair().call(vec![x])
    }

    /// `utf8_repair(x, policy)`: `policy` names one of utf8guard's repair
    /// policies (`"jvm"`, `"windows-1252"`, ...).
    pub fn utf8_repair_with(x: Expr, policy: &str) -> Expr {
        super::utf8_repair().call(vec![x, datafusion_expr::lit(policy)])
    }

    /// `utf8_decode_jvm(x)`.
    pub fn utf8_decode_jvm(x: Expr) -> Expr {
        super::utf8_decode_jvm().call(vec![x])
    }

    /// `is_valid_utf8(x)`.
    pub fn is_valid_utf8(x: Expr) -> Expr {
        super::is_valid_utf8().call(vec![x])
    }

    /// `make_valid_utf8(x)`.
    pub fn make_valid_utf8(x: Expr) -> Expr {
        super::make_valid_utf8().call(vec![x])
    }
}

//! DataFusion scalar functions that check and repair UTF-8 with utf8guard,
//! for SQL and the DataFrame API.
//!
//! | Function | Argument | Result |
//! |---|---|---|
//! | `utf8_valid(x)` | binary or string | `boolean`: the value is UTF-8 |
//! | `utf8_error_offset(x)` | binary or string | `bigint`: the byte offset in the value where it stops being UTF-8; null when it is UTF-8 |
//! | `utf8_repair(x)` | binary or string | string: the value with each invalid sequence replaced by U+FFFD, as `String::from_utf8_lossy` does |
//! | `is_valid_utf8(x)` | binary or string | as `datafusion-spark`'s function of that name |
//! | `make_valid_utf8(x)` | binary or string | as `datafusion-spark`'s function of that name |
//!
//! The argument may be `Binary`, `LargeBinary`, `BinaryView`, `Utf8`,
//! `LargeUtf8` or `Utf8View` (other types are coerced as for
//! `datafusion-spark`'s functions); a null gives a null. `utf8_repair`
//! gives `Utf8` for `Binary` and `Utf8`, `LargeUtf8` for the large types,
//! `Utf8View` for the view types.
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
//!     .sql("SELECT utf8_valid(X'C3A9'), utf8_error_offset(X'61C3'), utf8_repair(X'61FF62')")
//!     .await?
//!     .collect()
//!     .await?;
//! let row = datafusion::arrow::util::pretty::pretty_format_batches(&batches)?.to_string();
//! assert!(row.contains("| true ") && row.contains("| 1 ") && row.contains("| a\u{FFFD}b "));
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
//! # Features
//!
//! - `session` (default): [`register`], which takes a `SessionContext` and
//!   so needs the `datafusion` crate (without its default features).
//!   Without it the crate depends on `datafusion-common` and
//!   `datafusion-expr` only, and [`register_all`] fills any
//!   `FunctionRegistry` (a `SessionState`, Ballista's function registry).
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod functions;

use std::sync::Arc;

use datafusion_common::Result;
use datafusion_expr::registry::FunctionRegistry;
use datafusion_expr::ScalarUDF;

pub use functions::{IsValidUtf8, MakeValidUtf8, Utf8ErrorOffset, Utf8Repair, Utf8Valid};

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

/// `is_valid_utf8`, with `datafusion-spark`'s semantics.
pub fn is_valid_utf8() -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::new_from_impl(IsValidUtf8::new()))
}

/// `make_valid_utf8`, with `datafusion-spark`'s semantics.
pub fn make_valid_utf8() -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::new_from_impl(MakeValidUtf8::new()))
}

/// Every function of the crate: `utf8_valid`, `utf8_error_offset`,
/// `utf8_repair`, `is_valid_utf8` and `make_valid_utf8`.
///
/// ```
/// let names: Vec<String> = utf8guard_datafusion::all_functions()
///     .iter()
///     .map(|f| f.name().to_string())
///     .collect();
/// assert_eq!(
///     names,
///     ["utf8_valid", "utf8_error_offset", "utf8_repair", "is_valid_utf8", "make_valid_utf8"]
/// );
/// ```
pub fn all_functions() -> Vec<Arc<ScalarUDF>> {
    vec![
        utf8_valid(),
        utf8_error_offset(),
        utf8_repair(),
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

    /// `is_valid_utf8(x)`.
    pub fn is_valid_utf8(x: Expr) -> Expr {
        super::is_valid_utf8().call(vec![x])
    }

    /// `make_valid_utf8(x)`.
    pub fn make_valid_utf8(x: Expr) -> Expr {
        super::make_valid_utf8().call(vec![x])
    }
}

//! The functions: one `ScalarUDFImpl` whose operation says which.

use std::sync::Arc;

use datafusion_common::arrow::array::BooleanBufferBuilder;
use datafusion_common::arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, Int64Array, LargeBinaryArray,
};
use datafusion_common::arrow::buffer::{BooleanBuffer, NullBuffer};
use datafusion_common::arrow::compute::cast;
use datafusion_common::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion_common::arrow::error::ArrowError;
use datafusion_common::{exec_err, DataFusionError, Result, ScalarValue};
use datafusion_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, TypeSignature,
    Volatility,
};
use utf8guard_arrow::{Error, Replacement, Utf8Error};

/// What one of the functions computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Op {
    Valid,
    ErrorOffset,
    /// Repaired under the policy (for `utf8_repair`, the default when no
    /// second argument names another).
    Repair(Replacement),
    SparkIsValid,
    SparkMakeValid,
}

/// The types of the value argument.
const VALUE_TYPES: [DataType; 6] = [
    DataType::Utf8,
    DataType::LargeUtf8,
    DataType::Utf8View,
    DataType::Binary,
    DataType::BinaryView,
    DataType::LargeBinary,
];

/// The argument types every function takes (those of `datafusion-spark`'s
/// `is_valid_utf8` and `make_valid_utf8`, in the same order, so that other
/// types are coerced the same way).
fn signature() -> Signature {
    Signature::uniform(1, VALUE_TYPES.to_vec(), Volatility::Immutable)
}

/// `utf8_repair`'s: a value, and optionally the name of a policy.
fn repair_signature() -> Signature {
    let mut forms = vec![TypeSignature::Uniform(1, VALUE_TYPES.to_vec())];
    for value in VALUE_TYPES {
        for name in [DataType::Utf8, DataType::LargeUtf8, DataType::Utf8View] {
            forms.push(TypeSignature::Exact(vec![value.clone(), name]));
        }
    }
    Signature::one_of(forms, Volatility::Immutable)
}

macro_rules! function {
    ($(#[$doc:meta])* $name:ident, $op:expr, $sql:literal) => {
        function!($(#[$doc])* $name, $op, $sql, signature);
    };
    ($(#[$doc:meta])* $name:ident, $op:expr, $sql:literal, $signature:ident) => {
        $(#[$doc])*
        #[derive(Debug, PartialEq, Eq, Hash)]
        pub struct $name {
            signature: Signature,
        }

        impl $name {
            #[doc = concat!("The `", $sql, "` function.")]
            pub fn new() -> Self {
                $name {
                    signature: $signature(),
                }
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::new()
            }
        }

        impl ScalarUDFImpl for $name {
            fn name(&self) -> &str {
                $sql
            }

            fn signature(&self) -> &Signature {
                &self.signature
            }

            fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
                return_type($op, value_arg($sql, arg_types)?)
            }

            fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
                // A constant policy is checked when the query is planned,
                // not when a row first reaches the function (a query whose
                // rows are all filtered out would never say).
                if let [_, Some(policy)] = args.scalar_arguments {
                    policy_of_scalar($sql, policy)?;
                }
                let arg = value_arg($sql, args.arg_fields)?;
                let nullable = match $op {
                    Op::ErrorOffset | Op::SparkIsValid => true,
                    _ => arg.is_nullable(),
                };
                let data_type = return_type($op, arg.data_type())?;
                Ok(Arc::new(Field::new($sql, data_type, nullable)))
            }

            fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
                let mut args = args.args.into_iter();
                let (Some(arg), policy) = (args.next(), args.next()) else {
                    return exec_err!("{} takes a value", $sql);
                };
                let op = match (policy, $op) {
                    (None, op) => op,
                    (Some(policy), Op::Repair(_)) => Op::Repair(policy_named($sql, policy)?),
                    (Some(_), _) => return exec_err!("{} takes one argument", $sql),
                };
                invoke(op, arg)
            }
        }
    };
}

function!(
    /// `utf8_valid(x) -> boolean`: whether the value is UTF-8.
    Utf8Valid,
    Op::Valid,
    "utf8_valid"
);
function!(
    /// `utf8_error_offset(x) -> bigint`: the byte offset inside the value
    /// where it stops being UTF-8 (`valid_up_to`); null when the value is
    /// UTF-8.
    Utf8ErrorOffset,
    Op::ErrorOffset,
    "utf8_error_offset"
);
function!(
    /// `utf8_repair(x [, policy]) -> string`: the value with each invalid
    /// sequence replaced as the policy says, by default U+FFFD per maximal
    /// subpart, as `String::from_utf8_lossy` does. `policy` is a constant
    /// string naming one of utf8guard's repair policies (`Replacement`'s
    /// names and aliases: `maximal-subpart`, `jvm`, `per-byte`,
    /// `windows-1252`, `latin-1`, `backslash`, `drop`). `Binary` and `Utf8`
    /// give `Utf8`, the large types `LargeUtf8`, the view types `Utf8View`.
    Utf8Repair,
    Op::Repair(Replacement::MaximalSubpart),
    "utf8_repair",
    repair_signature
);
function!(
    /// `utf8_decode_jvm(x) -> string`: the value as the JVM decodes UTF-8
    /// (`new String(bytes, StandardCharsets.UTF_8)`, which Spark's
    /// `decode(x, 'UTF-8')` runs): `utf8_repair(x, 'jvm')`, one U+FFFD for
    /// a surrogate's three bytes where Rust's rule gives three. For a
    /// Spark-compatible engine. The same types as `utf8_repair`.
    Utf8DecodeJvm,
    Op::Repair(Replacement::Jvm),
    "utf8_decode_jvm"
);
function!(
    /// `is_valid_utf8(x) -> boolean`, as `datafusion-spark` defines it: a
    /// binary value is checked; a string value is true (Arrow strings are
    /// UTF-8 by definition); the result field is always nullable.
    IsValidUtf8,
    Op::SparkIsValid,
    "is_valid_utf8"
);
function!(
    /// `make_valid_utf8(x) -> string`, as `datafusion-spark` defines it:
    /// binary values repaired as `String::from_utf8_lossy` repairs them,
    /// into `Utf8` (from `Binary` and `BinaryView`) or `LargeUtf8` (from
    /// `LargeBinary`); string values unchanged.
    MakeValidUtf8,
    Op::SparkMakeValid,
    "make_valid_utf8"
);

fn return_type(op: Op, arg: &DataType) -> Result<DataType> {
    use DataType::*;
    Ok(match (op, arg) {
        (Op::Valid | Op::SparkIsValid, _) => Boolean,
        (Op::ErrorOffset, _) => Int64,
        (Op::Repair(_), Binary | Utf8) => Utf8,
        (Op::Repair(_), LargeBinary | LargeUtf8) => LargeUtf8,
        (Op::Repair(_), BinaryView | Utf8View) => Utf8View,
        (Op::SparkMakeValid, Utf8 | LargeUtf8 | Utf8View) => arg.clone(),
        (Op::SparkMakeValid, Binary | BinaryView) => Utf8,
        (Op::SparkMakeValid, LargeBinary) => LargeUtf8,
        (_, other) => return exec_err!("{op:?} does not take {other}"),
    })
}

fn invoke(op: Op, arg: ColumnarValue) -> Result<ColumnarValue> {
    match arg {
        ColumnarValue::Array(array) => Ok(ColumnarValue::Array(apply(op, &array)?)),
        ColumnarValue::Scalar(scalar) => {
            let out = apply(op, &scalar.to_array()?)?;
            Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?))
        }
    }
}

fn apply(op: Op, array: &ArrayRef) -> Result<ArrayRef> {
    let is_string = matches!(
        array.data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    );
    Ok(match op {
        Op::SparkIsValid if is_string => Arc::new(BooleanArray::new(
            BooleanBuffer::new_set(array.len()),
            array.nulls().cloned(),
        )),
        Op::Valid | Op::SparkIsValid => Arc::new(valid(array.as_ref())?),
        Op::ErrorOffset => Arc::new(error_offsets(array.as_ref())?),
        Op::SparkMakeValid if is_string => Arc::clone(array),
        Op::Repair(replacement) => repair(array.as_ref(), replacement)?,
        Op::SparkMakeValid => {
            let repaired = repair(array.as_ref(), Replacement::MaximalSubpart)?;
            if array.data_type() == &DataType::BinaryView {
                // datafusion-spark answers a BinaryView with a Utf8 array.
                cast(&repaired, &DataType::Utf8)?
            } else {
                repaired
            }
        }
    })
}

/// The rows that are not UTF-8; none at once for a column that is valid as
/// a whole.
fn bad_rows(array: &dyn Array) -> Result<Vec<(usize, Utf8Error)>> {
    match utf8guard_arrow::validate(array) {
        Ok(()) => Ok(Vec::new()),
        Err(Error::Invalid { .. }) => utf8guard_arrow::invalid_values(array).map_err(arrow_error),
        Err(error) => Err(arrow_error(error)),
    }
}

fn arrow_error(error: Error) -> DataFusionError {
    DataFusionError::ArrowError(Box::new(ArrowError::from(error)), None)
}

fn valid(array: &dyn Array) -> Result<BooleanArray> {
    let rows = array.len();
    let bad = bad_rows(array)?;
    let values = if bad.is_empty() {
        BooleanBuffer::new_set(rows)
    } else {
        let mut values = BooleanBufferBuilder::new(rows);
        values.append_n(rows, true);
        for &(row, _) in &bad {
            values.set_bit(row, false);
        }
        values.finish()
    };
    Ok(BooleanArray::new(values, array.nulls().cloned()))
}

fn error_offsets(array: &dyn Array) -> Result<Int64Array> {
    let rows = array.len();
    let bad = bad_rows(array)?;
    if bad.is_empty() {
        return Ok(Int64Array::new_null(rows));
    }
    let mut offsets = vec![0i64; rows];
    let mut present = BooleanBufferBuilder::new(rows);
    present.append_n(rows, false);
    for &(row, error) in &bad {
        if array.is_valid(row) {
            offsets[row] = error.valid_up_to() as i64;
            present.set_bit(row, true);
        }
    }
    Ok(Int64Array::new(
        offsets.into(),
        Some(NullBuffer::new(present.finish())),
    ))
}

/// The value argument: the first of one, or of two for `utf8_repair`.
fn value_arg<'a, T>(name: &str, args: &'a [T]) -> Result<&'a T> {
    match args {
        [value] | [value, _] => Ok(value),
        _ => exec_err!("{name} takes a value and, for utf8_repair, a policy"),
    }
}

/// The policy a constant string names.
fn policy_named(function: &str, policy: ColumnarValue) -> Result<Replacement> {
    let ColumnarValue::Scalar(scalar) = policy else {
        return exec_err!("{function}: the policy must be a constant string, not a column");
    };
    policy_of_scalar(function, &scalar)
}

/// The policy a constant names.
fn policy_of_scalar(function: &str, scalar: &ScalarValue) -> Result<Replacement> {
    let name = match scalar.try_as_str() {
        Some(Some(name)) => name,
        Some(None) => return exec_err!("{function}: the policy is null"),
        None => return exec_err!("{function}: the policy must be a string, not {scalar}"),
    };
    crate::policy::policy_named(function, name)
}

/// The values repaired under `replacement`: `Utf8`, `LargeUtf8` or
/// `Utf8View` (by the width of the argument), sharing the argument's
/// buffers when it is all UTF-8.
pub(crate) fn repair(array: &dyn Array, replacement: Replacement) -> Result<ArrayRef> {
    Ok(match array.data_type() {
        DataType::Binary => Arc::new(utf8guard_arrow::binary_to_string_repaired(
            array.as_binary::<i32>(),
            replacement,
        )),
        DataType::LargeBinary => Arc::new(utf8guard_arrow::binary_to_string_repaired(
            array.as_binary::<i64>(),
            replacement,
        )),
        DataType::BinaryView => Arc::new(utf8guard_arrow::binary_view_to_string_view_repaired(
            array.as_binary_view(),
            replacement,
        )),
        // Strings from an untrusted source: their bytes, as binary (no
        // copy), repaired the same way.
        DataType::Utf8 => Arc::new(utf8guard_arrow::binary_to_string_repaired(
            &BinaryArray::from(array.as_string::<i32>().clone()),
            replacement,
        )),
        DataType::LargeUtf8 => Arc::new(utf8guard_arrow::binary_to_string_repaired(
            &LargeBinaryArray::from(array.as_string::<i64>().clone()),
            replacement,
        )),
        DataType::Utf8View => Arc::new(utf8guard_arrow::binary_view_to_string_view_repaired(
            &array.as_string_view().clone().to_binary_view(),
            replacement,
        )),
        other => return exec_err!("utf8_repair does not take {other}"),
    })
}

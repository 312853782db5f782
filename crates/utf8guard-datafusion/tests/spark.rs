//! `is_valid_utf8` and `make_valid_utf8` against datafusion-spark's, on the
//! same inputs: every argument type, nulls, slices, scalars; the same
//! signature, return fields and values; and the same SQL results.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, LargeBinaryArray, LargeStringArray, RecordBatch,
    StringArray, StringViewArray,
};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::config::ConfigOptions;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF};
use datafusion::prelude::SessionContext;

/// Binary values: valid, invalid of each kind, empty; some null.
fn binary_values() -> Vec<Option<&'static [u8]>> {
    vec![
        Some(b"plain"),
        Some("Größe und Gewicht".as_bytes()),
        None,
        Some(b"\xFF"),
        Some(b"caf\xC3"),
        Some(b""),
        Some(b"a long value with a surrogate \xED\xA0\x80 in it"),
        Some(b"\xF0\x9F\x98\x80 emoji then \xF0\x9F\x98"),
        None,
        Some(b"ok"),
    ]
}

fn string_values() -> Vec<Option<&'static str>> {
    vec![
        Some("plain"),
        None,
        Some("日本語のテキスト、十二バイト以上"),
        Some(""),
        Some("ok"),
    ]
}

/// Every argument type, whole and sliced.
fn inputs() -> Vec<ArrayRef> {
    let b = binary_values();
    let s = string_values();
    let mut arrays: Vec<ArrayRef> = vec![
        Arc::new(BinaryArray::from(b.clone())),
        Arc::new(LargeBinaryArray::from(b.clone())),
        Arc::new(BinaryViewArray::from(b.clone())),
        Arc::new(StringArray::from(s.clone())),
        Arc::new(LargeStringArray::from(s.clone())),
        Arc::new(StringViewArray::from(s.clone())),
        Arc::new(BinaryArray::from(vec![Some(&b"all"[..]), Some(b"valid")])),
        Arc::new(BinaryArray::from(Vec::<&[u8]>::new())),
    ];
    let sliced: Vec<ArrayRef> = arrays
        .iter()
        .filter(|a| a.len() >= 2)
        .map(|a| a.slice(1, a.len() - 2))
        .collect();
    arrays.extend(sliced);
    arrays
}

fn call(
    udf: &ScalarUDF,
    arg: ColumnarValue,
    field: FieldRef,
    rows: usize,
) -> (FieldRef, ColumnarValue) {
    let return_field = udf
        .return_field_from_args(ReturnFieldArgs {
            arg_fields: std::slice::from_ref(&field),
            scalar_arguments: &[None],
        })
        .unwrap();
    let out = udf
        .invoke_with_args(ScalarFunctionArgs {
            args: vec![arg],
            arg_fields: vec![field],
            number_rows: rows,
            return_field: Arc::clone(&return_field),
            config_options: Arc::new(ConfigOptions::default()),
        })
        .unwrap();
    (return_field, out)
}

fn pairs() -> [(Arc<ScalarUDF>, Arc<ScalarUDF>); 2] {
    [
        (
            utf8guard_datafusion::is_valid_utf8(),
            datafusion_spark::function::string::is_valid_utf8(),
        ),
        (
            utf8guard_datafusion::make_valid_utf8(),
            datafusion_spark::function::string::make_valid_utf8(),
        ),
    ]
}

#[test]
fn same_signature_names_and_return_types() {
    for (ours, theirs) in pairs() {
        assert_eq!(ours.name(), theirs.name());
        assert_eq!(ours.signature(), theirs.signature());
        for input in inputs() {
            for nullable in [true, false] {
                let field = Arc::new(Field::new("x", input.data_type().clone(), nullable));
                let args = || ReturnFieldArgs {
                    arg_fields: std::slice::from_ref(&field),
                    scalar_arguments: &[None],
                };
                assert_eq!(
                    ours.return_field_from_args(args()).unwrap(),
                    theirs.return_field_from_args(args()).unwrap(),
                    "{} of {}",
                    ours.name(),
                    input.data_type()
                );
            }
        }
    }
}

#[test]
fn same_values_on_arrays() {
    for (ours, theirs) in pairs() {
        for input in inputs() {
            let field = Arc::new(Field::new("x", input.data_type().clone(), true));
            let (of, o) = call(
                &ours,
                ColumnarValue::Array(Arc::clone(&input)),
                Arc::clone(&field),
                input.len(),
            );
            let (tf, t) = call(
                &theirs,
                ColumnarValue::Array(Arc::clone(&input)),
                field,
                input.len(),
            );
            assert_eq!(of, tf);
            let (ColumnarValue::Array(o), ColumnarValue::Array(t)) = (o, t) else {
                panic!("arrays in, arrays out")
            };
            assert_eq!(o.as_ref(), t.as_ref(), "{} of {:?}", ours.name(), input);
            assert_eq!(o.data_type(), of.data_type());
        }
    }
}

#[test]
fn same_values_on_scalars() {
    let mut scalars = vec![
        ScalarValue::Binary(None),
        ScalarValue::Utf8(None),
        ScalarValue::LargeBinary(None),
        ScalarValue::BinaryView(None),
    ];
    for v in binary_values().into_iter().flatten() {
        scalars.push(ScalarValue::Binary(Some(v.to_vec())));
        scalars.push(ScalarValue::LargeBinary(Some(v.to_vec())));
        scalars.push(ScalarValue::BinaryView(Some(v.to_vec())));
    }
    for v in string_values().into_iter().flatten() {
        scalars.push(ScalarValue::Utf8(Some(v.to_string())));
        scalars.push(ScalarValue::LargeUtf8(Some(v.to_string())));
        scalars.push(ScalarValue::Utf8View(Some(v.to_string())));
    }
    for (ours, theirs) in pairs() {
        for scalar in &scalars {
            let field = Arc::new(Field::new("x", scalar.data_type(), true));
            let (of, o) = call(
                &ours,
                ColumnarValue::Scalar(scalar.clone()),
                Arc::clone(&field),
                1,
            );
            let (tf, t) = call(&theirs, ColumnarValue::Scalar(scalar.clone()), field, 1);
            assert_eq!(of, tf);
            let (ColumnarValue::Scalar(o), ColumnarValue::Scalar(t)) = (o, t) else {
                panic!("scalars in, scalars out")
            };
            assert_eq!(o, t, "{} of {scalar:?}", ours.name());
        }
    }
}

/// The same queries in two sessions, one with datafusion-spark's functions
/// and one with ours, give the same batches.
#[tokio::test]
async fn same_sql_results() {
    let b = binary_values();
    let s = string_values();
    let pad = |v: Vec<Option<&'static str>>| -> Vec<Option<&'static str>> {
        v.into_iter().cycle().take(b.len()).collect()
    };
    let batch = RecordBatch::try_from_iter([
        ("b", Arc::new(BinaryArray::from(b.clone())) as ArrayRef),
        ("lb", Arc::new(LargeBinaryArray::from(b.clone()))),
        ("bv", Arc::new(BinaryViewArray::from(b.clone()))),
        ("s", Arc::new(StringArray::from(pad(s.clone())))),
        ("sv", Arc::new(StringViewArray::from(pad(s)))),
    ])
    .unwrap();
    let queries = [
        "SELECT is_valid_utf8(b), is_valid_utf8(lb), is_valid_utf8(bv), is_valid_utf8(s), is_valid_utf8(sv) FROM t",
        "SELECT make_valid_utf8(b), make_valid_utf8(lb), make_valid_utf8(bv), make_valid_utf8(s), make_valid_utf8(sv) FROM t",
        "SELECT count(*) FROM t WHERE NOT is_valid_utf8(b)",
        "SELECT make_valid_utf8(b) AS m FROM t WHERE is_valid_utf8(bv) IS NOT TRUE ORDER BY m",
        "SELECT is_valid_utf8(X'C328'), make_valid_utf8(X'C328'), is_valid_utf8('text'), make_valid_utf8(NULL)",
    ];
    let spark = SessionContext::new();
    spark.register_udf(
        datafusion_spark::function::string::is_valid_utf8()
            .as_ref()
            .clone(),
    );
    spark.register_udf(
        datafusion_spark::function::string::make_valid_utf8()
            .as_ref()
            .clone(),
    );
    spark.register_batch("t", batch.clone()).unwrap();
    let ours = SessionContext::new();
    utf8guard_datafusion::register(&ours);
    ours.register_batch("t", batch).unwrap();
    for query in queries {
        let theirs = spark.sql(query).await.unwrap().collect().await.unwrap();
        let mine = ours.sql(query).await.unwrap().collect().await.unwrap();
        assert_eq!(mine, theirs, "{query}");
    }
}

/// datafusion-spark takes a string column as valid without looking at it:
/// `is_valid_utf8` is true and `make_valid_utf8` returns the column as it
/// is, even when (from an untrusted source) its bytes are not UTF-8. So do
/// ours under these names.
#[test]
fn string_columns_are_taken_as_they_are() {
    let binary = BinaryArray::from(binary_values());
    let data = binary.to_data().into_builder().data_type(DataType::Utf8);
    // SAFETY: an array as one imported without validation; the functions
    // under test and `PartialEq` compare its bytes, nothing reads it as str.
    let untrusted: ArrayRef = Arc::new(StringArray::from(unsafe { data.build_unchecked() }));
    for (ours, theirs) in pairs() {
        let field = Arc::new(Field::new("x", DataType::Utf8, true));
        let (_, o) = call(
            &ours,
            ColumnarValue::Array(Arc::clone(&untrusted)),
            Arc::clone(&field),
            untrusted.len(),
        );
        let (_, t) = call(
            &theirs,
            ColumnarValue::Array(Arc::clone(&untrusted)),
            field,
            untrusted.len(),
        );
        let (ColumnarValue::Array(o), ColumnarValue::Array(t)) = (o, t) else {
            panic!("arrays in, arrays out")
        };
        assert_eq!(o.to_data(), t.to_data(), "{}", ours.name());
    }
}

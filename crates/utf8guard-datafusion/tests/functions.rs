//! `utf8_valid`, `utf8_error_offset` and `utf8_repair`: exact values on
//! every argument type, from SQL and the DataFrame API.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BinaryViewArray, BooleanArray, Int64Array,
    LargeBinaryArray, LargeStringArray, RecordBatch, StringArray, StringViewArray,
};
use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::{col, SessionContext};
use utf8guard_arrow::Replacement;
use utf8guard_datafusion::expr_fn::{
    utf8_decode_jvm, utf8_error_offset, utf8_repair, utf8_repair_with, utf8_valid,
};

fn values() -> Vec<Option<&'static [u8]>> {
    vec![
        Some(b"plain"),
        None,
        Some(b"caf\xC3\xA9"),
        Some(b"caf\xC3"),
        Some(b"\xFFstart"),
        Some(b"a value longer than twelve \xE0\x80\xAF bytes"),
        Some(b""),
    ]
}

const VALID: [Option<bool>; 7] = [
    Some(true),
    None,
    Some(true),
    Some(false),
    Some(false),
    Some(false),
    Some(true),
];
const OFFSETS: [Option<i64>; 7] = [None, None, None, Some(3), Some(0), Some(27), None];
const REPAIRED: [Option<&str>; 7] = [
    Some("plain"),
    None,
    Some("café"),
    Some("caf\u{FFFD}"),
    Some("\u{FFFD}start"),
    Some("a value longer than twelve \u{FFFD}\u{FFFD}\u{FFFD} bytes"),
    Some(""),
];

/// The three functions on `column`, through the DataFrame API.
async fn run(column: ArrayRef) -> RecordBatch {
    let batch = RecordBatch::try_from_iter([("x", column)]).unwrap();
    let ctx = SessionContext::new();
    let df = ctx
        .read_batch(batch)
        .unwrap()
        .select(vec![
            utf8_valid(col("x")).alias("valid"),
            utf8_error_offset(col("x")).alias("offset"),
            utf8_repair(col("x")).alias("repaired"),
        ])
        .unwrap();
    let batches = df.collect().await.unwrap();
    assert_eq!(batches.len(), 1);
    batches.into_iter().next().unwrap()
}

fn repaired_as_strings(array: &ArrayRef) -> Vec<Option<String>> {
    match array.data_type() {
        DataType::Utf8 => array
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(String::from))
            .collect(),
        DataType::LargeUtf8 => array
            .as_string::<i64>()
            .iter()
            .map(|v| v.map(String::from))
            .collect(),
        DataType::Utf8View => array
            .as_string_view()
            .iter()
            .map(|v| v.map(String::from))
            .collect(),
        other => panic!("utf8_repair gave {other}"),
    }
}

#[tokio::test]
async fn exact_values_on_every_binary_type() {
    let inputs: [(ArrayRef, DataType); 3] = [
        (Arc::new(BinaryArray::from(values())), DataType::Utf8),
        (
            Arc::new(LargeBinaryArray::from(values())),
            DataType::LargeUtf8,
        ),
        (
            Arc::new(BinaryViewArray::from(values())),
            DataType::Utf8View,
        ),
    ];
    for (input, repaired_type) in inputs {
        for (from, len) in [(0, 7), (2, 4), (7, 0)] {
            let out = run(input.slice(from, len)).await;
            let window = from..from + len;
            assert_eq!(
                out.column(0).as_boolean(),
                &BooleanArray::from(VALID[window.clone()].to_vec())
            );
            assert_eq!(
                out.column(1)
                    .as_primitive::<datafusion::arrow::datatypes::Int64Type>(),
                &Int64Array::from(OFFSETS[window.clone()].to_vec())
            );
            assert_eq!(out.column(2).data_type(), &repaired_type);
            let expected: Vec<Option<String>> = REPAIRED[window]
                .iter()
                .map(|v| v.map(String::from))
                .collect();
            assert_eq!(repaired_as_strings(out.column(2)), expected);
        }
    }
}

/// String columns are checked too: an array from an untrusted source may
/// hold bytes that are not UTF-8.
#[tokio::test]
async fn string_columns_are_checked() {
    let binary = BinaryArray::from(values());
    let data = binary.to_data().into_builder().data_type(DataType::Utf8);
    // SAFETY: an untrusted array, as one imported without validation; it is
    // only handed to the functions under test, which read its bytes.
    let untrusted = StringArray::from(unsafe { data.build_unchecked() });
    let out = run(Arc::new(untrusted)).await;
    assert_eq!(
        out.column(0).as_boolean(),
        &BooleanArray::from(VALID.to_vec())
    );
    assert_eq!(
        out.column(1)
            .as_primitive::<datafusion::arrow::datatypes::Int64Type>(),
        &Int64Array::from(OFFSETS.to_vec())
    );
    let expected: Vec<Option<String>> = REPAIRED.iter().map(|v| v.map(String::from)).collect();
    assert_eq!(repaired_as_strings(out.column(2)), expected);

    // Valid strings of every type: all true, no offsets, the same strings
    // (sharing their buffers).
    let strings: [ArrayRef; 3] = [
        Arc::new(StringArray::from(vec![Some("a"), None, Some("βγ")])),
        Arc::new(LargeStringArray::from(vec![Some("a"), None, Some("βγ")])),
        Arc::new(StringViewArray::from(vec![Some("a"), None, Some("βγ")])),
    ];
    for input in strings {
        let out = run(Arc::clone(&input)).await;
        assert_eq!(
            out.column(0).as_boolean(),
            &BooleanArray::from(vec![Some(true), None, Some(true)])
        );
        assert_eq!(out.column(1).null_count(), 3);
        assert_eq!(out.column(2).as_ref(), input.as_ref());
        // The same offsets (views) buffer, not a copy.
        assert_eq!(
            out.column(2).to_data().buffers()[0].as_ptr(),
            input.to_data().buffers()[0].as_ptr()
        );
    }
}

#[tokio::test]
async fn from_sql() {
    let ctx = SessionContext::new();
    utf8guard_datafusion::register(&ctx);
    ctx.register_batch(
        "t",
        RecordBatch::try_from_iter([("b", Arc::new(BinaryArray::from(values())) as ArrayRef)])
            .unwrap(),
    )
    .unwrap();
    let query = "SELECT count(*) AS bad, min(utf8_error_offset(b)) AS first, max(utf8_error_offset(b)) AS last \
                 FROM t WHERE NOT utf8_valid(b)";
    let out = ctx.sql(query).await.unwrap().collect().await.unwrap();
    assert_eq!(
        pretty_format_batches(&out).unwrap().to_string(),
        "+-----+-------+------+\n\
         | bad | first | last |\n\
         +-----+-------+------+\n\
         | 3   | 0     | 27   |\n\
         +-----+-------+------+"
    );
    let out = ctx
        .sql("SELECT utf8_repair(b) AS r FROM t WHERE utf8_error_offset(b) IS NOT NULL ORDER BY r")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let repaired: Vec<_> = out[0]
        .column(0)
        .as_string::<i32>()
        .iter()
        .map(|v| v.unwrap().to_string())
        .collect();
    assert_eq!(
        repaired,
        // Sorted by bytes: U+FFFD (EF BF BD) after ASCII.
        [
            "a value longer than twelve \u{FFFD}\u{FFFD}\u{FFFD} bytes",
            "caf\u{FFFD}",
            "\u{FFFD}start",
        ]
    );
    // Scalars, and a null.
    let out = ctx
        .sql("SELECT utf8_valid(X'E282AC'), utf8_error_offset(X'41E282'), utf8_repair(X'41E282'), utf8_valid(CAST(NULL AS BYTEA))")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let row = &out[0];
    assert!(row.column(0).as_boolean().value(0));
    assert_eq!(
        row.column(1)
            .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
            .value(0),
        1
    );
    assert_eq!(row.column(2).as_string::<i32>().value(0), "A\u{FFFD}");
    assert!(row.column(3).is_null(0));
}

#[test]
fn register_all_fills_a_function_registry() {
    let mut state = datafusion::execution::SessionStateBuilder::new()
        .with_default_features()
        .build();
    utf8guard_datafusion::register_all(&mut state).unwrap();
    for name in [
        "utf8_valid",
        "utf8_error_offset",
        "utf8_repair",
        "utf8_decode_jvm",
        "is_valid_utf8",
        "make_valid_utf8",
    ] {
        assert!(state.scalar_functions().contains_key(name), "{name}");
    }
}

/// `utf8_repair(x, policy)` with every policy, by name and by alias, and
/// `utf8_decode_jvm(x)`: each value as utf8guard repairs it alone, on every
/// binary type (the result type by the argument's width), from the
/// DataFrame API and from SQL.
#[tokio::test]
async fn every_policy_on_every_binary_type() {
    let mut rows = values();
    rows.extend([
        Some(&b"\xED\xA0\x80 surrogate"[..]),
        Some(b"caf\xE9 \x80 \x9D"),
        Some(b"\xF0\x9F\x98"),
    ]);
    let inputs: [ArrayRef; 3] = [
        Arc::new(BinaryArray::from(rows.clone())),
        Arc::new(LargeBinaryArray::from(rows.clone())),
        Arc::new(BinaryViewArray::from(rows.clone())),
    ];
    let names = [
        ("maximal-subpart", "std"),
        ("jvm", "java"),
        ("per-byte", "go"),
        ("windows-1252", "cp1252"),
        ("latin-1", "iso-8859-1"),
        ("backslash", "backslash"),
        ("drop", "ignore"),
    ];
    for input in inputs {
        let batch = RecordBatch::try_from_iter([("x", input.clone())]).unwrap();
        let ctx = SessionContext::new();
        for (name, alias) in names {
            let policy = Replacement::from_name(name).unwrap();
            let want: Vec<Option<String>> = rows
                .iter()
                .map(|r| r.map(|b| utf8guard::repair(b, policy).into_owned()))
                .collect();
            let df = ctx
                .read_batch(batch.clone())
                .unwrap()
                .select(vec![
                    utf8_repair_with(col("x"), name).alias("a"),
                    utf8_repair_with(col("x"), alias).alias("b"),
                ])
                .unwrap();
            let out = df.collect().await.unwrap();
            for column in out[0].columns() {
                assert_eq!(
                    repaired_as_strings(column),
                    want,
                    "{name} on {}",
                    input.data_type()
                );
            }
        }
        let df = ctx
            .read_batch(batch.clone())
            .unwrap()
            .select(vec![utf8_decode_jvm(col("x"))])
            .unwrap();
        let out = df.collect().await.unwrap();
        let want: Vec<Option<String>> = rows
            .iter()
            .map(|r| r.map(|b| utf8guard::repair(b, Replacement::Jvm).into_owned()))
            .collect();
        assert_eq!(repaired_as_strings(out[0].column(0)), want);
        assert_eq!(want[7].as_deref(), Some("\u{FFFD} surrogate"));
    }

    let ctx = SessionContext::new();
    utf8guard_datafusion::register(&ctx);
    let batches = ctx
        .sql("SELECT utf8_repair(X'636166E9', 'windows-1252'), utf8_repair(X'EDA080', 'jvm'), \
              utf8_repair(X'EDA080'), utf8_decode_jvm(X'EDA080'), utf8_repair(X'61FF', 'backslash')")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let row = &batches[0];
    let text = |i: usize| row.column(i).as_string::<i32>().value(0).to_string();
    assert_eq!(
        (0..5).map(text).collect::<Vec<_>>(),
        [
            "café",
            "\u{FFFD}",
            "\u{FFFD}\u{FFFD}\u{FFFD}",
            "\u{FFFD}",
            "a\\xff"
        ]
    );
}

/// A policy that names none, the escape (whose output is not a string), a
/// null or a column is an error that says so.
#[tokio::test]
async fn a_policy_that_is_not_one_is_an_error() {
    let ctx = SessionContext::new();
    utf8guard_datafusion::register(&ctx);
    let error = |sql: &'static str| {
        let ctx = ctx.clone();
        async move {
            match ctx.sql(sql).await {
                Ok(df) => df.collect().await.unwrap_err().to_string(),
                Err(e) => e.to_string(),
            }
        }
    };
    let unknown = error("SELECT utf8_repair(X'61', 'bogus')").await;
    assert!(
        unknown.contains("unknown repair policy 'bogus'; known: maximal-subpart, jvm, per-byte, windows-1252, latin-1, backslash, drop"),
        "{unknown}"
    );
    // When the query is planned, before any row: here no row reaches it.
    let planned = ctx
        .sql("SELECT utf8_repair(column1, 'bogus') FROM (VALUES (X'61')) WHERE false")
        .await
        .map(drop)
        .unwrap_err()
        .to_string();
    assert!(
        planned.contains("unknown repair policy 'bogus'"),
        "{planned}"
    );
    // The aliases the command and the Python package take, in any case.
    for alias in ["latin1", "ISO8859-1", "Latin_1"] {
        let sql = format!("SELECT utf8_repair(X'E9', '{alias}')");
        let batches = ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        let value = repaired_as_strings(batches[0].column(0));
        assert_eq!(value, [Some("é".to_owned())], "{alias}");
    }
    let escape = error("SELECT utf8_repair(X'61', 'surrogateescape')").await;
    assert!(
        escape.contains("the escape policy writes WTF-8"),
        "{escape}"
    );
    let null = error("SELECT utf8_repair(X'61', CAST(NULL AS VARCHAR))").await;
    assert!(null.contains("the policy is null"), "{null}");
    let column = error("SELECT utf8_repair(X'61', p) FROM (VALUES ('jvm')) AS t(p)").await;
    assert!(column.contains("must be a constant string"), "{column}");
}

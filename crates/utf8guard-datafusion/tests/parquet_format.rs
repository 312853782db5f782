//! `STORED AS PARQUET` with `utf8guard.repair`: files whose STRING
//! columns hold bytes that are not UTF-8, written here with Parquet's
//! low-level writer, read repaired under every policy or checked.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::file::properties::WriterProperties;
use datafusion::prelude::{SessionConfig, SessionContext};
use utf8guard::Replacement;
use utf8guard_datafusion::StringHandling;

mod common;

use common::{write_bad_strings, Row};

/// The rows of the file with bad strings, by row group. The first row
/// group is all UTF-8; the second starts going wrong.
const GROUPS: &[&[Row]] = &[
    &[(1, Some(b"Ana")), (2, None), (3, Some("José".as_bytes()))],
    &[
        (4, Some("Zoë".as_bytes())),
        (5, Some(b"Jos\xE9")),
        (6, None),
    ],
    &[(7, Some(b"\xFF\xFEbad")), (8, Some(b"caf\xC3"))],
];

/// Every row of [`GROUPS`], in order.
fn rows() -> Vec<Row> {
    GROUPS
        .iter()
        .flat_map(|group| group.iter().copied())
        .collect()
}

/// Writes valid strings with Arrow's writer, two rows to a row group.
fn write_valid_strings(path: &Path, ids: &[i64], names: &[Option<&str>]) {
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids.to_vec())) as ArrayRef),
        (
            "name",
            Arc::new(StringArray::from(names.to_vec())) as ArrayRef,
        ),
    ])
    .unwrap();
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(2))
        .build();
    let mut writer = ArrowWriter::try_new(
        File::create(path).unwrap(),
        batch.schema(),
        Some(properties),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn session(partitions: usize) -> SessionContext {
    session_with_batches(partitions, 8192)
}

/// A session of `partitions` partitions that splits any file by bytes,
/// with batches of `batch_size` rows.
fn session_with_batches(partitions: usize, batch_size: usize) -> SessionContext {
    let config = SessionConfig::new()
        .with_target_partitions(partitions)
        .with_batch_size(batch_size)
        .set_usize("datafusion.optimizer.repartition_file_min_size", 0);
    let ctx = SessionContext::new_with_config(config);
    utf8guard_datafusion::register_file_formats(&ctx).unwrap();
    ctx
}

/// `CREATE EXTERNAL TABLE t STORED AS PARQUET LOCATION '<location>'`,
/// with `utf8guard.repair` set to `repair` if given.
async fn create(
    ctx: &SessionContext,
    table: &str,
    location: &str,
    repair: Option<&str>,
) -> datafusion::error::Result<()> {
    let options = match repair {
        Some(name) => format!(" OPTIONS ('utf8guard.repair' '{name}')"),
        None => String::new(),
    };
    let sql =
        format!("CREATE EXTERNAL TABLE {table} STORED AS PARQUET LOCATION '{location}'{options}");
    ctx.sql(&sql).await?.collect().await?;
    Ok(())
}

async fn query(ctx: &SessionContext, sql: &str) -> datafusion::error::Result<Vec<RecordBatch>> {
    ctx.sql(sql).await?.collect().await
}

/// The `(id, name)` rows of batches of two columns.
fn id_names(batches: &[RecordBatch]) -> Vec<(i64, Option<String>)> {
    let mut rows = Vec::new();
    for batch in batches {
        let names = cast(batch.column(1), &DataType::Utf8).unwrap();
        let names = names.as_string::<i32>();
        let ids = batch.column(0).as_primitive::<Int64Type>();
        for row in 0..batch.num_rows() {
            let name = names.is_valid(row).then(|| names.value(row).to_owned());
            rows.push((ids.value(row), name));
        }
    }
    rows
}

/// The strings of the first column.
fn strings(batches: &[RecordBatch]) -> Vec<Option<String>> {
    let mut strings = Vec::new();
    for batch in batches {
        let column = cast(batch.column(0), &DataType::Utf8).unwrap();
        let column = column.as_string::<i32>();
        strings.extend(
            (0..column.len()).map(|row| column.is_valid(row).then(|| column.value(row).to_owned())),
        );
    }
    strings
}

fn pretty(batches: &[RecordBatch]) -> String {
    pretty_format_batches(batches).unwrap().to_string()
}

fn location(path: &Path) -> String {
    path.to_str().unwrap().to_owned()
}

/// A file of [`GROUPS`] in a folder of its own.
struct BadFile {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl BadFile {
    fn new() -> BadFile {
        let dir = dir();
        let path = dir.path().join("people.parquet");
        write_bad_strings(&path, GROUPS);
        BadFile { _dir: dir, path }
    }

    fn location(&self) -> String {
        location(&self.path)
    }

    /// Table `name` over the file, with `utf8guard.repair` set to
    /// `repair` if given.
    async fn table(&self, ctx: &SessionContext, name: &str, repair: Option<&str>) {
        create(ctx, name, &self.location(), repair).await.unwrap();
    }
}

#[tokio::test]
async fn every_policy_gives_utf8guards_repair_of_each_value() {
    let file = BadFile::new();
    let ctx = session(1);
    for (n, replacement) in Replacement::ALL.iter().enumerate() {
        let table = format!("t{n}");
        file.table(&ctx, &table, Some(replacement.name())).await;
        let batches = query(&ctx, &format!("SELECT id, name FROM {table} ORDER BY id"))
            .await
            .unwrap();
        let expected: Vec<(i64, Option<String>)> = rows()
            .into_iter()
            .map(|(id, name)| {
                (
                    id,
                    name.map(|bytes| utf8guard::repair(bytes, *replacement).into_owned()),
                )
            })
            .collect();
        assert_eq!(id_names(&batches), expected, "{replacement}");
    }
}

#[tokio::test]
async fn windows_1252_and_replace_give_these_names() {
    let file = BadFile::new();
    let ctx = session(1);
    file.table(&ctx, "w", Some("windows-1252")).await;
    file.table(&ctx, "r", Some("replace")).await;
    let names = |batches: Vec<RecordBatch>| -> Vec<Option<String>> {
        id_names(&batches)
            .into_iter()
            .map(|(_, name)| name)
            .collect()
    };
    let w = names(
        query(&ctx, "SELECT id, name FROM w ORDER BY id")
            .await
            .unwrap(),
    );
    let r = names(
        query(&ctx, "SELECT id, name FROM r ORDER BY id")
            .await
            .unwrap(),
    );
    let some = |s: &str| Some(s.to_owned());
    assert_eq!(
        w,
        [
            some("Ana"),
            None,
            some("José"),
            some("Zoë"),
            some("José"),
            None,
            some("ÿþbad"),
            some("cafÃ")
        ]
    );
    assert_eq!(
        r,
        [
            some("Ana"),
            None,
            some("José"),
            some("Zoë"),
            some("Jos\u{FFFD}"),
            None,
            some("\u{FFFD}\u{FFFD}bad"),
            some("caf\u{FFFD}")
        ]
    );
}

#[tokio::test]
async fn validate_names_file_row_group_row_column_and_byte() {
    let file = BadFile::new();
    let ctx = session(1);
    file.table(&ctx, "v", Some("validate")).await;
    // The first bad value is in the second row group.
    let error = query(&ctx, "SELECT id, name FROM v")
        .await
        .unwrap_err()
        .to_string();
    let location = file.location();
    let path = location.trim_start_matches('/');
    assert_eq!(
        error,
        format!(
            "Execution error: Parquet file {path}, row group 1, row 4 (row 1 of the row group), \
             column name: invalid UTF-8 at byte 3 of the value (input ends inside a multi-byte sequence)"
        )
    );
    // Without the string column nothing is checked.
    let ids = query(&ctx, "SELECT sum(id) FROM v").await.unwrap();
    assert!(pretty(&ids).contains("| 36 "), "{}", pretty(&ids));
}

#[tokio::test]
async fn a_valid_file_reads_as_datafusions_own_reader_reads_it() {
    let dir = dir();
    let path = dir.path().join("valid.parquet");
    let names = [
        Some("Ana"),
        None,
        Some("José"),
        Some("Zoë"),
        Some("€"),
        None,
        Some("b"),
    ];
    write_valid_strings(&path, &[1, 2, 3, 4, 5, 6, 7], &names);
    let ctx = session(2);
    let valid = location(&path);
    for (table, repair) in [
        ("own", None),
        ("checked", Some("validate")),
        ("repaired", Some("jvm")),
    ] {
        create(&ctx, table, &valid, repair).await.unwrap();
    }
    let own = query(&ctx, "SELECT * FROM own ORDER BY id").await.unwrap();
    for table in ["checked", "repaired"] {
        let ours = query(&ctx, &format!("SELECT * FROM {table} ORDER BY id"))
            .await
            .unwrap();
        assert_eq!(ours[0].schema(), own[0].schema(), "{table}");
        assert_eq!(pretty(&ours), pretty(&own), "{table}");
    }
}

#[tokio::test]
async fn without_the_option_datafusion_refuses_the_file_as_before() {
    let file = BadFile::new();
    let ctx = session(1);
    file.table(&ctx, "own", None).await;
    let error = query(&ctx, "SELECT name FROM own")
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "Arrow error: Parquet argument error: Parquet error: encountered non UTF-8 data: \
         incomplete utf-8 byte sequence from index 15"
    );
}

#[tokio::test]
async fn an_unknown_policy_is_refused_with_the_names() {
    let file = BadFile::new();
    let ctx = session(1);
    let error = create(&ctx, "t", &file.location(), Some("nope"))
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "Execution error: utf8guard.repair: unknown repair policy 'nope'; known: validate, \
         maximal-subpart, jvm, per-byte, windows-1252, latin-1, backslash, drop"
    );
}

#[tokio::test]
async fn folders_globs_partitions_projection_filters_and_counts() {
    let dir = dir();
    write_bad_strings(&dir.path().join("a.parquet"), GROUPS);
    write_valid_strings(
        &dir.path().join("b.parquet"),
        &[10, 11, 12],
        &[Some("José"), None, Some("x")],
    );
    write_valid_strings(&dir.path().join("other.parquet"), &[20], &[Some("José")]);
    for partitions in [1, 2, 3] {
        let ctx = session(partitions);
        let folder = location(dir.path());
        for (table, at) in [
            ("folder", format!("{folder}/")),
            ("glob", format!("{folder}/[ab].parquet")),
        ] {
            create(&ctx, table, &at, Some("windows-1252"))
                .await
                .unwrap();
        }

        let all = query(&ctx, "SELECT id, name FROM folder ORDER BY id")
            .await
            .unwrap();
        let ids: Vec<i64> = id_names(&all).into_iter().map(|(id, _)| id).collect();
        assert_eq!(
            ids,
            [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 20],
            "{partitions}"
        );

        let count = query(&ctx, "SELECT count(*) FROM glob").await.unwrap();
        assert!(pretty(&count).contains("| 11 "), "{}", pretty(&count));
        let count = query(&ctx, "SELECT count(*) FROM folder WHERE name = 'José'")
            .await
            .unwrap();
        assert!(pretty(&count).contains("| 4 "), "{}", pretty(&count));

        // A projection of one column, filtered on the other.
        let names = query(
            &ctx,
            "SELECT name FROM glob WHERE id > 4 AND id < 11 ORDER BY name",
        )
        .await
        .unwrap();
        let some = |s: &str| Some(s.to_owned());
        assert_eq!(
            strings(&names),
            [
                some("José"),
                some("José"),
                some("cafÃ"),
                some("ÿþbad"),
                None
            ]
        );
        let names = query(
            &ctx,
            "SELECT DISTINCT name FROM folder WHERE name LIKE 'J%'",
        )
        .await
        .unwrap();
        assert_eq!(strings(&names), [some("José")]);
    }
}

#[tokio::test]
async fn byte_ranges_read_each_row_group_once() {
    let file = BadFile::new();
    // Small batches: DataFusion splits a scan only when its rows are many
    // more than a batch.
    let ctx = session_with_batches(3, 2);
    file.table(&ctx, "t", Some("replace")).await;
    let sql = "SELECT id, name FROM t WHERE id > 0 ORDER BY id";
    let plan = pretty(&query(&ctx, &format!("EXPLAIN {sql}")).await.unwrap());
    assert!(plan.contains("file_groups={3 groups:"), "{plan}");
    let batches = query(&ctx, sql).await.unwrap();
    let ids: Vec<i64> = id_names(&batches).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, [1, 2, 3, 4, 5, 6, 7, 8]);
    // Without statistics a count reads the row groups with no column.
    query(&ctx, "SET datafusion.execution.collect_statistics = false")
        .await
        .unwrap();
    file.table(&ctx, "unknown", Some("replace")).await;
    let count = query(&ctx, "SELECT count(*) AS n FROM unknown")
        .await
        .unwrap();
    assert_eq!(count[0].column(0).as_primitive::<Int64Type>().value(0), 8);
    let plan = pretty(
        &query(&ctx, "EXPLAIN SELECT count(*) FROM unknown")
            .await
            .unwrap(),
    );
    assert!(plan.contains("DataSourceExec"), "{plan}");
    // The batch size is honoured: no batch of the scan holds more rows.
    let batches = query(&ctx, "SELECT id FROM t").await.unwrap();
    assert!(batches.iter().all(|b| b.num_rows() <= 2));
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 8);
}

#[tokio::test]
async fn a_table_registered_from_rust_reads_as_the_sql_one() {
    let file = BadFile::new();
    let ctx = session(1);
    file.table(&ctx, "from_sql", Some("latin-1")).await;
    let strings = StringHandling::Repair(Replacement::Latin1);
    utf8guard_datafusion::register_parquet_repaired(&ctx, "from_rust", &file.location(), strings)
        .await
        .unwrap();
    let sql = query(&ctx, "SELECT * FROM from_sql ORDER BY id")
        .await
        .unwrap();
    let rust = query(&ctx, "SELECT * FROM from_rust ORDER BY id")
        .await
        .unwrap();
    assert_eq!(id_names(&rust), id_names(&sql));
    assert_eq!(id_names(&rust)[4], (5, Some("José".to_owned())));
}

#[tokio::test]
async fn validate_counts_rows_from_the_file_start_in_any_byte_range() {
    let dir = dir();
    let path = dir.path().join("one_bad.parquet");
    let groups: &[&[Row]] = &[
        &[(1, Some(b"a")), (2, Some(b"b"))],
        &[(3, None), (4, Some(b"c")), (5, Some(b"d"))],
        &[(6, Some(b"e")), (7, Some(b"ok \xC0\xAF"))],
    ];
    write_bad_strings(&path, groups);
    let at = location(&path);
    for partitions in [1, 2, 3] {
        let ctx = session_with_batches(partitions, 2);
        create(&ctx, "v", &at, Some("validate")).await.unwrap();
        let sql = "SELECT * FROM v WHERE id > 0";
        let plan = pretty(&query(&ctx, &format!("EXPLAIN {sql}")).await.unwrap());
        let groups = match partitions {
            1 => "1 group:".to_owned(),
            n => format!("{n} groups:"),
        };
        assert!(plan.contains(&groups), "{plan}");
        let error = query(&ctx, sql).await.unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "Execution error: Parquet file {}, row group 2, row 6 (row 1 of the row group), \
                 column name: invalid UTF-8 at byte 3 of the value (byte that never appears in UTF-8)",
                at.trim_start_matches('/')
            ),
            "{partitions}"
        );
    }
}

#[tokio::test]
async fn nested_strings_read_as_datafusion_reads_them() {
    use datafusion::arrow::array::{ListBuilder, StringBuilder};
    let dir = dir();
    let path = dir.path().join("nested.parquet");
    let mut tags = ListBuilder::new(StringBuilder::new());
    tags.append_value([Some("a"), Some("José")]);
    tags.append_null();
    tags.append_value([None, Some("€")]);
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
        ("tags", Arc::new(tags.finish()) as ArrayRef),
    ])
    .unwrap();
    let mut writer =
        ArrowWriter::try_new(File::create(&path).unwrap(), batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let ctx = session(1);
    let at = location(&path);
    create(&ctx, "own", &at, None).await.unwrap();
    create(&ctx, "ours", &at, Some("windows-1252"))
        .await
        .unwrap();
    let own = query(&ctx, "SELECT * FROM own ORDER BY id").await.unwrap();
    let ours = query(&ctx, "SELECT * FROM ours ORDER BY id").await.unwrap();
    assert_eq!(ours[0].schema(), own[0].schema());
    assert_eq!(pretty(&ours), pretty(&own));
}

/// `tests/data/pyarrow_bad_strings.parquet`: bad STRING bytes as pyarrow
/// writes them (`Array.from_buffers`, dictionary pages, its Arrow schema
/// embedded), read repaired and checked.
#[tokio::test]
async fn a_file_pyarrow_wrote_with_bad_strings() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pyarrow_bad_strings.parquet");
    let ctx = session(1);
    create(&ctx, "w", &location(&path), Some("windows-1252"))
        .await
        .unwrap();
    let batches = query(&ctx, "SELECT id, name FROM w ORDER BY id")
        .await
        .unwrap();
    let some = |s: &str| Some(s.to_owned());
    assert_eq!(
        id_names(&batches),
        [
            (1, some("Ana")),
            (2, None),
            (3, some("José")),
            (4, some("café")),
            (5, some("â‚")),
        ]
    );
    create(&ctx, "v", &location(&path), Some("validate"))
        .await
        .unwrap();
    let error = query(&ctx, "SELECT name FROM v")
        .await
        .unwrap_err()
        .to_string();
    let location = location(&path);
    assert_eq!(
        error,
        format!(
            "Execution error: Parquet file {}, row group 1, row 2 (row 0 of the row group), \
             column name: invalid UTF-8 at byte 3 of the value (input ends inside a multi-byte sequence)",
            location.trim_start_matches('/')
        )
    );
    // DataFusion's own reader refuses it.
    create(&ctx, "d", &location, None).await.unwrap();
    assert!(query(&ctx, "SELECT name FROM d").await.is_err());
}

//! The repairing CSV format, from SQL: `CREATE EXTERNAL TABLE ... STORED
//! AS CSV OPTIONS ('utf8guard.repair' '<policy>')`. Every answer is
//! compared with DataFusion's own CSV reader over the same file repaired
//! first with `utf8guard::repair`, and with the file split in byte ranges
//! across partitions as with one partition.

use std::io::Write;
use std::path::Path;

use datafusion::prelude::{CsvReadOptions, SessionContext};
use utf8guard::Replacement;

mod common;
use common::{answer, gzip, session};

/// `CREATE EXTERNAL TABLE t` over `location`, the CSV read through a
/// repair under `policy` (a policy's name or alias), with `options` more.
async fn create(ctx: &SessionContext, location: &Path, policy: &str, options: &str) {
    let options = format!("'format.has_header' 'true', 'utf8guard.repair' '{policy}'{options}");
    common::create(ctx, "CSV", location, &options).await;
}

/// DataFusion's own answer to `sql` over `bytes` repaired first under
/// `policy` (in a file of `dir`).
async fn reference(dir: &Path, bytes: &[u8], policy: Replacement, sql: &str) -> String {
    let csv = ("CSV", "csv", "'format.has_header' 'true'");
    common::reference(dir, bytes, policy, csv, sql).await
}

/// Lines of UTF-8 and of Windows-1252, invalid sequences of each kind
/// (lone continuation bytes, a surrogate, an overlong form, bytes that are
/// never UTF-8), a quoted value, and a character cut short by the end of
/// the file.
const MIXED: &[u8] = b"id,name,note\n\
    1,Jos\xC3\xA9,M\xC3\xBCnchen\n\
    2,Jos\xE9,M\xFCnchen\n\
    3,\x80 price,lone \xBF\xBF continuations\n\
    4,surrogate \xED\xA0\x80,overlong \xC0\xAF\n\
    5,\"quoted, with \xE9\",never \xFF\xFE\n\
    6,plain,cut \xF0\x9F\x98";

const ALL_ROWS: &str = "SELECT * FROM t ORDER BY id";

#[tokio::test]
async fn every_policy_reads_as_the_file_repaired_first() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("mixed.csv");
    std::fs::write(&raw, MIXED).unwrap();
    for policy in Replacement::ALL {
        let expected = reference(dir.path(), MIXED, policy, ALL_ROWS).await;
        let ctx = session(1);
        create(&ctx, &raw, policy.name(), "").await;
        assert_eq!(answer(&ctx, ALL_ROWS).await, expected, "{policy}");
    }

    // The exact text of a few values under Windows-1252.
    let ctx = session(1);
    create(&ctx, &raw, "windows-1252", "").await;
    let rows = answer(
        &ctx,
        "SELECT name, note FROM t WHERE id IN (2, 3, 6) ORDER BY id",
    )
    .await;
    let expected = [
        "+---------+-----------------------+",
        "| name    | note                  |",
        "+---------+-----------------------+",
        "| José    | München               |",
        "| € price | lone ¿¿ continuations |",
        // The last characters of the file: `F0 9F 98`, cut short.
        "| plain   | cut ðŸ˜               |",
        "+---------+-----------------------+",
    ];
    assert_eq!(rows, expected.join("\n"));
}

#[tokio::test]
async fn policy_names_are_read_in_any_case_and_by_alias() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("mixed.csv");
    std::fs::write(&raw, MIXED).unwrap();
    for (name, policy) in [
        ("Windows-1252", Replacement::Windows1252),
        ("CP1252", Replacement::Windows1252),
        ("latin1", Replacement::Latin1),
        ("replace", Replacement::MaximalSubpart),
        ("java", Replacement::Jvm),
        ("ignore", Replacement::Drop),
    ] {
        let ctx = session(1);
        create(&ctx, &raw, name, "").await;
        let expected = reference(dir.path(), MIXED, policy, ALL_ROWS).await;
        assert_eq!(answer(&ctx, ALL_ROWS).await, expected, "{name}");
    }
}

/// Lines whose every few bytes are a multi-byte character, an invalid
/// sequence or a quoted value, so that wherever a partition's byte range
/// begins or ends it cuts one of them.
fn dense_lines(ids: std::ops::Range<usize>, shift: usize) -> Vec<u8> {
    let mut bytes = b"id,text,quoted\n".to_vec();
    for id in ids {
        write!(bytes, "{id},").unwrap();
        bytes.extend(std::iter::repeat_n(b'x', (id + shift) % 5));
        let pieces: [&[u8]; 6] = [
            b"\xC3\xA9",         // é
            b"\xE2\x82\xAC",     // €
            b"\xF0\x9F\x98\x80", // an emoji
            b"\xE9t\xE9",        // Windows-1252
            b"\xED\xA0\x80",     // a surrogate
            b"\xF0\x9F\x98",     // cut short
        ];
        for k in 0..4 {
            bytes.extend_from_slice(pieces[(id + k + shift) % pieces.len()]);
        }
        bytes.extend_from_slice(b",\"a, \xC3\xA9\xE9 \"\"q\"\" ");
        bytes.extend_from_slice(pieces[(id + shift) % pieces.len()]);
        bytes.extend_from_slice(b"\"\n");
    }
    bytes
}

/// The physical plan of `sql`, in text.
async fn plan(ctx: &SessionContext, sql: &str) -> String {
    answer(ctx, &format!("EXPLAIN {sql}")).await
}

#[tokio::test]
async fn files_split_across_partitions_read_as_one() {
    let dir = tempfile::tempdir().unwrap();
    for shift in 0..3 {
        let bytes = dense_lines(0..40 + shift, shift);
        let raw = dir.path().join(format!("dense-{shift}.csv"));
        std::fs::write(&raw, &bytes).unwrap();
        for policy in [
            Replacement::Windows1252,
            Replacement::Jvm,
            Replacement::PerByte,
        ] {
            let expected = reference(dir.path(), &bytes, policy, ALL_ROWS).await;
            let one = session(1);
            create(&one, &raw, policy.name(), "").await;
            assert_eq!(answer(&one, ALL_ROWS).await, expected, "{policy}");
            for partitions in 2..=8 {
                let ctx = session(partitions);
                create(&ctx, &raw, policy.name(), "").await;
                let shown = plan(&ctx, ALL_ROWS).await;
                assert!(
                    shown.contains(&format!("file_groups={{{partitions} groups"))
                        && shown.contains(&format!("repair={policy}")),
                    "{shown}"
                );
                assert_eq!(
                    answer(&ctx, ALL_ROWS).await,
                    expected,
                    "{policy}, {partitions} partitions, shift {shift}"
                );
            }
        }
    }
}

#[tokio::test]
async fn a_folder_and_a_glob_read_as_their_files_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let clean = dir.path().join("clean");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::create_dir_all(&clean).unwrap();
    let policy = Replacement::Windows1252;
    for part in 0..3 {
        // Each file's ids apart, so that ORDER BY id orders them all.
        let bytes = dense_lines(part * 100..part * 100 + 12, part);
        std::fs::write(data.join(format!("part-{part}.csv")), &bytes).unwrap();
        std::fs::write(
            clean.join(format!("part-{part}.csv")),
            utf8guard::repair(&bytes, policy).as_bytes(),
        )
        .unwrap();
    }
    std::fs::write(data.join("notes.txt"), b"not a table \xFF\n").unwrap();

    let own = SessionContext::new();
    own.register_csv("t", &format!("{}/", clean.display()), CsvReadOptions::new())
        .await
        .unwrap();
    let expected = answer(&own, ALL_ROWS).await;
    assert_eq!(expected.lines().count(), 3 * 12 + 4);

    for partitions in [1, 3, 8] {
        for location in [
            format!("{}/", data.display()),
            format!("{}/part-*.csv", data.display()),
        ] {
            let ctx = session(partitions);
            create(&ctx, Path::new(&location), "windows-1252", "").await;
            assert_eq!(
                answer(&ctx, ALL_ROWS).await,
                expected,
                "{location}, {partitions}"
            );
        }
    }
}

#[tokio::test]
async fn a_gzip_file_is_repaired_after_decompression() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("mixed.csv.gz");
    std::fs::write(&raw, gzip(MIXED)).unwrap();
    for policy in [Replacement::Windows1252, Replacement::MaximalSubpart] {
        let expected = reference(dir.path(), MIXED, policy, ALL_ROWS).await;
        // A compressed file is read whole, however many partitions.
        for partitions in [1, 4] {
            let ctx = session(partitions);
            create(&ctx, &raw, policy.name(), ", 'format.compression' 'gzip'").await;
            assert_eq!(answer(&ctx, ALL_ROWS).await, expected, "{policy}");
        }
        // And in a folder, found by its extension.
        let ctx = session(2);
        let folder = format!("{}/", dir.path().display());
        create(
            &ctx,
            Path::new(&folder),
            policy.name(),
            ", 'format.compression' 'gzip'",
        )
        .await;
        assert_eq!(answer(&ctx, ALL_ROWS).await, expected, "{policy}, folder");
    }
}

#[tokio::test]
async fn options_delimiter_header_and_a_given_schema_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("people.txt");
    std::fs::write(
        &raw,
        b"1;Jos\xE9;M\xC3\xBCnchen\n2;\"Z\xFCrich; CH\";\x80\n",
    )
    .unwrap();
    let ctx = session(2);
    let sql = format!(
        "CREATE EXTERNAL TABLE people (id INT, name VARCHAR, city VARCHAR) STORED AS CSV \
         LOCATION '{}' OPTIONS ('format.has_header' 'false', 'format.delimiter' ';', \
         'utf8guard.repair' 'cp1252')",
        raw.display()
    );
    ctx.sql(&sql).await.unwrap();
    let rows = answer(&ctx, "SELECT id, name, city FROM people ORDER BY id").await;
    let expected = [
        "+----+------------+---------+",
        "| id | name       | city    |",
        "+----+------------+---------+",
        "| 1  | José       | München |",
        "| 2  | Zürich; CH | €       |",
        "+----+------------+---------+",
    ];
    assert_eq!(rows, expected.join("\n"));
    let types = answer(
        &ctx,
        "SELECT arrow_typeof(id) AS id, arrow_typeof(name) AS name FROM people LIMIT 1",
    )
    .await;
    assert!(types.contains("| Int32 | Utf8View |"), "{types}");

    // With a header, inferred: the header line's names, the values typed.
    let raw = dir.path().join("header.csv");
    std::fs::write(&raw, b"n;word\n7;caf\xE9\n8;na\xC3\xAFve\n").unwrap();
    let ctx = session(1);
    create(&ctx, &raw, "windows-1252", ", 'format.delimiter' ';'").await;
    let rows = answer(&ctx, "SELECT n + 1 AS next, word FROM t ORDER BY n").await;
    let expected = [
        "+------+-------+",
        "| next | word  |",
        "+------+-------+",
        "| 8    | café  |",
        "| 9    | naïve |",
        "+------+-------+",
    ];
    assert_eq!(rows, expected.join("\n"));
}

#[tokio::test]
async fn a_policy_that_names_none_is_refused_when_the_table_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("mixed.csv");
    std::fs::write(&raw, MIXED).unwrap();
    let ctx = session(1);
    for (policy, message) in [
        (
            "utf-16",
            "utf8guard.repair: unknown repair policy 'utf-16'; known: maximal-subpart, jvm, \
             per-byte, windows-1252, latin-1, backslash, drop",
        ),
        (
            "surrogateescape",
            "utf8guard.repair: the escape policy writes WTF-8, which a string column cannot hold",
        ),
    ] {
        let sql = format!(
            "CREATE EXTERNAL TABLE t STORED AS CSV LOCATION '{}' \
             OPTIONS ('utf8guard.repair' '{policy}')",
            raw.display()
        );
        let error = ctx.sql(&sql).await.unwrap_err().to_string();
        assert!(error.contains(message), "{error}");
        assert!(!ctx.table_exist("t").unwrap());
    }
}

#[tokio::test]
async fn without_the_option_a_csv_table_is_datafusions_own() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("mixed.csv");
    std::fs::write(&raw, MIXED).unwrap();
    let clean = dir.path().join("clean.csv");
    std::fs::write(
        &clean,
        utf8guard::repair(MIXED, Replacement::Jvm).as_bytes(),
    )
    .unwrap();
    let ctx = session(1);
    let create = |path: &Path, options: &str| {
        format!(
            "CREATE OR REPLACE EXTERNAL TABLE t STORED AS CSV LOCATION '{}' OPTIONS ({options})",
            path.display()
        )
    };
    // Valid bytes read as ever; the plan has no repair in it.
    ctx.sql(&create(&clean, "'format.has_header' 'true'"))
        .await
        .unwrap();
    let expected = reference(dir.path(), MIXED, Replacement::Jvm, ALL_ROWS).await;
    assert_eq!(answer(&ctx, ALL_ROWS).await, expected);
    assert!(!plan(&ctx, ALL_ROWS).await.contains("repair="));
    // Bad bytes are refused, as DataFusion's reader refuses them.
    let refused = match ctx.sql(&create(&raw, "'format.has_header' 'true'")).await {
        Err(e) => e.to_string(),
        Ok(_) => match ctx.sql(ALL_ROWS).await.unwrap().collect().await {
            Err(e) => e.to_string(),
            Ok(_) => String::from("read"),
        },
    };
    assert!(
        refused.contains("UTF-8") || refused.contains("utf-8"),
        "{refused}"
    );
    // A misspelt option is refused as before.
    let error = ctx
        .sql(&create(&clean, "'format.has_headr' 'true'"))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("has_headr"), "{error}");
    // Other namespaces stay unknown.
    let error = ctx
        .sql(&create(&clean, "'utf8guard.repairs' 'jvm'"))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("utf8guard"), "{error}");
}

#[tokio::test]
async fn registering_twice_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("mixed.csv");
    std::fs::write(&raw, MIXED).unwrap();
    let ctx = session(2);
    utf8guard_datafusion::register_file_formats(&ctx).unwrap();
    create(&ctx, &raw, "windows-1252", "").await;
    let expected = reference(dir.path(), MIXED, Replacement::Windows1252, ALL_ROWS).await;
    assert_eq!(answer(&ctx, ALL_ROWS).await, expected);
}

/// A store that hands out streams, not local files (as S3 does), whole or
/// in ranges, plain or gzip.
#[tokio::test]
async fn files_of_an_object_store_read_as_local_ones() {
    use datafusion::execution::object_store::ObjectStoreUrl;
    use datafusion::object_store::memory::InMemory;
    use datafusion::object_store::path::Path as StorePath;
    use datafusion::object_store::{ObjectStore, ObjectStoreExt, PutPayload};
    use std::sync::Arc;

    let dir = tempfile::tempdir().unwrap();
    let dense = dense_lines(0..30, 1);
    let store = Arc::new(InMemory::new());
    for (name, bytes) in [("dense.csv", dense.clone()), ("dense.csv.gz", gzip(&dense))] {
        let payload = PutPayload::from(bytes);
        store.put(&StorePath::from(name), payload).await.unwrap();
    }
    let url = ObjectStoreUrl::parse("memory://").unwrap();
    for policy in [Replacement::Windows1252, Replacement::Backslash] {
        let expected = reference(dir.path(), &dense, policy, ALL_ROWS).await;
        for (name, options) in [
            ("dense.csv", ""),
            ("dense.csv.gz", ", 'format.compression' 'gzip'"),
        ] {
            for partitions in [1, 5] {
                let ctx = session(partitions);
                let store: Arc<dyn ObjectStore> = store.clone();
                ctx.register_object_store(url.as_ref(), store);
                create(
                    &ctx,
                    Path::new(&format!("memory:///{name}")),
                    policy.name(),
                    options,
                )
                .await;
                assert_eq!(
                    answer(&ctx, ALL_ROWS).await,
                    expected,
                    "{policy}, {name}, {partitions}"
                );
            }
        }
    }
}

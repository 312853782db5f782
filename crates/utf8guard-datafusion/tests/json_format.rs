//! The repairing newline-delimited JSON format, from SQL: `CREATE EXTERNAL
//! TABLE ... STORED AS JSON OPTIONS ('utf8guard.repair' '<policy>')`,
//! compared with DataFusion's own JSON reader over the same file repaired
//! first, and with the file split across partitions as with one.

use std::io::Write;
use std::path::Path;

use datafusion::prelude::SessionContext;
use utf8guard::Replacement;

mod common;
use common::{answer, gzip, session};

/// `CREATE EXTERNAL TABLE t` over `location`, the JSON read through a
/// repair under `policy`, with `options` more.
async fn create(ctx: &SessionContext, location: &Path, policy: &str, options: &str) {
    let options = format!("'utf8guard.repair' '{policy}'{options}");
    common::create(ctx, "JSON", location, &options).await;
}

/// DataFusion's own answer to `sql` over `bytes` repaired first.
async fn reference(dir: &Path, bytes: &[u8], policy: Replacement, sql: &str) -> String {
    common::reference(dir, bytes, policy, ("JSON", "json", ""), sql).await
}

/// Every policy but `backslash`, whose `\xNN` is no JSON escape: its
/// repaired file is not JSON, for DataFusion's reader or this one.
fn json_policies() -> impl Iterator<Item = Replacement> {
    Replacement::ALL
        .into_iter()
        .filter(|&policy| policy != Replacement::Backslash)
}

/// Records whose strings hold UTF-8, Windows-1252 and invalid sequences
/// of each kind; the last one's string ends in a character cut short.
const MIXED: &[u8] = b"{\"id\":1,\"name\":\"Jos\xC3\xA9\",\"n\":1.5}\n\
    {\"id\":2,\"name\":\"Jos\xE9 M\xFCller\",\"n\":2}\n\
    {\"id\":3,\"name\":\"\x80 \xBF\xBF \xED\xA0\x80 \xC0\xAF \xFF\"}\n\
    {\"id\":4,\"name\":\"cut \xF0\x9F\x98\"}\n";

const ALL_ROWS: &str = "SELECT * FROM t ORDER BY id";

#[tokio::test]
async fn every_policy_reads_as_the_file_repaired_first() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("mixed.json");
    std::fs::write(&raw, MIXED).unwrap();
    for policy in json_policies() {
        let expected = reference(dir.path(), MIXED, policy, ALL_ROWS).await;
        let ctx = session(1);
        create(&ctx, &raw, policy.name(), "").await;
        assert_eq!(answer(&ctx, ALL_ROWS).await, expected, "{policy}");
    }
    let ctx = session(1);
    create(&ctx, &raw, "CP1252", "").await;
    let names = answer(&ctx, "SELECT name FROM t WHERE id = 2").await;
    assert!(names.contains("| José Müller |"), "{names}");
}

/// Records whose every few bytes are a multi-byte character or an invalid
/// sequence, so that partitions' ranges cut them wherever they fall.
fn dense_records(records: usize) -> Vec<u8> {
    let pieces: [&[u8]; 5] = [
        b"\xC3\xA9",
        b"\xE2\x82\xAC",
        b"\xE9t\xE9",
        b"\xED\xA0\x80",
        b"\xF0\x9F\x98",
    ];
    let mut bytes = Vec::new();
    for id in 0..records {
        write!(bytes, "{{\"id\":{id},\"s\":\"").unwrap();
        for k in 0..5 {
            bytes.extend_from_slice(pieces[(id + k) % pieces.len()]);
        }
        bytes.extend_from_slice(b"\"}\n");
    }
    bytes
}

#[tokio::test]
async fn files_split_across_partitions_read_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = dense_records(60);
    let raw = dir.path().join("dense.json");
    std::fs::write(&raw, &bytes).unwrap();
    for policy in [Replacement::Windows1252, Replacement::Jvm] {
        let expected = reference(dir.path(), &bytes, policy, ALL_ROWS).await;
        for partitions in 1..=8 {
            let ctx = session(partitions);
            create(&ctx, &raw, policy.name(), "").await;
            if partitions > 1 {
                let plan = answer(&ctx, &format!("EXPLAIN {ALL_ROWS}")).await;
                assert!(
                    plan.contains(&format!("file_groups={{{partitions} groups")),
                    "{plan}"
                );
            }
            assert_eq!(
                answer(&ctx, ALL_ROWS).await,
                expected,
                "{policy}, {partitions}"
            );
        }
    }
}

#[tokio::test]
async fn a_gzip_file_is_repaired_after_decompression() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("mixed.json.gz");
    std::fs::write(&raw, gzip(MIXED)).unwrap();
    let expected = reference(dir.path(), MIXED, Replacement::Latin1, ALL_ROWS).await;
    for partitions in [1, 4] {
        let ctx = session(partitions);
        create(&ctx, &raw, "latin1", ", 'format.compression' 'gzip'").await;
        assert_eq!(answer(&ctx, ALL_ROWS).await, expected);
    }
}

#[tokio::test]
async fn a_policy_that_names_none_is_refused_when_the_table_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("mixed.json");
    std::fs::write(&raw, MIXED).unwrap();
    let ctx = session(1);
    let sql = format!(
        "CREATE EXTERNAL TABLE t STORED AS JSON LOCATION '{}' OPTIONS ('utf8guard.repair' 'utf-7')",
        raw.display()
    );
    let error = ctx.sql(&sql).await.unwrap_err().to_string();
    assert!(
        error.contains(
            "utf8guard.repair: unknown repair policy 'utf-7'; known: maximal-subpart, jvm, \
             per-byte, windows-1252, latin-1, backslash, drop"
        ),
        "{error}"
    );
    // A JSON array file is read by a converter of DataFusion's, not this.
    let sql = format!(
        "CREATE EXTERNAL TABLE t STORED AS JSON LOCATION '{}' \
         OPTIONS ('utf8guard.repair' 'jvm', 'format.newline_delimited' 'false')",
        raw.display()
    );
    let error = ctx.sql(&sql).await.unwrap_err().to_string();
    assert!(error.contains("newline-delimited"), "{error}");
}

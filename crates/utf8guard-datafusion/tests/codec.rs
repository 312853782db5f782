//! The plan codecs: a query over repairing tables, written by one session
//! and read by another that has never seen the tables (as a Ballista
//! scheduler reads a client's plan, and an executor the scheduler's),
//! gives the sender's answer, with every option of the table kept.

mod common;

use std::sync::Arc;

use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::physical_plan::{collect, displayable};
use datafusion::prelude::SessionContext;
use datafusion_proto::bytes::{
    logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};
use datafusion_proto::logical_plan::DefaultLogicalExtensionCodec;
use datafusion_proto::physical_plan::DefaultPhysicalExtensionCodec;
use utf8guard_datafusion::{RepairedFormatsLogicalCodec, RepairedFormatsPhysicalCodec};

use common::{answer, gzip, session, write_bad_strings, Row};

/// Semicolons, `|` ending records, no header, gzip, and records in UTF-8
/// and Windows-1252. (The table gives its columns: DataFusion's schema
/// inference does not take a terminator.)
const CSV: &[u8] = b"1;Jos\xC3\xA9|2;Jos\xE9|3;M\xFCller|4;\x80 zone|5;caf\xC3|";
/// Newline-delimited JSON, the same names.
const JSON: &[u8] = b"{\"id\":1,\"name\":\"Jos\xE9\"}\n{\"id\":2,\"name\":\"caf\xC3\xA9\"}\n";

/// A Parquet file whose STRING column holds bytes that are not UTF-8,
/// in two row groups.
const PARQUET: &[&[Row]] = &[
    &[(1, Some(b"Jos\xE9")), (2, None)],
    &[(3, Some("Zoë".as_bytes())), (4, Some(b"caf\xC3"))],
];

const QUERIES: [&str; 4] = [
    "SELECT id, name FROM people ORDER BY id",
    "SELECT name, count(*) AS n FROM events GROUP BY name ORDER BY name",
    "SELECT p.id, e.name FROM people p JOIN events e ON p.id = e.id ORDER BY p.id",
    "SELECT id, name FROM strings ORDER BY id",
];

/// A session with the two tables over files in `dir`.
async fn sender(dir: &std::path::Path) -> SessionContext {
    std::fs::write(dir.join("people.csv.gz"), gzip(CSV)).unwrap();
    std::fs::write(dir.join("events.json"), JSON).unwrap();
    write_bad_strings(&dir.join("strings.parquet"), PARQUET);
    let ctx = session(2);
    let tables = [
        format!(
            "CREATE EXTERNAL TABLE people (id BIGINT, name VARCHAR) STORED AS CSV LOCATION '{}/people.csv.gz' \
             OPTIONS ('format.has_header' 'false', 'format.delimiter' ';', \
             'format.terminator' '|', 'format.compression' 'gzip', \
             'utf8guard.repair' 'windows-1252')",
            dir.display()
        ),
        format!(
            "CREATE EXTERNAL TABLE events STORED AS JSON LOCATION '{}/events.json' \
             OPTIONS ('utf8guard.repair' 'replace')",
            dir.display()
        ),
        format!(
            "CREATE EXTERNAL TABLE strings STORED AS PARQUET LOCATION '{}/strings.parquet' \
             OPTIONS ('utf8guard.repair' 'windows-1252')",
            dir.display()
        ),
    ];
    for sql in tables {
        ctx.sql(&sql).await.unwrap();
    }
    ctx
}

fn codecs() -> (RepairedFormatsLogicalCodec, RepairedFormatsPhysicalCodec) {
    (
        RepairedFormatsLogicalCodec::new(Arc::new(DefaultLogicalExtensionCodec {})),
        RepairedFormatsPhysicalCodec::new(Arc::new(DefaultPhysicalExtensionCodec {})),
    )
}

#[tokio::test]
async fn a_logical_plan_read_elsewhere_gives_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = sender(dir.path()).await;
    let (logical, _) = codecs();
    for sql in QUERIES {
        let plan = ctx.sql(sql).await.unwrap().into_unoptimized_plan();
        let bytes = logical_plan_to_bytes_with_extension_codec(&plan, &logical).unwrap();
        let receiver = SessionContext::new();
        let read =
            logical_plan_from_bytes_with_extension_codec(&bytes, &receiver.task_ctx(), &logical)
                .unwrap();
        let batches = receiver
            .execute_logical_plan(read)
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        let theirs = pretty_format_batches(&batches).unwrap().to_string();
        assert_eq!(theirs, answer(&ctx, sql).await, "{sql}");
    }
    // And the answers are the repaired files'.
    assert_eq!(
        answer(&ctx, QUERIES[0]).await,
        "+----+--------+\n\
         | id | name   |\n\
         +----+--------+\n\
         | 1  | José   |\n\
         | 2  | José   |\n\
         | 3  | Müller |\n\
         | 4  | € zone |\n\
         | 5  | cafÃ   |\n\
         +----+--------+"
    );
    assert_eq!(
        answer(&ctx, QUERIES[1]).await,
        "+------+---+\n\
         | name | n |\n\
         +------+---+\n\
         | Jos\u{FFFD} | 1 |\n\
         | café | 1 |\n\
         +------+---+"
    );
    assert_eq!(
        answer(&ctx, QUERIES[3]).await,
        "+----+------+\n\
         | id | name |\n\
         +----+------+\n\
         | 1  | José |\n\
         | 2  |      |\n\
         | 3  | Zoë  |\n\
         | 4  | cafÃ |\n\
         +----+------+"
    );
}

#[tokio::test]
async fn a_validating_parquet_scan_read_elsewhere_still_validates() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = sender(dir.path()).await;
    let create = format!(
        "CREATE EXTERNAL TABLE checked STORED AS PARQUET LOCATION '{}/strings.parquet' \
         OPTIONS ('utf8guard.repair' 'validate')",
        dir.path().display()
    );
    ctx.sql(&create).await.unwrap();
    let (_, physical) = codecs();
    let plan = ctx
        .sql("SELECT name FROM checked")
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let bytes = physical_plan_to_bytes_with_extension_codec(plan, &physical).unwrap();
    let receiver = SessionContext::new();
    let read =
        physical_plan_from_bytes_with_extension_codec(&bytes, &receiver.task_ctx(), &physical)
            .unwrap();
    let error = collect(read, receiver.task_ctx()).await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("row group 0, row 0 (row 0 of the row group), column name"),
        "{error}"
    );
}

#[tokio::test]
async fn a_physical_plan_read_elsewhere_gives_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = sender(dir.path()).await;
    let (_, physical) = codecs();
    for sql in QUERIES {
        let plan = ctx
            .sql(sql)
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        let shown = displayable(plan.as_ref()).indent(true).to_string();
        let bytes = physical_plan_to_bytes_with_extension_codec(plan, &physical).unwrap();
        let receiver = SessionContext::new();
        let read =
            physical_plan_from_bytes_with_extension_codec(&bytes, &receiver.task_ctx(), &physical)
                .unwrap();
        // The same plan, the repairing scans with their policies included.
        assert_eq!(displayable(read.as_ref()).indent(true).to_string(), shown);
        let repairing = ["repair=", "strings="];
        assert!(repairing.iter().any(|r| shown.contains(r)), "{shown}");
        let batches = collect(read, receiver.task_ctx()).await.unwrap();
        let theirs = pretty_format_batches(&batches).unwrap().to_string();
        assert_eq!(theirs, answer(&ctx, sql).await, "{sql}");
    }
}

#[tokio::test]
async fn without_the_codecs_the_plans_cannot_leave() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = sender(dir.path()).await;
    let frame = ctx.sql(QUERIES[0]).await.unwrap();
    let plan = frame.clone().into_unoptimized_plan();
    let error = logical_plan_to_bytes_with_extension_codec(&plan, &DefaultLogicalExtensionCodec {})
        .unwrap_err();
    assert!(error.to_string().contains("custom table"), "{error}");
    let plan = frame.create_physical_plan().await.unwrap();
    let error =
        physical_plan_to_bytes_with_extension_codec(plan, &DefaultPhysicalExtensionCodec {})
            .unwrap_err();
    assert!(error.to_string().contains("Unsupported plan"), "{error}");
}

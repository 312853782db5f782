//! `register_csv_repaired` and `register_ndjson_repaired`: a file with bad
//! bytes, which DataFusion's own readers refuse, queried with SQL; the
//! answers equal DataFusion's on the same file repaired first.

use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::{CsvReadOptions, JsonReadOptions, SessionContext};
use utf8guard::Replacement;

/// `sql`'s result, as a table in text.
async fn answer(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    pretty_format_batches(&batches).unwrap().to_string()
}

const CSV: &[u8] = b"id,name,city\n\
    1,Jos\xC3\xA9,M\xC3\xBCnchen\n\
    2,Jos\xE9,M\xFCnchen\n\
    3,\x80 price,Z\xFCrich\n\
    4,plain,Oslo\n";

#[tokio::test]
async fn a_mixed_csv_file_is_queried_as_the_repaired_file() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.csv");
    std::fs::write(&raw, CSV).unwrap();
    // DataFusion's own reader stops at the bad bytes.
    let own = SessionContext::new();
    let refused = match own
        .register_csv("t", raw.to_str().unwrap(), CsvReadOptions::new())
        .await
    {
        Err(e) => e.to_string(),
        Ok(()) => match own.sql("SELECT * FROM t").await.unwrap().collect().await {
            Err(e) => e.to_string(),
            Ok(_) => String::from("read"),
        },
    };
    assert!(refused.contains("UTF-8"), "{refused}");

    for policy in Replacement::ALL {
        let clean = dir.path().join(format!("{policy}.csv"));
        std::fs::write(&clean, utf8guard::repair(CSV, policy).as_bytes()).unwrap();
        let reference = SessionContext::new();
        reference
            .register_csv("t", clean.to_str().unwrap(), CsvReadOptions::new())
            .await
            .unwrap();
        let ours = SessionContext::new();
        utf8guard_datafusion::register_csv_repaired(&ours, "t", &raw, policy).unwrap();
        for sql in [
            "SELECT * FROM t ORDER BY id",
            "SELECT name, count(*) AS n FROM t GROUP BY name ORDER BY name",
        ] {
            assert_eq!(
                answer(&ours, sql).await,
                answer(&reference, sql).await,
                "{policy}: {sql}"
            );
        }
    }

    let ctx = SessionContext::new();
    utf8guard_datafusion::register_csv_repaired(&ctx, "t", &raw, Replacement::Windows1252).unwrap();
    // Read from the file as the query runs, not held in memory.
    let plan = answer(&ctx, "EXPLAIN SELECT * FROM t").await;
    assert!(
        plan.contains("DataSourceExec") && plan.contains("repair=windows-1252"),
        "{plan}"
    );
    let names = answer(
        &ctx,
        "SELECT count(*) AS n FROM t WHERE name = 'José' AND city = 'München'",
    )
    .await;
    assert!(names.contains("| 2 |"), "{names}");
    let price = answer(&ctx, "SELECT name FROM t WHERE id = 3").await;
    assert!(price.contains("| € price |"), "{price}");
}

#[tokio::test]
async fn an_ndjson_file_with_bad_bytes_is_queried_as_the_repaired_file() {
    let ndjson: &[u8] = b"{\"id\":1,\"s\":\"ok\"}\n\
        {\"id\":2,\"s\":\"surrogate \xED\xA0\x80\"}\n\
        {\"id\":3,\"s\":\"caf\xE9\"}\n";
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.json");
    std::fs::write(&raw, ndjson).unwrap();
    for policy in [
        Replacement::Jvm,
        Replacement::MaximalSubpart,
        Replacement::Latin1,
    ] {
        let clean = dir.path().join(format!("{policy}.json"));
        std::fs::write(&clean, utf8guard::repair(ndjson, policy).as_bytes()).unwrap();
        let reference = SessionContext::new();
        reference
            .register_json("t", clean.to_str().unwrap(), JsonReadOptions::default())
            .await
            .unwrap();
        let ours = SessionContext::new();
        utf8guard_datafusion::register_ndjson_repaired(&ours, "t", &raw, policy).unwrap();
        let sql = "SELECT id, s FROM t ORDER BY id";
        assert_eq!(
            answer(&ours, sql).await,
            answer(&reference, sql).await,
            "{policy}"
        );
    }
    let ctx = SessionContext::new();
    utf8guard_datafusion::register_ndjson_repaired(&ctx, "t", &raw, Replacement::Jvm).unwrap();
    let plan = answer(&ctx, "EXPLAIN SELECT * FROM t").await;
    assert!(
        plan.contains("DataSourceExec") && plan.contains("repair=jvm"),
        "{plan}"
    );
    let s = answer(&ctx, "SELECT s FROM t WHERE id = 2").await;
    assert!(s.contains("| surrogate \u{FFFD} |"), "{s}");
}

#[test]
fn a_missing_file_is_an_error_that_names_it() {
    let ctx = SessionContext::new();
    let error = utf8guard_datafusion::register_csv_repaired(
        &ctx,
        "t",
        "/nonexistent/utf8guard.csv",
        Replacement::Jvm,
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("/nonexistent/utf8guard.csv"), "{error}");
}

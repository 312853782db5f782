//! Runs SQL on a Ballista cluster whose scheduler and executors know
//! utf8guard's functions and repairing file formats, and prints the
//! results.

use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::ParquetReadOptions;
use datafusion::sql::parser::DFParser;
use utf8guard_cluster::{remote_context, Options};

const USAGE: &str = "usage: utf8guard-sql [--scheduler HOST:PORT] [--parquet NAME=PATH]... SQL

Registers each Parquet file or folder PATH as table NAME, runs the
statements of SQL (separated by ';') in order on the Ballista cluster
whose scheduler listens on HOST:PORT (default 127.0.0.1:50050), and prints
the result of each statement that returns columns as a table.

The functions utf8_valid, utf8_error_offset, utf8_repair, utf8_decode_jvm,
is_valid_utf8 and make_valid_utf8 are known, and CREATE EXTERNAL TABLE
... STORED AS CSV (or JSON) takes the option 'utf8guard.repair' naming a
repair policy, with which the files are read repaired:

  utf8guard-sql \"CREATE EXTERNAL TABLE t STORED AS CSV LOCATION 'data/'
    OPTIONS ('format.has_header' 'true', 'utf8guard.repair' 'windows-1252');
    SELECT count(*) FROM t\"

The cluster must run utf8guard-scheduler and utf8guard-executor.";

#[tokio::main]
async fn main() -> datafusion::common::Result<()> {
    let (options, sql) = Options::parse_with_last(&["scheduler", "parquet"], USAGE);
    let url = format!("df://{}", options.get("scheduler", "127.0.0.1:50050"));
    let ctx = remote_context(&url).await?;
    for table in options.all("parquet") {
        let Some((name, path)) = table.split_once('=') else {
            eprintln!("error: --parquet {table}: expected NAME=PATH\n{USAGE}");
            std::process::exit(2);
        };
        ctx.register_parquet(name, path, ParquetReadOptions::default())
            .await?;
    }
    // One statement at a time: a table the first creates is known to the
    // planning of the next.
    for statement in DFParser::parse_sql(&sql)? {
        let plan = ctx.state().statement_to_plan(statement).await?;
        let frame = ctx.execute_logical_plan(plan).await?;
        let answers_columns = !frame.schema().fields().is_empty();
        let batches = frame.collect().await?;
        if answers_columns {
            println!("{}", pretty_format_batches(&batches)?);
        }
    }
    Ok(())
}

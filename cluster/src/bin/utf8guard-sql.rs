//! Runs SQL on a Ballista cluster whose scheduler and executors know
//! utf8guard's functions, and prints the result.

use ballista::prelude::SessionContextExt;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use utf8guard_cluster::Options;

const USAGE: &str = "usage: utf8guard-sql [--scheduler HOST:PORT] [--parquet NAME=PATH]... SQL

Registers each Parquet file or folder PATH as table NAME, runs SQL on the
Ballista cluster whose scheduler listens on HOST:PORT (default
127.0.0.1:50050), and prints the result as a table. The functions
utf8_valid, utf8_error_offset, utf8_repair, utf8_decode_jvm, is_valid_utf8
and make_valid_utf8 are known to the client, and must be to the cluster
(utf8guard-scheduler, utf8guard-executor).";

#[tokio::main]
async fn main() -> datafusion::common::Result<()> {
    let (options, sql) = Options::parse_with_last(&["scheduler", "parquet"], USAGE);
    let url = format!("df://{}", options.get("scheduler", "127.0.0.1:50050"));
    let ctx = SessionContext::remote(&url).await?;
    // After the context is made: Ballista's client session replaces the
    // functions of the state it is given with its own.
    utf8guard_datafusion::register(&ctx);
    for table in options.all("parquet") {
        let Some((name, path)) = table.split_once('=') else {
            eprintln!("error: --parquet {table}: expected NAME=PATH\n{USAGE}");
            std::process::exit(2);
        };
        ctx.register_parquet(name, path, ParquetReadOptions::default())
            .await?;
    }
    let batches = ctx.sql(&sql).await?.collect().await?;
    println!("{}", pretty_format_batches(&batches)?);
    Ok(())
}

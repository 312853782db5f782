//! The repairing CSV format against DataFusion's own CSV scan, and its
//! memory on a file far larger than a batch.
//!
//! ```text
//! csv_scan generate PATH MIB [BAD_EVERY]   a CSV file of about MIB MiB: id,city,text;
//!                                          every BAD_EVERY-th line (0: none) has
//!                                          Windows-1252 bytes
//! csv_scan query PATH                      SELECT count(*), max(length(text)) through the
//!                                          repairing format (for /usr/bin/time -v)
//! csv_scan speed PATH [ROUNDS]             that query over a valid file, DataFusion's scan
//!                                          and the repairing one taking turns, with one
//!                                          partition and with all; medians and ratios
//! ```

use std::io::{BufWriter, Write};
use std::time::Instant;

use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::{CsvReadOptions, SessionConfig, SessionContext};
use utf8guard_bench::paired::median;

const QUERY: &str = "SELECT count(*), max(length(text)) FROM t";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    match args.as_slice() {
        ["generate", path, mib, rest @ ..] => {
            let bad_every = rest.first().map_or(0, |n| n.parse().unwrap());
            generate(path, mib.parse().unwrap(), bad_every);
        }
        ["query", path] => runtime.block_on(async {
            let ctx = session(None).await;
            create_repaired(&ctx, path).await;
            println!("{}", run(&ctx).await);
        }),
        ["speed", path, rest @ ..] => {
            let rounds = rest.first().map_or(5, |n| n.parse().unwrap());
            runtime.block_on(speed(path, rounds));
        }
        _ => {
            eprintln!(
                "usage: csv_scan generate PATH MIB [BAD_EVERY] | query PATH | speed PATH [ROUNDS]"
            );
            std::process::exit(2);
        }
    }
}

/// Lines of about 100 bytes: an id, a city with accents and a text of
/// mixed scripts; a Windows-1252 line every `bad_every` lines.
fn generate(path: &str, mib: u64, bad_every: u64) {
    let cities = [
        "München",
        "Zürich",
        "Kraków",
        "São Paulo",
        "Reykjavík",
        "Oslo",
    ];
    let words = [
        "café",
        "naïve",
        "€100",
        "日本語",
        "Ελληνικά",
        "plain words",
        "emoji 😀",
    ];
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    out.write_all(b"id,city,text\n").unwrap();
    let (mut written, limit) = (0u64, mib << 20);
    let mut id = 0u64;
    while written < limit {
        let city = cities[(id % 6) as usize];
        let mut line = format!("{id},{city},\"");
        for k in 0..5 {
            line += words[((id + k * 3) % 7) as usize];
            line.push(' ');
        }
        line += &format!("{:x}\"\n", id.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut bytes = line.into_bytes();
        if bad_every != 0 && id.is_multiple_of(bad_every) {
            // The line's é, ü and € as Windows-1252 would write them.
            bytes = String::from_utf8(bytes)
                .unwrap()
                .chars()
                .flat_map(|c| match c {
                    'é' => vec![0xE9],
                    'ü' => vec![0xFC],
                    '€' => vec![0x80],
                    c => c.to_string().into_bytes(),
                })
                .collect();
        }
        out.write_all(&bytes).unwrap();
        written += bytes.len() as u64;
        id += 1;
    }
    out.flush().unwrap();
    eprintln!("{path}: {id} lines, {written} bytes");
}

/// A session with the repairing formats; `partitions` or as many as
/// the machine's cores.
async fn session(partitions: Option<usize>) -> SessionContext {
    let mut config = SessionConfig::new();
    if let Some(partitions) = partitions {
        config = config.with_target_partitions(partitions);
    }
    let ctx = SessionContext::new_with_config(config);
    utf8guard_datafusion::register_file_formats(&ctx).unwrap();
    ctx
}

async fn create_repaired(ctx: &SessionContext, path: &str) {
    let sql = format!(
        "CREATE EXTERNAL TABLE t STORED AS CSV LOCATION '{path}' \
         OPTIONS ('format.has_header' 'true', 'utf8guard.repair' 'windows-1252')"
    );
    ctx.sql(&sql).await.unwrap();
}

async fn run(ctx: &SessionContext) -> String {
    let batches = ctx.sql(QUERY).await.unwrap().collect().await.unwrap();
    pretty_format_batches(&batches).unwrap().to_string()
}

/// The query in turns over the same valid file: DataFusion's CSV table,
/// then the repairing one, round after round, each round's order swapped.
async fn speed(path: &str, rounds: usize) {
    let bytes = std::fs::metadata(path).unwrap().len() as f64;
    for partitions in [Some(1), None] {
        let own = session(partitions).await;
        own.register_csv("t", path, CsvReadOptions::new())
            .await
            .unwrap();
        let repaired = session(partitions).await;
        create_repaired(&repaired, path).await;
        let expected = run(&own).await;
        assert_eq!(run(&repaired).await, expected);
        let mut times = [Vec::new(), Vec::new()];
        for round in 0..rounds {
            for turn in 0..2 {
                let which = (turn + round) % 2;
                let ctx = [&own, &repaired][which];
                let start = Instant::now();
                run(ctx).await;
                times[which].push(start.elapsed().as_secs_f64());
            }
        }
        let [own_s, repaired_s] = [median(&times[0]), median(&times[1])];
        let label = partitions.map_or_else(
            || format!("{} partitions", own.state().config().target_partitions()),
            |n| format!("{n} partition"),
        );
        println!(
            "{label}: DataFusion {:.3} s ({:.0} MB/s), repaired {:.3} s ({:.0} MB/s), \
             speed ratio {:.3} (medians of {rounds})",
            own_s,
            bytes / own_s / 1e6,
            repaired_s,
            bytes / repaired_s / 1e6,
            own_s / repaired_s
        );
    }
}

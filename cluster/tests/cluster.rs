//! One scheduler and two executors on 127.0.0.1, started from this crate's
//! binaries: queries with utf8guard's functions over Parquet files, and
//! over CSV, NDJSON and Parquet files of mixed encodings read through a
//! repair (`CREATE EXTERNAL TABLE ... OPTIONS ('utf8guard.repair' ...)`),
//! give exactly what the same queries give in one process.
//!
//! Every process is started with its standard input a pipe that this test
//! holds and `--exit-when-stdin-closes`, and is killed when the test ends
//! (a guard's `Drop`, which runs on failure too); should the test process
//! itself be killed, the pipes close and the cluster stops on its own. The
//! whole test is bounded in time.

use std::fs::File;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::arrow::array::{ArrayRef, BinaryArray, Int64Array, RecordBatch};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use datafusion::parquet::file::properties::WriterProperties;
use datafusion::parquet::file::writer::SerializedFileWriter;
use datafusion::parquet::schema::parser::parse_message_type;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use utf8guard_cluster::remote_context;

/// Everything must be done by then.
const TIME_LIMIT: Duration = Duration::from_secs(300);

/// The cluster's processes, killed when dropped.
struct Cluster {
    processes: Vec<(String, Child, PathBuf)>,
}

impl Cluster {
    fn start(&mut self, name: &str, program: &str, args: &[String], logs: &Path) {
        let log = logs.join(format!("{name}.log"));
        let out = File::create(&log).unwrap();
        let child = Command::new(program)
            .args(args)
            .arg("--exit-when-stdin-closes")
            .stdin(Stdio::piped())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {program}: {e}"));
        self.processes.push((name.to_string(), child, log));
    }

    /// Waits until `port` on 127.0.0.1 accepts connections; fails if a
    /// process has exited or the deadline passes.
    fn wait_for(&mut self, port: u16, deadline: Instant) {
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            let exited = self
                .processes
                .iter_mut()
                .find_map(|(name, child, _)| Some((name.clone(), child.try_wait().unwrap()?)));
            if let Some((name, status)) = exited {
                panic!(
                    "{name} exited ({status}) before port {port} opened\n{}",
                    self.logs()
                );
            }
            assert!(
                Instant::now() < deadline,
                "port {port} not open in time\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn logs(&self) -> String {
        let mut all = String::new();
        for (name, _, log) in &self.processes {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(40).collect();
            all += &format!("--- {name} (last lines) ---\n");
            for line in tail.iter().rev() {
                all += line;
                all.push('\n');
            }
        }
        all
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for (_, child, _) in &mut self.processes {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Ports the system picks, all different (held open until all are known).
fn free_ports(n: usize) -> Vec<u16> {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    listeners
        .iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect()
}

/// Values for the binary column: UTF-8 short and long, ASCII and not,
/// invalid in every way, empty, and nulls.
fn values(file: usize) -> Vec<Option<Vec<u8>>> {
    let samples: [Option<&[u8]>; 12] = [
        Some(b"plain"),
        Some("Grüße aus Köln, mehr als zwölf Bytes".as_bytes()),
        Some(b"\xFF"),
        Some(b"caf\xC3"),
        None,
        Some(b""),
        Some(b"a long value with \xED\xA0\x80 a surrogate"),
        Some("日本語".as_bytes()),
        Some(b"\xC0\xAF overlong"),
        Some(b"emoji \xF0\x9F\x98\x80 and cut \xF0\x9F\x98"),
        Some(b"ok"),
        Some(b"\x80"),
    ];
    (0..200)
        .map(|i| samples[(i * 7 + file * 5) % samples.len()].map(<[u8]>::to_vec))
        .collect()
}

/// Three Parquet files with an `id` and a binary `col`.
fn write_parquet(dir: &Path) -> Vec<Option<Vec<u8>>> {
    let mut all = Vec::new();
    for file in 0..3 {
        let values = values(file);
        let ids =
            Int64Array::from_iter_values((0..values.len() as i64).map(|i| file as i64 * 1000 + i));
        let col = BinaryArray::from_iter(values.iter().map(|v| v.as_deref()));
        let batch =
            RecordBatch::try_from_iter([("id", Arc::new(ids) as ArrayRef), ("col", Arc::new(col))])
                .unwrap();
        let out = File::create(dir.join(format!("part-{file}.parquet"))).unwrap();
        let mut writer = ArrowWriter::try_new(out, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        all.extend(values);
    }
    all
}

/// A name in UTF-8 and in Windows-1252, and how it reads repaired.
const NAMES: [(&[u8], &str); 5] = [
    (b"Jos\xC3\xA9", "José"),
    (b"Jos\xE9", "José"),
    (b"M\xFCller", "Müller"),
    (b"\x80 zone", "€ zone"),
    (b"plain", "plain"),
];

/// Three CSV files and three NDJSON files whose lines mix UTF-8 and
/// Windows-1252; the names each row reads as, by id.
fn write_mixed(csv: &Path, json: &Path) -> Vec<(i64, &'static str)> {
    let mut rows = Vec::new();
    for file in 0..3_i64 {
        let mut text = b"id,name\n".to_vec();
        let mut lines = Vec::new();
        for i in 0..150 {
            let id = file * 1000 + i;
            let (bytes, name) = NAMES[(i as usize * 3 + file as usize) % NAMES.len()];
            text.extend_from_slice(format!("{id},").as_bytes());
            text.extend_from_slice(bytes);
            text.push(b'\n');
            lines.extend_from_slice(format!("{{\"id\":{id},\"name\":\"").as_bytes());
            lines.extend_from_slice(bytes);
            lines.extend_from_slice(b"\"}\n");
            rows.push((id, name));
        }
        std::fs::write(csv.join(format!("part-{file}.csv")), text).unwrap();
        std::fs::write(json.join(format!("part-{file}.json")), lines).unwrap();
    }
    rows
}

/// Two Parquet files whose `name` column is annotated STRING but holds the
/// bytes of [`NAMES`] (Windows-1252 among them), written with Parquet's
/// low-level writer, which checks nothing; the names each row reads as.
fn write_bad_strings(dir: &Path) -> Vec<(i64, &'static str)> {
    let schema =
        parse_message_type("message people { required int64 id; required binary name (STRING); }")
            .unwrap();
    let mut rows = Vec::new();
    for file in 0..2_i64 {
        let out = File::create(dir.join(format!("part-{file}.parquet"))).unwrap();
        let properties = Arc::new(WriterProperties::builder().build());
        let mut writer =
            SerializedFileWriter::new(out, Arc::new(schema.clone()), properties).unwrap();
        let mut group = writer.next_row_group().unwrap();
        let ids: Vec<i64> = (0..50).map(|i| file * 1000 + i).collect();
        let mut column = group.next_column().unwrap().unwrap();
        column
            .typed::<Int64Type>()
            .write_batch(&ids, None, None)
            .unwrap();
        column.close().unwrap();
        let mut names = Vec::new();
        for &id in &ids {
            let (bytes, name) = NAMES[id as usize % NAMES.len()];
            names.push(ByteArray::from(bytes.to_vec()));
            rows.push((id, name));
        }
        let mut column = group.next_column().unwrap().unwrap();
        column
            .typed::<ByteArrayType>()
            .write_batch(&names, None, None)
            .unwrap();
        column.close().unwrap();
        group.close().unwrap();
        writer.close().unwrap();
    }
    rows
}

async fn query(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    pretty_format_batches(&batches).unwrap().to_string()
}

/// What `utf8guard-sql ARGS` prints; fails if it fails or outlasts
/// `deadline`.
fn run_sql(args: &[&str], deadline: Instant, cluster: &Cluster) -> String {
    let mut sql = Command::new(env!("CARGO_BIN_EXE_utf8guard-sql"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while sql.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = sql.kill();
            panic!("utf8guard-sql did not finish in time\n{}", cluster.logs());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = sql.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_local_cluster_gives_the_results_of_one_process() {
    let deadline = Instant::now() + TIME_LIMIT;
    let dir = std::env::temp_dir().join(format!("utf8guard-cluster-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let values = write_parquet(&data);
    let (csv, json) = (dir.join("csv"), dir.join("json"));
    std::fs::create_dir_all(&csv).unwrap();
    std::fs::create_dir_all(&json).unwrap();
    let rows = write_mixed(&csv, &json);
    let strings = dir.join("strings");
    std::fs::create_dir_all(&strings).unwrap();
    let string_rows = write_bad_strings(&strings);
    let create = [
        format!(
            "CREATE EXTERNAL TABLE people STORED AS CSV LOCATION '{}/' \
             OPTIONS ('format.has_header' 'true', 'utf8guard.repair' 'windows-1252')",
            csv.display()
        ),
        format!(
            "CREATE EXTERNAL TABLE events STORED AS JSON LOCATION '{}/' \
             OPTIONS ('utf8guard.repair' 'cp1252')",
            json.display()
        ),
        format!(
            "CREATE EXTERNAL TABLE strings STORED AS PARQUET LOCATION '{}/' \
             OPTIONS ('utf8guard.repair' 'windows-1252')",
            strings.display()
        ),
    ];

    let ports = free_ports(5);
    let mut cluster = Cluster {
        processes: Vec::new(),
    };
    cluster.start(
        "scheduler",
        env!("CARGO_BIN_EXE_utf8guard-scheduler"),
        &[
            "--bind-host".into(),
            "127.0.0.1".into(),
            "--bind-port".into(),
            ports[0].to_string(),
        ],
        &dir,
    );
    cluster.wait_for(ports[0], deadline);
    for e in 0..2 {
        let work = dir.join(format!("executor-{e}"));
        std::fs::create_dir_all(&work).unwrap();
        cluster.start(
            &format!("executor-{e}"),
            env!("CARGO_BIN_EXE_utf8guard-executor"),
            &[
                "--bind-host".into(),
                "127.0.0.1".into(),
                "--port".into(),
                ports[1 + 2 * e].to_string(),
                "--grpc-port".into(),
                ports[2 + 2 * e].to_string(),
                "--scheduler-host".into(),
                "127.0.0.1".into(),
                "--scheduler-port".into(),
                ports[0].to_string(),
                "--vcores".into(),
                "2".into(),
                "--work-dir".into(),
                work.display().to_string(),
            ],
            &dir,
        );
    }
    for port in &ports[1..] {
        cluster.wait_for(*port, deadline);
    }

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let left = deadline.saturating_duration_since(Instant::now());
    let queries = async {
        let remote = remote_context(&format!("df://127.0.0.1:{}", ports[0]))
            .await
            .unwrap();
        let local = SessionContext::new();
        utf8guard_datafusion::register(&local);
        utf8guard_datafusion::register_file_formats(&local).unwrap();
        for ctx in [&remote, &local] {
            ctx.register_parquet("t", data.to_str().unwrap(), ParquetReadOptions::default())
                .await
                .unwrap();
            for sql in &create {
                ctx.sql(sql).await.unwrap();
            }
        }
        let queries = [
            "SELECT count(*) FROM t WHERE NOT utf8_valid(col)",
            "SELECT id, utf8_repair(col) AS repaired FROM t ORDER BY id",
            "SELECT utf8_error_offset(col) AS at, count(*) AS n FROM t GROUP BY at ORDER BY at",
            "SELECT id, name FROM people ORDER BY id",
            "SELECT name, count(*) AS n FROM events GROUP BY name ORDER BY name",
            "SELECT id, name FROM strings ORDER BY id",
        ];
        let mut results = Vec::new();
        for sql in queries {
            let on_cluster = query(&remote, sql).await;
            let in_process = query(&local, sql).await;
            assert_eq!(on_cluster, in_process, "{sql}");
            results.push(on_cluster);
        }
        results
    };
    let outcome = runtime.block_on(async { tokio::time::timeout(left, queries).await });
    let results = match outcome {
        Ok(results) => results,
        Err(_) => panic!("the queries did not finish in time\n{}", cluster.logs()),
    };

    // And both are right: counted here from the values written.
    let bad = values
        .iter()
        .flatten()
        .filter(|v| std::str::from_utf8(v).is_err())
        .count();
    assert_eq!(bad, 299);
    assert!(results[0].contains(&format!("| {bad} ")), "{}", results[0]);
    let lines: Vec<&str> = results[1].lines().collect();
    // Header (3 lines), 600 rows, closing line.
    assert_eq!(lines.len(), 3 + 600 + 1);
    // Row 0 is "plain"; row 2 "\xFF", repaired.
    assert!(
        lines[3].starts_with("| 0 ") && lines[3].contains("| plain "),
        "{}",
        lines[3]
    );
    assert!(
        lines[5].starts_with("| 2 ") && lines[5].contains("| \u{FFFD} "),
        "{}",
        lines[5]
    );

    // Every row of the mixed files, repaired as Windows-1252.
    for (result, rows) in [(&results[3], &rows), (&results[5], &string_rows)] {
        let lines: Vec<&str> = result.lines().collect();
        assert_eq!(lines.len(), 3 + rows.len() + 1);
        for (line, (id, name)) in lines[3..].iter().zip(rows) {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            assert_eq!(cells[1..3], [id.to_string().as_str(), *name], "{line}");
        }
    }
    for (_, name) in NAMES {
        let n = rows.iter().filter(|(_, n)| *n == name).count();
        assert!(
            results[4].contains(&format!("| {name} ")) && results[4].contains(&format!("| {n} ")),
            "{name}: {}",
            results[4]
        );
    }

    // docs/ARROW.md's client commands, on the same cluster.
    let scheduler = format!("127.0.0.1:{}", ports[0]);
    let out = run_sql(
        &[
            "--scheduler",
            &scheduler,
            "--parquet",
            &format!("t={}", data.display()),
            "SELECT count(*) AS bad FROM t WHERE NOT utf8_valid(col)",
        ],
        deadline,
        &cluster,
    );
    assert_eq!(out, "+-----+\n| bad |\n+-----+\n| 299 |\n+-----+\n");
    let josé = rows.iter().filter(|(_, name)| *name == "José").count();
    let statements = format!(
        "{}; SELECT count(*) AS n FROM people WHERE name = 'José'",
        create[0]
    );
    let out = run_sql(
        &["--scheduler", &scheduler, &statements],
        deadline,
        &cluster,
    );
    assert_eq!(
        out,
        format!("+-----+\n| n   |\n+-----+\n| {josé} |\n+-----+\n")
    );

    drop(cluster);
    let _ = std::fs::remove_dir_all(&dir);
}

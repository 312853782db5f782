//! A Ballista executor that runs utf8guard's functions.

use std::sync::Arc;

use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use utf8guard_cluster::{function_registry, logical_codec, physical_codec, Options};

const USAGE: &str =
    "usage: utf8guard-executor [--bind-host HOST] [--port PORT] [--grpc-port PORT] \
[--scheduler-host HOST] [--scheduler-port PORT] [--work-dir DIR] [--vcores N] \
[--exit-when-stdin-closes]

A Ballista executor (Arrow Flight on PORT, default 50051; gRPC on the
gRPC port, default 50052) that registers with the scheduler at
HOST:PORT (default 127.0.0.1:50050) and runs utf8_valid,
utf8_error_offset, utf8_repair, utf8_decode_jvm, is_valid_utf8 and
make_valid_utf8. Shuffle
files go to DIR (default: a new temporary directory). With
--exit-when-stdin-closes it stops when its standard input closes.";

#[tokio::main]
async fn main() -> ballista_core::error::Result<()> {
    let options = Options::parse(
        &[
            "bind-host",
            "port",
            "grpc-port",
            "scheduler-host",
            "scheduler-port",
            "work-dir",
            "vcores",
        ],
        USAGE,
    );
    options.watch_stdin();
    let bind_host = options.get("bind-host", "127.0.0.1");
    let work_dir = options.get("work-dir", "");
    let defaults = ExecutorProcessConfig::default();
    let config = ExecutorProcessConfig {
        bind_host: bind_host.clone(),
        external_host: Some(bind_host),
        port: options.number("port", 50051),
        grpc_port: options.number("grpc-port", 50052),
        scheduler_host: options.get("scheduler-host", "127.0.0.1"),
        scheduler_port: options.number("scheduler-port", 50050),
        scheduler_connect_timeout_seconds: 30,
        vcores: options.number("vcores", defaults.vcores),
        work_dir: (!work_dir.is_empty()).then_some(work_dir),
        override_function_registry: Some(function_registry()),
        override_logical_codec: Some(logical_codec()),
        override_physical_codec: Some(physical_codec()),
        ..defaults
    };
    eprintln!(
        "utf8guard-executor: flight {}:{}, gRPC port {}, scheduler {}:{}",
        config.bind_host,
        config.port,
        config.grpc_port,
        config.scheduler_host,
        config.scheduler_port
    );
    start_executor_process(Arc::new(config)).await
}

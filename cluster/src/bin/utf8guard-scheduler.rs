//! A Ballista scheduler whose sessions know utf8guard's functions.

use std::net::SocketAddr;
use std::sync::Arc;

use ballista_core::error::BallistaError;
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use utf8guard_cluster::{logical_codec, physical_codec, session_state_with_functions, Options};

const USAGE: &str = "usage: utf8guard-scheduler [--bind-host HOST] [--bind-port PORT] \
[--external-host HOST] [--exit-when-stdin-closes]

A Ballista scheduler (gRPC on HOST:PORT, default 127.0.0.1:50050) whose
sessions know utf8_valid, utf8_error_offset, utf8_repair, utf8_decode_jvm,
is_valid_utf8 and make_valid_utf8. With --exit-when-stdin-closes it stops when its standard
input closes.";

fn main() -> ballista_core::error::Result<()> {
    let options = Options::parse(&["bind-host", "bind-port", "external-host"], USAGE);
    options.watch_stdin();
    // As Ballista's own scheduler: deep plans need a large stack.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(32 * 1024 * 1024)
        .build()?;
    runtime.block_on(run(options))
}

async fn run(options: Options) -> ballista_core::error::Result<()> {
    let bind_host = options.get("bind-host", "127.0.0.1");
    let config = SchedulerConfig {
        bind_host: bind_host.clone(),
        bind_port: options.number("bind-port", 50050),
        external_host: options.get("external-host", &bind_host),
        override_session_builder: Some(Arc::new(session_state_with_functions)),
        override_logical_codec: Some(logical_codec()),
        override_physical_codec: Some(physical_codec()),
        ..Default::default()
    };
    let addr: SocketAddr = format!("{}:{}", config.bind_host, config.bind_port)
        .parse()
        .map_err(|e| BallistaError::Configuration(format!("bind address: {e}")))?;
    let cluster = BallistaCluster::new_from_config(&config).await?;
    eprintln!("utf8guard-scheduler: listening on {addr}");
    start_server(cluster, addr, Arc::new(config)).await
}

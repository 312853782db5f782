//! A Ballista scheduler and executor that know utf8guard's DataFusion
//! functions (`utf8_valid`, `utf8_error_offset`, `utf8_repair`,
//! `utf8_decode_jvm`, `is_valid_utf8`, `make_valid_utf8`): the binaries `utf8guard-scheduler`
//! and `utf8guard-executor`.
//!
//! A Ballista scheduler plans queries with the functions of the session
//! state its session builder makes, and an executor runs plans with the
//! functions of its function registry; functions registered in the client
//! alone are unknown to both. So the scheduler here gets a session builder
//! (Ballista's default, plus these functions) and the executor a function
//! registry (Ballista's default, plus these functions), the two hooks
//! Ballista provides for custom functions.
//!
//! The tables whose files are repaired as they are read (`CREATE EXTERNAL
//! TABLE ... OPTIONS ('utf8guard.repair' '<policy>')`) travel in the plans
//! the client sends to the scheduler and the scheduler to its executors:
//! each of the three gets utf8guard's plan codecs, in front of Ballista's
//! own ([`logical_codec`], [`physical_codec`]), and the client registers
//! the formats ([`remote_context`]).

use std::sync::Arc;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::PhysicalExtensionCodec;
use utf8guard_datafusion::{RepairedFormatsLogicalCodec, RepairedFormatsPhysicalCodec};

/// The scheduler's session builder: Ballista's default session state, with
/// utf8guard's functions registered.
pub fn session_state_with_functions(
    config: SessionConfig,
) -> datafusion::common::Result<SessionState> {
    let mut state = ballista_core::utils::default_session_builder(config)?;
    utf8guard_datafusion::register_all(&mut state)?;
    Ok(state)
}

/// The executor's function registry: Ballista's default functions, with
/// utf8guard's added (replacing any of the same name).
pub fn function_registry() -> Arc<BallistaFunctionRegistry> {
    let mut registry = BallistaFunctionRegistry::default();
    for function in utf8guard_datafusion::all_functions() {
        registry
            .scalar_functions
            .insert(function.name().to_string(), function);
    }
    Arc::new(registry)
}

/// Ballista's logical codec, behind utf8guard's (which carries the
/// repairing tables), for the client and the scheduler.
pub fn logical_codec() -> Arc<dyn LogicalExtensionCodec> {
    Arc::new(RepairedFormatsLogicalCodec::new(Arc::new(
        BallistaLogicalExtensionCodec::default(),
    )))
}

/// Ballista's physical codec, behind utf8guard's (which carries the
/// repairing scans), for the scheduler and the executors.
pub fn physical_codec() -> Arc<dyn PhysicalExtensionCodec> {
    Arc::new(RepairedFormatsPhysicalCodec::new(Arc::new(
        BallistaPhysicalExtensionCodec::default(),
    )))
}

/// A client of the cluster whose scheduler listens at `url`
/// (`df://host:port`): utf8guard's functions are registered, and so are
/// the repairing file formats (`CREATE EXTERNAL TABLE` with
/// `utf8guard.repair`), whose tables the client's codecs can send.
pub async fn remote_context(url: &str) -> datafusion::common::Result<SessionContext> {
    let config = SessionConfig::new_with_ballista()
        .with_ballista_logical_extension_codec(logical_codec())
        .with_ballista_physical_extension_codec(physical_codec());
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    let ctx = SessionContext::remote_with_state(url, state).await?;
    // After the context is made: Ballista's client session replaces the
    // functions of the state it is given with its own.
    utf8guard_datafusion::register(&ctx);
    utf8guard_datafusion::register_file_formats(&ctx)?;
    Ok(ctx)
}

/// Command-line options: `--name value` pairs, all optional.
#[derive(Debug, Default)]
pub struct Options {
    pairs: Vec<(String, String)>,
    /// `--exit-when-stdin-closes` was given.
    pub exit_when_stdin_closes: bool,
}

impl Options {
    /// Parses the process's arguments; `known` lists the names that take a
    /// value.
    pub fn parse(known: &[&str], usage: &str) -> Options {
        let (options, rest) = Options::parse_args(known, usage);
        if let Some(extra) = rest.first() {
            fail(&format!("unknown argument {extra}"), usage);
        }
        options
    }

    /// Parses the process's arguments, the last of which is not an option
    /// (a query); `known` lists the names that take a value.
    pub fn parse_with_last(known: &[&str], usage: &str) -> (Options, String) {
        let (options, mut rest) = Options::parse_args(known, usage);
        match (rest.pop(), rest.is_empty()) {
            (Some(last), true) => (options, last),
            _ => fail("expected one query after the options", usage),
        }
    }

    fn parse_args(known: &[&str], usage: &str) -> (Options, Vec<String>) {
        let mut options = Options::default();
        let mut rest = Vec::new();
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let name = arg.trim_start_matches("--");
            if arg == "--exit-when-stdin-closes" {
                options.exit_when_stdin_closes = true;
            } else if arg == "--help" || arg == "-h" {
                println!("{usage}");
                std::process::exit(0);
            } else if arg.starts_with("--") && known.contains(&name) {
                let Some(value) = args.next() else {
                    fail(&format!("{arg} needs a value"), usage);
                };
                options.pairs.push((name.to_string(), value));
            } else if arg.starts_with("--") {
                fail(&format!("unknown option {arg}"), usage);
            } else {
                rest.push(arg);
            }
        }
        (options, rest)
    }

    /// Every value of `--name`, in order.
    pub fn all(&self, name: &str) -> Vec<String> {
        self.pairs
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The value of `--name`, or `default`.
    pub fn get(&self, name: &str, default: &str) -> String {
        self.pairs
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map_or_else(|| default.to_string(), |(_, v)| v.clone())
    }

    /// The value of `--name` as a number, or `default`.
    pub fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        match self.pairs.iter().rev().find(|(n, _)| n == name) {
            None => default,
            Some((_, v)) => v
                .parse()
                .unwrap_or_else(|_| fail(&format!("--{name} {v}: not a number"), "")),
        }
    }

    /// With `--exit-when-stdin-closes`, a thread that ends the process when
    /// its standard input reaches its end: a parent that holds the other
    /// end of a pipe stops the process by dropping it, or by dying.
    pub fn watch_stdin(&self) {
        if !self.exit_when_stdin_closes {
            return;
        }
        std::thread::spawn(|| {
            let mut sink = Vec::new();
            let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut sink);
            std::process::exit(0);
        });
    }
}

fn fail(message: &str, usage: &str) -> ! {
    eprintln!("error: {message}");
    if !usage.is_empty() {
        eprintln!("{usage}");
    }
    std::process::exit(2);
}

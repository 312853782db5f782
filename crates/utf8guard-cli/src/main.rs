//! `utf8guard`: check that files, directories and streams are UTF-8, say
//! exactly where and why they are not, and repair them.
//!
//! Run `utf8guard --help` for the options, the exit status, the handling of
//! special inputs and the JSON schema.

mod args;
mod auto;
mod check;
mod cli;
mod convert;
mod descriptors;
mod family;
mod hex;
mod info;
mod io_error;
mod json;
mod lint;
mod mapped;
mod output;
mod path_name;
mod pipe;
mod pool;
mod position;
mod progress;
mod quantity;
mod repair;
mod report;
mod scan;
mod sniff;
mod stream;
mod walk;
mod wide;

use std::collections::BTreeMap;
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use clap::Parser;
use utf8guard::{Dialect, Kernel};

use crate::args::check::{CheckArgs, ALL_LIMIT};
use crate::args::encoding::Encoding;
use crate::cli::{Cli, Command};
use crate::io_error::io_message;
use crate::position::CharCounts;
use crate::progress::Progress;
use crate::quantity::{counted, human_bytes};
use crate::report::{Limit, Outcome, Status};
use crate::scan::ScanOptions;
use crate::walk::Input;

/// Exit status: every input valid.
const VALID: u8 = 0;
/// Exit status: some input invalid.
const INVALID: u8 = 1;
/// Exit status: usage error, or some input unreadable.
const TROUBLE: u8 = 2;

fn main() -> ExitCode {
    // Usage errors exit with status 2, --help and --version with 0.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(show_clap_message(&e)),
    };
    let status = match cli.command {
        Some(Command::Info) => run_info(),
        Some(Command::Repair(args)) => match (choose_kernel(None), args.encoding) {
            (Err(message), _) => usage_error(&message),
            (Ok(_), Some(d)) if d != Dialect::Utf8 => usage_error(&format!(
                "repair --encoding {d}: repair reads and writes strict UTF-8 only; \
                 `utf8guard check --encoding {d}` checks {}",
                family::title(d)
            )),
            (Ok(_), _) => repair::run(&args),
        },
        Some(Command::Convert(args)) => match choose_kernel(None) {
            Err(message) => usage_error(&message),
            Ok(_) => convert::run(&args),
        },
        // Lint decodes without the kernels, but a kernel named wrongly is
        // refused as everywhere else.
        Some(Command::Lint(args)) => match choose_kernel(None) {
            Err(message) => usage_error(&message),
            Ok(_) => lint::run(&args),
        },
        Some(Command::Check(args)) => run_check(&args),
        None => run_check(&cli.check),
    };
    ExitCode::from(status)
}

/// Shows what clap has to say instead of running: a usage error on stderr
/// (status 2), or the help or version on stdout (status 0, or 2 when it
/// cannot be written: clap's own `exit` would ignore that).
fn show_clap_message(e: &clap::Error) -> u8 {
    if e.use_stderr() {
        let _ = e.print();
        return TROUBLE;
    }
    let written = e.print().and_then(|()| io::stdout().flush());
    stdout_status(written, VALID)
}

/// `status`, or 2 when writing stdout failed: with a message, but none for
/// a reader that is gone (as `head` goes), as for the other reports.
fn stdout_status(written: io::Result<()>, status: u8) -> u8 {
    match written {
        Ok(()) => status,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => TROUBLE,
        Err(e) => {
            eprintln!(
                "utf8guard: standard output: write error: {}",
                io_message(&e)
            );
            TROUBLE
        }
    }
}

fn usage_error(message: &str) -> u8 {
    eprintln!("utf8guard: {message}");
    TROUBLE
}

/// Checks the kernel choice (`--kernel`, else `UTF8GUARD_KERNEL`) and makes
/// `--kernel` the engine's choice everywhere. Returns the forced kernel, if
/// any; a name that is unknown or unavailable here is a usage error (the
/// engine would ignore it and run the detected kernel).
fn choose_kernel(requested: Option<&str>) -> Result<Option<Kernel>, String> {
    if let Some(name) = requested {
        let kernel = Kernel::by_name(name).map_err(|e| format!("--kernel {name}: {e}"))?;
        utf8guard::set_kernel(kernel).map_err(|e| format!("--kernel {name}: {e}"))?;
        return Ok(Some(kernel));
    }
    utf8guard::kernel_override().map_err(|e| e.to_string())
}

fn run_info() -> u8 {
    let (status, report) = match choose_kernel(None) {
        Ok(forced) => (VALID, info::report(forced, false)),
        Err(message) => {
            // The problem first, then what there is instead.
            (usage_error(&message), info::report(None, true))
        }
    };
    // Not `print!`, which panics when stdout cannot be written.
    let mut out = io::stdout().lock();
    let written = descriptors::check_open(1)
        .and_then(|()| out.write_all(report.as_bytes()))
        .and_then(|()| out.flush());
    stdout_status(written, status)
}

/// How results are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Text,
    Json,
    /// Paths of invalid inputs, or of valid ones with `valid`.
    List {
        valid: bool,
    },
    Quiet,
}

fn run_check(args: &CheckArgs) -> u8 {
    let start = Instant::now();
    let kernel_forced = match choose_kernel(args.kernel.as_deref()) {
        Ok(forced) => forced,
        Err(message) => return usage_error(&message),
    };
    // The pool for --jobs, made when an input needs it (see `pool`); large
    // files are split across the same threads.
    pool::configure(args.jobs.map(|n| n as usize));

    let mode = if args.quiet {
        Mode::Quiet
    } else if args.json {
        Mode::Json
    } else if args.list || args.invert || args.null {
        Mode::List { valid: args.invert }
    } else {
        Mode::Text
    };
    let opts = ScanOptions {
        max_errors: match (args.max_errors, args.all) {
            (Some(n), _) => usize::try_from(n).unwrap_or(ALL_LIMIT),
            (None, true) => ALL_LIMIT,
            (None, false) => 1,
        },
        look_for_more: matches!(mode, Mode::Text | Mode::Json),
        count_chars: args.stats,
        parallel: pool::may_be_parallel(),
        positions: matches!(mode, Mode::Text | Mode::Json),
        dialect: args
            .encoding
            .and_then(Encoding::named)
            .unwrap_or(Dialect::Utf8),
        hints: matches!(mode, Mode::Text | Mode::Json),
    };

    // A report to a descriptor that was closed would be lost: std writes
    // it to the /dev/null that stands in for the descriptor.
    if mode != Mode::Quiet {
        if let Err(e) = descriptors::check_open(1) {
            return usage_error(&format!("standard output: {}", io_message(&e)));
        }
    }
    let inputs = walk::collect(&args.paths, args.follow);
    let reads_stdin = inputs.list.iter().any(|i| matches!(i, Input::Stdin));
    let show_progress = !args.no_progress
        && matches!(mode, Mode::Text | Mode::List { .. })
        && io::stderr().is_terminal();
    let progress = if show_progress {
        let streams = inputs
            .list
            .iter()
            .any(|i| matches!(i, Input::Stdin | Input::Stream { .. }));
        let total = inputs.list.iter().fold(0, |sum, i| match i {
            Input::File { size, .. } => sum + size,
            _ => sum,
        });
        Progress::new((!streams).then_some(total))
    } else {
        Progress::disabled()
    };
    if reads_stdin && io::stdin().is_terminal() && mode != Mode::Quiet {
        eprintln!("utf8guard: reading standard input (end it with Ctrl-D; --help for usage)");
    }

    let limit = match (args.max_errors, args.all) {
        (Some(n), _) => Limit::MaxErrors(n as usize),
        (None, true) => Limit::All,
        (None, false) => Limit::First,
    };
    let list_end = if args.null { b'\0' } else { b'\n' };
    let mut printer = Printer::new(mode, limit, list_end, args.encoding, &progress);
    let stop = AtomicBool::new(false);
    // Names shown on a terminal lose their control characters (see
    // `path_name::terminal_name`); elsewhere they are their bytes.
    let (stdout_tty, stderr_tty) = (io::stdout().is_terminal(), io::stderr().is_terminal());
    let shown = |mut outcome: Outcome| -> Outcome {
        let on_terminal = match outcome.status {
            Status::Failed(_) => mode != Mode::Json && stderr_tty,
            _ => matches!(mode, Mode::Text | Mode::List { .. }) && stdout_tty,
        };
        if on_terminal {
            outcome.name = path_name::terminal_name(&outcome.name);
        }
        outcome
    };
    let check_raw = |input: &Input| -> Outcome {
        if stop.load(Ordering::Relaxed) {
            // The report can no longer be written: skip the work. The
            // placeholder is never shown.
            return Outcome::stdin();
        }
        if args.encoding == Some(Encoding::Auto) {
            return auto::check(input, &opts, &progress);
        }
        match input {
            Input::Stdin => check::check_stdin(&opts, &progress),
            Input::File { path, .. } | Input::Stream { path } => {
                check::check_path(path, &opts, &progress)
            }
            Input::Failed { path, reason } => Outcome::failed(path, reason.clone()),
        }
    };
    let check_one = |input: &Input| shown(check_raw(input));
    if inputs.list.len() <= 1 || !pool::may_be_parallel() || pool::ready() == 1 {
        for input in &inputs.list {
            if !printer.emit(&check_one(input)) {
                break;
            }
        }
    } else {
        // Inputs are checked on the pool, roughly in order, and reported in
        // order as soon as each one's predecessors are.
        let (tx, rx) = mpsc::channel::<(usize, Outcome)>();
        std::thread::scope(|scope| {
            let check_one = &check_one;
            let list = &inputs.list;
            scope.spawn(move || {
                rayon::scope_fifo(|s| {
                    for (i, input) in list.iter().enumerate() {
                        let tx = tx.clone();
                        s.spawn_fifo(move |_| {
                            let _ = tx.send((i, check_one(input)));
                        });
                    }
                });
            });
            let mut waiting = BTreeMap::new();
            let mut next = 0;
            for (i, outcome) in rx {
                waiting.insert(i, outcome);
                while let Some(outcome) = waiting.remove(&next) {
                    next += 1;
                    if !stop.load(Ordering::Relaxed) && !printer.emit(&outcome) {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            }
        });
    }
    printer.finish();
    progress.finish();

    let tally = &printer.tally;
    if args.stats {
        print_stats(
            tally,
            &inputs,
            start,
            pool::threads(),
            kernel_forced.is_some(),
            opts.dialect,
        );
    }
    // A report that could not be written is trouble, but no input's
    // fault: the inputs' counts stay as they were.
    if tally.failed > 0 || printer.closed {
        TROUBLE
    } else if tally.invalid > 0 {
        INVALID
    } else {
        VALID
    }
}

/// Counts over all inputs.
#[derive(Debug, Default)]
struct Tally {
    valid: u64,
    invalid: u64,
    /// Inputs that could not be read, and failures to write the report.
    failed: u64,
    bytes: u64,
    counts: CharCounts,
}

/// Writes each input's report on stdout (or stderr for failures).
struct Printer<'a> {
    mode: Mode,
    /// What limits the errors reported, for the line that says more follow.
    limit: Limit,
    /// The byte after each path of a list: a newline, or NUL with --null.
    list_end: u8,
    /// `--encoding`, when given: named in JSON (with `auto`, the one
    /// chosen for each input).
    encoding: Option<Encoding>,
    out: io::BufWriter<io::StdoutLock<'static>>,
    /// Flush after each input, so that a person watching sees it at once.
    flush_each: bool,
    progress: &'a Progress,
    tally: Tally,
    /// Stdout was closed (a reader such as `head` has what it wanted).
    closed: bool,
}

impl<'a> Printer<'a> {
    fn new(
        mode: Mode,
        limit: Limit,
        list_end: u8,
        encoding: Option<Encoding>,
        progress: &'a Progress,
    ) -> Printer<'a> {
        let stdout = io::stdout();
        Printer {
            mode,
            limit,
            list_end,
            encoding,
            flush_each: stdout.is_terminal(),
            out: io::BufWriter::with_capacity(64 << 10, stdout.lock()),
            progress,
            tally: Tally::default(),
            closed: false,
        }
    }

    /// Records and shows one outcome; `false` when output is no longer
    /// possible and the work should stop.
    fn emit(&mut self, outcome: &Outcome) -> bool {
        self.tally.bytes += outcome.bytes;
        self.tally.counts.add(&outcome.counts);
        let list_name = || {
            let mut name = outcome.name.clone();
            name.push(self.list_end);
            name
        };
        let mut text = Vec::new();
        match (&outcome.status, self.mode) {
            (Status::Valid, mode) => {
                self.tally.valid += 1;
                match mode {
                    Mode::List { valid: true } => text = list_name(),
                    // A note, if the encoding has one to make.
                    Mode::Text => return self.write_text(outcome),
                    _ => {}
                }
            }
            (Status::Invalid { .. }, mode) => {
                self.tally.invalid += 1;
                match mode {
                    Mode::Text => return self.write_text(outcome),
                    Mode::List { valid: false } => text = list_name(),
                    _ => {}
                }
            }
            (Status::Failed(reason), mode) => {
                self.tally.failed += 1;
                if mode != Mode::Json {
                    // What is already reported goes out first, so that the
                    // two streams interleave in order on a terminal.
                    let flushed = self.out.flush();
                    if !self.check_write(flushed) {
                        return false;
                    }
                    // The name as its bytes, as in the report.
                    let mut line = b"utf8guard: ".to_vec();
                    line.extend_from_slice(&outcome.name);
                    line.extend_from_slice(format!(": {reason}\n").as_bytes());
                    self.progress
                        .suspend(|| drop(io::stderr().lock().write_all(&line)));
                }
            }
        }
        if self.mode == Mode::Json {
            return self.write_json(outcome);
        }
        if text.is_empty() {
            return true;
        }
        let written = self.progress.suspend(|| {
            self.out.write_all(&text)?;
            if self.flush_each {
                self.out.flush()?;
            }
            Ok(())
        });
        self.check_write(written)
    }

    /// Writes the text report of `outcome` a piece at a time, as it is
    /// made (see `Outcome::render_text_in_pieces`); `false` as `emit`.
    fn write_text(&mut self, outcome: &Outcome) -> bool {
        let mut result = Ok(());
        let (out, progress) = (&mut self.out, self.progress);
        outcome.render_text_in_pieces(self.limit, |piece| {
            result = progress.suspend(|| out.write_all(piece));
            result.is_ok()
        });
        if result.is_ok() && self.flush_each {
            result = self.progress.suspend(|| self.out.flush());
        }
        self.check_write(result)
    }

    /// Writes the JSON line of `outcome` a piece at a time, as it is made
    /// (see `Outcome::render_json_in_pieces`); `false` as `emit`.
    fn write_json(&mut self, outcome: &Outcome) -> bool {
        let encoding = match self.encoding {
            Some(Encoding::Auto) => Some(outcome.dialect),
            named => named.and_then(Encoding::named),
        };
        let mut result = Ok(());
        let (out, progress) = (&mut self.out, self.progress);
        outcome.render_json_in_pieces(encoding, |piece| {
            result = progress.suspend(|| out.write_all(piece));
            result.is_ok()
        });
        if result.is_ok() && self.flush_each {
            result = self.progress.suspend(|| self.out.flush());
        }
        self.check_write(result)
    }

    fn finish(&mut self) {
        if !self.closed {
            let flushed = self.out.flush();
            self.check_write(flushed);
        }
    }

    fn check_write(&mut self, result: io::Result<()>) -> bool {
        match result {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                // The reader is gone (as `head` goes once it has its
                // lines): stop at once, without a message, but not with a
                // status that claims the rest was checked.
                self.closed = true;
                false
            }
            Err(e) => {
                self.closed = true;
                eprintln!("utf8guard: cannot write the report: {}", io_message(&e));
                false
            }
        }
    }
}

fn print_stats(
    tally: &Tally,
    inputs: &walk::Inputs,
    start: Instant,
    jobs: usize,
    forced: bool,
    dialect: Dialect,
) {
    let elapsed = start.elapsed().as_secs_f64();
    let checked = tally.valid + tally.invalid + tally.failed;
    let mut skipped = String::new();
    if inputs.skipped_special > 0 || inputs.skipped_links > 0 {
        skipped = format!(
            "; skipped in directories: {}, {}",
            counted(inputs.skipped_special, "special file"),
            counted(inputs.skipped_links, "symbolic link")
        );
    }
    let c = &tally.counts;
    eprintln!(
        "utf8guard: inputs: {checked}: {} valid, {} invalid, {} unreadable{skipped}",
        tally.valid, tally.invalid, tally.failed
    );
    eprintln!(
        "utf8guard: bytes: {} ({})",
        tally.bytes,
        human_bytes(tally.bytes as f64)
    );
    // In the other encodings, sequences: a surrogate pair counts as two.
    let what = if dialect == Dialect::Utf8 {
        "characters"
    } else {
        "sequences"
    };
    let mut long = String::new();
    if family::has_long_forms(dialect) {
        long = format!(", {} of 5, {} of 6", c.long[0], c.long[1]);
    }
    if dialect == Dialect::Corrected {
        long.push_str(&format!(", {}", counted(c.long[2], "reserved run")));
    }
    eprintln!(
        "utf8guard: {what} in the well-formed parts: {}: {} of 1 byte, {} of 2, {} of 3, {} of 4{long}",
        c.total(),
        c.by_len[0],
        c.by_len[1],
        c.by_len[2],
        c.by_len[3]
    );
    let rate = if elapsed > 0.0 {
        tally.bytes as f64 / elapsed
    } else {
        0.0
    };
    let encoding = if dialect == Dialect::Utf8 {
        String::new()
    } else {
        format!(", encoding {dialect}")
    };
    eprintln!(
        "utf8guard: time: {elapsed:.3} s, {}/s, kernel {}{}, {jobs} job{}{encoding}",
        human_bytes(rate),
        utf8guard::active_kernel(),
        if forced { " (forced)" } else { "" },
        if jobs == 1 { "" } else { "s" }
    );
}

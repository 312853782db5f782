//! One implementation run over inputs a given number of times, and nothing
//! else: a process to count instructions in (`valgrind --tool=callgrind`),
//! where the difference between two counts of calls cancels the process's
//! start and the reading of the files.
//!
//! ```text
//! validate-repeat NAME COUNT FILE...     NAME as the benchmarks name it
//! validate-repeat --mixed NAME COUNT     on the mixed/<script> inputs
//! ```
//!
//! For instance, instructions per byte of utf8guard on the mixed inputs:
//! `(Ir(COUNT = 11) - Ir(COUNT = 1)) / (10 * bytes)`, `Ir` the total that
//! `valgrind --tool=callgrind` prints. It also says the throughput of the
//! calls: runs of two builds in turns compare them.

use std::process::ExitCode;

use utf8guard_bench::{for_each_validator, Validator, Verdict, Visit};

struct Run<'a> {
    name: &'a str,
    count: usize,
    inputs: &'a [Vec<u8>],
    valid: Option<usize>,
    seconds: f64,
}

impl Visit for Run<'_> {
    fn visit<V: Validator + Copy + 'static>(&mut self, v: &V) {
        if v.name() != self.name || self.valid.is_some() {
            return;
        }
        let mut valid = 0;
        let began = std::time::Instant::now();
        for _ in 0..self.count {
            for input in self.inputs {
                valid += usize::from(v.check(std::hint::black_box(input)) == Verdict::Valid);
            }
        }
        self.seconds = began.elapsed().as_secs_f64();
        self.valid = Some(valid);
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || {
        eprintln!("usage: validate-repeat NAME COUNT FILE... | --mixed NAME COUNT");
        ExitCode::from(2)
    };
    let (mixed, rest) = match args.first().map(String::as_str) {
        Some("--mixed") => (true, &args[1..]),
        _ => (false, &args[..]),
    };
    let (Some(name), Some(count)) = (rest.first(), rest.get(1)) else {
        return usage();
    };
    let Ok(count) = count.parse() else {
        return usage();
    };
    let inputs: Vec<Vec<u8>> = if mixed {
        utf8guard_bench::wikitext::mixed()
            .into_iter()
            .map(|n| n.bytes)
            .collect()
    } else {
        let mut files = Vec::new();
        for path in &rest[2..] {
            match std::fs::read(path) {
                Ok(bytes) => files.push(bytes),
                Err(e) => {
                    eprintln!("validate-repeat: {path}: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        files
    };
    let bytes: usize = inputs.iter().map(Vec::len).sum();
    let mut run = Run {
        name,
        count,
        inputs: &inputs,
        valid: None,
        seconds: 0.0,
    };
    for_each_validator(&mut run);
    match run.valid {
        Some(valid) => {
            println!(
                "{name}: {valid} valid of {} calls, {bytes} bytes per round, {:.3} GB/s",
                count * inputs.len(),
                (bytes * count) as f64 / run.seconds / 1e9
            );
            ExitCode::SUCCESS
        }
        None => {
            eprintln!("validate-repeat: no implementation named {name:?}");
            ExitCode::FAILURE
        }
    }
}

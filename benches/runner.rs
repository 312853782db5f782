//! The command line of a paired bench target ([`Runner`]): which
//! comparisons to run, for how long, and where to write their outcomes.
//! Apart from the engine (`paired.rs`), which the portable benchmark
//! shares.

use std::fs::File;
use std::io::Write as _;
use std::time::Duration;

use crate::paired::Comparison;

/// A turn of each contestant lasts about this long.
const SLICE: Duration = Duration::from_millis(1);

/// Runs the comparisons a paired bench target makes, as its command line
/// asks: `[--out FILE] [FILTER...]` (and `--bench`, which `cargo bench`
/// passes). Only the comparisons whose `group/label` contains one of the
/// filters run; each outcome is printed as a summary and, with `--out`,
/// written to FILE as one JSON line. `UTF8GUARD_BENCH_MODE=quick` gives
/// each comparison an eighth of the time.
#[derive(Debug)]
pub struct Runner {
    filters: Vec<String>,
    out: Option<File>,
    scale: f64,
}

impl Runner {
    /// The runner the process's arguments ask for; `target` names the
    /// bench target in messages. `--help` prints the usage and exits; an
    /// unknown option, or an output file that cannot be created, is said on
    /// stderr with the usage and exits with status 2.
    pub fn from_args(target: &str) -> Runner {
        let usage = format!(
            "usage: {target} [--out FILE] [FILTER...]\n  \
             runs the comparisons whose group/label contains a FILTER (all without one),\n  \
             but not those that contain what follows a FILTER starting with '!';\n  \
             --out FILE also writes each outcome to FILE as a JSON line;\n  \
             UTF8GUARD_BENCH_MODE=quick gives each comparison an eighth of the time"
        );
        let fail = |why: String| -> ! {
            eprintln!("{target}: {why}\n{usage}");
            std::process::exit(2)
        };
        let mut filters = Vec::new();
        let mut out = None;
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                // What cargo bench passes to every bench target.
                "--bench" => {}
                "--help" | "-h" => {
                    println!("{usage}");
                    std::process::exit(0);
                }
                "--out" => {
                    let path = args
                        .next()
                        .unwrap_or_else(|| fail("--out needs a file".into()));
                    out =
                        Some(File::create(&path).unwrap_or_else(|e| fail(format!("{path}: {e}"))));
                }
                flag if flag.starts_with("--") => fail(format!("unknown option {flag}")),
                filter => filters.push(filter.to_string()),
            }
        }
        let scale = match crate::Mode::from_env() {
            crate::Mode::Quick => 1.0 / 8.0,
            crate::Mode::Full => 1.0,
        };
        Runner {
            filters,
            out,
            scale,
        }
    }

    /// `true` when the comparison `id` (`group/label`) is to run.
    /// A filter that starts with `!` excludes the comparisons whose id
    /// contains the rest; the others include theirs (all, when there are
    /// none).
    pub fn wanted(&self, id: &str) -> bool {
        let (excluded, included): (Vec<&String>, Vec<&String>) =
            self.filters.iter().partition(|f| f.starts_with('!'));
        (included.is_empty() || included.iter().any(|f| id.contains(f.as_str())))
            && !excluded.iter().any(|f| id.contains(&f[1..]))
    }

    /// Whether some comparison whose id starts with `group` may be wanted:
    /// a cheap test before making a group's inputs (an included filter that
    /// starts with the group, or is part of its name, or none at all).
    pub fn might_want(&self, group: &str) -> bool {
        let included: Vec<&String> = self
            .filters
            .iter()
            .filter(|f| !f.starts_with('!'))
            .collect();
        included.is_empty()
            || included
                .iter()
                .any(|f| f.starts_with(group) || group.contains(f.as_str()))
    }

    /// Runs `cmp` for `seconds` (scaled by the mode), prints a summary and
    /// writes the outcome.
    pub fn run(&mut self, mut cmp: Comparison<'_>, seconds: f64) {
        let budget = Duration::from_secs_f64(seconds * self.scale);
        let outcome = cmp.run(budget, SLICE, 10);
        outcome.print_summary();
        if let Some(out) = &mut self.out {
            writeln!(out, "{}", outcome.to_json()).expect("writing the results");
        }
    }
}

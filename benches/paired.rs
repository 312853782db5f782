//! Paired timing: implementations that are compared take turns, round after
//! round, on the same input.
//!
//! Criterion times one benchmark after another, each in its own window of a
//! few seconds. On a shared machine whose speed changes over seconds (a
//! neighbour starting work on the same host), two implementations timed in
//! different windows can differ more because of the moment than because of
//! the code. Here every round runs each contestant once, for a short slice
//! of time (about a millisecond), in an order that rotates from round to
//! round. A change of speed then falls on all contestants alike, and the
//! ratio of two contestants' times *in the same round* stays meaningful.
//! Each turn starts with one untimed call, so that what is timed is the
//! contestant at work rather than the switch to it: caches and branch
//! history refilled after the other contestants, and for the parallel API
//! the pool's threads waking on a CPU that sat idle during the sequential
//! contestant's turn (measured: the first `par::validate` call of a turn
//! over 256 MiB took about 3 ms longer than the next). The
//! report takes, for each pair it compares, the median of these per-round
//! ratios, and gives each contestant's median time.
//!
//! ```
//! use std::time::Duration;
//! use utf8guard_bench::paired::Comparison;
//!
//! let input = vec![b'a'; 4096];
//! let mut cmp = Comparison::new("demo", "4KiB", input.len() as u64);
//! cmp.add("std", || u64::from(std::str::from_utf8(&input).is_ok()));
//! cmp.add("utf8guard", || u64::from(utf8guard::validate(&input)));
//! let outcome = cmp.run(Duration::from_millis(20), Duration::from_micros(200), 5);
//! assert_eq!(outcome.names, ["std", "utf8guard"]);
//! assert!(outcome.rounds >= 5);
//! assert!(outcome.ns.iter().all(|times| times.len() == outcome.rounds));
//! ```

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Rounds at most, however fast the contestants are.
const MAX_ROUNDS: usize = 5000;

type Run<'a> = Box<dyn FnMut() -> u64 + 'a>;

/// Contestants to be timed in turn on one input.
pub struct Comparison<'a> {
    group: String,
    label: String,
    bytes: u64,
    contestants: Vec<(String, Run<'a>)>,
    /// Bytes one call of each contestant processes, where it differs from
    /// `bytes` (the same text in two encodings).
    contestant_bytes: Vec<u64>,
}

impl std::fmt::Debug for Comparison<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Comparison")
            .field("group", &self.group)
            .field("label", &self.label)
            .field("bytes", &self.bytes)
            .field(
                "contestants",
                &self.contestants.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// What [`Comparison::run`] measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The comparison's group (as the criterion group of the same inputs).
    pub group: String,
    /// Its input's label within the group.
    pub label: String,
    /// Bytes one call of a contestant processes (for throughput).
    pub bytes: u64,
    /// The contestants, in the order they were added.
    pub names: Vec<String>,
    /// Bytes one call of each contestant processes: `bytes`, unless the
    /// contestants work on the same text in different encodings.
    pub contestant_bytes: Vec<u64>,
    /// Calls per turn, for each contestant (set so a turn lasts about the
    /// slice asked for).
    pub iters: Vec<u64>,
    /// Rounds run.
    pub rounds: usize,
    /// Nanoseconds per call: `ns[c][r]` for contestant `c` in round `r`.
    pub ns: Vec<Vec<f64>>,
}

impl<'a> Comparison<'a> {
    /// A comparison with no contestants yet; `bytes` is what one call of a
    /// contestant processes.
    pub fn new(group: &str, label: &str, bytes: u64) -> Self {
        Comparison {
            group: group.to_string(),
            label: label.to_string(),
            bytes,
            contestants: Vec::new(),
            contestant_bytes: Vec::new(),
        }
    }

    /// `group/label`, as filters match it.
    pub fn id(&self) -> String {
        format!("{}/{}", self.group, self.label)
    }

    /// Adds a contestant: `run` does the work once and returns something
    /// that depends on its result (it is passed to `black_box`).
    pub fn add(&mut self, name: impl Into<String>, run: impl FnMut() -> u64 + 'a) {
        self.contestants.push((name.into(), Box::new(run)));
        self.contestant_bytes.push(self.bytes);
    }

    /// Adds a contestant that processes `bytes` per call rather than the
    /// comparison's (the same text in another encoding, for instance), so
    /// that throughputs, not times, are compared.
    pub fn add_sized(
        &mut self,
        name: impl Into<String>,
        bytes: u64,
        run: impl FnMut() -> u64 + 'a,
    ) {
        self.contestants.push((name.into(), Box::new(run)));
        self.contestant_bytes.push(bytes);
    }

    /// Times the contestants in turn: at least `min_rounds` rounds, and more
    /// until `budget` has passed. In a round each contestant runs for about
    /// `slice`, and round `r` starts with contestant `r mod n`.
    pub fn run(&mut self, budget: Duration, slice: Duration, min_rounds: usize) -> Outcome {
        let n = self.contestants.len();
        let iters: Vec<u64> = self
            .contestants
            .iter_mut()
            .map(|(_, run)| calls_per_slice(run, slice))
            .collect();
        let mut ns = vec![Vec::new(); n];
        let start = Instant::now();
        let mut rounds = 0;
        while rounds < min_rounds || (start.elapsed() < budget && rounds < MAX_ROUNDS) {
            for k in 0..n {
                let c = (rounds + k) % n;
                let run = &mut self.contestants[c].1;
                // The untimed first call of the turn: see the module's doc.
                black_box(run());
                let began = Instant::now();
                for _ in 0..iters[c] {
                    black_box(run());
                }
                ns[c].push(began.elapsed().as_nanos() as f64 / iters[c] as f64);
            }
            rounds += 1;
        }
        Outcome {
            group: self.group.clone(),
            label: self.label.clone(),
            bytes: self.bytes,
            names: self.contestants.iter().map(|(n, _)| n.clone()).collect(),
            contestant_bytes: self.contestant_bytes.clone(),
            iters,
            rounds,
            ns,
        }
    }
}

/// How many calls of `run` last about `slice` (at least one), found after a
/// warm-up call by timing doubling batches.
fn calls_per_slice(run: &mut Run<'_>, slice: Duration) -> u64 {
    black_box(run());
    let mut calls = 1u64;
    loop {
        let began = Instant::now();
        for _ in 0..calls {
            black_box(run());
        }
        let took = began.elapsed();
        if took >= slice / 4 || calls >= 1 << 30 {
            let per_call = took.as_secs_f64() / calls as f64;
            return ((slice.as_secs_f64() / per_call).round() as u64).max(1);
        }
        calls *= 2;
    }
}

impl Outcome {
    /// The median time per call of each contestant, in nanoseconds.
    pub fn medians(&self) -> Vec<f64> {
        self.ns.iter().map(|times| median(times)).collect()
    }

    /// The median over rounds of `time(b) / time(a)`: how many times faster
    /// contestant `a` is than `b`, paired round by round.
    pub fn paired_ratio(&self, a: usize, b: usize) -> f64 {
        let ratios: Vec<f64> = self.ns[b]
            .iter()
            .zip(&self.ns[a])
            .map(|(tb, ta)| tb / ta)
            .collect();
        median(&ratios)
    }

    /// The median over rounds of contestant `a`'s throughput over `b`'s
    /// (bytes per nanosecond), paired round by round: the same as
    /// [`paired_ratio`](Self::paired_ratio) when both process the same
    /// bytes.
    pub fn throughput_ratio(&self, a: usize, b: usize) -> f64 {
        let (bytes_a, bytes_b) = (
            self.contestant_bytes[a] as f64,
            self.contestant_bytes[b] as f64,
        );
        let ratios: Vec<f64> = self.ns[b]
            .iter()
            .zip(&self.ns[a])
            .map(|(tb, ta)| (bytes_a / ta) / (bytes_b / tb))
            .collect();
        median(&ratios)
    }

    /// One JSON object (one line) with everything measured.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "{{\"group\":{},\"label\":{},\"bytes\":{},\"rounds\":{},\"contestants\":[",
            json_string(&self.group),
            json_string(&self.label),
            self.bytes,
            self.rounds
        );
        for (c, name) in self.names.iter().enumerate() {
            if c > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                "{{\"name\":{},\"iters\":{},\"bytes\":{},\"ns\":[",
                json_string(name),
                self.iters[c],
                self.contestant_bytes[c]
            );
            for (r, t) in self.ns[c].iter().enumerate() {
                if r > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{t:.3}");
            }
            out.push_str("]}");
        }
        out.push_str("]}");
        out
    }
}

impl Outcome {
    /// Prints each contestant's median time and throughput, and its paired
    /// throughput ratio against the first contestant.
    pub fn print_summary(&self) {
        let medians = self.medians();
        println!("{}/{} ({} rounds)", self.group, self.label, self.rounds);
        for (c, name) in self.names.iter().enumerate() {
            println!(
                "  {name:24} {:>12.1} ns  {:>8.3} GB/s  x{:.3} vs {}",
                medians[c],
                self.contestant_bytes[c] as f64 / medians[c],
                self.throughput_ratio(c, 0),
                self.names[0]
            );
        }
    }
}

/// The median of `values` (the mean of the middle two for an even count);
/// NaN for none.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contestant_runs_once_per_round_in_rotating_order() {
        let log = std::cell::RefCell::new(Vec::new());
        let mut cmp = Comparison::new("g", "l", 1);
        for name in 0..3u64 {
            let log = &log;
            cmp.add(name.to_string(), move || {
                log.borrow_mut().push(name);
                name
            });
        }
        let outcome = cmp.run(Duration::ZERO, Duration::ZERO, 4);
        drop(cmp);
        assert_eq!(outcome.rounds, 4);
        assert_eq!(outcome.iters, [1, 1, 1]);
        // Calibration: a warm-up call and one timed call each, in order;
        // then the rounds, each starting one contestant later, each turn an
        // untimed call and the timed one.
        let log = log.into_inner();
        assert_eq!(log[..6], [0, 0, 1, 1, 2, 2]);
        let turns: Vec<u64> = log[6..]
            .chunks(2)
            .map(|t| {
                assert_eq!(t[0], t[1]);
                t[0]
            })
            .collect();
        assert_eq!(turns, [0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2]);
        assert!(outcome.ns.iter().all(|t| t.len() == 4));
    }

    #[test]
    fn paired_ratio_is_the_median_of_per_round_ratios() {
        let outcome = Outcome {
            group: "g".into(),
            label: "l".into(),
            bytes: 1,
            names: vec!["a".into(), "b".into()],
            contestant_bytes: vec![1, 1],
            iters: vec![1, 1],
            rounds: 3,
            // Both slow down tenfold in the second round; a is twice as
            // fast as b in every round.
            ns: vec![vec![10.0, 100.0, 11.0], vec![20.0, 200.0, 22.0]],
        };
        assert_eq!(outcome.paired_ratio(0, 1), 2.0);
        assert_eq!(outcome.paired_ratio(1, 0), 0.5);
        assert_eq!(outcome.throughput_ratio(0, 1), 2.0);
        assert_eq!(outcome.medians(), [11.0, 22.0]);
    }

    #[test]
    fn throughput_ratio_weighs_each_contestants_bytes() {
        // b processes 1.5 times the bytes of a in 1.5 times a's time: the
        // same throughput, though a is faster per call.
        let outcome = Outcome {
            group: "g".into(),
            label: "l".into(),
            bytes: 4,
            names: vec!["a".into(), "b".into()],
            contestant_bytes: vec![4, 6],
            iters: vec![1, 1],
            rounds: 2,
            ns: vec![vec![10.0, 20.0], vec![15.0, 30.0]],
        };
        assert_eq!(outcome.paired_ratio(0, 1), 1.5);
        assert_eq!(outcome.throughput_ratio(0, 1), 1.0);
    }

    #[test]
    fn json_holds_every_time_and_escapes_names() {
        let outcome = Outcome {
            group: "lipsum".into(),
            label: "A\"b".into(),
            bytes: 7,
            names: vec!["x".into()],
            contestant_bytes: vec![7],
            iters: vec![3],
            rounds: 2,
            ns: vec![vec![1.5, 2.25]],
        };
        assert_eq!(
            outcome.to_json(),
            r#"{"group":"lipsum","label":"A\"b","bytes":7,"rounds":2,"contestants":[{"name":"x","iters":3,"bytes":7,"ns":[1.500,2.250]}]}"#
        );
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }
}

//! `difftest`: runs every utf8guard kernel and API, in every dialect of
//! the UTF-8 family, against the reference automata and std until the time
//! is spent; also writes the generated corpora and the fuzz seeds.
//! `difftest --help` for the commands.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use utf8guard::{Dialect, Kernel};
use utf8guard_difftest::corpus::{self, CorpusFile};
use utf8guard_difftest::{
    dialect_oracle, exhaustive, hex, seeds, Category, Harness, Mismatch, Runner, Script,
};

const USAGE: &str = "\
difftest: differential testing of every utf8guard kernel and API, in every
dialect of the UTF-8 family, against the reference automata (and, for
strict UTF-8, core::str::from_utf8).

USAGE:
  difftest [run] [--seconds N] [--seed S] [--corpus DIR]... [--kernel NAME]
                 [--dialect NAME]... [--only CATEGORY]... [--no-default-corpora]
                 [--exhaustive-from N]
      Check inputs of every category in every dialect until N seconds
      (default 10) are spent, print inputs and bytes checked per category,
      per dialect and per subject, exit 0. On a mismatch: print a shrunk
      reproducer (hex), the subject and dialect, the expected and the actual
      answer, and exit 1.
      --seed S            seed of every generated input (default: from the clock;
                          the seed is printed, so any run can be repeated)
      --corpus DIR        also read every file under DIR (repeatable)
      --no-default-corpora  skip <project>/corpora and ../shared/corpora
      --kernel NAME       test only this kernel (scalar, sse42, avx2, neon); the
                          dispatched API is forced to it too (UTF8GUARD_KERNEL)
      --dialect NAME      test only these dialects (repeatable; default all):
                          utf-8, unicode-3.1, wtf-8, cesu-8, mutf-8, rfc2279,
                          corrected-utf-8 (and their aliases, e.g. cesu8, java)
      --only CATEGORY     run only these categories (repeatable): corpus,
                          synthetic, mutation, exhaustive, random
      --exhaustive-from N start the exhaustive space at position N

  difftest check [--dialect NAME]... [--hex HEX | --fuzz-input FILE | FILE...]
      Check the given inputs (a file's whole contents, hex bytes, or a fuzz
      input whose first byte picks the dialect) with every subject of each
      dialect (default all); print the truth per dialect, and each answer
      that disagrees; exit 1 if any does.

  difftest generate --size SIZE [--script NAME|all] [--seed S] --out PATH
      Write SIZE bytes (e.g. 100MiB) of synthetic text. With --script all
      (the default) PATH is a directory that gets one <script>.txt per script.
      Scripts: ascii latin cyrillic greek arabic hebrew devanagari thai cjk
      hangul emoji mixed.

  difftest corpora [--out DIR]
      Write the project's generated corpora (default <project>/corpora).

  difftest seeds [--out DIR]
      Write the fuzz target's seed corpus (default
      <project>/fuzz/corpus/differential).
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        Some("check") => check(&args[1..]),
        Some("generate") => generate(&args[1..]),
        Some("corpora") => corpora(&args[1..]),
        Some("seeds") => fuzz_seeds(&args[1..]),
        Some("run") => run(&args[1..]),
        _ => run(&args),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("difftest: {message}\n(difftest --help for usage)");
            ExitCode::from(2)
        }
    }
}

/// Command-line arguments as `--flag value` pairs and plain values.
struct Args<'a> {
    rest: std::slice::Iter<'a, String>,
}

impl<'a> Args<'a> {
    fn new(args: &'a [String]) -> Self {
        Args { rest: args.iter() }
    }

    fn next(&mut self) -> Option<&'a str> {
        self.rest.next().map(String::as_str)
    }

    fn value(&mut self, flag: &str) -> Result<&'a str, String> {
        self.next().ok_or_else(|| format!("{flag} needs a value"))
    }
}

fn parse_u64(flag: &str, s: &str) -> Result<u64, String> {
    let parsed = match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|_| format!("{flag}: not a number: {s}"))
}

/// `123`, `64KiB`, `100MiB`, `1GiB` (also `k`, `M`, `G` for the same).
fn parse_size(s: &str) -> Result<usize, String> {
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let n: usize = digits.parse().map_err(|_| format!("not a size: {s}"))?;
    let shift = match unit {
        "" | "B" => 0,
        "k" | "K" | "KiB" => 10,
        "M" | "MiB" => 20,
        "G" | "GiB" => 30,
        _ => return Err(format!("unknown size unit in {s}: use KiB, MiB or GiB")),
    };
    n.checked_shl(shift)
        .filter(|v| v >> shift == n)
        .ok_or_else(|| format!("size too large: {s}"))
}

fn parse_dialect(name: &str) -> Result<Dialect, String> {
    Dialect::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        format!("unknown dialect {name}; dialects: {}", names.join(", "))
    })
}

/// The dialects of repeated `--dialect` options (`all` for every one), in
/// the order of `Dialect::ALL`; every dialect when there were none.
fn chosen_dialects(chosen: &[Dialect]) -> Vec<Dialect> {
    Dialect::ALL
        .iter()
        .copied()
        .filter(|d| chosen.is_empty() || chosen.contains(d))
        .collect()
}

/// One `--dialect` value: a dialect, or `all` (every one).
fn push_dialect(chosen: &mut Vec<Dialect>, name: &str) -> Result<(), String> {
    if name == "all" {
        chosen.extend_from_slice(Dialect::ALL);
    } else {
        chosen.push(parse_dialect(name)?);
    }
    Ok(())
}

fn parse_kernel(name: &str) -> Result<Kernel, String> {
    Kernel::by_name(name).map_err(|e| format!("--kernel {name}: {e}"))
}

/// Decimal units, for byte counts.
fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

struct RunOptions {
    seconds: f64,
    seed: u64,
    corpus_dirs: Vec<PathBuf>,
    default_corpora: bool,
    kernel: Option<Kernel>,
    dialects: Vec<Dialect>,
    only: Vec<Category>,
    exhaustive_from: u64,
}

fn parse_run(args: &[String]) -> Result<RunOptions, String> {
    let mut o = RunOptions {
        seconds: 10.0,
        seed: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs() ^ u64::from(d.subsec_nanos()))
            .unwrap_or(1),
        corpus_dirs: Vec::new(),
        default_corpora: true,
        kernel: None,
        dialects: Vec::new(),
        only: Vec::new(),
        exhaustive_from: 0,
    };
    let mut a = Args::new(args);
    while let Some(flag) = a.next() {
        match flag {
            "--seconds" => {
                let v = a.value(flag)?;
                o.seconds = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                    .ok_or_else(|| format!("--seconds: not a duration: {v}"))?;
            }
            "--seed" => o.seed = parse_u64(flag, a.value(flag)?)?,
            "--corpus" => o.corpus_dirs.push(PathBuf::from(a.value(flag)?)),
            "--no-default-corpora" => o.default_corpora = false,
            "--kernel" => o.kernel = Some(parse_kernel(a.value(flag)?)?),
            "--dialect" => push_dialect(&mut o.dialects, a.value(flag)?)?,
            "--only" => {
                let v = a.value(flag)?;
                let c = Category::from_name(v)
                    .filter(|&c| c != Category::External)
                    .ok_or_else(|| format!("--only: unknown category {v}"))?;
                o.only.push(c);
            }
            "--exhaustive-from" => o.exhaustive_from = parse_u64(flag, a.value(flag)?)?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    o.dialects = chosen_dialects(&o.dialects);
    Ok(o)
}

/// Load the corpora: the project's, the shared ones (if present) and the
/// directories given.
fn load_corpora(o: &RunOptions) -> Result<Vec<CorpusFile>, String> {
    let mut files = Vec::new();
    if o.default_corpora {
        for (dir, what) in [
            (corpus::project_corpora(), "project corpora"),
            (corpus::shared_corpora(), "shared corpora"),
        ] {
            if dir.is_dir() {
                let loaded = corpus::load_dir(&dir)
                    .map_err(|e| format!("reading {}: {e}", dir.display()))?;
                println!("{what}: {} files from {}", loaded.len(), dir.display());
                files.extend(loaded);
            } else {
                println!("{what}: {} is absent, skipped", dir.display());
            }
        }
    }
    for dir in &o.corpus_dirs {
        let loaded =
            corpus::load_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
        println!("corpus: {} files from {}", loaded.len(), dir.display());
        files.extend(loaded);
    }
    Ok(files)
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    let o = parse_run(args)?;
    if let Some(kernel) = o.kernel {
        // Before any call into utf8guard, so the dispatcher picks it up.
        std::env::set_var(utf8guard::KERNEL_ENV, kernel.name());
        // The engine ignores an override it cannot honour; this one was
        // checked, but the run must not go on with another kernel.
        if utf8guard::active_kernel() != kernel {
            return Err(format!(
                "asked for the {kernel} kernel, got {}",
                utf8guard::active_kernel()
            ));
        }
    }
    let corpus = load_corpora(&o)?;
    let corpus_bytes: u64 = corpus.iter().map(|f| f.bytes.len() as u64).sum();
    let harness = Harness::for_dialects(o.seed, o.kernel, &o.dialects);
    let subjects: Vec<String> = harness.subject_names().map(String::from).collect();
    let dialects: Vec<&str> = o.dialects.iter().map(|d| d.name()).collect();
    println!(
        "seed {} ({:#x}), {} s, active kernel {}, dialects {}, {} subjects: {}",
        o.seed,
        o.seed,
        o.seconds,
        utf8guard::active_kernel(),
        dialects.join(", "),
        subjects.len(),
        subjects.join(", ")
    );
    println!("corpus: {} files, {}", corpus.len(), human(corpus_bytes));

    let mut categories: Vec<Category> = if o.only.is_empty() {
        Category::ALL
            .iter()
            .copied()
            .filter(|&c| c != Category::External)
            .collect()
    } else {
        o.only.clone()
    };
    if corpus.is_empty() {
        categories.retain(|&c| c != Category::Corpus);
    }
    let mut runner = Runner::new(harness, o.seed, corpus);
    runner.set_exhaustive_position(o.exhaustive_from);
    let mut spent = vec![Duration::ZERO; Category::ALL.len()];
    let budget = Duration::from_secs_f64(o.seconds);
    let start = Instant::now();
    let mut last_report = start;
    let mut mismatch: Option<Box<Mismatch>> = None;
    while start.elapsed() < budget && !categories.is_empty() {
        // The category that has had the least time so far.
        let category = *categories
            .iter()
            .min_by_key(|c| spent[**c as usize])
            .unwrap_or(&Category::Random);
        let t = Instant::now();
        let result = runner.step(category);
        spent[category as usize] += t.elapsed();
        if let Err(m) = result {
            mismatch = Some(m);
            break;
        }
        if last_report.elapsed() >= Duration::from_secs(10) {
            last_report = Instant::now();
            let total: u64 = Category::ALL
                .iter()
                .map(|&c| runner.harness.category_count(c).bytes)
                .sum();
            eprintln!(
                "  {:.0} s: {} checked per subject",
                start.elapsed().as_secs_f64(),
                human(total)
            );
        }
    }
    let elapsed = start.elapsed();

    println!();
    println!(
        "{:<12} {:>12} {:>16} {:>10} {:>8}",
        "category", "inputs", "bytes", "", "time"
    );
    for &c in Category::ALL {
        let n = runner.harness.category_count(c);
        if n.inputs > 0 || categories.contains(&c) {
            println!(
                "{:<12} {:>12} {:>16} {:>10} {:>7.1}s",
                c.name(),
                n.inputs,
                n.bytes,
                human(n.bytes),
                spent[c as usize].as_secs_f64()
            );
        }
    }
    println!();
    println!(
        "{:<16} {:>12} {:>16} {:>10}",
        "dialect", "inputs", "bytes", ""
    );
    for &d in runner.harness.dialects() {
        let mut n = utf8guard_difftest::Count::default();
        for &c in Category::ALL {
            let lane = runner.harness.lane_count(d, c);
            n.inputs += lane.inputs;
            n.bytes += lane.bytes;
        }
        println!(
            "{:<16} {:>12} {:>16} {:>10}",
            d.name(),
            n.inputs,
            n.bytes,
            human(n.bytes)
        );
    }
    println!();
    // As wide as the longest subject's name (a dialect's name in it makes
    // some longer than the 46 columns that fit the others).
    let width = runner
        .harness
        .subject_counts()
        .map(|(name, _)| name.len())
        .max()
        .unwrap_or(0)
        .max(46);
    println!(
        "{:<width$} {:>12} {:>16} {:>10}",
        "subject", "inputs", "bytes", ""
    );
    for (name, n) in runner.harness.subject_counts() {
        println!(
            "{:<width$} {:>12} {:>16} {:>10}",
            name,
            n.inputs,
            n.bytes,
            human(n.bytes)
        );
    }
    let position = runner.exhaustive_position();
    if position > o.exhaustive_from {
        println!();
        println!(
            "exhaustive: positions {}..{} of the {}-sequence space ({:.1}% of a pass; \
             continue with --exhaustive-from {})",
            o.exhaustive_from,
            position,
            exhaustive::TOTAL,
            (position - o.exhaustive_from) as f64 * 100.0 / exhaustive::TOTAL as f64,
            position
        );
    }
    println!();
    match mismatch {
        None => {
            println!(
                "0 mismatches in {:.1} s (seed {})",
                elapsed.as_secs_f64(),
                o.seed
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(m) => {
            let checked: u64 = Category::ALL
                .iter()
                .map(|&c| runner.harness.category_count(c).inputs)
                .sum();
            println!(
                "found after {:.3} s and {} inputs checked (then {:.1} s of shrinking; seed {})",
                (elapsed - m.shrink_time).as_secs_f64(),
                checked + 1,
                m.shrink_time.as_secs_f64(),
                o.seed
            );
            report_mismatch(&m, o.seed);
            Ok(ExitCode::FAILURE)
        }
    }
}

fn report_mismatch(m: &Mismatch, seed: u64) {
    println!("{m}");
    let path = std::env::temp_dir().join(format!("difftest-mismatch-{seed}.bin"));
    match std::fs::write(&path, &m.input) {
        Ok(()) => println!("  original input saved to {}", path.display()),
        Err(e) => println!("  (could not save the original input: {e})"),
    }
    println!(
        "  replay: difftest check --dialect {} --hex '{}'   (seed {seed})",
        m.dialect,
        hex(&m.shrunk)
    );
}

/// An input of `check`: its name, bytes, and the dialect it is for (fuzz
/// inputs name theirs; the others go to every dialect chosen).
type CheckInput = (String, Vec<u8>, Option<Dialect>);

fn check(args: &[String]) -> Result<ExitCode, String> {
    let mut inputs: Vec<CheckInput> = Vec::new();
    let mut chosen = Vec::new();
    let mut a = Args::new(args);
    while let Some(arg) = a.next() {
        match arg {
            "--hex" => {
                let bytes = parse_hex(a.value(arg)?)?;
                inputs.push((format!("hex input of {} bytes", bytes.len()), bytes, None));
            }
            "--dialect" => push_dialect(&mut chosen, a.value(arg)?)?,
            "--fuzz-input" => {
                let path = a.value(arg)?;
                let data = std::fs::read(path).map_err(|e| format!("reading {path}: {e}"))?;
                let (dialect, bytes) = seeds::fuzz_input(&data);
                let name = format!("{path} ({} bytes)", bytes.len());
                inputs.push((name, bytes.to_vec(), Some(dialect)));
            }
            file => {
                let bytes = std::fs::read(file).map_err(|e| format!("reading {file}: {e}"))?;
                inputs.push((file.to_string(), bytes, None));
            }
        }
    }
    if inputs.is_empty() {
        return Err("check: give --hex HEX, --fuzz-input FILE or files".into());
    }
    let dialects = chosen_dialects(&chosen);
    let mut harness = Harness::new(0, None);
    let mut failed = false;
    for (name, bytes, only) in &inputs {
        println!("{name}:");
        for &dialect in &dialects {
            if only.is_some_and(|d| d != dialect) {
                continue;
            }
            match harness.check_in(Category::External, dialect, bytes) {
                Ok(()) => println!(
                    "  {dialect}: every subject agrees ({})",
                    truth(dialect, bytes)
                ),
                Err(m) => {
                    failed = true;
                    report_mismatch(&m, 0);
                }
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn truth(dialect: Dialect, bytes: &[u8]) -> String {
    match dialect_oracle(dialect, bytes) {
        Ok(truth) => truth.to_string(),
        Err((dfa, std)) => format!("the DFA says {dfa}, std says {std}"),
    }
}

fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = s
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b',')
        .collect();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits in {s:?}"));
    }
    digits
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|p| u8::from_str_radix(p, 16).ok())
                .ok_or_else(|| format!("not hex: {s:?}"))
        })
        .collect()
}

fn generate(args: &[String]) -> Result<ExitCode, String> {
    let mut size = None;
    let mut script: Option<Script> = None;
    let mut seed = 1u64;
    let mut out = None;
    let mut a = Args::new(args);
    while let Some(flag) = a.next() {
        match flag {
            "--size" => size = Some(parse_size(a.value(flag)?)?),
            "--script" => {
                let v = a.value(flag)?;
                script = if v == "all" {
                    None
                } else {
                    Some(Script::from_name(v).ok_or_else(|| format!("unknown script {v}"))?)
                };
            }
            "--seed" => seed = parse_u64(flag, a.value(flag)?)?,
            "--out" => out = Some(PathBuf::from(a.value(flag)?)),
            other => return Err(format!("generate: unknown argument {other}")),
        }
    }
    let size = size.ok_or("generate: --size is required")?;
    let out = out.ok_or("generate: --out is required")?;
    let write = |path: &Path, script: Script| -> Result<(), String> {
        let t = Instant::now();
        let text = script.generate(seed, size);
        std::fs::write(path, &text).map_err(|e| format!("writing {}: {e}", path.display()))?;
        println!(
            "{}: {} bytes of {} text (seed {seed}) in {:.2} s",
            path.display(),
            text.len(),
            script.name(),
            t.elapsed().as_secs_f64()
        );
        Ok(())
    };
    match script {
        Some(script) => write(&out, script)?,
        None => {
            std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            for &script in Script::ALL {
                write(&out.join(format!("{}.txt", script.name())), script)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn out_dir(args: &[String], default: PathBuf) -> Result<PathBuf, String> {
    let mut a = Args::new(args);
    let mut out = default;
    while let Some(flag) = a.next() {
        match flag {
            "--out" => out = PathBuf::from(a.value(flag)?),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(out)
}

fn corpora(args: &[String]) -> Result<ExitCode, String> {
    let dir = out_dir(args, corpus::project_corpora())?;
    let written =
        seeds::write_project_corpora(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    println!("{} files written under {}", written.len(), dir.display());
    Ok(ExitCode::SUCCESS)
}

fn fuzz_seeds(args: &[String]) -> Result<ExitCode, String> {
    let dir = out_dir(
        args,
        corpus::project_root().join("fuzz/corpus/differential"),
    )?;
    let written = seeds::write_fuzz_seeds(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    println!("{} seeds written to {}", written.len(), dir.display());
    Ok(ExitCode::SUCCESS)
}

//! Running an implementation over a dialect's inputs and comparing what it
//! says with the oracle, or with the documented model of where it deviates.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use utf8guard_dfa::Automaton;

use crate::inputs;

/// A validator's answer: `Ok`, or the first error as `(valid_up_to,
/// error_len)` with `None` for an input that ends inside a sequence.
pub type Outcome = Result<(), (usize, Option<usize>)>;

/// The oracle's answer.
pub fn oracle(dialect: &Automaton, bytes: &[u8]) -> Outcome {
    dialect
        .validate(bytes)
        .map_err(|e| (e.valid_up_to, e.error_len))
}

/// What an implementation tells about an input it rejects. Each peer
/// script writes one line per input in the format named here (see the
/// scripts' own comments); the expected line is made from an [`Outcome`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reports {
    /// `ok` or `err`: accept or reject only.
    Verdict,
    /// `err V`: where the error starts.
    Offset,
    /// `err V end` when the input ends inside a sequence, else `err V`.
    OffsetOrEnd,
    /// `err V L`, or `err V end` when the input ends inside a sequence.
    OffsetAndLength,
    /// `err V L`, where an input that ends inside a sequence is an error
    /// of the bytes left (Java's decoders).
    OffsetAndLengthToEnd,
    /// `err lossy HEX`: the UTF-8 of the text decoded with one U+FFFD per
    /// error (the Encoding Standard's decoder): every error of the input,
    /// not only the first.
    Lossy,
}

impl Reports {
    /// The line an implementation reporting this way writes for `bytes`
    /// when it answers as `model` does.
    pub fn line(self, bytes: &[u8], model: &dyn Fn(&[u8]) -> Outcome) -> String {
        let Err((v, len)) = model(bytes) else {
            return "ok".into();
        };
        match (self, len) {
            (Reports::Verdict, _) => "err".into(),
            (Reports::Offset, _) | (Reports::OffsetOrEnd, Some(_)) => format!("err {v}"),
            (Reports::OffsetOrEnd | Reports::OffsetAndLength, None) => format!("err {v} end"),
            (Reports::OffsetAndLength | Reports::OffsetAndLengthToEnd, Some(l)) => {
                format!("err {v} {l}")
            }
            (Reports::OffsetAndLengthToEnd, None) => format!("err {v} {}", bytes.len() - v),
            (Reports::Lossy, _) => {
                let mut text = String::from("err lossy ");
                for b in lossy(bytes, model) {
                    write!(text, "{b:02x}").unwrap();
                }
                text
            }
        }
    }
}

/// `bytes` decoded as `model` splits it: each well-formed run kept, each
/// error (its maximal subpart, or the rest of the input) one U+FFFD. The
/// runs are strict UTF-8 for the only model this is used with.
fn lossy(mut bytes: &[u8], model: &dyn Fn(&[u8]) -> Outcome) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        match model(bytes) {
            Ok(()) => {
                out.extend_from_slice(bytes);
                return out;
            }
            Err((v, len)) => {
                out.extend_from_slice(&bytes[..v]);
                out.extend_from_slice("\u{FFFD}".as_bytes());
                bytes = &bytes[len.map_or(bytes.len(), |l| v + l)..];
            }
        }
    }
}

/// Where an implementation's language or error report differs from the
/// dialect's grammar, as a model of its answers: the oracle's answer with a
/// narrow patch. On every input the implementation must answer as the
/// model does; where the patch changes nothing, that is the oracle's
/// answer.
#[derive(Clone, Copy)]
pub struct Deviation {
    /// The difference in a few words (as docs/DIALECTS.md says it).
    pub what: &'static str,
    /// The implementation's answers.
    pub model: fn(&[u8]) -> Outcome,
}

/// One implementation of one dialect.
pub struct Peer {
    /// The implementation, as the report and docs/DIALECTS.md name it.
    pub name: &'static str,
    /// The peer script's mode (unused for Rust crates).
    pub mode: &'static str,
    /// The dialect it implements.
    pub dialect: &'static Automaton,
    /// What it says about an error.
    pub reports: Reports,
    /// Where it differs from the dialect, if anywhere.
    pub deviation: Option<Deviation>,
}

impl Peer {
    /// An implementation that must agree with the oracle on every input.
    pub const fn exact(
        name: &'static str,
        mode: &'static str,
        dialect: &'static Automaton,
        reports: Reports,
    ) -> Peer {
        Peer {
            name,
            mode,
            dialect,
            reports,
            deviation: None,
        }
    }

    /// The same, with a documented deviation.
    pub const fn deviating(self, what: &'static str, model: fn(&[u8]) -> Outcome) -> Peer {
        Peer {
            deviation: Some(Deviation { what, model }),
            ..self
        }
    }
}

/// How many inputs a peer saw, and on how many the documented deviation
/// applied (its model and the oracle gave different lines).
pub struct Tally {
    /// Inputs compared.
    pub inputs: usize,
    /// Inputs where the deviation's model and the oracle differ.
    pub deviating: usize,
    /// The shortest of those, with the oracle's line and the model's.
    pub example: Option<(Vec<u8>, String, String)>,
}

/// Compare a peer's lines with the expected ones. On a mismatch, the first
/// few are described.
pub fn compare(peer: &Peer, inputs: &[Vec<u8>], lines: &[String]) -> Result<Tally, String> {
    if lines.len() != inputs.len() {
        return Err(format!(
            "{}: {} answers for {} inputs",
            peer.name,
            lines.len(),
            inputs.len()
        ));
    }
    let oracle_model = |b: &[u8]| oracle(peer.dialect, b);
    let mut tally = Tally {
        inputs: inputs.len(),
        deviating: 0,
        example: None,
    };
    let mut mismatches = Vec::new();
    let mut mismatch_count = 0usize;
    for (input, said) in inputs.iter().zip(lines) {
        let ours = peer.reports.line(input, &oracle_model);
        let expected = match peer.deviation {
            Some(d) => {
                let theirs = peer.reports.line(input, &d.model);
                if theirs != ours {
                    tally.deviating += 1;
                    if tally
                        .example
                        .as_ref()
                        .is_none_or(|e| e.0.len() > input.len())
                    {
                        tally.example = Some((input.clone(), ours.clone(), theirs.clone()));
                    }
                }
                theirs
            }
            None => ours.clone(),
        };
        if *said != expected {
            mismatch_count += 1;
            if mismatches.len() < 12 {
                mismatches.push(format!(
                    "  input {}: said `{said}`, expected `{expected}` (the oracle: `{ours}`)",
                    hex(input)
                ));
            }
        }
    }
    if mismatch_count > 0 {
        return Err(format!(
            "{} ({}) disagrees on {mismatch_count} of {} inputs beyond its documented deviation:\n{}",
            peer.name,
            peer.dialect.grammar().name,
            inputs.len(),
            mismatches.join("\n")
        ));
    }
    if let Some(d) = peer.deviation {
        if tally.deviating == 0 {
            return Err(format!(
                "{}: the documented deviation ({}) never applied to the inputs",
                peer.name, d.what
            ));
        }
    }
    Ok(tally)
}

/// The bytes in hex, space-separated.
pub fn hex(bytes: &[u8]) -> String {
    let parts: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
    format!("[{}]", parts.join(" "))
}

/// Write a line to the test's standard error, past the test harness's
/// output capture, so that skips and summaries show in every run.
pub fn notice(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// In CI every peer must run: a missing tool fails the test there, and
/// skips the peer (with a notice) elsewhere.
fn missing(what: &str, why: &str) {
    let message = format!("independent: {what} skipped: {why}");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{message} (CI=true requires it; scripts/test.sh installs it)");
    }
    notice(&message);
}

fn report(peer: &Peer, tally: &Tally) {
    let mut line = format!(
        "independent: {} vs {}: {} inputs agree",
        peer.name,
        peer.dialect.grammar().name,
        tally.inputs - tally.deviating
    );
    if let (Some(d), Some((input, ours, theirs))) = (peer.deviation, &tally.example) {
        write!(
            line,
            "; {} differ as documented ({}; e.g. {}: `{theirs}`, the oracle `{ours}`)",
            tally.deviating,
            d.what,
            hex(input)
        )
        .unwrap();
    }
    notice(&line);
}

/// The directory of the peer scripts.
fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/independent/peers")
}

/// An external program that runs peer scripts: `command` with `prefix`
/// arguments, then `MODE INPUT OUTPUT` per peer.
pub struct Program {
    /// The command (`python3`, `java`, ...).
    pub command: &'static str,
    /// The arguments that tell whether it is installed (`--version`).
    pub probe: &'static [&'static str],
    /// The script, relative to the peers' directory.
    pub script: &'static str,
}

/// Run `program` once over every peer's inputs and compare each peer's
/// answers. Every failure is reported together at the end.
pub fn run(program: &Program, peers: &[Peer]) {
    let installed = Command::new(program.command)
        .args(program.probe)
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        for peer in peers {
            missing(
                peer.name,
                &format!("`{}` is not installed", program.command),
            );
        }
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("independent");
    std::fs::create_dir_all(&dir).unwrap();
    let mut sets: Vec<(&str, Vec<Vec<u8>>)> = Vec::new();
    let mut args = vec![scripts().join(program.script).display().to_string()];
    for peer in peers {
        let name = peer.dialect.grammar().name;
        let input_file = dir.join(format!("{}-{name}.hex", program.command));
        if !sets.iter().any(|(n, _)| *n == name) {
            let set = inputs::for_dialect(peer.dialect);
            let mut text = String::with_capacity(set.len() * 8);
            for input in &set {
                for b in input {
                    write!(text, "{b:02x}").unwrap();
                }
                text.push('\n');
            }
            std::fs::write(&input_file, text).unwrap();
            sets.push((name, set));
        }
        args.push(peer.mode.into());
        args.push(input_file.display().to_string());
        args.push(output_file(&dir, program, peer).display().to_string());
    }
    let start = Instant::now();
    let out = Command::new(program.command)
        .args(&args)
        .output()
        .unwrap_or_else(|e| panic!("{} {args:?}: {e}", program.command));
    assert!(
        out.status.success(),
        "{} {args:?} failed ({}):\n{}",
        program.command,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    notice(&format!(
        "independent: {} ran {} peers in {:.1} s",
        program.command,
        peers.len(),
        start.elapsed().as_secs_f64()
    ));
    let mut failures = Vec::new();
    for peer in peers {
        let name = peer.dialect.grammar().name;
        let set = &sets.iter().find(|(n, _)| *n == name).unwrap().1;
        let text = std::fs::read_to_string(output_file(&dir, program, peer)).unwrap();
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        if let Some(why) = lines.first().and_then(|l| l.strip_prefix("unavailable: ")) {
            missing(peer.name, why);
            continue;
        }
        match compare(peer, set, &lines) {
            Ok(tally) => report(peer, &tally),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn output_file(dir: &Path, program: &Program, peer: &Peer) -> PathBuf {
    let mode: String = peer
        .mode
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    dir.join(format!("{}-{mode}.out", program.command))
}

/// A Rust implementation in this process: whether it accepts the input.
pub type Accepts = fn(&[u8]) -> bool;

/// Compare peers that are Rust functions in this process.
pub fn run_in_process(peers: &[(Peer, Accepts)]) {
    let mut failures = Vec::new();
    for (peer, accepts) in peers {
        let set = inputs::for_dialect(peer.dialect);
        let lines: Vec<String> = set
            .iter()
            .map(|b| if accepts(b) { "ok" } else { "err" }.to_owned())
            .collect();
        match compare(peer, &set, &lines) {
            Ok(tally) => report(peer, &tally),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

//! `utf8guard lint`: Corrected UTF-8 documents against the rules of its
//! specification ([`utf8guard::corrected::lint`]).

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use utf8guard::corrected::{self, Finding};

use crate::json;

pub const ABOUT: &str = "\
Check Corrected UTF-8 documents against the rules its specification sets
beyond well-formedness, and report each place that breaks one, with its
line, column, byte offset, the rule's level (MUST or SHOULD) and name:
  MUST    ill-formed          not well-formed Corrected UTF-8 (each
                              ill-formed sequence; the rules go on after it)
  MUST    nul                 U+0000 outside the magic number at offset 0
  SHOULD  magic-number        the file does not start with the magic
                              number EF B7 9D ED B2 AE 00 0A
  SHOULD  carriage-return     U+000D
  SHOULD  line-separator      U+2028
  SHOULD  paragraph-separator U+2029
  SHOULD  control             another C0 control: U+0001..U+0009 (tab
                              included), U+000B, U+000C, U+000E..U+001F
  SHOULD  final-newline       the last character is not U+000A (a file with
                              no text, empty or the magic number alone, has
                              none to check)
For example:
  $ utf8guard lint notes.txt
  notes.txt:1:1: SHOULD (magic-number) at byte 0: the file does not start
  with the magic number EF B7 9D ED B2 AE 00 0A
  notes.txt:1:6: SHOULD (carriage-return) at byte 5: U+000D CARRIAGE
  RETURN, which should not appear
(one line each).";

pub const AFTER: &str = "\
Positions: byte offsets count from 0 in the whole file, magic number
included; lines and columns from 1. A line ends at each 0A byte, the magic
number's own included (the text after it starts on line 2); a column counts
characters, an ill-formed sequence or a reserved FE/FF run as one. The
final-newline finding is placed at the end of the file.

Inputs: files, or `-` (or none) for standard input, named `-`. Each is read
whole into memory.

JSON (--json): one object per input and per line, e.g.
  {\"path\":\"notes.txt\",\"status\":\"findings\",\"bytes\":7,\"findings\":[
    {\"offset\":0,\"length\":0,\"line\":1,\"column\":1,\"level\":\"SHOULD\",
     \"rule\":\"magic-number\",\"description\":\"the file does not ...\"}],
   \"error\":null}
  status   \"clean\", \"findings\", or \"error\" (could not be read: `error`
           says why)
  length   bytes the finding covers (0 for the magic-number and
           final-newline findings, which are about something missing)

Exit status:
  0  every input follows every rule
  1  some input breaks a rule, and every input could be read
  2  a usage error, or some input could not be read (the others are
     still checked)";

/// Options of `lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// The documents to check; `-`, or none, reads standard input
    #[arg(value_name = "FILE")]
    pub paths: Vec<PathBuf>,

    /// Print one JSON object per input and per line (schema: see --help)
    #[arg(long)]
    pub json: bool,
}

/// Runs `lint`; returns the exit status.
pub fn run(args: &LintArgs) -> u8 {
    let stdin = [PathBuf::from("-")];
    let paths = if args.paths.is_empty() {
        &stdin[..]
    } else {
        &args.paths
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let (mut found, mut failed) = (false, false);
    for path in paths {
        match report(path, args.json, &mut out) {
            Ok(Verdict::Clean) => {}
            Ok(Verdict::Findings) => found = true,
            Ok(Verdict::Unreadable) => failed = true,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return 2,
            Err(e) => {
                eprintln!(
                    "utf8guard: cannot write the report: {}",
                    crate::io_message(&e)
                );
                return 2;
            }
        }
    }
    if failed {
        2
    } else {
        u8::from(found)
    }
}

/// What one input turned out to be.
enum Verdict {
    Clean,
    Findings,
    Unreadable,
}

/// Lints the input at `path` and writes its report (the findings one by
/// one, as they are found, in text); fails only when `out` does.
fn report(path: &Path, as_json: bool, out: &mut impl Write) -> io::Result<Verdict> {
    let name = path.display().to_string();
    let mut text = String::new();
    let verdict = match read(path) {
        Ok(bytes) if as_json => {
            let findings: Vec<Finding> = corrected::lint(&bytes).collect();
            render_json(&name, Ok((bytes.len(), &findings)), &mut text);
            out.write_all(text.as_bytes())?;
            if findings.is_empty() {
                Verdict::Clean
            } else {
                Verdict::Findings
            }
        }
        Ok(bytes) => {
            let mut verdict = Verdict::Clean;
            for f in corrected::lint(&bytes) {
                verdict = Verdict::Findings;
                text.clear();
                render_text(&name, &f, &mut text);
                out.write_all(text.as_bytes())?;
            }
            verdict
        }
        Err(reason) if as_json => {
            render_json(&name, Err(&reason), &mut text);
            out.write_all(text.as_bytes())?;
            Verdict::Unreadable
        }
        Err(reason) => {
            // What is reported already goes out first, so that the two
            // streams interleave in order on a terminal.
            out.flush()?;
            eprintln!("utf8guard: {name}: {reason}");
            Verdict::Unreadable
        }
    };
    out.flush()?;
    Ok(verdict)
}

/// The whole input, or why it cannot be read.
fn read(path: &Path) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let result = if path.as_os_str() == "-" {
        if io::stdin().is_terminal() {
            eprintln!("utf8guard: reading standard input (end it with Ctrl-D; --help for usage)");
        }
        crate::pipe::widen(io::stdin());
        io::stdin().lock().read_to_end(&mut bytes)
    } else {
        let mut file = File::open(path).map_err(|e| crate::io_message(&e))?;
        if file.metadata().is_ok_and(|m| m.is_dir()) {
            return Err("is a directory".into());
        }
        crate::pipe::widen(&file);
        file.read_to_end(&mut bytes)
    };
    result.map_err(|e| format!("read error: {}", crate::io_message(&e)))?;
    Ok(bytes)
}

fn render_text(name: &str, f: &Finding, out: &mut String) {
    let _ = writeln!(
        out,
        "{name}:{}:{}: {} ({}) at byte {}: {}",
        f.line,
        f.column,
        f.level(),
        f.rule.name(),
        f.offset,
        f.rule
    );
}

fn render_json(name: &str, result: Result<(usize, &[Finding]), &String>, out: &mut String) {
    out.push('{');
    json::push_key(out, "path", true);
    json::push_str(out, name);
    json::push_key(out, "status", false);
    match result {
        Ok((len, findings)) => {
            json::push_str(
                out,
                if findings.is_empty() {
                    "clean"
                } else {
                    "findings"
                },
            );
            json::push_key(out, "bytes", false);
            let _ = write!(out, "{len}");
            json::push_key(out, "findings", false);
            out.push('[');
            for (i, f) in findings.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(
                    out,
                    "{{\"offset\":{},\"length\":{},\"line\":{},\"column\":{}",
                    f.offset, f.len, f.line, f.column
                );
                json::push_key(out, "level", false);
                json::push_str(out, f.level().name());
                json::push_key(out, "rule", false);
                json::push_str(out, f.rule.name());
                json::push_key(out, "description", false);
                json::push_str(out, &f.rule.to_string());
                out.push('}');
            }
            out.push(']');
            json::push_key(out, "error", false);
            out.push_str("null");
        }
        Err(reason) => {
            json::push_str(out, "error");
            json::push_key(out, "bytes", false);
            out.push('0');
            json::push_key(out, "findings", false);
            out.push_str("[]");
            json::push_key(out, "error", false);
            json::push_str(out, reason);
        }
    }
    out.push_str("}\n");
}

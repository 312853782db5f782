//! The arguments of `lint`: its options and help texts.

use std::path::PathBuf;

use clap::Args;

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
in pieces, in constant memory, and its findings are printed as they are
found, in JSON too.

JSON (--json): one object per input and per line, its findings first, e.g.
  {\"path\":\"notes.txt\",\"path_exact\":true,\"findings\":[
    {\"offset\":0,\"length\":0,\"line\":1,\"column\":1,\"level\":\"SHOULD\",
     \"rule\":\"magic-number\",\"description\":\"the file does not ...\"}],
   \"status\":\"findings\",\"bytes\":7,\"error\":null}
  path_exact  false when the name is not UTF-8: `path` then shows it with
           U+FFFD, and `path_bytes` gives its bytes in hex
  status   \"clean\", \"findings\", or \"error\" (could not be read: `error`
           says why; `findings` and `bytes` are what was read before)
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

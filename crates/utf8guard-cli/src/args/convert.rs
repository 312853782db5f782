//! The arguments of `convert`: its options, the encodings it reads and
//! writes, and its help texts.

use std::path::PathBuf;

use clap::Args;
use utf8guard::Dialect;

pub const ABOUT: &str = "\
Convert a file or standard input from one member of the UTF-8 family to
another (CESU-8, Java's modified UTF-8, WTF-8, Corrected UTF-8, ... and
UTF-16), streamed in constant memory.

The input is never modified: an OUT that is the input itself, under any name
(a hard or symbolic link, or standard input redirected from it, included),
is refused before anything is written; so is a read-only OUT, unless
--force is given.
A file OUT is written under a temporary name in its directory and renamed
to OUT only once the whole input is converted, so OUT is never a half
file: after an error (an input that cannot be converted, a read or write
error) the temporary file is removed and an existing OUT is left as it was.
(A run killed by a signal may leave the temporary file,
.OUT.utf8guard-PID.tmp, beside OUT.) An OUT that exists and is not a
regular file (a device such as /dev/null, a FIFO) is written directly.
Standard output is written as the conversion goes: after an error it holds
the conversion of what came before.";

pub const AFTER: &str = "\
Encodings (--from, --to): every name `check --encoding` takes (see its
--help), and utf-16le, utf-16be (also utf16le, utf16be), when the other side
is utf-8 or wtf-8. From UTF-16, a lone surrogate becomes itself in WTF-8
and an error (or U+FFFD with --replace) in UTF-8; an input of an odd number
of bytes ends inside a code unit, an error (or U+FFFD). A byte order mark
is converted like any other character (U+FEFF).

Conversions: each character is decoded and written in the target form
(CESU-8's and modified UTF-8's surrogate pairs become 4-byte forms and back,
modified UTF-8's C0 80 becomes 00 and back, Corrected UTF-8's offsets are
applied); text that needs no change is copied. What the target cannot hold
is an error, or U+FFFD with --replace: a surrogate in UTF-8, CESU-8 or
Corrected UTF-8, a code point above the target's highest, a C1 control
(U+0080..U+009F) or U+0000 in Corrected UTF-8, a reserved FE/FF run in
anything but Corrected UTF-8. Corrected UTF-8's magic number at the start
of the input is not text: it is dropped, and written with --magic-number.

Errors: without --replace, the first ill-formed sequence of the input, or
character the target cannot hold, stops the conversion:
  utf8guard: IN: invalid CESU-8 at byte 18: multi-byte sequence cut short
  utf8guard: IN: cannot convert to UTF-8 at byte 4: surrogate code point,
             which this encoding cannot hold
(one line each). Byte offsets count from 0 in the input.

Exit status:
  0  the input was converted (with --replace, U+FFFD in place of what
     could not be, and a line on stderr says how many and where the
     first was:
       utf8guard: IN: 2 sequences replaced with U+FFFD, the first at byte 7)
  1  the input cannot be converted (no --replace): the error is on stderr,
     and no OUT file is written
  2  a usage error, an input that cannot be read, an output that cannot be
     written, or OUT is the input";

/// Options of `convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The encoding of the input (names: see --help)
    #[arg(short, long, value_name = "NAME", value_parser = parse_format)]
    pub from: Format,

    /// The encoding to write
    #[arg(short, long, value_name = "NAME", value_parser = parse_format)]
    pub to: Format,

    /// Write U+FFFD (in the target encoding) for each ill-formed sequence
    /// and each character the target cannot hold, instead of stopping
    #[arg(short, long)]
    pub replace: bool,

    /// Start the output with Corrected UTF-8's magic number (--to
    /// corrected-utf-8 only)
    #[arg(short = 'M', long)]
    pub magic_number: bool,

    /// The file to convert; `-`, or none, reads standard input
    #[arg(value_name = "IN")]
    pub input: Option<PathBuf>,

    /// Where to write [default: standard output]
    ///
    /// `-` is standard output. An existing file is replaced (once the
    /// conversion is complete), unless it is the input or read-only.
    #[arg(short, long, value_name = "OUT", verbatim_doc_comment)]
    pub output: Option<PathBuf>,

    /// Replace OUT even if it is read-only (as `cp --force` does)
    #[arg(long)]
    pub force: bool,
}

/// An encoding `convert` reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A member of the UTF-8 family.
    Family(Dialect),
    /// UTF-16 in either byte order.
    Utf16 { big_endian: bool },
}

/// Parses `--from` and `--to`: a name of the UTF-8 family, or of UTF-16 in
/// either byte order.
pub fn parse_format(name: &str) -> Result<Format, String> {
    match name.to_ascii_lowercase().as_str() {
        "utf-16le" | "utf16le" => Ok(Format::Utf16 { big_endian: false }),
        "utf-16be" | "utf16be" => Ok(Format::Utf16 { big_endian: true }),
        _ => Dialect::from_name(name).map(Format::Family).ok_or_else(|| {
            let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
            format!(
                "unknown encoding; known: {}, utf-16le, utf-16be",
                names.join(", ")
            )
        }),
    }
}

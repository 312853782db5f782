//! The arguments of `convert`: its options, the encodings it reads and
//! writes, and its help texts.

use std::path::PathBuf;

use clap::Args;
use utf8guard::{Dialect, Encoding};

pub const ABOUT: &str = concat!(
    "\
Convert a file or standard input between the members of the UTF-8 family
(CESU-8, Java's modified UTF-8, WTF-8, Corrected UTF-8, ...), UTF-16,
UTF-32, Latin-1 and Windows-1252, any pair, streamed in constant memory.
Standard output is written as the conversion goes: after an error it holds
the conversion of what came before.

",
    writing_out!()
);

pub const AFTER: &str = "\
Encodings (--from, --to), in any case:
  utf-8, cesu-8, wtf-8, ...   every name `check --encoding` takes (see its
                              --help)
  utf-16le, utf-16be          UTF-16 in that byte order (also utf16le, ...)
  utf-16                      read: the byte order of the input's byte order
                              mark (FF FE or FE FF), which is dropped;
                              little-endian without one (as CPython's utf-16
                              codec; iconv takes big-endian). Written: the
                              mark FF FE, then little-endian
  utf-32le, utf-32be, utf-32  the same for UTF-32 (mark FF FE 00 00 or
                              00 00 FE FF)
  latin-1                     ISO-8859-1 (also iso-8859-1, latin1)
  windows-1252                as WHATWG has it, which maps the five bytes
                              Microsoft leaves undefined (81 8D 8F 90 9D) to
                              U+0081.. (also cp1252)
Every pair converts (through UTF-8 inside, or WTF-8 when the target holds
lone surrogates). A byte order mark is otherwise a character like any other
(U+FEFF, kept by utf-16le: a UTF-8 input that starts with one gets two
with --to utf-16, as with CPython and iconv); --bom starts the output with
one, in the target's form.

From UTF-16, a lone surrogate becomes itself in UTF-16 and in the members
of the UTF-8 family that write one (WTF-8, Java's modified UTF-8, Unicode
3.1's UTF-8 and RFC 2279), and an error (or U+FFFD with --replace)
elsewhere. In UTF-32 a surrogate or a value above 10FFFF is ill-formed. An
input of an odd number of bytes (UTF-16), or of a length not a multiple of
4 (UTF-32), ends inside a code unit: an error (or U+FFFD); a lead surrogate
just before UTF-16's odd byte is one error with it, one U+FFFD (as CPython
and WHATWG decode), where the target holds no lone surrogates. Latin-1
holds U+0000..U+00FF; Windows-1252 the same but for U+0080..U+009F, where
its bytes 80..9F hold 27 other characters (and the five C1 controls
above); any other character is an error, or `?` with --replace (as
CPython's encoders write with errors='replace').

Conversions: each character is decoded and written in the target form
(CESU-8's and modified UTF-8's surrogate pairs become 4-byte forms and back,
modified UTF-8's C0 80 becomes 00 and back, Corrected UTF-8's offsets are
applied); text that needs no change is copied. What the target cannot hold
is an error, or U+FFFD (`?` in Latin-1 and Windows-1252) with --replace: a
surrogate in UTF-8, CESU-8, Corrected UTF-8, UTF-32 or a single-byte
encoding, a code point above the target's highest, a C1 control
(U+0080..U+009F) or U+0000 in Corrected UTF-8, a reserved FE/FF run in
anything but Corrected UTF-8. Corrected UTF-8's magic number at the start
of the input is not text: it is dropped, and written with --magic-number.

Errors: without --replace, the first ill-formed sequence of the input, or
character the target cannot hold, stops the conversion:
  utf8guard: IN: invalid CESU-8 at byte 18: multi-byte sequence cut short
  utf8guard: IN: cannot convert to UTF-8 at byte 4: surrogate code point,
             which this encoding cannot hold
  utf8guard: IN: cannot convert to Latin-1 at byte 4: character this
             encoding cannot hold
  utf8guard: IN: invalid UTF-16LE at byte 9: input ends inside a 2-byte
             code unit
(one line each). Byte offsets count from 0 in the input (a byte order mark
included).

Exit status:
  0  the input was converted (with --replace, U+FFFD, or `?`, in place of
     what could not be, and a line on stderr says how many and where the
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
    pub from: Encoding,

    /// The encoding to write
    #[arg(short, long, value_name = "NAME", value_parser = parse_format)]
    pub to: Encoding,

    /// Write U+FFFD (in the target encoding; `?` in Latin-1 and
    /// Windows-1252) for each ill-formed sequence and each character the
    /// target cannot hold, instead of stopping
    #[arg(short, long)]
    pub replace: bool,

    /// Start the output with Corrected UTF-8's magic number (--to
    /// corrected-utf-8 only)
    #[arg(short = 'M', long)]
    pub magic_number: bool,

    /// Start the output with a byte order mark, U+FEFF in the target's
    /// form (UTF-16 and UTF-32 in either byte order, and the UTF-8 family
    /// but Corrected UTF-8; `--to utf-16` and `--to utf-32` write one
    /// anyway)
    #[arg(short = 'B', long)]
    pub bom: bool,

    /// The file to convert; `-`, or none, reads standard input
    #[arg(value_name = "IN")]
    pub input: Option<PathBuf>,

    /// Where to write [default: standard output]
    ///
    /// `-` is standard output. An existing file is replaced (once the
    /// conversion is complete), unless it is the input, read-only, or
    /// this user may not replace it (see above).
    #[arg(short, long, value_name = "OUT", verbatim_doc_comment)]
    pub output: Option<PathBuf>,

    /// Replace OUT even if it is read-only, when this user owns it (as
    /// `cp --force` does)
    #[arg(long)]
    pub force: bool,
}

/// Parses `--from` and `--to`: a name of the UTF-8 family, of UTF-16 or
/// UTF-32, or of a single-byte encoding.
pub fn parse_format(name: &str) -> Result<Encoding, String> {
    Encoding::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        format!(
            "unknown encoding; known: {}, utf-16, utf-16le, utf-16be, utf-32, utf-32le, \
             utf-32be, latin-1, windows-1252",
            names.join(", ")
        )
    })
}

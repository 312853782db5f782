//! The arguments of `repair`: its options, the replacement policies and
//! help texts.

use std::path::PathBuf;

use clap::Args;
use utf8guard::Dialect;

use crate::args::encoding::parse_encoding;

pub const ABOUT: &str = concat!(
    "\
Write a copy of the input with every invalid sequence replaced: by default
with U+FFFD, one per maximal subpart, exactly as Rust's
String::from_utf8_lossy and the WHATWG Encoding Standard do; --replacement
chooses another policy. Valid input is copied unchanged. Large files are
memory-mapped and standard input is read in chunks; either way the output
is made in constant memory.

",
    writing_out!()
);

pub const AFTER: &str = "\
Exit status:
  0  the input was valid UTF-8: the output is a copy of it
  1  the input had invalid sequences, now replaced
  2  a usage error, an input that cannot be read (or that was truncated
     while it was read), an output that cannot be written, or OUT is the
     input

Output closed early: when the reader of standard output goes away (as
`head` does once it has what it wanted), utf8guard stops at once, silently,
with status 2, since the rest was not repaired.";

/// Options of `repair`.
#[derive(Debug, Args)]
pub struct RepairArgs {
    /// The file to repair; `-`, or none, reads standard input
    #[arg(value_name = "IN")]
    pub input: Option<PathBuf>,

    /// Where to write the repaired text [default: standard output]
    ///
    /// `-` is standard output. An existing file is replaced (once the
    /// repair is complete), unless it is the input, read-only, or this
    /// user may not replace it (see above).
    #[arg(short, long, value_name = "OUT", verbatim_doc_comment)]
    pub output: Option<PathBuf>,

    /// Replace OUT even if it is read-only, when this user owns it (as
    /// `cp --force` does)
    #[arg(long)]
    pub force: bool,

    /// What replaces each invalid sequence [default: maximal-subpart]
    ///
    /// Names in any case, with _ for -:
    /// maximal-subpart (replace, std, whatwg)
    ///                                one U+FFFD per maximal subpart
    /// jvm (java)                     as the JDK's new String(bytes, UTF_8):
    ///                                one U+FFFD for a surrogate's 3 bytes
    /// per-byte (go)                  one U+FFFD per byte
    /// windows-1252 (cp1252)          each byte read as Windows-1252
    ///                                (WHATWG's index): for files mixing
    ///                                UTF-8 and Windows-1252 lines
    /// latin-1 (latin1, iso-8859-1)   each byte read as Latin-1
    /// backslash (backslashreplace)   \xNN for each byte (CPython's
    ///                                backslashreplace)
    /// drop (ignore)                  removed
    /// escape (surrogateescape)       each byte b as the lone surrogate
    ///                                U+DC00+b, written as WTF-8 (PEP 383):
    ///                                nothing is lost, but the output is
    ///                                WTF-8, not UTF-8
    #[arg(
        short,
        long,
        value_name = "NAME",
        value_parser = parse_replacement,
        default_value = "maximal-subpart",
        hide_default_value = true,
        verbatim_doc_comment
    )]
    pub replacement: RepairPolicy,

    /// Print on stderr, at the end, how many invalid sequences were
    /// replaced and where the first was, the bytes read and the time
    #[arg(long)]
    pub stats: bool,

    /// Only utf-8: repair reads and writes strict UTF-8
    ///
    /// `check --encoding NAME` checks the other members of the UTF-8
    /// family; repair names them only to refuse them (status 2).
    #[arg(short, long, value_name = "NAME", value_parser = parse_encoding, verbatim_doc_comment)]
    pub encoding: Option<Dialect>,
}

/// What `repair` writes for each invalid sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepairPolicy {
    /// A policy whose output is UTF-8.
    Text(utf8guard::Replacement),
    /// The surrogate escape, whose output is WTF-8.
    Escape,
}

/// Parses `--replacement`: a policy's name or alias, or `escape`
/// (`surrogateescape`), in any case, as encoding names are.
pub fn parse_replacement(name: &str) -> Result<RepairPolicy, String> {
    if ["escape", "surrogateescape"]
        .iter()
        .any(|known| known.eq_ignore_ascii_case(name))
    {
        return Ok(RepairPolicy::Escape);
    }
    name.parse()
        .map(RepairPolicy::Text)
        .map_err(|e: utf8guard::UnknownReplacement| format!("{e}, escape"))
}

//! The arguments of `check` (also those of the command without a
//! subcommand): its options and help texts.

use std::path::PathBuf;

use clap::Args;

use crate::args::encoding::{self, Encoding};

// The help texts are wrapped by hand: clap prints them as they are.
pub const ABOUT: &str = "\
Check that files, directories and streams are valid UTF-8 (RFC 3629: no
overlong forms, no surrogates, nothing above U+10FFFF, no truncated or stray
bytes), and say exactly where and why they are not.

Without a subcommand, utf8guard runs `check`. Valid inputs print nothing. For
each invalid input it prints, per error: the path, line and column, byte
offset and kind of error; the cause in words; a hint when the bytes look like
a common mix-up (Latin-1 or Windows-1252 text, another script's 8-bit code
page, CESU-8, modified UTF-8's C0 80, overlong forms, RFC 2279's 5- and
6-byte forms), or, once, which other encodings of the UTF-8 family accept
the whole input (see --encoding), or what the input is when its first
bytes tell (UTF-16 or UTF-32 text by its byte order mark or zero bytes,
binary data by a magic number such as gzip's, zstd's, xz's, zip's, PDF's,
PNG's or ELF's, or by zero bytes and control characters); and
the 16 bytes around the error in hex, after the byte offset (in decimal) of
the first one, with a marker under the invalid bytes. --encoding checks
another member of the UTF-8 family instead (CESU-8, Java's modified UTF-8,
WTF-8, ...). From corpora/demo/invalid in the sources:

  $ utf8guard customers-latin1.csv
  customers-latin1.csv:2:6: invalid UTF-8 at byte 18: multi-byte sequence cut short
    E9 starts a 3-byte sequence, but the next byte, 20, is not a continuation byte (80..BF)
    hint: in Latin-1 or Windows-1252, E9 is U+00E9 'é': is the file in that encoding? If so, `utf8guard convert --from windows-1252 --to utf-8` converts it (or `utf8guard repair -r windows-1252`, for a file that mixes the two)
          10  74 79 0A 31 2C 4A 6F 73 E9 20 4D FC 6C 6C 65 72  |ty.1,Jos. M.ller|
                                      ^^                                ^
  customers-latin1.csv: more errors follow (--all or --max-errors N shows them)";

pub const AFTER: &str = "\
Exit status:
  0  every input is valid UTF-8 (in the --encoding given)
  1  some input is not valid UTF-8 (in the --encoding given), and every
     input could be read
  2  a usage error, or some input could not be read (the other inputs are
     still checked and reported), or the report could not be written

Inputs:
  - `-`, or no PATH at all, reads standard input, named `-` in reports. It
    is streamed in chunks, in constant memory. Empty standard input is
    valid.
    A regular file of 1 MiB or more redirected to it (`< FILE`) is mapped
    like a named file, from its current offset, and left at its end.
  - A directory is walked recursively, entries in byte order of their names,
    hidden ones included. Inside directories only regular files are checked:
    FIFOs, sockets and devices are skipped (--stats counts them), and so are
    symbolic links unless --follow is given. Paths named on the command line
    are always followed.
  - A FIFO or a character device named on the command line is read as a
    stream (opening a FIFO waits for a writer).
  - A stream (standard input, a FIFO, a device) is read until its end, or
    until the errors to report are found: the first one, or as many as
    --all or --max-errors asks for. What follows is not read (a stream may
    never end, as /dev/urandom does), but for the rest of the last read and
    one read more if it does not wait: when these hold another error or the
    stream's end, the report says whether more errors follow; otherwise it
    is not known, and the report says they may. A program writing into the
    pipe then sees it closed, as with `head`. A stream without errors is
    read to its end, however long that takes.
  - A missing path, a file or directory without read permission, a socket,
    a read error: one line on stderr, `utf8guard: PATH: REASON`, status 2.
    With --json the line is a JSON object with status \"error\" instead.
  - An empty file is valid.
  - Files of 1 MiB and more are memory-mapped. One that another process
    truncates while it is checked (as logrotate's copytruncate does) is
    reported as an input that could not be read, \"the file changed while
    it was read\", status 2, and the other inputs are checked as usual; one
    that is rewritten in place is reported on the bytes as read.
  - A file named like a subcommand (check, repair, convert, lint, info,
    help) is written `./info`, or given after `check`.

Output closed early: when the reader of standard output goes away (as
`head` does once it has its lines), utf8guard stops at once, silently, with
status 2, since the remaining inputs were not checked.

Positions: byte offsets count from 0; lines and columns from 1. A line ends
at each LF byte. A column counts characters, and an invalid sequence counts
as one, like the U+FFFD that `utf8guard repair` puts in its place. An
invalid sequence is a maximal subpart in Unicode's sense (1 to 3 bytes): with
--all, the errors reported are the sequences `repair` replaces, and the first
one is where std::str::from_utf8 and isutf8 stop.
With --encoding, the same rules in that encoding: the first error is where
its longest well-formed prefix ends, an invalid sequence is its maximal
subpart (up to 5 bytes: a broken CESU-8 surrogate pair, a 5- or 6-byte
sequence cut short), each next error is the first one of a fresh check of
what follows the last (where Corrected UTF-8's magic number does not count:
it is well formed at offset 0 only), and a column counts the encoding's
sequences as written (a CESU-8 surrogate pair counts as 2, a reserved FE/FF
run of Corrected UTF-8 as 1). The first error of an input gets one more
hint: which other encodings accept the whole input, from the most specific
(for a stream, only when it ends within its first 1 MiB; Corrected UTF-8
only when the input starts with its magic number or has a sequence of its
own other than a reserved FE/FF run, since FE and FF are more often
Latin-1's þ and ÿ), or that it starts with Corrected UTF-8's magic number.

JSON (--json): JSON Lines, one object per input, each on its own line (the
output is not one JSON document: `jq -s .` makes it an array), in the order
the inputs are given (directory entries in byte order of their names), e.g.
  {\"path\":\"a.txt\",\"path_exact\":true,\"status\":\"invalid\",\"bytes\":14,
   \"errors\":[{\"offset\":3,\"line\":1,\"column\":4,\"length\":1,
     \"kind\":\"too_short\",\"description\":\"multi-byte sequence cut short\",
     \"explanation\":\"C3 starts a 2-byte sequence, but the next byte, ...\",
     \"hint\":null,\"bytes\":\"C3\",\"context_offset\":0,
     \"context\":\"61 62 63 C3 28 ...\"}],
   \"more_errors\":false,\"error\":null}
  path          the path as given or found; \"-\" for standard input
  path_exact    false when the path is not valid Unicode: `path` is then a
                copy with U+FFFD in place of what is not
  path_bytes    only when path_exact is false: the path's bytes in hex,
                e.g. \"63 61 66 E9\", to have it exactly
  encoding      the --encoding name, e.g. \"cesu-8\" (with auto, the one
                chosen for the input: also \"utf-16le\", \"utf-16be\",
                \"utf-32le\", \"utf-32be\"); only when --encoding is given
  note          with --encoding auto, when the input starts with a byte
                order mark: which, and the encoding it was checked as;
                absent otherwise
  status        \"valid\", \"invalid\", or \"error\" (could not be read)
  bytes         size of the input in bytes; for a stream whose reading
                stopped at its last error reported, the bytes read; for
                \"error\", the bytes read before the failure (often 0)
  magic_number, reserved_run
                with --encoding corrected-utf-8 only: whether the input
                starts with the magic number EF B7 9D ED B2 AE 00 0A, and
                the offset of its first reserved FE/FF run (in the part
                checked: up to the last error reported when more follow or
                may follow), or null
  errors        the errors reported, in order; empty unless \"invalid\"
    offset        byte offset of the invalid sequence; for the first error,
                  the length of the valid prefix (std's valid_up_to)
    line, column  1-based; the column counts characters
    length        bytes in the invalid sequence (1 to 3; up to 5 with
                  --encoding); null when the input ends inside a multi-byte
                  sequence
    kind          unexpected_continuation, invalid_byte, overlong,
                  surrogate, too_large, too_short or incomplete; with
                  --encoding also nul (a 00 byte), lone_surrogate (CESU-8),
                  surrogate_pair (WTF-8) or four_byte_form (CESU-8,
                  modified UTF-8)
    description   the kind in words
    explanation   the cause, naming the bytes involved
    hint          a likely mix-up (see above); on the first error of an
                  input that its first bytes show to be UTF-16 or binary,
                  what it is (and null on the others); on the first error,
                  after \"; \", the other encodings that accept the whole
                  input; or null
    bytes         the invalid bytes in hex, e.g. \"E2 82\"
    context_offset, context
                  offset and hex of up to 16 bytes around the error (up to
                  8 before it)
  more_errors   true when more errors follow the last one reported (past
                the first without --all, past N with --max-errors N);
                null when reading a stream stopped there (more may follow)
  error         why the input could not be read (status \"error\"), or null

Environment: UTF8GUARD_KERNEL=NAME forces a kernel, as --kernel does.";

/// The errors `--all` reports per input, at most: a report holds its
/// errors in memory (about 80 bytes each) until the input is done.
pub const ALL_LIMIT: usize = 1_000_000;

/// Options of `check`.
#[derive(Debug, Default, Args)]
pub struct CheckArgs {
    /// Files and directories to check; `-`, or none, reads standard input
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Report every error in each input, not only the first
    ///
    /// Up to 1000000 per input, which bounds the memory a report takes; a
    /// last line (`more_errors` in JSON) says when more follow.
    #[arg(short, long, verbatim_doc_comment)]
    pub all: bool,

    /// Report at most N errors per input (implies --all)
    ///
    /// N is 1 to 1000000. A last line (`more_errors` in JSON) says when
    /// more follow.
    #[arg(
        short,
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..=ALL_LIMIT as u64),
        verbatim_doc_comment
    )]
    pub max_errors: Option<u64>,

    /// Print JSON Lines: one JSON object per input and per line (schema:
    /// see --help)
    ///
    /// One line per input on standard output, valid inputs included, and
    /// unreadable ones too (with status "error", instead of a line on
    /// stderr). The output as a whole is JSON Lines (jsonlines.org), not
    /// one JSON document: `jq` reads it as it is, `jq -s .` makes an array
    /// of it.
    #[arg(long, conflicts_with_all = ["list", "invert"], verbatim_doc_comment)]
    pub json: bool,

    /// Print nothing on standard output: the exit status tells
    ///
    /// Inputs that cannot be read are still named on stderr, and --stats
    /// still prints its statistics there.
    #[arg(
        short,
        long,
        conflicts_with_all = ["json", "list", "invert", "all", "max_errors"],
        verbatim_doc_comment
    )]
    pub quiet: bool,

    /// Print only the paths of invalid inputs, one per line
    ///
    /// Standard input is listed as `-`. Paths are printed as their bytes
    /// (as `ls` and `grep -l` print them), whether or not they are UTF-8;
    /// on a terminal, control characters and bytes that are not UTF-8 are
    /// shown as `?`, as `ls` shows them.
    #[arg(short, long, conflicts_with_all = ["all", "max_errors"], verbatim_doc_comment)]
    pub list: bool,

    /// Print only the paths of valid inputs instead (implies --list)
    ///
    /// The exit status keeps its meaning: 1 if some input is invalid.
    #[arg(short, long, conflicts_with_all = ["all", "max_errors"], verbatim_doc_comment)]
    pub invert: bool,

    /// End each path of the list with a NUL byte, not a newline (implies
    /// --list)
    ///
    /// For `xargs -0` and other readers of NUL-separated names: a file name
    /// may hold a newline. Paths are printed as their bytes, whether or not
    /// they are UTF-8, in the list as in the text report.
    #[arg(
        short = '0',
        long,
        conflicts_with_all = ["all", "max_errors", "json", "quiet"],
        verbatim_doc_comment
    )]
    pub null: bool,

    /// Check N inputs at a time; split large files across N threads
    ///
    /// Reports still come in the order of the inputs. A file of 1 MiB or
    /// more is validated in parts on the N threads, unless N is 1, and a
    /// report of thousands of errors (--all, text or --json) is written on
    /// them too. N is 1 to 1024, but no more threads are started than
    /// there are logical CPUs: more would only slow the work.
    /// [default: the number of logical CPUs]
    #[arg(
        short,
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..=1024),
        verbatim_doc_comment
    )]
    pub jobs: Option<u64>,

    /// Validate with this kernel (see `utf8guard info`)
    ///
    /// One of the kernels `utf8guard info` lists as available: scalar, and
    /// the vector kernels this CPU supports. Overrides UTF8GUARD_KERNEL.
    /// All kernels give the same answers.
    /// [default: the fastest available]
    #[arg(long, value_name = "NAME", verbatim_doc_comment)]
    pub kernel: Option<String>,

    /// Check another member of the UTF-8 family [default: utf-8]
    ///
    /// See --help for the names.
    #[arg(
        short,
        long,
        value_name = "NAME",
        value_parser = encoding::parse,
        long_help = encoding::encoding_help()
    )]
    pub encoding: Option<Encoding>,

    /// Print statistics on stderr at the end
    ///
    /// Inputs checked (valid, invalid, unreadable, skipped), bytes,
    /// characters by encoded length (in the well-formed parts scanned; with
    /// --encoding, sequences, and 5- and 6-byte ones and reserved runs where
    /// the encoding has them), time and throughput, kernel and jobs.
    #[arg(long, verbatim_doc_comment)]
    pub stats: bool,

    /// Follow symbolic links found inside directories
    ///
    /// Links named on the command line are always followed. With --follow,
    /// a link that makes a loop, or leads nowhere, is reported as an error.
    #[arg(short = 'L', long, verbatim_doc_comment)]
    pub follow: bool,

    /// Never show the progress bar
    ///
    /// Otherwise it is shown on stderr when stderr is a terminal, the work
    /// takes more than half a second, and neither --json nor --quiet is
    /// given.
    #[arg(long, verbatim_doc_comment)]
    pub no_progress: bool,
}

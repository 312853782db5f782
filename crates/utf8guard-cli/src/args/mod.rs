//! The command line's arguments, a module per subcommand: its options, the
//! parsers of their values, and its help texts (wrapped by hand: clap
//! prints them as they are). The command line (`cli.rs`) puts them
//! together, and each subcommand's implementation reads its own. They use
//! nothing else of the command, so that neither side depends on the other.

/// How `repair -o` and `convert -o` write OUT, for their help texts.
macro_rules! writing_out {
    () => {
        "\
A file OUT is replaced, never written in place: the output goes to a
temporary file in OUT's directory, readable by this user alone, which is
given OUT's owner, group and extended attributes, then its mode, and is
renamed to OUT only once the whole input is done. So OUT is never a half
file: after an error, Ctrl-C (SIGINT), SIGTERM or SIGHUP the temporary file
is removed and an existing OUT is left as it was (only SIGKILL can leave
the temporary file, .OUT.utf8guard-PID.tmp). A symbolic link OUT stays, and
the file it leads to is replaced or created; a hard-linked OUT becomes a
file of its own, and its other names keep the old contents.

The input is never modified. Refused before any input is read: an OUT that
is the input itself (under any name, or behind standard input), a read-only
OUT (unless --force), one this user may not write, one that belongs to
another user or to a group not this user's (the new file could not be given
back to them), an append-only or immutable one, and one whose directory
allows no temporary file. To write such a file in place, redirect standard
output to it (> OUT).

An OUT that is this process's standard output or error (/dev/stdout, or
the file they are redirected to) is written through that descriptor, and
one that is not a regular file (a device such as /dev/null, a FIFO)
directly, as the work goes, as a shell redirection writes them."
    };
}

pub mod check;
pub mod convert;
pub mod encoding;
pub mod info;
pub mod lint;
pub mod repair;

//! `utf8guard repair`: the input with every invalid sequence replaced by
//! U+FFFD, written as it is produced.

use std::borrow::Cow;
use std::fs::{self, File};
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::Path;

use crate::check::MMAP_MIN;
use crate::cli::RepairArgs;

/// Bytes converted at a time.
const PIECE: usize = 1 << 20;

/// Runs `repair`; returns the exit status.
pub fn run(args: &RepairArgs) -> u8 {
    match repair(args) {
        Ok(false) => 0,
        Ok(true) => 1,
        // The reader of standard output went away (as `head` does once it
        // has what it wanted): stop quietly, as `check` does, with the
        // status that says the work was not done.
        Err(RepairError::Closed) => 2,
        Err(RepairError::Message(message)) => {
            eprintln!("utf8guard: {message}");
            2
        }
    }
}

/// Why a repair did not finish.
enum RepairError {
    /// Standard output was closed by its reader.
    Closed,
    /// Anything else, said in words.
    Message(String),
}

impl From<String> for RepairError {
    fn from(message: String) -> Self {
        RepairError::Message(message)
    }
}

/// `Ok(true)` when something was replaced.
fn repair(args: &RepairArgs) -> Result<bool, RepairError> {
    let input = args.input.as_deref().unwrap_or(Path::new("-"));
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    let stdin = input.as_os_str() == "-";
    if stdin && io::stdin().is_terminal() {
        eprintln!("utf8guard: reading standard input (end it with Ctrl-D; --help for usage)");
    }
    let file = if stdin {
        None
    } else {
        let file = File::open(input)
            .map_err(|e| format!("{}: {}", input.display(), crate::io_message(&e)))?;
        Some(file)
    };
    let meta = match &file {
        Some(f) => Some(
            f.metadata()
                .map_err(|e| format!("{}: {}", input.display(), crate::io_message(&e)))?,
        ),
        None => None,
    };
    if meta.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(format!("{}: is a directory", input.display()).into());
    }
    // Refuse to write over the input before opening the output, which
    // would truncate it.
    if let (Some(out), Some(in_meta)) = (output, &meta) {
        if let Ok(out_meta) = fs::metadata(out) {
            if same_file(in_meta, &out_meta) {
                return Err(format!(
                    "{}: the output is the input itself; repair never changes its input \
                     (write elsewhere, then move the result)",
                    out.display()
                )
                .into());
            }
        }
    }
    let sink: Box<dyn Write> = match output {
        Some(out) => Box::new(File::create(out).map_err(|e| {
            format!(
                "{}: cannot create: {}",
                out.display(),
                crate::io_message(&e)
            )
        })?),
        None => {
            crate::pipe::widen(io::stdout());
            Box::new(io::stdout().lock())
        }
    };
    let mut writer = BufWriter::with_capacity(PIECE, sink);
    let out_name = output.map_or("standard output".into(), |p| p.display().to_string());
    let in_name = input.display().to_string();
    let result = match (file, meta) {
        (Some(file), Some(meta)) if meta.is_file() && meta.len() >= MMAP_MIN => match map(&file) {
            Ok(map) => repair_slice(&map, PIECE, &mut writer).map_err(Failure::Write),
            Err(_) => repair_stream(file, &mut writer),
        },
        (Some(file), _) => {
            crate::pipe::widen(&file);
            repair_stream(file, &mut writer)
        }
        (None, _) => {
            crate::pipe::widen(io::stdin());
            repair_stream(io::stdin().lock(), &mut writer)
        }
    };
    let flushed = writer.flush();
    match (result, flushed) {
        (Ok(changed), Ok(())) => Ok(changed),
        (Err(Failure::Read(e)), _) => Err(RepairError::Message(format!(
            "{in_name}: read error: {}",
            crate::io_message(&e)
        ))),
        (Err(Failure::Write(e)), _) | (Ok(_), Err(e))
            if output.is_none() && e.kind() == io::ErrorKind::BrokenPipe =>
        {
            Err(RepairError::Closed)
        }
        (Err(Failure::Write(e)), _) | (Ok(_), Err(e)) => Err(RepairError::Message(format!(
            "{out_name}: write error: {}",
            crate::io_message(&e)
        ))),
    }
}

enum Failure {
    Read(io::Error),
    Write(io::Error),
}

/// `a` and `b` are the metadata of the same file (on Unix: its device and
/// inode; elsewhere never known, so `false`).
#[cfg(unix)]
pub fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
pub fn same_file(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    false
}

fn map(file: &File) -> io::Result<memmap2::Mmap> {
    // SAFETY: read-only use of the mapping, as in `check::map`, whose
    // comment explains the one condition (nobody changes the file while it
    // is mapped) that no tool can enforce, and what happens if it breaks.
    unsafe { memmap2::Mmap::map(file) }
}

/// Where `buf` can be cut, when what follows it is not known yet, so that
/// repairing the two sides apart gives what repairing them together does:
/// before the start of an unfinished character in its last 3 bytes, else
/// at its end.
///
/// A cut just before any byte that is not a continuation byte is always
/// safe, since a maximal subpart never contains one past its first byte.
/// And a cut after the last byte is safe when none of the last 3 bytes
/// could start a sequence running past it.
pub fn split_point(buf: &[u8]) -> usize {
    let n = buf.len();
    for back in 1..=n.min(3) {
        let b = buf[n - back];
        if b & 0xC0 != 0x80 {
            return if b >= 0xC0 { n - back } else { n };
        }
    }
    n
}

/// Writes the repaired `piece`; `true` if it had to change.
fn write_lossy(piece: &[u8], out: &mut impl Write) -> io::Result<bool> {
    match utf8guard::from_utf8_lossy(piece) {
        Cow::Borrowed(s) => out.write_all(s.as_bytes()).map(|()| false),
        Cow::Owned(s) => out.write_all(s.as_bytes()).map(|()| true),
    }
}

/// Repairs an input that is all in memory, `piece` bytes at a time.
fn repair_slice(bytes: &[u8], piece: usize, out: &mut impl Write) -> io::Result<bool> {
    debug_assert!(piece >= 4);
    let mut changed = false;
    let mut pos = 0;
    while pos < bytes.len() {
        let end = bytes.len().min(pos + piece);
        let cut = if end == bytes.len() {
            end
        } else {
            pos + split_point(&bytes[pos..end])
        };
        changed |= write_lossy(&bytes[pos..cut], out)?;
        pos = cut;
    }
    Ok(changed)
}

/// Repairs a stream read in pieces, carrying an unfinished character (at
/// most 3 bytes) from one piece to the next.
fn repair_stream(reader: impl Read, out: &mut impl Write) -> Result<bool, Failure> {
    repair_stream_with(reader, PIECE, out)
}

fn repair_stream_with(
    mut reader: impl Read,
    piece: usize,
    out: &mut impl Write,
) -> Result<bool, Failure> {
    let mut buf = vec![0u8; piece + 3];
    let mut carry = 0;
    let mut changed = false;
    loop {
        let n = match reader.read(&mut buf[carry..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Read(e)),
        };
        let len = carry + n;
        if n == 0 {
            changed |= write_lossy(&buf[..len], out).map_err(Failure::Write)?;
            return Ok(changed);
        }
        let cut = split_point(&buf[..len]);
        changed |= write_lossy(&buf[..cut], out).map_err(Failure::Write)?;
        buf.copy_within(cut..len, 0);
        carry = len - cut;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A reader that hands out at most `step` bytes per read.
    pub(crate) struct Trickle<'a> {
        pub(crate) data: &'a [u8],
        pub(crate) step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    const INPUTS: &[&[u8]] = &[
        b"",
        b"plain",
        "Grüße 🌍 κόσμε".as_bytes(),
        b"\xE2\x82",
        b"a\xE2\x82\xACb\xE2\x82c\xF0\x9F\x98\x80\xF0\x9F\x98",
        b"\x80\x80\x80\xBF\xC3\x28\xED\xA0\x80\xF4\x90\x80\x80\xC0\xAF\xE0\x80\xF5\xFF",
        b"\xF0\x90\x80\xF0\x90\x80\x80\xE1\x80\xE1\x80\x80\xC2",
    ];

    #[test]
    fn split_point_keeps_unfinished_characters() {
        assert_eq!(split_point(b""), 0);
        assert_eq!(split_point(b"ab"), 2);
        assert_eq!(split_point(b"a\xE2\x82"), 1);
        assert_eq!(split_point(b"a\xE2\x82\xAC"), 1);
        assert_eq!(split_point(b"\x80\x80\x80"), 3);
        assert_eq!(split_point(b"\xF0\x80\x80\x80"), 4);
        assert_eq!(split_point(b"a\x80\x80"), 3);
    }

    #[test]
    fn pieces_repair_like_the_whole_at_every_size() {
        for input in INPUTS {
            let expected = String::from_utf8_lossy(input).into_owned();
            let invalid = std::str::from_utf8(input).is_err();
            for piece in 4..=input.len().max(4) + 1 {
                let mut out = Vec::new();
                let changed = repair_slice(input, piece, &mut out).unwrap();
                assert_eq!(out, expected.as_bytes(), "{input:02X?} piece {piece}");
                assert_eq!(changed, invalid);
            }
            for step in 1..=input.len().max(1) + 1 {
                for piece in [4, 5, 7, 64] {
                    let mut out = Vec::new();
                    let reader = Trickle { data: input, step };
                    let changed = repair_stream_with(reader, piece, &mut out)
                        .unwrap_or_else(|_| panic!("failed"));
                    assert_eq!(out, expected.as_bytes(), "{input:02X?} step {step}");
                    assert_eq!(changed, invalid);
                }
            }
        }
    }
}

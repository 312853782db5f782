//! `check --encoding auto`: the encoding of each input chosen by its first
//! bytes.
//!
//! - Corrected UTF-8's magic number (`EF B7 9D ED B2 AE 00 0A`) selects
//!   `corrected-utf-8`;
//! - a UTF-8 byte order mark (`EF BB BF`) is noted, and the input checked
//!   as UTF-8 (the mark is U+FEFF, valid UTF-8);
//! - a UTF-16 or UTF-32 byte order mark is checked as UTF-8, which it is
//!   not (so that `-l` lists it among the files that are not UTF-8), with a
//!   note that says what it is;
//! - anything else is checked as UTF-8.

use std::fs::File;
use std::io::{self, Cursor, Read};
use std::path::Path;

use utf8guard::Dialect;

use crate::check;
use crate::family::MAGIC;
use crate::hex::hex;
use crate::io_error::io_message;
use crate::progress::Progress;
use crate::report::Outcome;
use crate::scan::ScanOptions;
use crate::sniff::{self, Nature};
use crate::walk::Input;

/// The UTF-8 byte order mark.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// What the first bytes of an input choose: check as this dialect, with a
/// note for the report, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Choice(Dialect, Option<String>);

/// The choice for an input that starts with `head` (its first 8 bytes, or
/// all of it if shorter).
fn choose(head: &[u8]) -> Choice {
    if head.starts_with(&MAGIC) {
        return Choice(Dialect::Corrected, None);
    }
    if head.starts_with(UTF8_BOM) {
        return Choice(
            Dialect::Utf8,
            Some("starts with a UTF-8 byte order mark (EF BB BF), checked as UTF-8".into()),
        );
    }
    if let Some(Nature::Unicode {
        encoding,
        bom: Some(bom),
    }) = sniff::sniff(head)
    {
        let convert = if encoding.starts_with("UTF-16") {
            format!(
                ": `utf8guard convert --from {} --to utf-8` converts it",
                encoding.to_ascii_lowercase()
            )
        } else {
            String::new()
        };
        // Not UTF-8, rather than an input that cannot be read.
        let note = format!(
            "{encoding} text by its byte order mark ({}), not UTF-8{convert}",
            hex(bom)
        );
        return Choice(Dialect::Utf8, Some(note));
    }
    Choice(Dialect::Utf8, None)
}

/// Reads up to 8 bytes from `reader`: fewer only at its end.
fn read_head(reader: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(MAGIC.len());
    reader.take(MAGIC.len() as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// Checks one input with the encoding its first bytes choose.
pub fn check(input: &Input, opts: &ScanOptions, progress: &Progress) -> Outcome {
    let (path, outcome) = match input {
        Input::Stdin => (Path::new("-"), Outcome::stdin()),
        Input::File { path, .. } | Input::Stream { path } => (path.as_path(), Outcome::named(path)),
        Input::Failed { path, reason } => return Outcome::failed(path, reason.clone()),
    };
    let failed = |e: io::Error| Outcome::failed(path, io_message(&e));
    let choose_for = |head: &[u8]| {
        let Choice(dialect, note) = choose(head);
        (ScanOptions { dialect, ..*opts }, note)
    };
    match input {
        Input::File { .. } => {
            // A regular file is read again from its start.
            let head = File::open(path).and_then(|mut f| read_head(&mut f));
            let (opts, note) = match head {
                Ok(head) => choose_for(&head),
                Err(e) => return failed(e),
            };
            let mut outcome = check::check_path(path, &opts, progress);
            outcome.note = note;
            outcome
        }
        _ => {
            // A stream: the bytes read to choose go first to the check.
            let file;
            let (mut reader, ready): (Box<dyn Read>, Box<dyn Fn() -> bool>) = match input {
                Input::Stdin => {
                    crate::pipe::widen(io::stdin());
                    let ready = || crate::stream::ready(&io::stdin());
                    (Box::new(io::stdin().lock()), Box::new(ready))
                }
                _ => match File::open(path) {
                    Ok(f) => {
                        crate::pipe::widen(&f);
                        file = f;
                        (Box::new(&file), Box::new(|| crate::stream::ready(&file)))
                    }
                    Err(e) => return failed(e),
                },
            };
            let head = match read_head(&mut reader) {
                Ok(head) => head,
                Err(e) => return failed(e),
            };
            let (opts, note) = choose_for(&head);
            let reader = Cursor::new(head).chain(reader);
            let mut outcome = crate::stream::check_reader(reader, outcome, &opts, progress, &ready);
            outcome.note = note;
            outcome
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bytes_choose() {
        assert_eq!(choose(&MAGIC), Choice(Dialect::Corrected, None));
        assert_eq!(choose(b"plain"), Choice(Dialect::Utf8, None));
        assert_eq!(choose(b""), Choice(Dialect::Utf8, None));
        // A prefix of the magic number is not it.
        assert_eq!(choose(&MAGIC[..7]), Choice(Dialect::Utf8, None));
        assert_eq!(
            choose(b"\xEF\xBB\xBFx"),
            Choice(
                Dialect::Utf8,
                Some("starts with a UTF-8 byte order mark (EF BB BF), checked as UTF-8".into())
            )
        );
        assert_eq!(
            choose(b"\xFF\xFEa\x00"),
            Choice(
                Dialect::Utf8,
                Some(
                    "UTF-16LE text by its byte order mark (FF FE), not UTF-8: \
                     `utf8guard convert --from utf-16le --to utf-8` converts it"
                        .into()
                )
            )
        );
        assert_eq!(
            choose(b"\x00\x00\xFE\xFF"),
            Choice(
                Dialect::Utf8,
                Some("UTF-32BE text by its byte order mark (00 00 FE FF), not UTF-8".into())
            )
        );
    }
}

//! Valid runs and invalid sequences in turn: `<[u8]>::utf8_chunks`.

use core::fmt;
use core::iter::FusedIterator;

/// Splits `bytes` into runs of valid UTF-8, each followed by the invalid
/// sequence after it, like [`<[u8]>::utf8_chunks`](slice::utf8_chunks),
/// with the same chunks on every input. Each valid run is found by the
/// active kernel, so text with few errors goes at validation speed.
///
/// Each [`Utf8Chunk`] holds a valid run (possibly empty) and the invalid
/// sequence that ends it: one maximal subpart (1 to 3 bytes), the unit
/// [`from_utf8_lossy`](crate::from_utf8_lossy) replaces with one U+FFFD;
/// for the last chunk, possibly empty, or the unfinished character the
/// input ends with.
///
/// ```
/// let chunks: Vec<_> = utf8guard::utf8_chunks(b"ab\xF0\x9F\x98cd\xFFef")
///     .map(|c| (c.valid(), c.invalid()))
///     .collect();
/// assert_eq!(
///     chunks,
///     [("ab", &b"\xF0\x9F\x98"[..]), ("cd", b"\xFF"), ("ef", b"")]
/// );
///
/// // Lossy decoding by hand.
/// let mut text = String::new();
/// for chunk in utf8guard::utf8_chunks(b"caf\xE9!") {
///     text.push_str(chunk.valid());
///     if !chunk.invalid().is_empty() {
///         text.push('\u{FFFD}');
///     }
/// }
/// assert_eq!(text, "caf\u{FFFD}!");
/// ```
#[inline]
pub fn utf8_chunks(bytes: &[u8]) -> Utf8Chunks<'_> {
    Utf8Chunks { rest: bytes }
}

/// The iterator of [`utf8_chunks`].
#[derive(Clone)]
pub struct Utf8Chunks<'a> {
    rest: &'a [u8],
}

impl<'a> Utf8Chunks<'a> {
    /// The bytes not yet split into chunks.
    pub fn remainder(&self) -> &'a [u8] {
        self.rest
    }
}

impl fmt::Debug for Utf8Chunks<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Utf8Chunks")
            .field("source", &self.rest)
            .finish()
    }
}

impl<'a> Iterator for Utf8Chunks<'a> {
    type Item = Utf8Chunk<'a>;

    fn next(&mut self) -> Option<Utf8Chunk<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        let rest = self.rest;
        let (valid, invalid_len) = match crate::validate::from_utf8(rest) {
            Ok(valid) => (valid, 0),
            Err(e) => {
                let at = e.valid_up_to();
                // SAFETY: the bytes before `valid_up_to` are well formed.
                let valid = unsafe { core::str::from_utf8_unchecked(&rest[..at]) };
                (valid, e.error_len().unwrap_or(rest.len() - at))
            }
        };
        let end = valid.len() + invalid_len;
        self.rest = &rest[end..];
        Some(Utf8Chunk {
            valid,
            invalid: &rest[valid.len()..end],
        })
    }
}

impl FusedIterator for Utf8Chunks<'_> {}

/// One item of [`utf8_chunks`]: a valid run and the invalid sequence after
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Utf8Chunk<'a> {
    valid: &'a str,
    invalid: &'a [u8],
}

impl<'a> Utf8Chunk<'a> {
    /// The valid run; may be empty.
    pub fn valid(&self) -> &'a str {
        self.valid
    }

    /// The invalid sequence after the valid run: 1 to 3 bytes, or, at the
    /// end of the input, the unfinished character it ends with (1 to 3
    /// bytes) or nothing.
    pub fn invalid(&self) -> &'a [u8] {
        self.invalid
    }
}

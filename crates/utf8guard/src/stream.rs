//! Validation of a stream that arrives in chunks.
//!
//! A chunk is validated by the same kernels as a whole buffer. The only
//! state kept between chunks is the unfinished character at the end of the
//! last one (at most 3 bytes): [`from_utf8`](crate::from_utf8) reports it
//! as an error with `error_len() == None` at its first byte, so the carry
//! is known without a second look at the chunk. The next chunk first
//! completes that character (at most 3 more bytes, checked on their own),
//! then goes to the kernel from the next character on. No byte is validated
//! twice.

use crate::error::Utf8Error;

/// The longest character, in bytes.
const MAX_CHAR: usize = 4;

/// Validates UTF-8 fed in chunks of any size, with errors placed in the
/// whole stream.
///
/// A character may be split across chunks. The first error is exactly the
/// one [`from_utf8`](crate::from_utf8) reports on the concatenation of all
/// chunks: its [`valid_up_to`](Utf8Error::valid_up_to) counts every byte
/// fed before it, whatever the chunking. An input that ends inside a
/// character is reported by [`finish`](Self::finish), with
/// [`error_len`](Utf8Error::error_len) `None`.
///
/// ```
/// use utf8guard::StreamValidator;
///
/// // "€" is E2 82 AC, split across chunks.
/// let mut stream = StreamValidator::new();
/// stream.update(b"price: \xE2")?;
/// stream.update(b"\x82")?;
/// stream.update(b"\xAC 12")?;
/// assert_eq!(stream.bytes_seen(), 13);
/// stream.finish()?;
///
/// // The error's position counts every byte before it.
/// let mut stream = StreamValidator::new();
/// stream.update(b"first chunk, ")?;
/// let err = stream.update(b"second \xFF").unwrap_err();
/// assert_eq!(err.valid_up_to(), 20);
/// assert_eq!(err.error_len(), Some(1));
///
/// // Ending inside a character.
/// let mut stream = StreamValidator::new();
/// stream.update(b"caf\xC3")?;
/// let err = stream.finish().unwrap_err();
/// assert_eq!((err.valid_up_to(), err.error_len()), (3, None));
/// # Ok::<(), utf8guard::Utf8Error>(())
/// ```
///
/// Once an error is found the validator keeps it: every later
/// [`update`](Self::update) and [`finish`](Self::finish) returns the same
/// error and ignores its input.
#[derive(Clone, Debug, Default)]
pub struct StreamValidator {
    /// Bytes passed to `update` before the error, if any, was found.
    fed: usize,
    /// Bytes fed and accepted as whole characters, from the start of the
    /// stream: the stream offset of `carry[0]`.
    accepted: usize,
    /// The start of an unfinished character (a valid prefix of one).
    carry: [u8; MAX_CHAR],
    carry_len: u8,
    /// The first error, once found.
    error: Option<Utf8Error>,
}

impl StreamValidator {
    /// A validator at the start of a stream.
    pub const fn new() -> Self {
        StreamValidator {
            fed: 0,
            accepted: 0,
            carry: [0; MAX_CHAR],
            carry_len: 0,
            error: None,
        }
    }

    /// Validates the next chunk of the stream.
    ///
    /// `Ok` when everything fed so far is UTF-8, possibly up to an
    /// unfinished character at the end that a later chunk may complete.
    /// `Err` with the first error of the stream, its position counted from
    /// the stream's first byte; it always has an
    /// [`error_len`](Utf8Error::error_len) (an unfinished character is an
    /// error only at [`finish`](Self::finish)).
    ///
    /// Chunks of any size work; from a few KiB on, the time is that of
    /// [`from_utf8`](crate::from_utf8) over the same bytes.
    pub fn update(&mut self, chunk: &[u8]) -> Result<(), Utf8Error> {
        if let Some(error) = self.error {
            return Err(error);
        }
        self.fed += chunk.len();
        let mut rest = chunk;
        if self.carry_len > 0 {
            match self.complete_carry(rest) {
                Some(used) => rest = &rest[used..],
                None => return Ok(()),
            }
            if let Some(error) = self.error {
                return Err(error);
            }
        }
        match crate::from_utf8(rest) {
            Ok(_) => {
                self.accepted += rest.len();
                Ok(())
            }
            Err(error) => match error.error_len() {
                None => {
                    // An unfinished character: carry it (at most 3 bytes,
                    // a valid start of a character) to the next chunk.
                    let valid = error.valid_up_to();
                    let tail = &rest[valid..];
                    self.carry[..tail.len()].copy_from_slice(tail);
                    self.carry_len = tail.len() as u8;
                    self.accepted += valid;
                    Ok(())
                }
                Some(_) => Err(self.fail(error.shifted(self.accepted))),
            },
        }
    }

    /// Ends the stream: `Ok` when all of it was UTF-8.
    ///
    /// An unfinished character at the end gives an error with
    /// [`error_len`](Utf8Error::error_len) `None` at its first byte, as
    /// [`from_utf8`](crate::from_utf8) reports a truncated input. An error
    /// found by [`update`](Self::update) is returned again.
    pub fn finish(self) -> Result<(), Utf8Error> {
        self.check_complete()
    }

    /// What [`finish`](Self::finish) would return now, without ending the
    /// stream.
    pub fn check_complete(&self) -> Result<(), Utf8Error> {
        if let Some(error) = self.error {
            return Err(error);
        }
        match crate::from_utf8(self.carried()) {
            Ok(_) => Ok(()),
            Err(error) => Err(error.shifted(self.accepted)),
        }
    }

    /// How many bytes have been fed to [`update`](Self::update), up to and
    /// including the chunk with the first error (later chunks are ignored).
    pub fn bytes_seen(&self) -> usize {
        self.fed
    }

    /// How many bytes of the stream are known to be whole, valid
    /// characters: the stream offset where an error would be reported now.
    pub fn valid_up_to(&self) -> usize {
        match self.error {
            Some(error) => error.valid_up_to(),
            None => self.accepted,
        }
    }

    /// The number of bytes (0 to 3) of an unfinished character at the end
    /// of what has been fed, waiting for the rest of it.
    pub fn pending(&self) -> usize {
        self.carry_len as usize
    }

    /// The first error, if one has been found.
    pub fn error(&self) -> Option<Utf8Error> {
        self.error
    }

    /// Starts over, as [`new`](Self::new).
    pub fn reset(&mut self) {
        *self = StreamValidator::new();
    }

    fn carried(&self) -> &[u8] {
        &self.carry[..self.carry_len as usize]
    }

    fn fail(&mut self, error: Utf8Error) -> Utf8Error {
        self.error = Some(error);
        error
    }

    /// Feed the carried character the bytes it still needs from the front
    /// of `chunk`. Returns how many bytes of `chunk` it took, or `None`
    /// when `chunk` ran out first (they are all carried then). Records an
    /// error if the character turns out ill formed.
    fn complete_carry(&mut self, chunk: &[u8]) -> Option<usize> {
        let have = self.carry_len as usize;
        // The carry is a valid, unfinished start of a character, so its
        // lead byte tells the full length.
        let need = char_width(self.carry[0]) - have;
        let take = need.min(chunk.len());
        let mut buf = self.carry;
        buf[have..have + take].copy_from_slice(&chunk[..take]);
        match crate::from_utf8(&buf[..have + take]) {
            Ok(_) => {
                // The character is complete and valid.
                self.accepted += have + take;
                self.carry_len = 0;
                Some(take)
            }
            Err(error) => match error.error_len() {
                // Still unfinished: `chunk` had fewer than `need` bytes.
                None => {
                    self.carry = buf;
                    self.carry_len = (have + take) as u8;
                    None
                }
                // The character cannot be completed: the error is at its
                // first byte (`error.valid_up_to()` is 0).
                Some(_) => {
                    self.fail(error.shifted(self.accepted));
                    Some(take)
                }
            },
        }
    }
}

/// The length of the character that `lead` starts, for a lead byte of a
/// well-formed multi-byte character.
#[inline]
fn char_width(lead: u8) -> usize {
    match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

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
//!
//! The other dialects ([`StreamValidator::with_dialect`]) keep, besides the
//! unfinished sequence, the state of the dialect's automaton where the
//! accepted bytes end: "after a lead surrogate" in WTF-8 (a trail may not
//! come next), "inside a reserved run" in Corrected UTF-8 (continuation
//! bytes extend it). A chunk starts with the automaton, byte by byte, until
//! it is between sequences in its plain state (a few bytes, or the rest of
//! a reserved run); the kernel takes the rest. A CESU-8 surrogate pair split
//! across chunks is an unfinished 6-byte sequence, carried like any other.
//! Corrected UTF-8's magic number counts only at offset 0: while the stream
//! is a proper prefix of it, it is held back.

use utf8guard_dfa::{Invalid, State};

use crate::bytes::char_width;
use crate::dialect::{Dialect, Inspection};
use crate::error::Utf8Error;
use crate::{dispatch, kernel};

/// What may be carried: an unfinished sequence of any dialect (up to 5
/// bytes), or a proper prefix of Corrected UTF-8's magic number (up to 7).
const CARRY: usize = 8;

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
///
/// [`with_dialect`](Self::with_dialect) validates another member of the
/// family, with the same guarantees against [`Dialect::check`] on the
/// concatenation.
#[derive(Clone, Debug)]
pub struct StreamValidator {
    /// Bytes passed to `update` before the error, if any, was found.
    fed: usize,
    /// Bytes fed and accepted as whole characters, from the start of the
    /// stream: the stream offset of `carry[0]`.
    accepted: usize,
    /// The start of an unfinished character (a valid prefix of one).
    carry: [u8; CARRY],
    carry_len: u8,
    /// The first error, once found.
    error: Option<Utf8Error>,
    /// What is being validated.
    dialect: Dialect,
    /// The dialect's automaton after the accepted bytes and the carry (not
    /// used for strict UTF-8).
    state: State,
    /// The stream so far is a proper prefix of the dialect's magic number,
    /// held in `carry`.
    head: bool,
    /// What was learned on the way (Corrected UTF-8).
    inspection: Inspection,
    /// The address just after the last chunk, and how many bytes the
    /// chunks fed so far hold in one stretch of memory, each starting where
    /// the one before ended: pieces of one long buffer, checked the way a
    /// single call on that buffer would be (see [`Self::update`]).
    next_address: usize,
    stretch: usize,
}

impl Default for StreamValidator {
    fn default() -> Self {
        StreamValidator::new()
    }
}

impl StreamValidator {
    /// A validator of strict UTF-8 at the start of a stream.
    pub const fn new() -> Self {
        StreamValidator {
            fed: 0,
            accepted: 0,
            carry: [0; CARRY],
            carry_len: 0,
            error: None,
            dialect: Dialect::Utf8,
            state: State::ACCEPT,
            head: false,
            inspection: Inspection {
                magic_number: false,
                first_reserved_run: None,
            },
            next_address: 0,
            stretch: 0,
        }
    }

    /// A validator of `dialect` at the start of a stream. Sequences (a
    /// CESU-8 surrogate pair, a reserved run of Corrected UTF-8) may be
    /// split across chunks anywhere, and a WTF-8 lead surrogate at the end
    /// of one chunk forbids a trail at the start of the next.
    ///
    /// ```
    /// use utf8guard::{Dialect, ErrorKind, StreamValidator};
    ///
    /// // U+1F600 as a CESU-8 pair, split inside its trail.
    /// let mut stream = StreamValidator::with_dialect(Dialect::Cesu8);
    /// stream.update(b"smile \xED\xA0\xBD\xED")?;
    /// stream.update(b"\xB8\x80!")?;
    /// stream.finish()?;
    ///
    /// // WTF-8: a lead at the end of one chunk, a trail at the start of the
    /// // next: that pair must be a 4-byte form.
    /// let mut stream = StreamValidator::with_dialect(Dialect::Wtf8);
    /// stream.update(b"ab\xED\xA0\xBD")?;
    /// let err = stream.update(b"\xED\xB8\x80").unwrap_err();
    /// assert_eq!((err.valid_up_to(), err.error_len()), (5, Some(1)));
    /// assert_eq!(err.kind(), ErrorKind::SurrogatePair);
    /// # Ok::<(), utf8guard::Utf8Error>(())
    /// ```
    pub const fn with_dialect(dialect: Dialect) -> Self {
        let mut stream = StreamValidator::new();
        stream.dialect = dialect;
        stream.head = matches!(dialect, Dialect::Corrected);
        stream
    }

    /// The dialect being validated.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// What the stream has shown so far of a Corrected UTF-8 document: its
    /// magic number (once 8 bytes have come), its first reserved run (see
    /// [`Dialect::inspect`]).
    pub fn inspection(&self) -> Inspection {
        self.inspection
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
        if self.dialect != Dialect::Utf8 {
            self.fed += chunk.len();
            return self.update_dialect(chunk);
        }
        self.fed += chunk.len();
        let address = chunk.as_ptr() as usize;
        self.stretch = if address == self.next_address {
            self.stretch + chunk.len()
        } else {
            chunk.len()
        };
        self.next_address = address + chunk.len();
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
        #[cfg(target_arch = "x86_64")]
        if crate::kernel::lookup::far_stream(self.stretch) {
            // The chunks walk through a buffer of 2 MiB or more (or were
            // cut from one), whose bytes most likely come from memory: as a
            // single call on a longer one would, the AVX-512 kernel takes
            // its look-behind by shifts (`kernel::lookup`'s `far_stream`).
            // Up to the start of the last character, which may be
            // unfinished: that one goes the usual way below. If there is
            // an error, the usual way finds it again, exactly.
            let last = rest.len().saturating_sub(4)..rest.len();
            let cut = rest[last.clone()]
                .iter()
                .rposition(|&b| (b as i8) >= -0x40)
                .map_or(rest.len(), |at| last.start + at);
            if crate::dispatch::run_far(&rest[..cut]).is_ok() {
                self.accepted += cut;
                rest = &rest[cut..];
            }
        }
        match crate::validate::from_utf8(rest) {
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
        if self.dialect != Dialect::Utf8 {
            return self.complete_dialect();
        }
        match crate::validate::from_utf8(self.carried()) {
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

    /// The number of bytes (0 to 3; in other dialects up to 5, or 7 of a
    /// magic number) of an unfinished character at the end of what has been
    /// fed, waiting for the rest of it.
    pub fn pending(&self) -> usize {
        self.carry_len as usize
    }

    /// The first error, if one has been found.
    pub fn error(&self) -> Option<Utf8Error> {
        self.error
    }

    /// Starts over, as [`with_dialect`](Self::with_dialect) with the same
    /// dialect.
    pub fn reset(&mut self) {
        *self = StreamValidator::with_dialect(self.dialect);
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
        match crate::validate::from_utf8(&buf[..have + take]) {
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

    /// `update` for the dialects other than strict UTF-8.
    fn update_dialect(&mut self, chunk: &[u8]) -> Result<(), Utf8Error> {
        let mut rest = chunk;
        if self.head {
            let magic = self.dialect.automaton().grammar().magic.unwrap_or(&[]);
            let have = self.carry_len as usize;
            let take = rest.len().min(magic.len() - have);
            let mut head = [0u8; CARRY];
            head[..have].copy_from_slice(&self.carry[..have]);
            head[have..have + take].copy_from_slice(&rest[..take]);
            if magic.starts_with(&head[..have + take]) {
                if have + take < magic.len() {
                    // Still a proper prefix: hold it back.
                    self.carry[..have + take].copy_from_slice(&head[..have + take]);
                    self.carry_len = (have + take) as u8;
                    return Ok(());
                }
                self.head = false;
                self.carry_len = 0;
                self.accepted = magic.len();
                self.inspection.magic_number = true;
                rest = &rest[take..];
            } else {
                // Not the magic number: what was held back is text.
                self.head = false;
                self.carry_len = 0;
                self.feed(&head[..have])?;
            }
        }
        self.feed(rest)
    }

    /// Validate `chunk`, which follows the accepted bytes and the carry.
    fn feed(&mut self, chunk: &[u8]) -> Result<(), Utf8Error> {
        let automaton = self.dialect.automaton();
        // Byte by byte, until the automaton is between sequences in its
        // plain state.
        let mut i = 0;
        while self.state != State::ACCEPT && i < chunk.len() {
            let b = chunk[i];
            let at = self.accepted + self.carry_len as usize;
            if automaton.is_accepting(self.state) {
                self.accepted = at;
                self.carry_len = 0;
            }
            let next = automaton.next(self.state, b);
            if next == State::REJECT {
                let mut sequence = [0u8; CARRY];
                let have = self.carry_len as usize;
                sequence[..have].copy_from_slice(self.carried());
                sequence[have] = b;
                let invalid = Invalid {
                    valid_up_to: self.accepted,
                    error_len: Some(have.max(1)),
                    fault: automaton.fault(self.state, &sequence[..=have]),
                };
                return Err(self.fail(Utf8Error::from_dfa(0, invalid)));
            }
            if self.inspection.first_reserved_run.is_none() && automaton.in_run(next) {
                self.inspection.first_reserved_run = Some(at);
            }
            self.state = next;
            if automaton.is_accepting(next) {
                self.accepted = at + 1;
                self.carry_len = 0;
            } else {
                self.carry[self.carry_len as usize] = b;
                self.carry_len += 1;
            }
            i += 1;
        }
        let rest = &chunk[i..];
        if rest.is_empty() {
            return Ok(());
        }
        let kernel = dispatch::active();
        // SAFETY: the active kernel is available on this CPU.
        let (found, result) =
            unsafe { kernel::check_dialect_part(kernel, self.dialect, rest, false) };
        self.note_run(found.first_reserved_run);
        let valid = match result {
            Ok(()) => rest.len(),
            Err(error) if error.error_len().is_none() => error.valid_up_to(),
            Err(error) => return Err(self.fail(error.shifted(self.accepted))),
        };
        // The state where the valid part ends (between sequences, but maybe
        // after a lead surrogate or inside a run), then the unfinished
        // sequence after it, at most a few bytes, is carried.
        let (state, run) = end_state(self.dialect, &rest[..valid]);
        self.note_run(run);
        self.accepted += valid;
        self.state = state;
        for &b in &rest[valid..] {
            self.state = automaton.next(self.state, b);
            self.carry[self.carry_len as usize] = b;
            self.carry_len += 1;
        }
        Ok(())
    }

    /// Note a reserved run found `offset` bytes after the accepted bytes.
    fn note_run(&mut self, offset: Option<usize>) {
        if self.inspection.first_reserved_run.is_none() {
            self.inspection.first_reserved_run = offset.map(|at| self.accepted + at);
        }
    }

    /// `check_complete` for the dialects other than strict UTF-8.
    fn complete_dialect(&self) -> Result<(), Utf8Error> {
        if self.head {
            // A proper prefix of the magic number (or nothing).
            return self
                .dialect
                .check(self.carried())
                .map_err(|error| error.shifted(self.accepted));
        }
        let automaton = self.dialect.automaton();
        if automaton.is_accepting(self.state) {
            return Ok(());
        }
        let invalid = Invalid {
            valid_up_to: self.accepted,
            error_len: None,
            fault: utf8guard_dfa::Fault::Incomplete,
        };
        Err(Utf8Error::from_dfa(0, invalid))
    }
}

/// The automaton's state after `valid`, a well-formed part that starts
/// between sequences, and where in it a reserved run that it ends in
/// starts. Only the dialects whose automaton has a state between sequences
/// other than the plain one (WTF-8 after a lead surrogate, Corrected UTF-8
/// in a run) need to look: at the last sequence, found by going back over
/// continuation bytes.
fn end_state(dialect: Dialect, valid: &[u8]) -> (State, Option<usize>) {
    let automaton = dialect.automaton();
    let grammar = automaton.grammar();
    if grammar.forbidden_pair.is_none() && grammar.run_row.is_none() {
        return (State::ACCEPT, None);
    }
    let last = valid
        .iter()
        .rposition(|&b| !(0x80..=0xBF).contains(&b))
        .unwrap_or(0);
    let mut state = State::ACCEPT;
    let mut run = None;
    for (k, &b) in valid[last..].iter().enumerate() {
        state = automaton.next(state, b);
        if run.is_none() && automaton.in_run(state) {
            run = Some(last + k);
        }
    }
    (state, run)
}

/// The length of `bytes` less its last lead byte and the continuation
/// bytes after it, when those are its last 3 bytes or fewer: where a piece
/// of a stream can be cut, when what follows is not known yet, so that
/// checking, repairing or converting the two sides apart gives what doing
/// it to them together does. A cut before a byte that is not a
/// continuation byte is always such a place (no character or maximal
/// subpart goes on past one), and so is the end when none of the last 3
/// bytes could start a sequence running past it. Whether the character a
/// held lead byte starts is finished is not looked at: a finished one is
/// held too, for the next cut.
///
/// ```
/// use utf8guard::trim_partial_utf8;
///
/// assert_eq!(trim_partial_utf8(b"ab"), 2);
/// assert_eq!(trim_partial_utf8(b"a\xE2\x82"), 1); // '€' begun
/// assert_eq!(trim_partial_utf8("a€".as_bytes()), 1); // held, finished or not
/// assert_eq!(trim_partial_utf8(b"a\x80\x80"), 3); // nothing could finish
/// ```
pub fn trim_partial_utf8(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=n.min(3) {
        let b = bytes[n - back];
        if b & 0xC0 != 0x80 {
            return if b >= 0xC0 { n - back } else { n };
        }
    }
    n
}

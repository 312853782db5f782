//! The road every conversion out of strict UTF-8 takes (to a single-byte
//! encoding, to UTF-32): the kernel validates a window of the input, a
//! [`Convert`] turns the valid prefix into the target without checking it
//! again, and only an ill-formed sequence, or a character the target cannot
//! hold, takes the careful path here, which applies the [`Policy`].

use crate::encode::EncodeError;
use crate::transcode::{Cause, Policy, Progress, Status, TranscodeError};

/// Why [`Convert::valid`] returned.
pub(crate) enum Stop {
    /// All of its input is converted.
    Done,
    /// The output has no room for the next character.
    Full,
    /// The next character, `len` bytes long, has no form in the target.
    Unencodable(EncodeError, usize),
}

/// The part of a conversion out of UTF-8 that knows the target.
pub(crate) trait Convert {
    /// An output unit: a byte, a UTF-32 unit.
    type Unit: Copy;
    /// What [`Policy::Replace`] writes, one unit.
    const REPLACEMENT: Self::Unit;
    /// Converts `src`, well-formed UTF-8 starting and ending between
    /// characters, into `dst`, one unit per character; returns the bytes
    /// read (whole characters), the units written and why it stopped.
    fn valid(&self, src: &[u8], dst: &mut [Self::Unit]) -> (usize, usize, Stop);

    /// Converts a run of ASCII at the start of `src`, not validated (ASCII
    /// is well formed anywhere), into `dst`, one unit a byte, if the
    /// target has a vector loop for it; returns the bytes read. Called
    /// before each window is validated, so that ASCII text is read once,
    /// not validated and then converted. By default, none.
    fn ascii(&self, src: &[u8], dst: &mut [Self::Unit]) -> usize {
        let _ = (src, dst);
        0
    }
}

/// The first window the kernel checks: short, so that text with many errors
/// is not validated far ahead of each one.
const WINDOW_MIN: usize = 256;
/// The longest window, reached by doubling while the windows are valid.
const WINDOW_MAX: usize = 64 * 1024;

/// Converts `input` with `convert` into `output`, with the conventions of
/// `wtf8_to_utf16_into`: without `last`, a sequence the input ends inside
/// is left unread; error offsets count bytes from the start of `input`.
pub(crate) fn convert<C: Convert>(
    convert: &C,
    input: &[u8],
    policy: Policy,
    output: &mut [C::Unit],
    last: bool,
) -> Progress {
    let (mut at, mut w) = (0, 0);
    let mut window = WINDOW_MIN;
    // `input[at..checked]` is well formed, whole characters (validated
    // once: characters the target lacks do not send it back to the
    // kernel), and `error`, if any, is the ill-formed sequence at `checked`.
    let mut checked = 0;
    let mut error = None;
    let status = loop {
        if at == checked && error.is_none() {
            let ascii = convert.ascii(&input[at..], &mut output[w..]);
            at += ascii;
            w += ascii;
            if at == input.len() {
                break Status::InputEmpty;
            }
            // Each unit takes at most 4 bytes: no need to check further
            // ahead than the room allows (and at least 4 bytes, a whole
            // character).
            let room = output.len() - w;
            let end = input
                .len()
                .min(at + window)
                .min(at.saturating_add(room.saturating_mul(4)).saturating_add(4));
            let part = &input[at..end];
            let valid = match crate::validate::from_utf8(part) {
                Ok(_) => part.len(),
                // Cut by the window's end, not the input's: the next window
                // starts with it.
                Err(e) if e.error_len().is_none() && end < input.len() => e.valid_up_to(),
                Err(e) => {
                    error = Some(e);
                    e.valid_up_to()
                }
            };
            // A window cut inside a character by its end is valid too:
            // reset at each such cut (most windows of non-ASCII text), the
            // windows stayed short and each one's tail went to the
            // character loop.
            window = if error.is_none() {
                (window * 2).min(WINDOW_MAX)
            } else {
                WINDOW_MIN
            };
            checked = at + valid;
        }
        if at < checked {
            let (read, written, stop) = convert.valid(&input[at..checked], &mut output[w..]);
            at += read;
            w += written;
            match stop {
                Stop::Done => {}
                Stop::Full => break Status::OutputFull,
                Stop::Unencodable(why, len) => {
                    if policy == Policy::Strict {
                        return failed(
                            at,
                            w,
                            TranscodeError::new(at, Some(len), Cause::Unencodable(why)),
                        );
                    }
                    if w == output.len() {
                        break Status::OutputFull;
                    }
                    output[w] = C::REPLACEMENT;
                    w += 1;
                    at += len;
                }
            }
            continue;
        }
        let Some(e) = error.take() else {
            continue;
        };
        // The ill-formed sequence at `at`: its maximal subpart, or the
        // rest of the input, which ends inside a sequence.
        let len = match e.error_len() {
            Some(len) => len,
            None if !last => break Status::InputEmpty,
            None => input.len() - at,
        };
        if policy == Policy::Strict {
            let cause = Cause::Malformed(e.kind());
            return failed(at, w, TranscodeError::new(at, e.error_len(), cause));
        }
        if w == output.len() {
            // Kept for the next call, which starts here.
            break Status::OutputFull;
        }
        output[w] = C::REPLACEMENT;
        w += 1;
        at += len;
        checked = at;
    };
    Progress {
        read: at,
        written: w,
        result: Ok(status),
    }
}

fn failed(read: usize, written: usize, error: TranscodeError) -> Progress {
    Progress {
        read,
        written,
        result: Err(error),
    }
}

/// The code point of the character that starts `src`, well-formed UTF-8
/// and not ASCII, and its length in bytes.
#[inline(always)]
pub(crate) fn decode_valid(src: &[u8]) -> (u32, usize) {
    let lead = u32::from(src[0]);
    let next = |k: usize| u32::from(src[k] & 0x3F);
    if lead < 0xE0 {
        (((lead & 0x1F) << 6) | next(1), 2)
    } else if lead < 0xF0 {
        (((lead & 0x0F) << 12) | (next(1) << 6) | next(2), 3)
    } else {
        let cp = ((lead & 0x07) << 18) | (next(1) << 12) | (next(2) << 6) | next(3);
        (cp, 4)
    }
}

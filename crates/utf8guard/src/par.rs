//! Parallel validation of large buffers on the rayon pool.
//!
//! The input is cut into chunks of equal nominal size, each cut moved back
//! (by at most 3 bytes) to the start of a character, and the chunks are
//! validated independently by the active kernel. The answer is the same as
//! [`crate::from_utf8`] on the whole input, error included:
//!
//! - if every chunk before chunk `i` is valid, the bytes before chunk `i`
//!   are whole characters, so chunk `i` is read exactly as the sequential
//!   validator reads it; the first chunk with an error therefore holds the
//!   first error of the input;
//! - an error found inside that chunk (`error_len` is `Some`) is the
//!   input's error, shifted to the chunk's offset;
//! - a chunk that ends inside a character (`error_len` is `None`) is not
//!   the end of the input: the character is cut short by the next chunk's
//!   first byte, and the sequential validator run from the start of that
//!   character (it stops within 4 bytes) gives the exact error.
//!
//! Where no character start is found within 3 bytes of a cut, the bytes
//! there are continuation bytes that no character can absorb; cutting
//! there anyway is safe by the same argument, since the chunk before it
//! cannot end inside a character.

use rayon::prelude::*;

use crate::bytes::is_continuation;
use crate::error::Utf8Error;

/// Inputs shorter than this are validated on the calling thread: below it,
/// handing work to the pool costs more than it saves: around this length
/// the sequential kernel takes tens of microseconds, and waking the pool's
/// threads costs several (docs/TUNING.md, "Parallel threshold").
pub const THRESHOLD: usize = 1 << 20;

/// The smallest chunk handed to the pool.
const MIN_CHUNK: usize = 256 * 1024;

/// Chunks per pool thread, so that a thread slowed down by other work does
/// not hold up the rest.
const CHUNKS_PER_THREAD: usize = 4;

/// `true` when `bytes` is well-formed UTF-8: [`crate::validate`], spread
/// over the rayon pool for inputs of [`THRESHOLD`] bytes or more.
///
/// ```
/// let text = "Größenwahn ∑ 🚀 ".repeat(100_000); // 2.2 MB
/// assert!(utf8guard::par::validate(text.as_bytes()));
///
/// let mut bytes = text.into_bytes();
/// bytes[1_500_000] = 0xFF;
/// assert!(!utf8guard::par::validate(&bytes));
/// ```
pub fn validate(bytes: &[u8]) -> bool {
    match Plan::for_input(bytes) {
        None => crate::validate::validate(bytes),
        Some(plan) => plan.validate(bytes),
    }
}

/// Converts bytes to a string slice if they are well-formed UTF-8:
/// [`crate::from_utf8`], spread over the rayon pool for inputs of
/// [`THRESHOLD`] bytes or more. The error is the first one, exactly as the
/// sequential [`crate::from_utf8`] reports it.
///
/// ```
/// let text = "Größenwahn ∑ 🚀 ".repeat(100_000);
/// let mut bytes = text.clone().into_bytes();
/// assert_eq!(utf8guard::par::from_utf8(&bytes), Ok(text.as_str()));
///
/// // Two errors: the first one is reported.
/// bytes[1_800_000] = 0xFF;
/// bytes[900_003] = 0xC3; // "ß" (C3 9F) becomes C3 C3: cut short
/// let err = utf8guard::par::from_utf8(&bytes).unwrap_err();
/// assert_eq!(err, utf8guard::from_utf8(&bytes).unwrap_err());
/// assert_eq!((err.valid_up_to(), err.error_len()), (900_002, Some(1)));
/// ```
pub fn from_utf8(bytes: &[u8]) -> Result<&str, Utf8Error> {
    match Plan::for_input(bytes) {
        None => crate::validate::from_utf8(bytes),
        Some(plan) => {
            plan.find_error(bytes)?;
            // SAFETY: every chunk was validated and found to be whole
            // characters, and the chunks cover `bytes` end to end.
            Ok(unsafe { core::str::from_utf8_unchecked(bytes) })
        }
    }
}

/// [`validate`] with chunks of `chunk_len` nominal bytes (at least 4),
/// whatever the input's length: for the benchmark that measures
/// [`THRESHOLD`], and for tests. Not part of the API: no stability promise.
#[doc(hidden)]
pub fn validate_split(bytes: &[u8], chunk_len: usize) -> bool {
    Plan::new(bytes.len(), chunk_len.max(4)).validate(bytes)
}

/// [`from_utf8`]'s error with chunks of `chunk_len` nominal bytes (at least
/// 4), whatever the input's length. Not part of the API: no stability
/// promise.
#[doc(hidden)]
pub fn check_split(bytes: &[u8], chunk_len: usize) -> Result<(), Utf8Error> {
    Plan::new(bytes.len(), chunk_len.max(4)).find_error(bytes)
}

/// How an input is cut: chunk `i` covers the nominal range
/// `i * chunk_len .. (i + 1) * chunk_len`, with both ends moved back to a
/// character start.
#[derive(Clone, Copy, Debug)]
struct Plan {
    len: usize,
    chunk_len: usize,
    count: usize,
    /// The chunks are checked as parts of a long input ([`check_chunk`]).
    far: bool,
}

impl Plan {
    /// The plan for `bytes`, or `None` to stay sequential.
    fn for_input(bytes: &[u8]) -> Option<Plan> {
        if bytes.len() < THRESHOLD {
            return None;
        }
        let threads = rayon::current_num_threads();
        if threads < 2 {
            return None;
        }
        let chunk_len = bytes
            .len()
            .div_ceil(threads * CHUNKS_PER_THREAD)
            .max(MIN_CHUNK);
        Some(Plan::new(bytes.len(), chunk_len))
    }

    /// `chunk_len` must be at least 4, so that moved cuts stay in order.
    fn new(len: usize, chunk_len: usize) -> Plan {
        debug_assert!(chunk_len >= 4);
        #[cfg(target_arch = "x86_64")]
        let far = crate::kernel::lookup::far_input(len);
        #[cfg(not(target_arch = "x86_64"))]
        let far = false;
        Plan {
            len,
            chunk_len,
            count: len.div_ceil(chunk_len).max(1),
            far,
        }
    }

    /// The byte range of chunk `i`.
    fn range(&self, bytes: &[u8], i: usize) -> (usize, usize) {
        let start = self.cut(bytes, i * self.chunk_len);
        let end = if i + 1 == self.count {
            self.len
        } else {
            self.cut(bytes, (i + 1) * self.chunk_len)
        };
        (start, end)
    }

    /// The character start at or at most 3 bytes before `at`; `at` itself
    /// when there is none.
    fn cut(&self, bytes: &[u8], at: usize) -> usize {
        if at >= self.len {
            return self.len;
        }
        (at.saturating_sub(3)..=at)
            .rev()
            .find(|&i| !is_continuation(bytes[i]))
            .unwrap_or(at)
    }

    fn validate(&self, bytes: &[u8]) -> bool {
        (0..self.count).into_par_iter().all(|i| {
            let (start, end) = self.range(bytes, i);
            chunk_is_valid(&bytes[start..end], self.far)
        })
    }

    /// The first error of `bytes`, as the sequential validator reports it.
    fn find_error(&self, bytes: &[u8]) -> Result<(), Utf8Error> {
        let first = (0..self.count).into_par_iter().find_map_first(|i| {
            let (start, end) = self.range(bytes, i);
            check_chunk(&bytes[start..end], self.far)
                .err()
                .map(|error| (start, end, error))
        });
        match first {
            None => Ok(()),
            Some((start, end, error)) => {
                if error.error_len().is_some() || end == self.len {
                    Err(error.shifted(start))
                } else {
                    // The chunk ends inside a character that the next chunk
                    // cuts short: validate on from that character's start;
                    // the error is within its first 4 bytes.
                    let at = start + error.valid_up_to();
                    crate::validate::from_utf8(&bytes[at..])
                        .map(|_| ())
                        .map_err(|error| error.shifted(at))
                }
            }
        }
    }
}

/// [`crate::from_utf8`] of one chunk. Of an input long enough (16 MiB,
/// `kernel::lookup::far_input`), the chunks are checked as a single call
/// on the whole input would check them, whatever their length: their bytes
/// come from beyond the caches as much as the input's. On CPUs without
/// prefetch hints that is with the AVX-512 kernel's shifted look-behind;
/// on the others with the prefetch hints of a long input (see
/// `far_input`). Checked as inputs of their own length, the chunks ran
/// slower in parallel than one core alone (docs/TUNING.md, "Chunks of a
/// long input in par").
fn check_chunk(chunk: &[u8], far: bool) -> Result<(), Utf8Error> {
    #[cfg(target_arch = "x86_64")]
    if far {
        if let Err(offset) = crate::dispatch::run_far(chunk) {
            crate::kernel::locate(chunk, offset)?;
        }
        return Ok(());
    }
    let _ = far;
    crate::validate::from_utf8(chunk).map(drop)
}

/// [`crate::validate`] of one chunk, the same way as [`check_chunk`]
/// (without locating an error).
fn chunk_is_valid(chunk: &[u8], far: bool) -> bool {
    #[cfg(target_arch = "x86_64")]
    if far {
        return crate::dispatch::run_far(chunk).is_ok();
    }
    let _ = far;
    crate::validate::validate(chunk)
}

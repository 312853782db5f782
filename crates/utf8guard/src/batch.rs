//! Validation of many strings at once.
//!
//! Columnar formats (Arrow, Parquet) store a column of strings as one
//! buffer of values and an array of offsets: string `i` is
//! `values[offsets[i]..offsets[i + 1]]`. The offsets are positions in the
//! whole buffer, so a slice of a column (an Arrow array sliced from row
//! 1000 on) has offsets that start past 0. Validating each string on its own
//! pays a call and a setup per string, which for short strings costs more
//! than the check. [`validate_offsets`] instead validates the values once,
//! with the kernels, and then checks that every offset falls on a
//! character boundary, which takes one byte load per string: the strings
//! are all valid exactly when the values are valid and no offset falls
//! inside a character.

use core::fmt;

use crate::bytes::is_continuation;
use crate::error::Utf8Error;

/// An integer type used for offsets into a values buffer: `i32` (Arrow's
/// `Utf8`), `i64` (`LargeUtf8`), `usize`, `u32` and `u64`.
///
/// This trait is sealed: it cannot be implemented outside this crate.
pub trait Offset: Copy + sealed::Sealed {}

mod sealed {
    /// The conversion behind [`Offset`](super::Offset).
    pub trait Sealed {
        /// The offset as an unsigned value, `None` when negative.
        fn to_u64(self) -> Option<u64>;
    }
}

macro_rules! signed_offset {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {
            #[inline(always)]
            fn to_u64(self) -> Option<u64> {
                if self < 0 { None } else { Some(self as u64) }
            }
        }
        impl Offset for $t {}
    )*};
}

macro_rules! unsigned_offset {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {
            #[inline(always)]
            fn to_u64(self) -> Option<u64> {
                Some(self as u64)
            }
        }
        impl Offset for $t {}
    )*};
}

signed_offset!(i32, i64);
unsigned_offset!(u32, u64, usize);

/// Why a batch of strings is rejected: a string that is not UTF-8, or
/// offsets that do not describe strings in the values buffer.
///
/// ```
/// use utf8guard::{validate_offsets, BatchError};
///
/// let values = b"okfine\xFFbad";
/// let err = validate_offsets(values, &[0i32, 2, 6, 10]).unwrap_err();
/// let BatchError::Invalid { index, error } = err else { panic!() };
/// assert_eq!(index, 2); // the third string, b"\xFFbad"
/// assert_eq!((error.valid_up_to(), error.error_len()), (0, Some(1)));
/// assert_eq!(err.to_string(), "string 2 is not valid UTF-8: invalid utf-8 sequence of 1 bytes from index 0");
///
/// assert_eq!(
///     validate_offsets(values, &[0i32, 4, 3]),
///     Err(BatchError::Decreasing { index: 2, offset: 3, previous: 4 })
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BatchError {
    /// String `index` is not UTF-8; `error` is what
    /// [`from_utf8`](crate::from_utf8) reports on that string alone, its
    /// position counted from the string's start. With offsets, a string
    /// that ends inside a character has an error with
    /// [`error_len`](Utf8Error::error_len) `None`.
    Invalid {
        /// The string's index.
        index: usize,
        /// The error within the string.
        error: Utf8Error,
    },
    /// `offsets[index]` is negative.
    Negative {
        /// The index in the offsets.
        index: usize,
    },
    /// `offsets[index]` is smaller than `offsets[index - 1]`.
    Decreasing {
        /// The index in the offsets.
        index: usize,
        /// `offsets[index]`.
        offset: u64,
        /// `offsets[index - 1]`.
        previous: u64,
    },
    /// `offsets[index]` is past the end of the values buffer.
    OutOfRange {
        /// The index in the offsets.
        index: usize,
        /// `offsets[index]`.
        offset: u64,
        /// The length of the values buffer.
        len: usize,
    },
}

impl BatchError {
    /// The index the error is about: of the string for
    /// [`Invalid`](Self::Invalid), of the offset otherwise.
    pub fn index(&self) -> usize {
        match *self {
            BatchError::Invalid { index, .. }
            | BatchError::Negative { index }
            | BatchError::Decreasing { index, .. }
            | BatchError::OutOfRange { index, .. } => index,
        }
    }

    /// The error within the string, for [`Invalid`](Self::Invalid).
    pub fn utf8_error(&self) -> Option<Utf8Error> {
        match *self {
            BatchError::Invalid { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BatchError::Invalid { index, error } => {
                write!(f, "string {index} is not valid UTF-8: {error}")
            }
            BatchError::Negative { index } => write!(f, "offsets[{index}] is negative"),
            BatchError::Decreasing {
                index,
                offset,
                previous,
            } => write!(
                f,
                "offsets[{index}] = {offset} is less than offsets[{}] = {previous}",
                index - 1
            ),
            BatchError::OutOfRange { index, offset, len } => write!(
                f,
                "offsets[{index}] = {offset} is past the end of the values ({len} bytes)"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for BatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BatchError::Invalid { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Validates a column of strings stored Arrow-style: string `i` is
/// `values[offsets[i]..offsets[i + 1]]`.
///
/// `Ok` when `offsets` never decreases, stays within `values`, and every
/// string is UTF-8 (so every offset falls on a character boundary). The
/// offsets are positions in `values` and may start anywhere: the offsets of
/// a sliced Arrow array start where its first row does. An empty `offsets`,
/// or a single offset (an empty Arrow array), describes no strings. Bytes of
/// `values` before the first offset and after the last belong to no string
/// and are not checked; every byte between them is, including those of
/// strings that an Arrow array marks null (Arrow's own validation checks
/// them too, and a `str` over them must be UTF-8 all the same).
///
/// The values are validated in one pass by the kernels, and the offsets in
/// one pass that loads one byte of `values` per offset; the error is the
/// same as validating each string in order with
/// [`from_utf8`](crate::from_utf8) would give, after the offsets are found
/// well formed: offset problems come first, at the lowest index.
///
/// ```
/// use utf8guard::{validate_offsets, BatchError};
///
/// let values = "oneΔύοtrois".as_bytes();
/// assert_eq!(validate_offsets(values, &[0i64, 3, 9, 14]), Ok(()));
/// assert_eq!(validate_offsets::<usize>(values, &[]), Ok(()));
/// // A slice of that column: its last two strings, and no string at all.
/// assert_eq!(validate_offsets(values, &[3i32, 9, 14]), Ok(()));
/// assert_eq!(validate_offsets(values, &[9i32]), Ok(()));
///
/// // An offset inside "Δ" (CE 94): string 0 ends inside a character.
/// let err = validate_offsets(values, &[0i32, 4, 14]).unwrap_err();
/// let error = err.utf8_error().unwrap();
/// assert_eq!(err.index(), 0);
/// assert_eq!((error.valid_up_to(), error.error_len()), (3, None));
///
/// assert_eq!(
///     validate_offsets(values, &[0i32, 3, 99]),
///     Err(BatchError::OutOfRange { index: 2, offset: 99, len: 14 })
/// );
/// // Starting inside "Δ": string 0 starts with a continuation byte.
/// let err = validate_offsets(values, &[4i32, 9]).unwrap_err();
/// assert_eq!(err.index(), 0);
/// assert_eq!(err.utf8_error().unwrap().valid_up_to(), 0);
/// assert_eq!(
///     validate_offsets(values, &[9i32, 3]),
///     Err(BatchError::Decreasing { index: 1, offset: 3, previous: 9 })
/// );
/// assert_eq!(validate_offsets(values, &[0i32, -3]), Err(BatchError::Negative { index: 1 }));
/// ```
pub fn validate_offsets<O: Offset>(values: &[u8], offsets: &[O]) -> Result<(), BatchError> {
    let Some((&first, rest)) = offsets.split_first() else {
        return Ok(());
    };
    // The start of the first string and the end of the last, if both
    // offsets are sound and in order; otherwise some offset is wrong, and
    // the lowest-indexed problem is reported.
    let (start, end) = match (first.to_u64(), offsets[offsets.len() - 1].to_u64()) {
        (Some(first), Some(last)) if first <= last && last <= values.len() as u64 => {
            (first as usize, last as usize)
        }
        _ => return Err(first_offset_problem(values.len(), offsets)),
    };
    let values_len = values.len();
    let values = &values[..end];

    // One pass over the values: the first error, or none before `end`.
    let bad_at = match crate::validate::from_utf8(&values[start..]) {
        Ok(_) => end,
        Err(error) => start + error.valid_up_to(),
    };

    // One pass over the offsets: their order and range, and the first one
    // that falls inside a character within the valid part.
    let end_u64 = end as u64;
    let mut previous = start as u64;
    let mut inside_char: Option<usize> = None;
    for (i, &offset) in rest.iter().enumerate() {
        let index = i + 1;
        let Some(offset) = offset.to_u64() else {
            return Err(BatchError::Negative { index });
        };
        if offset < previous {
            return Err(BatchError::Decreasing {
                index,
                offset,
                previous,
            });
        }
        if offset > end_u64 {
            // Beyond the last offset, so the offsets decrease later; or
            // beyond the values too.
            return Err(first_offset_problem(values_len, offsets));
        }
        // `offset < bad_at <= end`, so the index is in bounds. Within the
        // valid part, a character starts at every byte that is not a
        // continuation byte.
        if (offset as usize) < bad_at
            && inside_char.is_none()
            && is_continuation(values[offset as usize])
        {
            inside_char = Some(index);
        }
        previous = offset;
    }

    // The offsets are sound. The first bad string is either the one that
    // ends inside a character, or the one holding the values' first error
    // (which may be string 0, when its first byte continues a character).
    let at = |i: usize| offsets[i].to_u64().unwrap_or(0) as usize;
    let cut_string = inside_char.map(|i| i - 1);
    let error_string = (bad_at < end).then(|| {
        // The string holding byte `bad_at`: the last offset <= bad_at
        // (which is never the last offset, as bad_at < end).
        offsets.partition_point(|&o| o.to_u64().unwrap_or(0) <= bad_at as u64) - 1
    });
    let (index, from) = match (cut_string, error_string) {
        (None, None) => return Ok(()),
        (None, Some(e)) => (e, bad_at),
        // The cut string ends before `bad_at`, so `e != cut`.
        (Some(cut), Some(e)) if e < cut => (e, bad_at),
        // The string that ends inside a character: its error starts at
        // that character, at most 3 bytes before the string's end.
        (Some(cut), _) => {
            let start = at(cut);
            let string_end = at(cut + 1);
            let lead = (string_end.saturating_sub(3).max(start)..string_end)
                .rev()
                .find(|&i| !is_continuation(values[i]))
                .unwrap_or(start);
            (cut, lead)
        }
    };
    let (start, string_end) = (at(index), at(index + 1));
    // The string is valid up to `from`, a character start; the error is
    // within its first few bytes from there. Should the bytes from `from`
    // be valid after all, validate the whole string: the answer is right
    // either way.
    let error = match crate::validate::from_utf8(&values[from..string_end]) {
        Err(error) => error.shifted(from - start),
        Ok(_) => match crate::validate::from_utf8(&values[start..string_end]) {
            Err(error) => error,
            Ok(_) => return Ok(()),
        },
    };
    Err(BatchError::Invalid { index, error })
}

/// The lowest-indexed problem with `offsets` (negative, decreasing or past
/// the values), if any.
fn offset_problem<O: Offset>(values_len: usize, offsets: &[O]) -> Option<BatchError> {
    let mut previous = 0u64;
    for (index, &offset) in offsets.iter().enumerate() {
        let Some(offset) = offset.to_u64() else {
            return Some(BatchError::Negative { index });
        };
        if offset < previous {
            return Some(BatchError::Decreasing {
                index,
                offset,
                previous,
            });
        }
        if offset > values_len as u64 {
            return Some(BatchError::OutOfRange {
                index,
                offset,
                len: values_len,
            });
        }
        previous = offset;
    }
    None
}

/// The lowest-indexed problem with `offsets`, known to have one.
#[cold]
fn first_offset_problem<O: Offset>(values_len: usize, offsets: &[O]) -> BatchError {
    offset_problem(values_len, offsets)
        .expect("first_offset_problem is called only on offsets with a problem")
}

/// Every string of an Arrow-style column that is not UTF-8, in order, with
/// its error: what [`validate_offsets`] reports first, and all the others.
///
/// The offsets are checked first, as [`validate_offsets`] checks them (any
/// start, never decreasing, within `values`), and an error about them is
/// returned at once. The iterator then costs what [`validate_offsets`]
/// does on a column whose strings are all valid (one pass over the values
/// with the kernels, one byte load per offset) and, for each invalid
/// string, a check of that string alone and a scan from its end to the
/// next error: a column with a few bad rows among millions is found as
/// fast as a valid one.
///
/// ```
/// use utf8guard::{invalid_strings, BatchError, ErrorKind};
///
/// // "ok", "\xFFbad", "fine", "\xE2\x82x", "café"
/// let values = b"ok\xFFbadfine\xE2\x82xcaf\xC3\xA9";
/// let offsets = [0i32, 2, 6, 10, 13, 18];
/// let bad: Vec<_> = invalid_strings(values, &offsets)
///     .unwrap()
///     .map(|(row, e)| (row, e.valid_up_to(), e.error_len(), e.kind()))
///     .collect();
/// assert_eq!(
///     bad,
///     [(1, 0, Some(1), ErrorKind::InvalidByte), (3, 0, Some(2), ErrorKind::TooShort)]
/// );
///
/// // A slice of the column: rows 2 to 4.
/// let bad: Vec<_> = invalid_strings(values, &offsets[2..]).unwrap().map(|(row, _)| row).collect();
/// assert_eq!(bad, [1]);
/// assert_eq!(
///     invalid_strings(values, &[0i32, 30]).err(),
///     Some(BatchError::OutOfRange { index: 1, offset: 30, len: 18 })
/// );
/// ```
pub fn invalid_strings<'a, O: Offset>(
    values: &'a [u8],
    offsets: &'a [O],
) -> Result<InvalidStrings<'a, O>, BatchError> {
    if let Some(problem) = offset_problem(values.len(), offsets) {
        return Err(problem);
    }
    // Every offset is now a valid index into `values` (or its end).
    let (start, end) = match (offsets.first(), offsets.last()) {
        (Some(&first), Some(&last)) => (position(first), position(last)),
        _ => (0, 0),
    };
    let values = &values[..end];
    Ok(InvalidStrings {
        values,
        offsets,
        row: 0,
        bad_at: scan(values, start),
    })
}

/// The iterator of [`invalid_strings`]: `(row, error)` for every string
/// that is not UTF-8, `error` counted from the string's start (what
/// [`from_utf8`](crate::from_utf8) reports on that string alone).
#[derive(Clone, Debug)]
pub struct InvalidStrings<'a, O> {
    /// The values up to the last offset.
    values: &'a [u8],
    /// Checked offsets: in order and within `values`.
    offsets: &'a [O],
    /// The next string to look at.
    row: usize,
    /// The first error of the values from the start of `row` (or from an
    /// earlier string's start): every byte from there up to `bad_at` is
    /// part of a run of whole characters. `values.len()` when none.
    bad_at: usize,
}

impl<O: Offset> Iterator for InvalidStrings<'_, O> {
    type Item = (usize, Utf8Error);

    fn next(&mut self) -> Option<(usize, Utf8Error)> {
        let values = self.values;
        while self.row + 1 < self.offsets.len() {
            let row = self.row;
            self.row += 1;
            let start = position(self.offsets[row]);
            let end = position(self.offsets[row + 1]);
            if start == end {
                continue;
            }
            if end <= self.bad_at {
                // Within a run of whole characters: the string is whole
                // characters too unless one of its ends falls inside one
                // (at `bad_at` a character ends, whatever byte follows).
                let cut = is_continuation(values[start])
                    || (end < self.bad_at && is_continuation(values[end]));
                if !cut {
                    continue;
                }
                match crate::validate::from_utf8(&values[start..end]) {
                    Ok(_) => continue,
                    Err(error) => return Some((row, error)),
                }
            }
            // The string holds the run's error (or starts inside the
            // character that it cuts): check it alone, then find the next
            // error from its end, where the next string starts afresh.
            let result = crate::validate::from_utf8(&values[start..end]);
            self.bad_at = scan(values, end);
            match result {
                Ok(_) => continue,
                Err(error) => return Some((row, error)),
            }
        }
        None
    }
}

/// The position of the first error of `values[from..]`, counted from the
/// start of `values`; `values.len()` when there is none.
fn scan(values: &[u8], from: usize) -> usize {
    match crate::validate::from_utf8(&values[from..]) {
        Ok(_) => values.len(),
        Err(error) => from + error.valid_up_to(),
    }
}

/// A checked offset (not negative, within the values) as a position.
#[inline(always)]
fn position<O: Offset>(offset: O) -> usize {
    offset.to_u64().unwrap_or(0) as usize
}

/// Validates many separate strings: `Ok` when every one is UTF-8, or the
/// first string that is not, as [`BatchError::Invalid`] with its index and
/// the error within it.
///
/// ```
/// use utf8guard::{validate_batch, BatchError};
///
/// let strings: [&[u8]; 3] = [b"alpha", "βήτα".as_bytes(), b"gam\xE3"];
/// let err = validate_batch(&strings).unwrap_err();
/// assert_eq!(err.index(), 2);
/// assert_eq!(err.utf8_error().unwrap().valid_up_to(), 3);
///
/// assert_eq!(validate_batch(&["owned".to_string(), "ok".to_string()]), Ok(()));
/// ```
pub fn validate_batch<S: AsRef<[u8]>>(strings: &[S]) -> Result<(), BatchError> {
    for (index, string) in strings.iter().enumerate() {
        if let Err(error) = crate::validate::from_utf8(string.as_ref()) {
            return Err(BatchError::Invalid { index, error });
        }
    }
    Ok(())
}

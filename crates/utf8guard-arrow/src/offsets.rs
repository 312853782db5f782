//! Arrays of offsets into one values buffer: `Binary`, `LargeBinary`,
//! `Utf8` and `LargeUtf8`.
//!
//! The rows are checked with the engine's batch APIs: the values between
//! the first and the last offset in one pass with the kernels, then one
//! byte load per offset for the character boundaries
//! ([`utf8guard::validate_offsets`]), and, when some rows are bad,
//! [`utf8guard::invalid_strings`] to find every one of them. Rows whose
//! bytes are ASCII skip all that: one vector pass over their bytes and one
//! over their offsets show them good (every ASCII byte is a boundary), and
//! the engine starts at the first row that is not ASCII.

use arrow_array::{Array, GenericBinaryArray, GenericStringArray, OffsetSizeTrait};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use utf8guard::{Replacement, Utf8Error};

use crate::Error;

/// Checks that every row of a `Binary` or `LargeBinary` array is UTF-8;
/// the first row that is not is the error.
///
/// Every row is checked, null or not: the bytes under a null slot become
/// part of a string array's values all the same (Arrow's own checks read
/// them too). Bytes of the values buffer that no row covers (outside a
/// sliced array's rows) are not checked.
///
/// ```
/// use arrow_array::{Array, BinaryArray};
///
/// let array = BinaryArray::from(vec![&b"\xFF"[..], b"fine", "caf\u{e9}".as_bytes()]);
/// let err = utf8guard_arrow::validate_binary(&array).unwrap_err();
/// assert_eq!(err.row(), Some(0));
/// // A slice without the bad row.
/// assert_eq!(utf8guard_arrow::validate_binary(&array.slice(1, 2)), Ok(()));
/// ```
pub fn validate_binary<O: OffsetSizeTrait>(array: &GenericBinaryArray<O>) -> Result<(), Error> {
    check_rows(array.offsets(), array.value_data())
}

/// Checks again that every row of a `Utf8` or `LargeUtf8` array is UTF-8,
/// for arrays from an untrusted source: imported through the C Data
/// Interface, read from IPC with validation skipped, or built with
/// `new_unchecked`. The first row that is not UTF-8 is the error.
///
/// This is what Arrow's `ArrayData::validate_full` checks of the strings
/// (every row, null or not; not the bytes outside the rows of a sliced
/// array), with the kernels instead of `std::str::from_utf8`, and an error
/// that names the row.
///
/// ```
/// use arrow_array::StringArray;
///
/// let array = StringArray::from(vec!["a", "βγ", "δ"]);
/// assert_eq!(utf8guard_arrow::validate_string(&array), Ok(()));
/// ```
pub fn validate_string<O: OffsetSizeTrait>(array: &GenericStringArray<O>) -> Result<(), Error> {
    check_rows(array.offsets(), array.value_data())
}

/// Converts a `Binary` (`LargeBinary`) array into a `Utf8` (`LargeUtf8`)
/// array without copying its values: `Ok` when every row is UTF-8, as
/// [`GenericStringArray::try_from_binary`] would, or the first row that is
/// not.
///
/// The result shares the values buffer, the offsets and the null buffer
/// with `array`. Only for a slice whose first row starts far into the
/// values buffer are the offsets copied (moved down to start at 0), so that
/// the bytes before the slice need not be checked; the values are never
/// copied.
///
/// Unlike `try_from_binary`, bytes of the values buffer that no row covers
/// (outside a slice's rows) do not matter: a slice of good rows converts
/// even when rows outside the slice are not UTF-8.
///
/// ```
/// use arrow_array::{Array, BinaryArray, StringArray};
///
/// let binary = BinaryArray::from(vec![Some(&b"grey"[..]), None, Some("gr\u{e1}".as_bytes())]);
/// let strings: StringArray = utf8guard_arrow::binary_to_string(&binary).unwrap();
/// assert_eq!(strings, StringArray::from(vec![Some("grey"), None, Some("grá")]));
/// // Zero-copy: the same values buffer.
/// assert_eq!(strings.value_data().as_ptr(), binary.value_data().as_ptr());
/// ```
pub fn binary_to_string<O: OffsetSizeTrait>(
    array: &GenericBinaryArray<O>,
) -> Result<GenericStringArray<O>, Error> {
    validate_binary(array)?;
    let (offsets, values, nulls) = array.clone().into_parts();
    Ok(string_array_of_valid_rows(offsets, values, nulls))
}

/// Converts a `Binary` (`LargeBinary`) array into a `Utf8` (`LargeUtf8`)
/// array in which every value that is not UTF-8 becomes null: what Arrow's
/// `cast` from binary to string does with `safe: true`.
///
/// When every row is UTF-8 nothing is copied (as [`binary_to_string`]);
/// otherwise the values are copied once without the bad rows.
///
/// # Panics
/// Only on an array whose offsets break Arrow's layout rules (negative,
/// decreasing or past the values), which only unchecked constructors can
/// make.
///
/// ```
/// use arrow_array::{BinaryArray, StringArray};
///
/// let binary = BinaryArray::from(vec![Some(&b"ok"[..]), Some(b"\xC0\xAF"), None]);
/// assert_eq!(
///     utf8guard_arrow::binary_to_string_or_null(&binary),
///     StringArray::from(vec![Some("ok"), None, None])
/// );
/// ```
pub fn binary_to_string_or_null<O: OffsetSizeTrait>(
    array: &GenericBinaryArray<O>,
) -> GenericStringArray<O> {
    convert_rows(array.offsets(), array.values(), array.nulls(), Fix::Null)
}

/// Converts a `Binary` (`LargeBinary`) array into a `Utf8` (`LargeUtf8`)
/// array in which every value that is not UTF-8 is repaired: each invalid
/// sequence replaced by U+FFFD, exactly as `String::from_utf8_lossy` does
/// on that value alone.
///
/// When every row is UTF-8 nothing is copied (as [`binary_to_string`]);
/// otherwise the values are copied once, with the bad rows repaired. Nulls
/// stay null.
///
/// To repair a `Utf8` array from an untrusted source, convert it to binary
/// first (`GenericBinaryArray::from(strings)`, which copies nothing).
///
/// # Panics
/// On an array whose offsets break Arrow's layout rules (see
/// [`binary_to_string_or_null`]), and when the repaired values no longer
/// fit the offset type (more than 2 GiB for `Utf8`).
///
/// ```
/// use arrow_array::{BinaryArray, StringArray};
///
/// let binary = BinaryArray::from(vec![&b"caf\xC3"[..], b"ok", b"a\xF0\x9F\x98b"]);
/// assert_eq!(
///     utf8guard_arrow::binary_to_string_lossy(&binary),
///     StringArray::from(vec!["caf\u{FFFD}", "ok", "a\u{FFFD}b"])
/// );
/// ```
pub fn binary_to_string_lossy<O: OffsetSizeTrait>(
    array: &GenericBinaryArray<O>,
) -> GenericStringArray<O> {
    binary_to_string_repaired(array, Replacement::MaximalSubpart)
}

/// [`binary_to_string_lossy`] under any repair policy: each value that is
/// not UTF-8 becomes what [`utf8guard::repair`] makes of it under
/// `replacement` (the JDK's decoder, Windows-1252 for mixed files, ...).
/// Zero-copy when every row is UTF-8; nulls stay null.
///
/// # Panics
/// As [`binary_to_string_lossy`].
///
/// ```
/// use arrow_array::{BinaryArray, StringArray};
/// use utf8guard::Replacement;
///
/// let binary = BinaryArray::from(vec![&b"caf\xE9"[..], b"ok", b"\xED\xA0\x80!"]);
/// assert_eq!(
///     utf8guard_arrow::binary_to_string_repaired(&binary, Replacement::Windows1252),
///     StringArray::from(vec!["café", "ok", "í\u{A0}€!"])
/// );
/// assert_eq!(
///     utf8guard_arrow::binary_to_string_repaired(&binary, Replacement::Jvm),
///     StringArray::from(vec!["caf\u{FFFD}", "ok", "\u{FFFD}!"])
/// );
/// ```
pub fn binary_to_string_repaired<O: OffsetSizeTrait>(
    array: &GenericBinaryArray<O>,
    replacement: Replacement,
) -> GenericStringArray<O> {
    convert_rows(
        array.offsets(),
        array.values(),
        array.nulls(),
        Fix::Repair(replacement),
    )
}

/// Every row of an offsets array that is not UTF-8, in order, with the
/// error inside its value.
pub(crate) fn invalid_rows<O: OffsetSizeTrait>(
    offsets: &OffsetBuffer<O>,
    values: &[u8],
) -> Result<Vec<(usize, Utf8Error)>, Error> {
    let bad = match engine_offsets(offsets) {
        EngineOffsets::Small(offsets) => {
            utf8guard::invalid_strings(values, offsets).map(Vec::from_iter)
        }
        EngineOffsets::Large(offsets) => {
            utf8guard::invalid_strings(values, offsets).map(Vec::from_iter)
        }
    };
    bad.map_err(Error::from_batch)
}

/// `validate_offsets` with the error as this crate's, after a fast path
/// for the rows whose bytes are ASCII ([`ascii_rows`]): the engine checks
/// only the rows from the first one that is not.
pub(crate) fn check_rows<O: OffsetSizeTrait>(
    offsets: &OffsetBuffer<O>,
    values: &[u8],
) -> Result<(), Error> {
    let from = ascii_rows(offsets, values);
    if from == Some(offsets.len() - 1) {
        return Ok(());
    }
    let from = from.unwrap_or(0);
    let engine = |from: usize| match engine_offsets(offsets) {
        EngineOffsets::Small(offsets) => utf8guard::validate_offsets(values, &offsets[from..]),
        EngineOffsets::Large(offsets) => utf8guard::validate_offsets(values, &offsets[from..]),
    };
    match engine(from) {
        Ok(()) => Ok(()),
        // Rows before `from` are good: the first bad row is in the rest.
        Err(error) => match error.utf8_error() {
            Some(utf8) => Err(Error::Invalid {
                row: from + error.index(),
                error: utf8,
            }),
            // Broken offsets (only unchecked constructors make them): the
            // whole check again, for the error as it names them.
            None if from > 0 => engine(0).map_err(Error::from_batch),
            None => Err(Error::from_batch(error)),
        },
    }
}

/// How many rows, from the first, are known to be UTF-8 without a look at
/// their boundaries: the offsets up to the returned row's start never
/// decrease and lie inside the values, and the bytes between them are
/// ASCII, so each of these rows is ASCII. All the rows (`offsets.len() -
/// 1`) when all their bytes are ASCII and the offsets sound; `None` when
/// the offsets are not sound.
///
/// One vector pass over the bytes up to the first block that is not ASCII
/// and one over the offsets; the caller checks the rest with the engine.
fn ascii_rows<O: OffsetSizeTrait>(offsets: &OffsetBuffer<O>, values: &[u8]) -> Option<usize> {
    let offsets: &[O] = offsets;
    let rows = offsets.len() - 1;
    let (Some(start), Some(end)) = (offsets[0].to_usize(), offsets[rows].to_usize()) else {
        return None;
    };
    if start > end || end > values.len() {
        return None;
    }
    let ascii_end = start + crate::ascii::ascii_prefix(&values[start..end]);
    let from = if ascii_end == end {
        rows
    } else {
        // The row holding byte `ascii_end`, if the offsets are in order
        // (checked next, with the offsets that lie before it).
        offsets
            .partition_point(|o| o.as_usize() <= ascii_end)
            .saturating_sub(1)
    };
    // Offsets from `start` on that never decrease: each row before `from`
    // lies in `start..offsets[from]`, ASCII when that ends by `ascii_end`.
    let sound = crate::ascii::non_decreasing(&offsets[..=from])
        && offsets[from].to_usize().is_some_and(|o| o <= ascii_end);
    sound.then_some(from)
}

/// An Arrow offset buffer as the engine's batch APIs take it.
enum EngineOffsets<'a> {
    Small(&'a [i32]),
    Large(&'a [i64]),
}

/// The offsets as `i32` or `i64`, which is what `O` is (the only two
/// `OffsetSizeTrait` types), read from the bytes of the buffer (aligned
/// for `O`, so `typed_data` accepts them).
fn engine_offsets<O: OffsetSizeTrait>(offsets: &OffsetBuffer<O>) -> EngineOffsets<'_> {
    let bytes = offsets.inner().inner();
    if O::IS_LARGE {
        EngineOffsets::Large(bytes.typed_data::<i64>())
    } else {
        EngineOffsets::Small(bytes.typed_data::<i32>())
    }
}

/// What becomes of a row that is not UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fix {
    /// A null (with no bytes).
    Null,
    /// Its value repaired under the policy.
    Repair(Replacement),
}

/// A string array of the rows of a binary (or untrusted string) array, bad
/// rows fixed by `fix`: zero-copy when every row is UTF-8.
pub(crate) fn convert_rows<O: OffsetSizeTrait>(
    offsets: &OffsetBuffer<O>,
    values: &Buffer,
    nulls: Option<&NullBuffer>,
    fix: Fix,
) -> GenericStringArray<O> {
    let bad = match check_rows(offsets, values) {
        Ok(()) => {
            return string_array_of_valid_rows(offsets.clone(), values.clone(), nulls.cloned())
        }
        Err(Error::Invalid { .. }) => {
            invalid_rows(offsets, values).expect("the offsets were just accepted")
        }
        Err(error) => panic!("an array with broken offsets: {error}"),
    };
    rebuild(offsets, values, nulls, &bad, fix)
}

/// A string array over `values` whose rows (between `offsets`) are all
/// UTF-8, sharing the buffers.
///
/// `GenericStringArray::new_unchecked` requires that `try_new` would accept
/// its parts, and `try_new` checks the whole values buffer, not only the
/// rows. So the values are cut to the rows: the bytes after the last row
/// are left out by slicing the buffer (no copy); the bytes before the
/// first row are kept when they are few and UTF-8 (checked here), and
/// otherwise left out too, which moves the offsets down by copying them.
pub(crate) fn string_array_of_valid_rows<O: OffsetSizeTrait>(
    offsets: OffsetBuffer<O>,
    values: Buffer,
    nulls: Option<NullBuffer>,
) -> GenericStringArray<O> {
    let first = offsets[0].as_usize();
    let last = offsets[offsets.len() - 1].as_usize();
    // Checking the bytes before the rows costs about what copying the
    // offsets would, when they are no more than the offsets' own size.
    let head_is_cheap = first <= std::mem::size_of_val(&offsets[..]);
    let (offsets, values) =
        if first == 0 || (head_is_cheap && utf8guard::validate(&values[..first])) {
            (offsets, values.slice_with_length(0, last))
        } else {
            let start = offsets[0];
            let moved: ScalarBuffer<O> = offsets.iter().map(|&o| o - start).collect();
            (
                OffsetBuffer::new(moved),
                values.slice_with_length(first, last - first),
            )
        };
    // SAFETY: `new_unchecked` needs what `try_new` checks. (1) The values
    // are UTF-8 as a whole and every offset is a character boundary: the
    // caller checked that every row (`values[offsets[i]..offsets[i + 1]]`)
    // is UTF-8, so the bytes from the first offset to the last are whole
    // characters with a boundary at every offset; the buffer now ends at
    // the last offset, and starts either at the first offset (the offsets
    // moved down with it) or at 0 with `values[..first]` just validated,
    // which ends at a boundary of its own. (2) The offsets are a valid
    // `OffsetBuffer` within the buffer: those of a binary or string array,
    // whose last offset is within its values, or the same moved down by
    // their first, checked again by `OffsetBuffer::new`. (3) The null
    // buffer, if any, is the array's, one bit per row.
    unsafe { GenericStringArray::new_unchecked(offsets, values, nulls) }
}

/// A string array of the rows, with the rows listed in `bad` (in order)
/// fixed: the values are copied once, good rows in runs.
fn rebuild<O: OffsetSizeTrait>(
    offsets: &OffsetBuffer<O>,
    values: &Buffer,
    nulls: Option<&NullBuffer>,
    bad: &[(usize, Utf8Error)],
    fix: Fix,
) -> GenericStringArray<O> {
    let rows = offsets.len() - 1;
    let at = |i: usize| offsets[i].as_usize();
    let mut out_values: Vec<u8> = Vec::with_capacity(at(rows) - at(0) + 3 * bad.len());
    let mut out_offsets: Vec<O> = Vec::with_capacity(rows + 1);
    out_offsets.push(O::usize_as(0));
    let offset_of =
        |len: usize| O::from_usize(len).expect("the repaired values overflow the offset type");

    // Good rows `from..to` in one copy; their offsets moved by a constant.
    let copy_run = |from: usize, to: usize, out_values: &mut Vec<u8>, out_offsets: &mut Vec<O>| {
        if from >= to {
            return;
        }
        let (base, out_start) = (at(from), out_values.len());
        out_values.extend_from_slice(&values[base..at(to)]);
        out_offsets.extend((from + 1..=to).map(|i| offset_of(out_start + (at(i) - base))));
    };

    let mut next = 0;
    for &(row, _) in bad {
        copy_run(next, row, &mut out_values, &mut out_offsets);
        if let Fix::Repair(replacement) = fix {
            let repaired = utf8guard::repair(&values[at(row)..at(row + 1)], replacement);
            out_values.extend_from_slice(repaired.as_bytes());
        }
        out_offsets.push(offset_of(out_values.len()));
        next = row + 1;
    }
    copy_run(next, rows, &mut out_values, &mut out_offsets);

    let nulls = match fix {
        Fix::Repair(_) => nulls.cloned(),
        Fix::Null => crate::nulls_without(nulls, rows, bad),
    };
    let offsets = OffsetBuffer::new(ScalarBuffer::from(out_offsets));
    // SAFETY: `try_new` would accept these parts, as `new_unchecked`
    // requires. The values are the concatenation of the rows, each UTF-8
    // on its own: a good row copied as it was (`bad` lists every row that
    // is not UTF-8), an empty value, or the output of `utf8guard::repair`.
    // So the values are UTF-8 with a character boundary at every offset;
    // the offsets start at 0, never decrease (checked by
    // `OffsetBuffer::new`) and end at the values' length; the null buffer
    // has one bit per row.
    unsafe { GenericStringArray::new_unchecked(offsets, Buffer::from_vec(out_values), nulls) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` rows of 8 ASCII bytes, row `odd` (if any) made `é` and 6
    /// ASCII bytes.
    fn column(count: usize, odd: Option<usize>) -> (OffsetBuffer<i32>, Vec<u8>) {
        let mut values = b"8 bytes!".repeat(count);
        if let Some(row) = odd {
            values[8 * row..8 * row + 2].copy_from_slice("é".as_bytes());
        }
        let offsets = (0..=count as i32).map(|i| 8 * i).collect::<Vec<_>>();
        (OffsetBuffer::new(offsets.into()), values)
    }

    /// The fast path proves exactly the rows before the block (256 bytes)
    /// that holds the first byte that is not ASCII, and all of them in an
    /// ASCII column: no fewer (which would still be right, but slow).
    #[test]
    fn ascii_rows_reach_the_first_block_that_is_not_ascii() {
        let (offsets, values) = column(300, None);
        assert_eq!(ascii_rows(&offsets, &values), Some(300));
        // Byte 8 * 40 = 320 is in the block from 256: row 32 starts there.
        let (offsets, values) = column(300, Some(40));
        assert_eq!(ascii_rows(&offsets, &values), Some(32));
        // Byte 560 is in the block from 512, where row 64 starts.
        let (offsets, values) = column(300, Some(70));
        assert_eq!(ascii_rows(&offsets, &values), Some(64));
        let (offsets, values) = column(300, Some(0));
        assert_eq!(ascii_rows(&offsets, &values), Some(0));
        // A slice: the rows from its first offset.
        let (offsets, values) = column(300, Some(100));
        let sliced = offsets.slice(10, 200);
        // Bytes 80.. : the block from 80 + 512 = 592 holds byte 800, and
        // starts in row 74 of the column, 64 of the slice.
        assert_eq!(ascii_rows(&sliced, &values), Some(64));
        // An empty array.
        assert_eq!(ascii_rows(&OffsetBuffer::<i64>::new_empty(), &[]), Some(0));
    }
}

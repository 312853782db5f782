//! View arrays: `BinaryView` and `Utf8View`.
//!
//! A view is 16 bytes: the value's length, then either the value itself
//! (up to 12 bytes, "inline") or its first 4 bytes, a data buffer's index
//! and the value's offset in that buffer. Arrow checks a `StringViewArray`
//! value by value, one `from_utf8` call per row. Here the rows are checked
//! in bulk. First, the fast path for ASCII columns: one pass over the
//! views tests the bytes of every inline value at once (masked by each
//! value's length) and gathers the range of each data buffer that the
//! other views cover; when all those bytes are ASCII, every view is UTF-8,
//! whatever its boundaries, and nothing more is read. Otherwise, one pass
//! over the views in row order:
//!
//! - Inline values are copied one after the other into a scratch buffer
//!   (a 16-byte store per view, the write position advanced by the value's
//!   length), and the scratch buffer is validated once per few thousand
//!   bytes. The values are all UTF-8 exactly when the concatenation is and
//!   no value starts with a continuation byte (a value that ends inside a
//!   character is followed by a byte that cannot continue it, or by the
//!   end).
//! - Values in data buffers are gathered into runs: a view that starts
//!   where the previous one in the same buffer ended extends the run. A
//!   run is validated once, with a boundary check at every view's start.
//!   An array built by a builder (or read from Parquet) is a run per data
//!   buffer, so each buffer is checked once; a slice checks only the bytes
//!   its rows cover.
//! - When the views come back to a buffer they already left (after a
//!   `filter`, `take` or `interleave`), that buffer is validated as a whole
//!   once, and each of its views needs only its two boundary checks, unless
//!   it reaches past the buffer's first error: only where a buffer holds
//!   bytes that no view covers, and those bytes are not UTF-8, are views
//!   checked one by one.
//!
//! Rows found in a run, a scratch batch or past a buffer's error are then
//! checked alone, which gives each bad row its exact error.

use std::sync::Arc;

use arrow_array::builder::make_view;
use arrow_array::{Array, BinaryViewArray, StringViewArray};
use arrow_buffer::{Buffer, NullBuffer, ScalarBuffer};
use arrow_data::{ByteView, MAX_INLINE_VIEW_LEN};
use utf8guard::{Replacement, Utf8Error};

use crate::offsets::Fix;
use crate::Error;

/// Checks that every row of a `BinaryView` array is UTF-8; the first row
/// that is not is the error.
///
/// Every view is checked, null or not (as Arrow's `to_string_view` does).
///
/// ```
/// use arrow_array::BinaryViewArray;
///
/// let array = BinaryViewArray::from(vec![&b"short"[..], b"a value longer than twelve bytes \xE2\x82"]);
/// let err = utf8guard_arrow::validate_binary_view(&array).unwrap_err();
/// assert_eq!(err.row(), Some(1));
/// assert_eq!(err.utf8_error().unwrap().valid_up_to(), 33);
/// ```
pub fn validate_binary_view(array: &BinaryViewArray) -> Result<(), Error> {
    check_views(array.views(), array.data_buffers())
}

/// Checks again that every row of a `Utf8View` array is UTF-8, for arrays
/// from an untrusted source (the C Data Interface, IPC read with validation
/// skipped, `new_unchecked`). The first row that is not is the error; a
/// view that points outside the data buffers is an [`Error::View`].
///
/// The rest of the view layout (zero padding after inline values, the
/// 4-byte prefix of the others) is Arrow's to check:
/// `ArrayData::validate_full` does.
///
/// ```
/// use arrow_array::StringViewArray;
///
/// let array = StringViewArray::from(vec!["ünïcödé text that is not inline", "ok"]);
/// assert_eq!(utf8guard_arrow::validate_string_view(&array), Ok(()));
/// ```
pub fn validate_string_view(array: &StringViewArray) -> Result<(), Error> {
    check_views(array.views(), array.data_buffers())
}

/// Converts a `BinaryView` array into a `Utf8View` array without copying
/// anything: `Ok` when every row is UTF-8, as
/// `BinaryViewArray::to_string_view` would, or the first row that is not.
///
/// ```
/// use arrow_array::{Array, BinaryViewArray, StringViewArray};
///
/// let binary = BinaryViewArray::from(vec![Some(&b"inline"[..]), None, Some("\u{1F600} in a data buffer".as_bytes())]);
/// let strings = utf8guard_arrow::binary_view_to_string_view(&binary).unwrap();
/// assert_eq!(strings, StringViewArray::from(vec![Some("inline"), None, Some("\u{1F600} in a data buffer")]));
/// assert_eq!(strings.data_buffers()[0].as_ptr(), binary.data_buffers()[0].as_ptr());
/// ```
pub fn binary_view_to_string_view(array: &BinaryViewArray) -> Result<StringViewArray, Error> {
    validate_binary_view(array)?;
    let (views, buffers, nulls) = array.clone().into_parts();
    // SAFETY: `new_unchecked` needs what `try_new` checks: that every
    // view's bytes are UTF-8 (just checked, every view, null or not), and
    // the rest of the layout, the same for a `StringViewArray` as for a
    // `BinaryViewArray` (views that point inside the buffers, prefixes that
    // match, zero padding after inline values, one null bit per row): these
    // parts come from a `BinaryViewArray`, whose constructors check it.
    Ok(unsafe { StringViewArray::new_unchecked(views, buffers, nulls) })
}

/// Converts a `BinaryView` array into a `Utf8View` array in which every
/// value that is not UTF-8 becomes null: what Arrow's `cast` with
/// `safe: true` does.
///
/// The data buffers are always shared, never copied; when some rows are
/// bad, the views are copied once with those rows emptied.
///
/// # Panics
/// Only on an array whose views point outside its buffers, which only
/// unchecked constructors can make.
///
/// ```
/// use arrow_array::{BinaryViewArray, StringViewArray};
///
/// let binary = BinaryViewArray::from(vec![&b"ok"[..], b"\xED\xA0\x80 a surrogate"]);
/// assert_eq!(
///     utf8guard_arrow::binary_view_to_string_view_or_null(&binary),
///     StringViewArray::from(vec![Some("ok"), None])
/// );
/// ```
pub fn binary_view_to_string_view_or_null(array: &BinaryViewArray) -> StringViewArray {
    convert_views(
        array.views(),
        array.data_buffers(),
        array.nulls(),
        Fix::Null,
    )
}

/// Converts a `BinaryView` array into a `Utf8View` array in which every
/// value that is not UTF-8 is repaired: each invalid sequence replaced by
/// U+FFFD, exactly as `String::from_utf8_lossy` does on that value alone.
///
/// The data buffers are always shared; repaired values longer than 12
/// bytes go into one more data buffer. Nulls stay null.
///
/// # Panics
/// On an array whose views point outside its buffers (see
/// [`binary_view_to_string_view_or_null`]), and when the repaired values
/// exceed 4 GiB.
///
/// ```
/// use arrow_array::{BinaryViewArray, StringViewArray};
///
/// let binary = BinaryViewArray::from(vec![&b"\xF0\x9F\x98 cut short"[..], b"fine"]);
/// assert_eq!(
///     utf8guard_arrow::binary_view_to_string_view_lossy(&binary),
///     StringViewArray::from(vec!["\u{FFFD} cut short", "fine"])
/// );
/// ```
pub fn binary_view_to_string_view_lossy(array: &BinaryViewArray) -> StringViewArray {
    binary_view_to_string_view_repaired(array, Replacement::MaximalSubpart)
}

/// [`binary_view_to_string_view_lossy`] under any repair policy: each
/// value that is not UTF-8 becomes what [`utf8guard::repair`] makes of it
/// under `replacement`. Zero-copy when every value is UTF-8; nulls stay
/// null.
///
/// # Panics
/// As [`binary_view_to_string_view_lossy`].
///
/// ```
/// use arrow_array::{BinaryViewArray, StringViewArray};
/// use utf8guard::Replacement;
///
/// let binary = BinaryViewArray::from(vec![&b"a long value, caf\xE9"[..], b"\xF0\x9F\x98"]);
/// assert_eq!(
///     utf8guard_arrow::binary_view_to_string_view_repaired(&binary, Replacement::Backslash),
///     StringViewArray::from(vec!["a long value, caf\\xe9", "\\xf0\\x9f\\x98"])
/// );
/// ```
pub fn binary_view_to_string_view_repaired(
    array: &BinaryViewArray,
    replacement: Replacement,
) -> StringViewArray {
    convert_views(
        array.views(),
        array.data_buffers(),
        array.nulls(),
        Fix::Repair(replacement),
    )
}

/// The first bad row of the views, if any.
pub(crate) fn check_views(views: &[u128], buffers: &[Buffer]) -> Result<(), Error> {
    if ascii_views(views, buffers) {
        return Ok(());
    }
    let mut first: Option<(usize, Utf8Error)> = None;
    scan_views(views, buffers, &mut |row, error| {
        if first.is_none_or(|(r, _)| row < r) {
            first = Some((row, error));
        }
    })?;
    match first {
        None => Ok(()),
        Some((row, error)) => Err(Error::Invalid { row, error }),
    }
}

/// Every row of a view array that is not UTF-8, in order, with the error
/// inside its value.
pub(crate) fn invalid_view_rows(
    views: &[u128],
    buffers: &[Buffer],
) -> Result<Vec<(usize, Utf8Error)>, Error> {
    if ascii_views(views, buffers) {
        return Ok(Vec::new());
    }
    let mut bad = Vec::new();
    scan_views(views, buffers, &mut |row, error| bad.push((row, error)))?;
    bad.sort_unstable_by_key(|&(row, _)| row);
    Ok(bad)
}

/// A `Utf8View` array of the rows of a view array, bad rows fixed by `fix`:
/// zero-copy when every row is UTF-8.
pub(crate) fn convert_views(
    views: &ScalarBuffer<u128>,
    buffers: &[Buffer],
    nulls: Option<&NullBuffer>,
    fix: Fix,
) -> StringViewArray {
    let bad = match invalid_view_rows(views, buffers) {
        Ok(bad) => bad,
        Err(error) => panic!("a view array with broken views: {error}"),
    };
    let mut buffers = buffers.to_vec();
    let mut nulls = nulls.cloned();
    let views = if bad.is_empty() {
        views.clone()
    } else {
        let mut fixed = views.to_vec();
        match fix {
            Fix::Null => {
                for &(row, _) in &bad {
                    fixed[row] = 0;
                }
                nulls = crate::nulls_without(nulls.as_ref(), views.len(), &bad);
            }
            Fix::Repair(replacement) => {
                let extra_index = u32::try_from(buffers.len()).expect("too many data buffers");
                let mut extra: Vec<u8> = Vec::new();
                for &(row, _) in &bad {
                    let len = views[row] as u32;
                    // An inline value is bytes 4.. of its view, which Arrow
                    // lays out little-endian.
                    let inline = views[row].to_le_bytes();
                    let value = if len <= MAX_INLINE_VIEW_LEN {
                        &inline[4..4 + len as usize]
                    } else {
                        // Inside the buffers: checked by `invalid_view_rows`.
                        let v = ByteView::from(views[row]);
                        let start = v.offset as usize;
                        &buffers[v.buffer_index as usize][start..start + len as usize]
                    };
                    let repaired = utf8guard::repair(value, replacement);
                    let repaired = repaired.as_bytes();
                    fixed[row] = if repaired.len() <= MAX_INLINE_VIEW_LEN as usize {
                        make_view(repaired, 0, 0)
                    } else {
                        let offset =
                            u32::try_from(extra.len()).expect("repaired values over 4 GiB");
                        extra.extend_from_slice(repaired);
                        make_view(repaired, extra_index, offset)
                    };
                }
                if !extra.is_empty() {
                    buffers.push(Buffer::from_vec(extra));
                }
            }
        }
        ScalarBuffer::from(fixed)
    };
    // SAFETY: `new_unchecked` needs what `try_new` checks. Every view's
    // bytes are UTF-8: the views that are not were found (every view is
    // checked) and replaced, by the empty inline view 0 or by a view that
    // `make_view` made of a `utf8guard::repair` output. The rest of the
    // layout held for the input, a view array (views that point inside the
    // buffers, matching prefixes, zero padding), still holds for the views
    // kept, holds for those `make_view` made (it writes the prefix and the
    // padding; the long ones point into the buffer added last, inside it),
    // and for the empty view 0; the buffers kept are the same; the null
    // buffer has one bit per view.
    unsafe { StringViewArray::new_unchecked(views, Arc::<[Buffer]>::from(buffers), nulls) }
}

/// Views looked at between two tests of the inline values' high bits.
const ASCII_CHUNK: usize = 1024;

/// The high bit of each of the 12 value bytes of an inline view shifted
/// down by 32 bits (past the length).
const INLINE_HIGH_BITS: u128 = u128::from_le_bytes([0x80; 16]) >> 32;

/// Where the views into one data buffer lie: the smallest start, the
/// largest end, and the bytes they cover (counted with repeats).
#[derive(Clone, Copy, Debug)]
struct Hull {
    start: u64,
    end: u64,
    covered: u64,
}

impl Hull {
    const EMPTY: Hull = Hull {
        start: u64::MAX,
        end: 0,
        covered: 0,
    };

    fn join(self, other: Hull) -> Hull {
        Hull {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
            covered: self.covered + other.covered,
        }
    }
}

/// The fast path for ASCII columns: `true` when every view is shown UTF-8
/// (and inside its buffer) without a look at each value: the bytes of
/// every inline value are ASCII, and in each data buffer the bytes from
/// the first view's start to the last view's end are ASCII (so any range
/// of them is UTF-8). `false` when that does not hold, and the views are to
/// be checked in full ([`scan_views`]), which finds the bad rows with their
/// errors, or the views outside the buffers.
///
/// One pass over the views without a branch per view (the inline values'
/// bytes masked by their length, so that bytes past a value, which no row
/// covers, do not count), then one vector pass per buffer's range. A
/// buffer whose range is much larger than the bytes its views cover (after
/// a `filter` or `take` of a few rows) is not scanned: the full check
/// reads only the covered bytes.
fn ascii_views(views: &[u128], buffers: &[Buffer]) -> bool {
    let mut hulls = vec![Hull::EMPTY; buffers.len()];
    // The buffer of the latest view that is not inline, and its views'
    // hull so far; `usize::MAX` before the first.
    let mut current = usize::MAX;
    let mut hull = Hull::EMPTY;
    let mut flush = |buffer: usize, hull: Hull| match hulls.get_mut(buffer) {
        Some(h) => {
            *h = h.join(hull);
            true
        }
        None => buffer == usize::MAX,
    };
    for chunk in views.chunks(ASCII_CHUNK) {
        let mut high = 0u128;
        for &view in chunk {
            let len = view as u32;
            let inline = len <= MAX_INLINE_VIEW_LEN;
            // The value bytes of an inline view (its bytes 4..4 + len),
            // none of a view into a buffer (whose bytes 4..8 repeat the
            // value's first bytes, which are checked in the buffer).
            let shift = 8 * len.min(MAX_INLINE_VIEW_LEN);
            let keep = if inline { (1u128 << shift) - 1 } else { 0 };
            high |= (view >> 32) & keep;
            // A view into a buffer widens the hull; an inline one leaves
            // it as it is (chosen without a branch).
            let buffer = if inline {
                current
            } else {
                (view >> 64) as u32 as usize
            };
            let start = (view >> 96) as u32 as u64;
            let (start, end, covered) = if inline {
                (hull.start, hull.end, 0)
            } else {
                (start, start + u64::from(len), u64::from(len))
            };
            if buffer != current {
                if !flush(current, hull) {
                    return false;
                }
                current = buffer;
                hull = Hull::EMPTY;
            }
            hull = hull.join(Hull {
                start,
                end,
                covered,
            });
        }
        if high & INLINE_HIGH_BITS != 0 {
            return false;
        }
    }
    if !flush(current, hull) {
        return false;
    }
    hulls.iter().zip(buffers).all(|(hull, data)| {
        if hull.covered == 0 {
            return true;
        }
        let (start, end) = (hull.start as usize, hull.end as usize);
        end <= data.len()
            && hull.end - hull.start <= 2 * hull.covered + 4096
            && crate::ascii::ascii_prefix(&data[start..end]) == end - start
    })
}

/// Bytes of inline values gathered before they are validated together.
const INLINE_BATCH: usize = 4096;

/// What is known of a data buffer.
#[derive(Clone, Copy, Debug)]
enum BufferState {
    /// No view has pointed into it yet.
    Fresh,
    /// A run has been taken from it.
    Visited,
    /// Validated whole: its first error is at `bad_at` (its length when
    /// there is none).
    Whole { bad_at: usize },
}

/// Views in one buffer, each starting where the previous one ended.
#[derive(Clone, Copy, Debug)]
struct Run {
    buffer: usize,
    start: usize,
    end: usize,
    first_row: usize,
    last_row: usize,
    /// A view in the run starts with a continuation byte.
    cut: bool,
}

/// Finds every view whose bytes are not UTF-8 and hands it to `bad` (not
/// in row order); a view that points outside the buffers is an error.
fn scan_views(
    views: &[u128],
    buffers: &[Buffer],
    bad: &mut dyn FnMut(usize, Utf8Error),
) -> Result<(), Error> {
    let mut state = vec![BufferState::Fresh; buffers.len()];
    let mut run: Option<Run> = None;
    // The inline batch: values written from the start, 16 bytes of room.
    let mut batch = vec![0u8; INLINE_BATCH + 16];
    let mut batch_len = 0;
    let mut batch_first_row = 0;
    let mut batch_cut = false;

    for (row, view) in views.iter().enumerate() {
        let len = *view as u32;
        if len <= MAX_INLINE_VIEW_LEN {
            if len == 0 {
                continue;
            }
            if batch_len > INLINE_BATCH {
                flush_inline(
                    views,
                    &batch[..batch_len],
                    batch_first_row..row,
                    batch_cut,
                    bad,
                );
                batch_len = 0;
                batch_cut = false;
            }
            if batch_len == 0 {
                batch_first_row = row;
            }
            batch_cut |= is_continuation((*view >> 32) as u8);
            // A fixed 16-byte copy (the 12 value bytes and 4 more), then
            // the position moves by the value's length only: the next value
            // overwrites what lies past this one.
            batch[batch_len..batch_len + 16].copy_from_slice(&(*view >> 32).to_le_bytes());
            batch_len += len as usize;
            continue;
        }

        let v = ByteView::from(*view);
        let (buffer, start) = (v.buffer_index as usize, v.offset as usize);
        let end = start + len as usize;
        let Some(data) = buffers.get(buffer).filter(|data| end <= data.len()) else {
            return Err(Error::View {
                row,
                buffer: v.buffer_index,
                offset: v.offset,
                len,
            });
        };
        if let Some(r) = &mut run {
            if r.buffer == buffer && r.end == start {
                r.end = end;
                r.last_row = row;
                r.cut |= is_continuation(data[start]);
                continue;
            }
        }
        if let Some(r) = run.take() {
            flush_run(views, buffers, r, bad);
        }
        match state[buffer] {
            BufferState::Fresh => {
                state[buffer] = BufferState::Visited;
                run = Some(Run {
                    buffer,
                    start,
                    end,
                    first_row: row,
                    last_row: row,
                    cut: is_continuation(data[start]),
                });
            }
            BufferState::Visited => {
                let bad_at = first_error(data);
                state[buffer] = BufferState::Whole { bad_at };
                check_in_whole(row, data, start, end, bad_at, bad);
            }
            BufferState::Whole { bad_at } => check_in_whole(row, data, start, end, bad_at, bad),
        }
    }
    if let Some(r) = run {
        flush_run(views, buffers, r, bad);
    }
    flush_inline(
        views,
        &batch[..batch_len],
        batch_first_row..views.len(),
        batch_cut,
        bad,
    );
    Ok(())
}

/// Validates a batch of inline values (those of `rows`, concatenated);
/// when it fails, checks each of them alone.
fn flush_inline(
    views: &[u128],
    batch: &[u8],
    rows: std::ops::Range<usize>,
    cut: bool,
    bad: &mut dyn FnMut(usize, Utf8Error),
) {
    if !cut && utf8guard::validate(batch) {
        return;
    }
    for (row, &view) in rows.clone().zip(&views[rows]) {
        let len = view as u32;
        if (1..=MAX_INLINE_VIEW_LEN).contains(&len) {
            let bytes = view.to_le_bytes();
            if let Err(error) = utf8guard::from_utf8(&bytes[4..4 + len as usize]) {
                bad(row, error);
            }
        }
    }
}

/// Validates a run; when it fails, checks each of its views alone.
fn flush_run(views: &[u128], buffers: &[Buffer], run: Run, bad: &mut dyn FnMut(usize, Utf8Error)) {
    let data = &buffers[run.buffer];
    if !run.cut && utf8guard::validate(&data[run.start..run.end]) {
        return;
    }
    let rows = &views[run.first_row..=run.last_row];
    for (row, &view) in (run.first_row..).zip(rows) {
        let len = view as u32;
        if len <= MAX_INLINE_VIEW_LEN {
            continue;
        }
        // The run's rows: every view in this range that is not inline
        // points into the run's buffer (another buffer would have ended
        // the run), and inside the buffer (checked when it joined).
        let v = ByteView::from(view);
        let start = v.offset as usize;
        if let Err(error) = utf8guard::from_utf8(&data[start..start + len as usize]) {
            bad(row, error);
        }
    }
}

/// Checks a view into a buffer validated whole, whose first error is at
/// `bad_at`.
fn check_in_whole(
    row: usize,
    data: &[u8],
    start: usize,
    end: usize,
    bad_at: usize,
    bad: &mut dyn FnMut(usize, Utf8Error),
) {
    if end <= bad_at {
        // Inside the valid part, made of whole characters: the view is too,
        // unless one of its ends falls inside a character (at `bad_at` a
        // character ends, whatever byte follows).
        let cut = is_continuation(data[start]) || (end < bad_at && is_continuation(data[end]));
        if !cut {
            return;
        }
    }
    if let Err(error) = utf8guard::from_utf8(&data[start..end]) {
        bad(row, error);
    }
}

/// Where a buffer stops being UTF-8 (its length when it does not).
fn first_error(data: &[u8]) -> usize {
    match utf8guard::from_utf8(data) {
        Ok(_) => data.len(),
        Err(error) => error.valid_up_to(),
    }
}

#[inline(always)]
fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows `i` of an ASCII column: inline when `i` is a multiple of 3.
    fn ascii_column(count: usize) -> BinaryViewArray {
        (0..count)
            .map(|i| {
                if i % 3 == 0 {
                    format!("v{i}")
                } else {
                    format!("a value longer than twelve bytes, {i}")
                }
            })
            .map(|s| Some(s.into_bytes()))
            .collect()
    }

    /// The fast path takes ASCII columns whole (no fall back to the full
    /// check, which would still be right, but slow), and only them.
    #[test]
    fn the_fast_path_takes_ascii_columns() {
        let array = ascii_column(5000);
        assert!(array.data_buffers().len() > 1);
        assert!(ascii_views(array.views(), array.data_buffers()));
        let slice = array.slice(100, 3000);
        assert!(ascii_views(slice.views(), slice.data_buffers()));
        assert!(ascii_views(&[], &[]));

        // Bytes past inline values do not count, whatever they are.
        let views: Vec<u128> = (0..3000u32)
            .map(|i| {
                let len = i % 13;
                make_view(&b"abcdefghijkl"[..len as usize], 0, 0)
                    | (!0u128).checked_shl(32 + 8 * len).unwrap_or(0)
            })
            .collect();
        assert!(ascii_views(&views, &[]));

        // One byte that is not ASCII, inline or in a buffer.
        let mut inline = views.clone();
        inline[2500] = make_view("é".as_bytes(), 0, 0);
        assert!(!ascii_views(&inline, &[]));
        let mut rows: Vec<Vec<u8>> = (0..3000).map(|i| format!("v{i}").into_bytes()).collect();
        rows[2999] = "a long value, caf\u{e9}".into();
        let array = BinaryViewArray::from_iter_values(rows);
        assert!(!ascii_views(array.views(), array.data_buffers()));

        // Views outside the buffers are left to the full check.
        let long = b"a value of twenty bytes";
        let buffers = [Buffer::from_vec(long.to_vec())];
        assert!(ascii_views(&[make_view(long, 0, 0)], &buffers));
        assert!(!ascii_views(&[make_view(long, 0, 1)], &buffers));
        assert!(!ascii_views(&[make_view(long, 1, 0)], &buffers));
    }
}

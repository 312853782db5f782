//! The layout of an imported array, checked before anything reads it.
//!
//! The C Data Interface gives each buffer's address, not its length: a
//! reader derives the lengths from the array's length and offset, except
//! for the values buffer of a `binary` or `string` array (and their large
//! forms), whose length it takes from the last offset. An array whose
//! last offset points past its values would have them read past their end,
//! so that length is checked against the buffer's real size where it is
//! known (`Sizes`: the package gives the sizes of a pyarrow object's
//! buffers), and refused where it is not, unless the caller trusts the
//! producer. Then every offset of every array is checked to run forward
//! inside its buffer, every view to point inside its data buffer, every
//! dictionary key inside its dictionary.

use std::collections::HashMap;

use arrow_buffer::{ArrowNativeType, Buffer};
use arrow_data::ArrayData;
use arrow_schema::DataType;

/// What is known of the sizes of an input's buffers.
#[derive(Debug, Default)]
pub(crate) struct Sizes {
    /// The size in bytes of each buffer whose size is known, by address.
    known: HashMap<usize, usize>,
    /// Whether a values buffer of unknown size is taken to be as long as
    /// the last offset says (the producer is trusted).
    trust: bool,
}

impl Sizes {
    pub(crate) fn new(known: HashMap<usize, usize>, trust: bool) -> Sizes {
        Sizes { known, trust }
    }

    /// The size of `buffer`, when it is known.
    fn of(&self, buffer: &Buffer) -> Option<usize> {
        self.known.get(&(buffer.as_ptr() as usize)).copied()
    }
}

/// The binary type of the same layout as a string type (`Utf8` is read as
/// `Binary`, ...); `None` for any other type.
pub(crate) fn binary_of(data_type: &DataType) -> Option<DataType> {
    match data_type {
        DataType::Utf8 => Some(DataType::Binary),
        DataType::LargeUtf8 => Some(DataType::LargeBinary),
        DataType::Utf8View => Some(DataType::BinaryView),
        _ => None,
    }
}

/// Checks `data` and every array inside it (the children, a dictionary's
/// values); the error says where (`place`, then the row) and what.
pub(crate) fn check(data: &ArrayData, sizes: &Sizes, place: &str) -> Result<(), String> {
    let fail = |what: String| {
        if place.is_empty() {
            what
        } else {
            format!("{place}: {what}")
        }
    };
    // The offsets first, for an error that names the row.
    match data.data_type() {
        DataType::Binary | DataType::Utf8 => offsets::<i32>(data, sizes).map_err(fail)?,
        DataType::LargeBinary | DataType::LargeUtf8 => {
            offsets::<i64>(data, sizes).map_err(fail)?;
        }
        _ => {}
    }
    // Every buffer's length against the array's length and offset, the
    // first and last offsets, the children's types and lengths.
    data.validate().map_err(|e| fail(e.to_string()))?;
    if matches!(data.data_type(), DataType::BinaryView | DataType::Utf8View) {
        views(data, sizes).map_err(fail)?;
    }
    // Then arrow-rs's checks of the values, on the binary type for a string
    // array (its UTF-8 is left to the functions): offsets and views again,
    // dictionary keys, union type ids, run ends, the null counts.
    let values = match binary_of(data.data_type()) {
        Some(binary) => data.clone().into_builder().data_type(binary).build(),
        None => data.validate_data().map(|()| data.clone()),
    };
    values.map_err(|e| fail(e.to_string()))?;
    for (index, child) in data.child_data().iter().enumerate() {
        check(child, sizes, &child_place(data.data_type(), index, place))?;
    }
    Ok(())
}

/// Where the child `index` of an array of `data_type` at `place` is.
pub(crate) fn child_place(data_type: &DataType, index: usize, place: &str) -> String {
    let step = match data_type {
        DataType::Struct(fields) => format!("field {:?}", fields[index].name()),
        DataType::Union(fields, _) => match fields.iter().nth(index) {
            Some((_, field)) => format!("field {:?}", field.name()),
            None => format!("child {index}"),
        },
        DataType::Dictionary(..) => "dictionary".to_owned(),
        DataType::RunEndEncoded(..) if index == 0 => "run ends".to_owned(),
        DataType::RunEndEncoded(..) => "run values".to_owned(),
        _ => "list values".to_owned(),
    };
    if place.is_empty() {
        step
    } else {
        format!("{place}, {step}")
    }
}

/// The offsets of a `binary` or `string` array (of offset type `O`): each
/// row's end at or after its start, and inside the values buffer, whose
/// size is the one known for it, or else, trusted, the last offset.
fn offsets<O: ArrowNativeType>(data: &ArrayData, sizes: &Sizes) -> Result<(), String> {
    let rows = data.len();
    if rows == 0 {
        // Nothing of the values is read (and an empty slice may be
        // exported without them).
        return Ok(());
    }
    let [offsets, values] = data.buffers() else {
        return Ok(()); // not the two buffers of the layout: `validate` says so
    };
    let (start, width) = (data.offset(), std::mem::size_of::<O>());
    let whole = start
        .checked_add(rows + 1)
        .and_then(|n| n.checked_mul(width))
        .is_some_and(|bytes| bytes <= offsets.len());
    if !whole || offsets.as_ptr().align_offset(std::mem::align_of::<O>()) != 0 {
        return Ok(()); // too short or misaligned: `validate` says so
    }
    let offsets = &offsets.typed_data::<O>()[start..=start + rows];
    let limit = match sizes.of(values) {
        Some(size) => size,
        // Nothing is read of an empty buffer, whatever its address.
        None if values.is_empty() || sizes.trust => values.len(),
        None => {
            return Err(format!(
                "the values buffer's size is not known (the Arrow C Data Interface does not \
                 carry it, and the last offset, {}, could point past its end); pass a pyarrow \
                 array, or buffer_sizes, or trust_offsets=True to trust the producer",
                values.len()
            ))
        }
    };
    let mut previous = 0;
    for (index, offset) in offsets.iter().enumerate() {
        // A row's start is the offset before its end: offset `index` ends
        // row `index - 1` and starts row `index`.
        let row = index.saturating_sub(1);
        let Some(offset) = offset.to_usize() else {
            return Err(format!(
                "row {row}: offset {index} is negative ({offset:?})"
            ));
        };
        if offset > limit {
            return Err(format!(
                "row {row}: offset {index} ({offset}) is past the end of the values buffer \
                 ({limit} bytes)"
            ));
        }
        if index > 0 && offset < previous {
            return Err(format!(
                "row {row}: offset {index} ({offset}) is before the row's start ({previous})"
            ));
        }
        previous = offset;
    }
    Ok(())
}

/// The views of a `binary_view` or `string_view` array: each value longer
/// than 12 bytes inside a data buffer of the array, whose length is its
/// known size if smaller than the producer's count.
fn views(data: &ArrayData, sizes: &Sizes) -> Result<(), String> {
    let buffers = &data.buffers()[1..];
    let mut lengths = Vec::with_capacity(buffers.len());
    for (index, buffer) in buffers.iter().enumerate() {
        match sizes.of(buffer) {
            Some(size) if size < buffer.len() => {
                return Err(format!(
                    "data buffer {index} is {} bytes by the producer's count, but {size} bytes \
                     long",
                    buffer.len()
                ))
            }
            _ => lengths.push(buffer.len()),
        }
    }
    // `validate` checked the views buffer's length and alignment.
    let views = &data.buffer::<u128>(0)[..data.len()];
    for (row, &view) in views.iter().enumerate() {
        let len = view as u32;
        if len <= 12 {
            continue; // inline: the bytes are in the view
        }
        let index = (view >> 64) as u32;
        let offset = (view >> 96) as u32;
        let end = u64::from(offset) + u64::from(len);
        match lengths.get(index as usize) {
            None => {
                return Err(format!(
                    "row {row}: the view names data buffer {index}, but the array has {}",
                    lengths.len()
                ))
            }
            Some(&size) if end > size as u64 => {
                return Err(format!(
                    "row {row}: the view's {len} bytes at offset {offset} are past the end of \
                     data buffer {index} ({size} bytes)"
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

//! The values of an array that are not UTF-8, at any depth: in a binary or
//! string array, in the fields of a struct, the elements of a list, a
//! dictionary's entries; each found by the path from a row of the array.
//!
//! A null slot's bytes are not read: the Arrow format leaves them
//! unspecified, and Arrow C++ (pyarrow) reads past them in its full
//! validation and in its casts. Each array inside another (a struct's
//! field, a list's values, a dictionary) is read with its own null slots,
//! as that validation reads it.

use std::collections::BTreeMap;

use arrow_array::{make_array, Array, ArrayRef};
use arrow_buffer::ArrowNativeType;
use arrow_data::ArrayData;
use arrow_schema::DataType;
use utf8guard::Utf8Error;

use crate::layout::{binary_of, child_place};

/// A step from a value down to a value inside it.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    /// A struct's field, by its name.
    Field(String),
    /// An element of a list, by its index in the list.
    Element(usize),
}

/// A value that is not UTF-8, below a slot of an array.
#[derive(Clone, Debug)]
pub(crate) struct Bad {
    /// The steps from the slot's value to the bad value.
    pub(crate) path: Vec<Step>,
    /// The entry, when the bad value is a dictionary's (the innermost).
    pub(crate) dictionary: Option<usize>,
    /// Where in the value, and why.
    pub(crate) error: Utf8Error,
}

/// Where the first bad value of an array is.
#[derive(Clone, Debug)]
pub(crate) enum Location {
    /// Below this row.
    Row(usize),
    /// In a dictionary (at this place in the array: `"dictionary"`,
    /// `"field \"x\", dictionary"`, ...) whose entry no row uses.
    Unused(String),
}

/// The first bad value of an array.
#[derive(Clone, Debug)]
pub(crate) struct First {
    pub(crate) location: Location,
    pub(crate) bad: Bad,
}

/// The bad values below the slots of a window of an array.
#[derive(Debug, Default)]
struct Found {
    /// By slot (from the window's start), the first bad value below it.
    slots: BTreeMap<usize, Bad>,
    /// The first bad dictionary entry that no slot uses, and where.
    unused: Option<(String, Bad)>,
}

impl Found {
    fn keep_unused(&mut self, unused: Option<(String, Bad)>) {
        if self.unused.is_none() {
            self.unused = unused;
        }
    }
}

/// Whether values of `data_type` are, or hold, binary or string values.
pub(crate) fn holds_text(data_type: &DataType) -> bool {
    match data_type {
        t if utf8guard_arrow::holds_text(t) => true,
        DataType::Dictionary(_, values) => holds_text(values),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => holds_text(f.data_type()),
        DataType::Struct(fields) => fields.iter().any(|f| holds_text(f.data_type())),
        DataType::Union(fields, _) => fields.iter().any(|(_, f)| holds_text(f.data_type())),
        DataType::RunEndEncoded(_, values) => holds_text(values.data_type()),
        _ => false,
    }
}

/// The first bad value of the rows `start..start + len` of `data` (whose
/// layout was checked), its row counted from `start`: the one below the
/// lowest row, and below it the first in field and element
/// order; else a bad dictionary entry that no row uses. `Err` for a type
/// that holds text where it is not looked for (unions, run-end encoding).
pub(crate) fn first(data: &ArrayData, start: usize, len: usize) -> Result<Option<First>, String> {
    let found = find(data, start, len, "")?;
    Ok(match found.slots.into_iter().next() {
        Some((row, bad)) => Some(First {
            location: Location::Row(row),
            bad,
        }),
        None => found.unused.map(|(place, bad)| First {
            location: Location::Unused(place),
            bad,
        }),
    })
}

/// The bad values of the rows `start..start + len` of `data` (at `place`).
fn find(data: &ArrayData, start: usize, len: usize, place: &str) -> Result<Found, String> {
    if len == 0 || !holds_text(data.data_type()) {
        return Ok(Found::default());
    }
    match data.data_type() {
        t if utf8guard_arrow::holds_text(t) => text(data, start, len),
        DataType::Struct(fields) => {
            let mut found = Found::default();
            for (index, (field, child)) in fields.iter().zip(data.child_data()).enumerate() {
                // A struct's children are indexed as the struct (arrow-rs's
                // `StructArray::from`): its offset applies to them.
                let place = child_place(data.data_type(), index, place);
                let inner = find(child, data.offset() + start, len, &place)?;
                for (slot, mut bad) in inner.slots {
                    bad.path.insert(0, Step::Field(field.name().clone()));
                    // Fields in order: the first field's value stays.
                    found.slots.entry(slot).or_insert(bad);
                }
                found.keep_unused(inner.unused);
            }
            Ok(found)
        }
        DataType::List(_) | DataType::Map(..) => list::<i32>(data, start, len, place),
        DataType::LargeList(_) => list::<i64>(data, start, len, place),
        DataType::ListView(_) => list_view::<i32>(data, start, len, place),
        DataType::LargeListView(_) => list_view::<i64>(data, start, len, place),
        DataType::FixedSizeList(_, size) => {
            let size = usize::try_from(*size).unwrap_or(0);
            let place = child_place(data.data_type(), 0, place);
            let first = (data.offset() + start) * size;
            let inner = find(&data.child_data()[0], first, len * size, &place)?;
            let mut found = Found::default();
            for (index, mut bad) in inner.slots {
                bad.path.insert(0, Step::Element(index % size));
                found.slots.entry(index / size).or_insert(bad);
            }
            found.keep_unused(inner.unused);
            Ok(found)
        }
        DataType::Dictionary(key, _) => dictionary(data, key, start, len, place),
        other => Err(format!(
            "{}{other} holds binary or string values, which are not read inside it yet",
            if place.is_empty() {
                String::new()
            } else {
                format!("{place}: ")
            }
        )),
    }
}

/// The bad values of a binary or string array's rows `start..start + len`,
/// null rows left out.
fn text(data: &ArrayData, start: usize, len: usize) -> Result<Found, String> {
    let array = binary_window(data, start, len)?;
    let bad = match utf8guard_arrow::validate(array.as_ref()) {
        Ok(()) => Vec::new(),
        Err(utf8guard_arrow::Error::Invalid { row, error }) if array.null_count() == 0 => {
            vec![(row, error)]
        }
        // A bad row, and null rows, which may be the bad ones: every bad
        // row, and those that are not null kept.
        Err(utf8guard_arrow::Error::Invalid { .. }) => {
            utf8guard_arrow::invalid_values(array.as_ref()).map_err(|e| e.to_string())?
        }
        Err(other) => return Err(other.to_string()),
    };
    let slots = bad
        .into_iter()
        .filter(|&(row, _)| array.is_valid(row))
        .map(|(row, error)| {
            let bad = Bad {
                path: Vec::new(),
                dictionary: None,
                error,
            };
            (row, bad)
        })
        .collect();
    Ok(Found {
        slots,
        unused: None,
    })
}

/// The rows `start..start + len` of a binary or string array, as the
/// binary array of its layout (whose values need not be UTF-8).
fn binary_window(data: &ArrayData, start: usize, len: usize) -> Result<ArrayRef, String> {
    Ok(make_array(as_binary(data)?).slice(start, len))
}

/// A binary or string array as the binary array of its layout.
pub(crate) fn as_binary(data: &ArrayData) -> Result<ArrayData, String> {
    match binary_of(data.data_type()) {
        // Checked again, as a binary array: its offsets or views.
        Some(binary) => data
            .clone()
            .into_builder()
            .data_type(binary)
            .build()
            .map_err(|e| e.to_string()),
        None => Ok(data.clone()),
    }
}

/// The bad values of a list (or map) array's rows `start..start + len`:
/// each list's elements are its values between its offsets.
fn list<O: ArrowNativeType>(
    data: &ArrayData,
    start: usize,
    len: usize,
    place: &str,
) -> Result<Found, String> {
    // The layout's checks made these `len + 1` offsets run forward inside
    // the values.
    let offsets: Vec<usize> = data.buffer::<O>(0)[start..=start + len]
        .iter()
        .map(|o| o.as_usize())
        .collect();
    let (first, last) = (offsets[0], offsets[len]);
    let place = child_place(data.data_type(), 0, place);
    let inner = find(&data.child_data()[0], first, last - first, &place)?;
    let mut found = Found::default();
    for (index, mut bad) in inner.slots {
        let index = first + index;
        // The list whose values hold `index`: the lists that end at or
        // before it come before it.
        let row = offsets[1..].partition_point(|&end| end <= index);
        bad.path.insert(0, Step::Element(index - offsets[row]));
        found.slots.entry(row).or_insert(bad);
    }
    found.keep_unused(inner.unused);
    Ok(found)
}

/// As `list`, for a list view: each list's elements are the `size` values
/// at its `offset`, anywhere in the values, in any order.
fn list_view<O: ArrowNativeType>(
    data: &ArrayData,
    start: usize,
    len: usize,
    place: &str,
) -> Result<Found, String> {
    let child = &data.child_data()[0];
    let place = child_place(data.data_type(), 0, place);
    let inner = find(child, 0, child.len(), &place)?;
    let mut found = Found::default();
    found.keep_unused(inner.unused);
    if inner.slots.is_empty() {
        return Ok(found);
    }
    let offsets = &data.buffer::<O>(0)[start..start + len];
    let sizes = &data.buffer::<O>(1)[start..start + len];
    for (row, (offset, size)) in offsets.iter().zip(sizes).enumerate() {
        let (offset, size) = (offset.as_usize(), size.as_usize());
        if let Some((&index, bad)) = inner.slots.range(offset..offset + size).next() {
            let mut bad = bad.clone();
            bad.path.insert(0, Step::Element(index - offset));
            found.slots.insert(row, bad);
        }
    }
    Ok(found)
}

/// The bad values of a dictionary array's rows `start..start + len`: the
/// bad entries of its dictionary, below each row whose key names one.
fn dictionary(
    data: &ArrayData,
    key: &DataType,
    start: usize,
    len: usize,
    place: &str,
) -> Result<Found, String> {
    let values = &data.child_data()[0];
    let place = child_place(data.data_type(), 0, place);
    let inner = find(values, 0, values.len(), &place)?;
    let mut found = Found::default();
    if inner.slots.is_empty() {
        found.keep_unused(inner.unused);
        return Ok(found);
    }
    let keys = keys(data, key, start, len);
    let mut used = vec![false; values.len()];
    for (row, entry) in keys.into_iter().enumerate() {
        let Some(entry) = entry else { continue };
        if let Some(bad) = inner.slots.get(&entry) {
            used[entry] = true;
            let mut bad = bad.clone();
            bad.dictionary.get_or_insert(entry);
            found.slots.insert(row, bad);
        }
    }
    let unused = inner.slots.iter().find(|(entry, _)| !used[**entry]);
    found.keep_unused(unused.map(|(&entry, bad)| {
        let mut bad = bad.clone();
        bad.dictionary.get_or_insert(entry);
        (place, bad)
    }));
    found.keep_unused(inner.unused);
    Ok(found)
}

/// The keys of a dictionary array's rows `start..start + len`, `None` for
/// a null row. The layout's checks kept every other key inside the
/// dictionary.
pub(crate) fn keys(
    data: &ArrayData,
    key: &DataType,
    start: usize,
    len: usize,
) -> Vec<Option<usize>> {
    fn read<K: ArrowNativeType>(data: &ArrayData, start: usize, len: usize) -> Vec<Option<usize>> {
        data.buffer::<K>(0)[start..start + len]
            .iter()
            .enumerate()
            .map(|(row, k)| data.is_valid(start + row).then(|| k.as_usize()))
            .collect()
    }
    match key {
        DataType::Int8 => read::<i8>(data, start, len),
        DataType::Int16 => read::<i16>(data, start, len),
        DataType::Int32 => read::<i32>(data, start, len),
        DataType::Int64 => read::<i64>(data, start, len),
        DataType::UInt8 => read::<u8>(data, start, len),
        DataType::UInt16 => read::<u16>(data, start, len),
        DataType::UInt32 => read::<u32>(data, start, len),
        DataType::UInt64 => read::<u64>(data, start, len),
        // Not a key type: arrow-rs's import refuses it.
        _ => vec![None; len],
    }
}

//! The columns of the Arrow and DataFusion benchmarks (`benches/columns.rs`).
//!
//! Each column holds values cut from text at character boundaries, of
//! lengths drawn uniformly from a range: short (8-32 bytes), medium
//! (64-256 bytes) or long (1-4 KiB). ASCII values come from the Latin
//! lipsum corpus, non-ASCII ones from the other lipsum corpora (Arabic,
//! Chinese, emoji, Hebrew, Hindi, Japanese, Korean, Russian); without the
//! corpora, from generated text. A column is plain, has 10% nulls (empty
//! values, as Arrow's builders leave them), or is a slice of a plain one
//! without its first and last thousand rows.
//!
//! ```
//! use utf8guard_bench_columns::{binary_column, Array, Lengths, Pools, Text, Variant};
//!
//! let pools = Pools::generated();
//! let column = binary_column(&pools, Lengths::Short, Text::NonAscii, Variant::Nulls, 1000, 7);
//! assert_eq!(column.len(), 1000);
//! assert!(column.null_count() > 50 && column.null_count() < 150);
//! assert!(column.iter().flatten().all(|v| std::str::from_utf8(v).is_ok()));
//! ```

use std::path::Path;

pub use arrow_array::Array;
use arrow_array::{BinaryArray, BinaryViewArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use utf8guard_bench::inputs::{ascii, lipsum_dir, random_text, Rng};

/// Value lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lengths {
    /// 8 to 32 bytes.
    Short,
    /// 64 to 256 bytes.
    Medium,
    /// 1 to 4 KiB.
    Long,
}

impl Lengths {
    /// All three.
    pub const ALL: [Lengths; 3] = [Lengths::Short, Lengths::Medium, Lengths::Long];

    /// The range of lengths, in bytes.
    pub fn range(self) -> (usize, usize) {
        match self {
            Lengths::Short => (8, 32),
            Lengths::Medium => (64, 256),
            Lengths::Long => (1024, 4096),
        }
    }

    /// The number of values of a column: a million, except long values:
    /// a million of those (2.5 GiB) would pass the 2 GiB that a `Binary`
    /// array's `i32` offsets address, so a quarter of a million (640 MiB).
    pub fn count(self) -> usize {
        match self {
            Lengths::Long => 1 << 18,
            _ => 1_000_000,
        }
    }

    /// `short`, `medium` or `long`.
    pub fn name(self) -> &'static str {
        match self {
            Lengths::Short => "short",
            Lengths::Medium => "medium",
            Lengths::Long => "long",
        }
    }
}

/// The text values are cut from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Text {
    /// ASCII only.
    Ascii,
    /// Scripts other than Latin, and emoji.
    NonAscii,
}

impl Text {
    /// Both.
    pub const ALL: [Text; 2] = [Text::Ascii, Text::NonAscii];

    /// `ascii` or `non-ascii`.
    pub fn name(self) -> &'static str {
        match self {
            Text::Ascii => "ascii",
            Text::NonAscii => "non-ascii",
        }
    }
}

/// How the column is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Every value present.
    Plain,
    /// One value in ten null.
    Nulls,
    /// A slice: the plain column without its first and last 1000 rows.
    Sliced,
}

impl Variant {
    /// All three.
    pub const ALL: [Variant; 3] = [Variant::Plain, Variant::Nulls, Variant::Sliced];

    /// `plain`, `nulls` or `sliced`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Plain => "plain",
            Variant::Nulls => "nulls",
            Variant::Sliced => "sliced",
        }
    }
}

/// The texts values are cut from, and where they came from.
#[derive(Clone, Debug)]
pub struct Pools {
    /// ASCII text.
    pub ascii: Vec<u8>,
    /// Non-ASCII text.
    pub non_ascii: Vec<u8>,
    /// Where the text came from, for the report.
    pub source: String,
}

impl Pools {
    /// The lipsum corpora, or generated text when they are missing.
    pub fn load() -> Pools {
        let dir = lipsum_dir();
        let read = |name: &str| std::fs::read(Path::new(&dir).join(name)).ok();
        let latin = read("Latin-Lipsum.utf8.txt");
        let others: Vec<Vec<u8>> = [
            "Arabic", "Chinese", "Emoji", "Hebrew", "Hindi", "Japanese", "Korean", "Russian",
        ]
        .iter()
        .filter_map(|s| read(&format!("{s}-Lipsum.utf8.txt")))
        .collect();
        match latin {
            Some(latin) if others.len() == 8 => Pools {
                ascii: latin,
                non_ascii: others.concat(),
                source: format!("lipsum corpora ({})", dir.display()),
            },
            _ => Pools {
                source: format!("generated text (no lipsum corpora in {})", dir.display()),
                ..Pools::generated()
            },
        }
    }

    /// Generated text: printable ASCII, and random 1-4-byte characters.
    pub fn generated() -> Pools {
        Pools {
            ascii: ascii(64 << 10, 21),
            non_ascii: random_text(64 << 10, 22),
            source: "generated text".to_string(),
        }
    }

    fn text(&self, text: Text) -> &[u8] {
        match text {
            Text::Ascii => &self.ascii,
            Text::NonAscii => &self.non_ascii,
        }
    }
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// A `Binary` column of `count` values (before slicing) of the given
/// lengths and text, all valid UTF-8.
pub fn binary_column(
    pools: &Pools,
    lengths: Lengths,
    text: Text,
    variant: Variant,
    count: usize,
    seed: u64,
) -> BinaryArray {
    let pool = pools.text(text);
    let (lo, hi) = lengths.range();
    assert!(
        pool.len() > 2 * hi,
        "the text is too short for these values"
    );
    let mut rng = Rng::new(seed);
    let mut values = Vec::with_capacity(count * (lo + hi) / 2);
    let mut offsets = Vec::with_capacity(count + 1);
    offsets.push(0i32);
    let mut valid = Vec::with_capacity(count);
    for _ in 0..count {
        let null = variant == Variant::Nulls && rng.below(10) == 0;
        valid.push(!null);
        if !null {
            let len = lo + rng.below(hi - lo + 1);
            let mut start = rng.below(pool.len() - len);
            while is_continuation(pool[start]) {
                start += 1;
            }
            let mut end = start + len;
            while end < pool.len() && is_continuation(pool[end]) {
                end -= 1;
            }
            values.extend_from_slice(&pool[start..end]);
        }
        offsets.push(i32::try_from(values.len()).expect("a column of less than 2 GiB"));
    }
    let nulls = (variant == Variant::Nulls).then(|| NullBuffer::from(valid));
    let column = BinaryArray::new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Buffer::from_vec(values),
        nulls,
    );
    match variant {
        Variant::Sliced => column.slice(1000, count - 2000),
        _ => column,
    }
}

/// The column with one value in a thousand made invalid: a byte that is
/// never part of UTF-8 (`FF`) put at its end.
pub fn damaged(column: &BinaryArray, seed: u64) -> BinaryArray {
    let mut rng = Rng::new(seed);
    let mut values = Vec::with_capacity(column.value_data().len() + column.len() / 500);
    let mut offsets = vec![0i32];
    for value in column.iter() {
        if let Some(value) = value {
            values.extend_from_slice(value);
            if rng.below(1000) == 0 {
                values.push(0xFF);
            }
        }
        offsets.push(i32::try_from(values.len()).expect("a column of less than 2 GiB"));
    }
    BinaryArray::new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Buffer::from_vec(values),
        column.nulls().cloned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_slices_are_as_named() {
        let pools = Pools::generated();
        for lengths in Lengths::ALL {
            let (lo, hi) = lengths.range();
            for text in Text::ALL {
                let column = binary_column(&pools, lengths, text, Variant::Plain, 3000, 1);
                assert_eq!(column.null_count(), 0);
                for v in column.iter().flatten() {
                    // Cut back to a character boundary: up to 3 bytes short.
                    assert!(v.len() + 3 >= lo && v.len() <= hi, "{} bytes", v.len());
                    assert!(std::str::from_utf8(v).is_ok());
                    assert!(text == Text::NonAscii || v.is_ascii());
                }
                let sliced = binary_column(&pools, lengths, text, Variant::Sliced, 3000, 1);
                assert_eq!(sliced.len(), 1000);
                assert_eq!(sliced.value(0), column.value(1000));
            }
        }
    }

    #[test]
    fn damaged_columns_have_a_few_bad_values() {
        let pools = Pools::generated();
        let column = binary_column(
            &pools,
            Lengths::Short,
            Text::Ascii,
            Variant::Nulls,
            100_000,
            3,
        );
        let bad = damaged(&column, 4);
        let invalid = bad
            .iter()
            .flatten()
            .filter(|v| std::str::from_utf8(v).is_err())
            .count();
        assert!((50..200).contains(&invalid), "{invalid}");
        assert_eq!(bad.null_count(), column.null_count());
    }
}

/// The memory roofline of a `Binary` to `Utf8` conversion: what any check
/// of the column must at least do, one core reading the bytes of its rows
/// (from the first offset to the last) and its offsets once, without
/// testing them (the bytes OR-ed together in vector lanes, the offsets
/// summed). Returns the number of rows, as the conversions' contestants
/// do; the sums go to `black_box`.
pub fn read_column(column: &BinaryArray) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU supports AVX-512BW and AVX-512F, just
            // detected; the function reads only inside the column's buffers.
            return unsafe { read_column_avx512(column) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, just detected.
            return unsafe { read_column_avx2(column) };
        }
    }
    read_column_portable(column)
}

/// [`read_column_portable`] compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn read_column_avx512(column: &BinaryArray) -> u64 {
    read_column_portable(column)
}

/// [`read_column_portable`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn read_column_avx2(column: &BinaryArray) -> u64 {
    read_column_portable(column)
}

#[inline(always)]
fn read_column_portable(column: &BinaryArray) -> u64 {
    let offsets = column.value_offsets();
    let values = &column.value_data()[offsets[0] as usize..offsets[column.len()] as usize];
    let bytes = or_bytes(values);
    let sum = offsets
        .iter()
        .fold(0u32, |acc, &o| acc.wrapping_add(o as u32));
    std::hint::black_box((bytes, sum));
    column.len() as u64
}

/// The memory roofline of a `BinaryView` to `Utf8View` conversion, as
/// [`read_column`]: one core reading the views and the data buffers once
/// (all of each buffer, which in a builder's layout is the values that are
/// not inline), without testing them.
pub fn read_views(views: &BinaryViewArray) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU supports AVX-512BW and AVX-512F, just
            // detected; the function reads only inside the array's buffers.
            return unsafe { read_views_avx512(views) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, just detected.
            return unsafe { read_views_avx2(views) };
        }
    }
    read_views_portable(views)
}

/// [`read_views_portable`] compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn read_views_avx512(views: &BinaryViewArray) -> u64 {
    read_views_portable(views)
}

/// [`read_views_portable`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn read_views_avx2(views: &BinaryViewArray) -> u64 {
    read_views_portable(views)
}

#[inline(always)]
fn read_views_portable(views: &BinaryViewArray) -> u64 {
    let all = or_bytes(views.views().inner().as_slice());
    let bytes = views
        .data_buffers()
        .iter()
        .fold(0u8, |acc, buffer| acc | or_bytes(buffer));
    std::hint::black_box((all, bytes));
    views.len() as u64
}

/// All the bytes OR-ed together: one reduction over the slice, which the
/// compiler vectorises with its accumulators in registers.
#[inline(always)]
fn or_bytes(values: &[u8]) -> u8 {
    values.iter().fold(0u8, |acc, &b| acc | b)
}

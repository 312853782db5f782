//! The lookup algorithm of Keiser and Lemire ("Validating UTF-8 In Less Than
//! One Instruction Per Byte", Software: Practice and Experience, 2021),
//! written once over [`SimdU8`] and instantiated per instruction set.
//!
//! # How it works
//!
//! Every ill-formed pattern of UTF-8 can be seen in at most two adjacent
//! bytes, except for "how many continuation bytes must follow a lead byte",
//! which needs three bytes of look-behind. So for every byte of the input,
//! with `prev1` the byte before it:
//!
//! 1. Three table lookups classify the pair `(prev1, byte)`: one on the high
//!    nibble of `prev1`, one on its low nibble, one on the high nibble of
//!    `byte`. Each table entry is a set of error bits; a bit survives the
//!    `AND` of the three only when all three nibbles agree that the pair is
//!    that error. The error bits are named below ([`TOO_SHORT`] and so on):
//!    each is one family of ill-formed pairs, described by which nibbles
//!    produce it.
//! 2. The [`TWO_CONTS`] bit marks "a continuation byte after a continuation
//!    byte". That is an error unless the byte is the third or fourth of a
//!    sequence, which is known from `prev2 >= 0xE0` or `prev3 >= 0xF0`. So
//!    the result is `special ^ must_be_2_3_continuation`: either one alone
//!    is an error (too many continuation bytes, or too few).
//! 3. A block of 64 bytes with no high bit set is all ASCII and skips the
//!    lookups; it is an error only if the block before it ended inside a
//!    sequence. An input of up to 1 KiB is first scanned for the ASCII
//!    blocks it starts with, before the tables are made: an all-ASCII one
//!    is done with a load and an OR per vector, and one with text further
//!    on is checked from its first block that is not ASCII.
//!
//! ```text
//! for each 64-byte block:
//!     if block is ASCII: error if previous block ended mid-sequence
//!     else for each vector v (with prev1, prev2, prev3: v shifted by 1..3 bytes):
//!         special = T1H[prev1 >> 4] & T1L[prev1 & 15] & T2H[v >> 4]
//!         must23  = (prev2 >= 0xE0 | prev3 >= 0xF0) ? 0x80 : 0
//!         error  |= special ^ must23
//!     stop at the first block with an error
//! ```
//!
//! The bytes before each vector (`prev1`..`prev3`) can be obtained two ways:
//! by shuffling the previous vector into this one (`alignr`; on AVX2 it
//! also needs a lane-crossing permute), or by three more unaligned loads at
//! offsets -1, -2 and -3. Loads use the load ports instead of the shuffle
//! ports that the lookups already saturate; the `LOADS` parameter picks the
//! strategy so both can be measured.
//!
//! # Where the error is
//!
//! The kernels stop at the first block that holds an error and report its
//! offset. Everything before that block was checked, so it is well formed
//! apart from, possibly, a character that the block goes on to finish (or
//! break). `super::locate` runs the scalar DFA from the start of that
//! character, at most three bytes back, to find the exact `valid_up_to`
//! and `error_len`: the prefix is never scanned twice.
//!
//! # No read past the slice
//!
//! The first block is checked in place with the shuffle strategy, shifting
//! zeros in as its look-behind: zeros are ASCII, so the input's start
//! behaves as if it followed ASCII, and nothing before the slice is read.
//! The last, partial, block is checked as the input's last whole block,
//! overlapping bytes already checked (re-checking them is harmless), and
//! an input that ends inside a sequence is caught by looking at its last
//! three bytes. Inputs shorter than a block are checked a vector at a time
//! in place, the last vector overlapping, with the widest vector type that
//! fits in them (down to 16 bytes); only those shorter than 16 bytes (and
//! the tails of the shuffle strategy, which needs the vector before the
//! tail) are copied into a zero-filled stack buffer with three bytes of
//! look-behind, where a zero after an unfinished sequence is an error.

use super::simd::SimdU8;

/// Bytes per block of the main loop.
pub(crate) const BLOCK: usize = 64;
/// Look-behind bytes in the padded buffers.
const PAD: usize = 3;

// The error bits. Each names a family of ill-formed byte pairs
// (prev1, byte); a family is the conjunction of a condition on prev1's high
// nibble, one on prev1's low nibble and one on byte's high nibble.

/// A lead byte (or `C0`..`FF`) followed by something that is not a
/// continuation byte: ASCII or another lead byte.
pub(crate) const TOO_SHORT: u8 = 1 << 0;
/// An ASCII byte followed by a continuation byte.
pub(crate) const TOO_LONG: u8 = 1 << 1;
/// `E0 80..9F`: a 3-byte form of a code point below U+0800.
pub(crate) const OVERLONG_3: u8 = 1 << 2;
/// `F4 90..BF`, or `F5..FF` followed by `90..BF`: above U+10FFFF.
pub(crate) const TOO_LARGE: u8 = 1 << 3;
/// `ED A0..BF`: a UTF-16 surrogate.
pub(crate) const SURROGATE: u8 = 1 << 4;
/// `C0..C1 80..BF`: a 2-byte form of an ASCII code point.
pub(crate) const OVERLONG_2: u8 = 1 << 5;
/// `F5..FF 80..8F`: above U+10FFFF (shares its bit with [`OVERLONG_4`]:
/// the lead bytes differ, so the low-nibble table keeps them apart).
pub(crate) const TOO_LARGE_1000: u8 = 1 << 6;
/// `F0 80..8F`: a 4-byte form of a code point below U+10000.
pub(crate) const OVERLONG_4: u8 = 1 << 6;
/// A continuation byte after a continuation byte: an error unless the
/// byte must be the 3rd or 4th of a sequence (resolved by `must23`).
pub(crate) const TWO_CONTS: u8 = 1 << 7;
/// The bits whose condition on prev1 does not depend on its low nibble.
const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

/// The three nibble tables and the sequence-length rule: everything that
/// makes the algorithm validate one dialect rather than another.
#[derive(Debug)]
pub(crate) struct Rules {
    /// Indexed by the high nibble of the previous byte.
    pub(crate) byte_1_high: [u8; 16],
    /// Indexed by the low nibble of the previous byte.
    pub(crate) byte_1_low: [u8; 16],
    /// Indexed by the high nibble of the current byte.
    pub(crate) byte_2_high: [u8; 16],
}

/// Strict UTF-8 (RFC 3629, Unicode Table 3-7).
pub(crate) const UTF8: Rules = Rules {
    byte_1_high: [
        // 0_______: ASCII
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        // 10______: continuation
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        // 1100____: C0..CF, 2-byte lead (C0, C1 overlong)
        TOO_SHORT | OVERLONG_2,
        // 1101____: D0..DF, 2-byte lead
        TOO_SHORT,
        // 1110____: E0..EF, 3-byte lead
        TOO_SHORT | OVERLONG_3 | SURROGATE,
        // 1111____: F0..FF, 4-byte lead or invalid
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
    ],
    byte_1_low: [
        // ____0000: C0, E0, F0
        CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
        // ____0001: C1
        CARRY | OVERLONG_2,
        // ____001_
        CARRY,
        CARRY,
        // ____0100: F4
        CARRY | TOO_LARGE,
        // ____0101 .. ____1111: F5..FF (and ED at ____1101)
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
    ],
    byte_2_high: [
        // 0_______: ASCII
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        // 1000____: 80..8F
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
        // 1001____: 90..9F
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
        // 101_____: A0..BF
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        // 11______: lead bytes
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
    ],
};

/// Where a sequence would be unfinished: the largest byte value that may
/// stand 3, 2 and 1 bytes before a boundary (`EF`, `DF`, `BF`) at offsets
/// 61, 62 and 63, and `FF` (no limit) everywhere else. A vector loaded at
/// offset `64 - LANES` checks the end of a vector; one loaded at offset 61
/// checks the 3 bytes before a vector loaded 3 bytes early.
static INCOMPLETE_MAX: [u8; 128] = {
    let mut max = [0xFF; 128];
    max[61] = 0xF0 - 1;
    max[62] = 0xE0 - 1;
    max[63] = 0xC0 - 1;
    max
};

/// The rules and constants as vectors, made once per call.
struct Tables<V> {
    byte_1_high: V,
    byte_1_low: V,
    byte_2_high: V,
    low_nibble_mask: V,
    /// `prev2 - 0x60` has its high bit set exactly when `prev2 >= 0xE0`.
    third_byte: V,
    /// `prev3 - 0x70` has its high bit set exactly when `prev3 >= 0xF0`.
    fourth_byte: V,
    high_bit: V,
    /// Non-zero after saturating subtraction in the three lanes before a
    /// boundary when they hold a lead byte whose sequence cannot end before
    /// it: the last three lanes, or with `LOADS` the first three lanes of a
    /// vector loaded 3 bytes before the boundary.
    incomplete_max: V,
}

impl<V: SimdU8> Tables<V> {
    /// # Safety
    /// The CPU must support `V`'s instruction set.
    #[inline(always)]
    unsafe fn new(rules: &Rules, loads: bool) -> Self {
        const { assert!(V::LANES <= BLOCK && BLOCK.is_multiple_of(V::LANES)) };
        let max = if loads {
            INCOMPLETE_MAX[61..61 + V::LANES].as_ptr()
        } else {
            INCOMPLETE_MAX[64 - V::LANES..64].as_ptr()
        };
        // SAFETY: the caller guarantees the instruction set; `max` points
        // to LANES bytes of INCOMPLETE_MAX.
        unsafe {
            Tables {
                byte_1_high: V::table(&rules.byte_1_high),
                byte_1_low: V::table(&rules.byte_1_low),
                byte_2_high: V::table(&rules.byte_2_high),
                low_nibble_mask: V::splat(0x0F),
                third_byte: V::splat(0xE0 - 0x80),
                fourth_byte: V::splat(0xF0 - 0x80),
                high_bit: V::splat(0x80),
                incomplete_max: V::load(max),
            }
        }
    }
}

/// The error bits of one vector, given the three vectors of bytes that
/// precede each of its lanes.
#[inline(always)]
fn check_vector<V: SimdU8>(t: &Tables<V>, input: V, prev1: V, prev2: V, prev3: V) -> V {
    let byte_1_high = prev1.high_nibbles().lookup(t.byte_1_high);
    let byte_1_low = prev1.and(t.low_nibble_mask).lookup(t.byte_1_low);
    let byte_2_high = input.high_nibbles().lookup(t.byte_2_high);
    let special = byte_1_high.and(byte_1_low).and(byte_2_high);
    let must23 = prev2
        .saturating_sub(t.third_byte)
        .or(prev3.saturating_sub(t.fourth_byte))
        .and(t.high_bit);
    special.xor(must23)
}

/// What a block hands to the next one.
struct Carry<V> {
    /// The block's last vector (used by the shuffle strategy only).
    prev: V,
    /// The block ended inside a multi-byte sequence (used by the shuffle
    /// strategy only: with loads, an ASCII block looks 3 bytes back). A
    /// kernel of the load strategy checks its first block with shuffles,
    /// and never reads this value afterwards: the `incomplete_max` of its
    /// tables is laid out for loads, so the value it computes is not
    /// meaningful.
    incomplete: bool,
}

/// What [`check_block`] found.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Error,
    Ascii,
    Mixed,
}

/// Check one 64-byte block.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and `ptr .. ptr + 64` must
/// be valid for reads, and with `LOADS` the 3 bytes before `ptr` too.
#[inline(always)]
unsafe fn check_block<V: SimdU8, const LOADS: bool>(
    ptr: *const u8,
    t: &Tables<V>,
    carry: &mut Carry<V>,
) -> Verdict {
    // SAFETY: 64 bytes from `ptr` are readable (caller).
    let block = unsafe { V::load_block(ptr) };
    // SAFETY: the block, and with `LOADS` the 3 bytes before it, are
    // readable (caller).
    unsafe { check_vectors::<V, LOADS>(ptr, block.as_ref(), &[], t, carry) }
}

/// Check two consecutive 64-byte blocks with one test for errors: in text
/// that is not ASCII, this halves the branches per byte.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and `ptr - 3 .. ptr + 128`
/// must be valid for reads.
#[inline(always)]
unsafe fn check_two_blocks<V: SimdU8, const LOADS: bool>(
    ptr: *const u8,
    t: &Tables<V>,
    carry: &mut Carry<V>,
) -> Verdict {
    // SAFETY: 128 bytes from `ptr` are readable (caller).
    let (first, second) = unsafe { (V::load_block(ptr), V::load_block(ptr.wrapping_add(BLOCK))) };
    // SAFETY: `ptr - 3 .. ptr + 128` is readable (caller).
    unsafe { check_vectors::<V, LOADS>(ptr, first.as_ref(), second.as_ref(), t, carry) }
}

/// Check the vectors of `first` then `second`, the bytes loaded from `ptr`
/// on: whether they hold an error, or are all ASCII.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and the vectors' bytes (and
/// with `LOADS` the 3 bytes before `ptr`) must be valid for reads.
#[inline(always)]
unsafe fn check_vectors<V: SimdU8, const LOADS: bool>(
    ptr: *const u8,
    first: &[V],
    second: &[V],
    t: &Tables<V>,
    carry: &mut Carry<V>,
) -> Verdict {
    let last = *second.last().unwrap_or(&first[first.len() - 1]);
    // Two loops over the two blocks' vectors (arrays of a fixed size, which
    // the compiler unrolls), not one over a chain of them: the compiler
    // keeps a chain as a loop, through a copy of the vectors on the stack,
    // which cost a fifth of the speed on text that is not ASCII.
    let mut any_high = first[0];
    for &v in &first[1..] {
        any_high = any_high.or(v);
    }
    for &v in second {
        any_high = any_high.or(v);
    }
    let verdict = if any_high.is_ascii() {
        let ends_inside = if LOADS {
            // SAFETY: `ptr - 3 .. ptr - 3 + LANES` is readable (caller).
            let behind = unsafe { V::load(ptr.wrapping_sub(3)) };
            behind.saturating_sub(t.incomplete_max).any()
        } else {
            carry.incomplete
        };
        if ends_inside {
            return Verdict::Error;
        }
        Verdict::Ascii
    } else {
        let mut error = first[0].xor(first[0]);
        let mut before = carry.prev;
        for (k, &input) in first.iter().enumerate() {
            // SAFETY: vector `k` is one of the vectors' (caller).
            error = error.or(unsafe { check_at::<V, LOADS>(ptr, k, input, &mut before, t) });
        }
        for (k, &input) in second.iter().enumerate() {
            let k = first.len() + k;
            // SAFETY: as above.
            error = error.or(unsafe { check_at::<V, LOADS>(ptr, k, input, &mut before, t) });
        }
        if error.any() {
            return Verdict::Error;
        }
        if !LOADS {
            carry.incomplete = last.saturating_sub(t.incomplete_max).any();
        }
        Verdict::Mixed
    };
    if !LOADS {
        carry.prev = last;
    }
    verdict
}

/// The error bits of vector `k` of the bytes from `ptr`, `input`; `before`
/// is the vector before it (used by the shuffle strategy only), and becomes
/// `input`.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and
/// `ptr + k * LANES - 3 .. ptr + (k + 1) * LANES` must be valid for reads.
#[inline(always)]
unsafe fn check_at<V: SimdU8, const LOADS: bool>(
    ptr: *const u8,
    k: usize,
    input: V,
    before: &mut V,
    t: &Tables<V>,
) -> V {
    let (prev1, prev2, prev3) = if LOADS {
        let at = ptr.wrapping_add(k * V::LANES);
        // SAFETY: `at - 3 .. at + LANES` is readable (caller).
        unsafe {
            (
                V::load(at.wrapping_sub(1)),
                V::load(at.wrapping_sub(2)),
                V::load(at.wrapping_sub(3)),
            )
        }
    } else {
        (
            input.prev::<1>(*before),
            input.prev::<2>(*before),
            input.prev::<3>(*before),
        )
    };
    *before = input;
    check_vector(t, input, prev1, prev2, prev3)
}

/// Bytes per step in a run of ASCII.
const ASCII_STEP: usize = 4 * BLOCK;

/// `true` when the `N` bytes at `ptr` (a multiple of the vector width) are
/// all ASCII: one test for all of them.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and `ptr .. ptr + N` must be
/// valid for reads.
#[inline(always)]
unsafe fn is_ascii_run<V: SimdU8, const N: usize>(ptr: *const u8) -> bool {
    const { assert!(N >= V::LANES && N.is_multiple_of(V::LANES)) };
    // SAFETY: N bytes from `ptr` are readable (caller).
    let first = unsafe { V::load(ptr) };
    let mut any_high = first;
    for k in 1..N / V::LANES {
        // SAFETY: as above; `k * LANES + LANES <= N`.
        any_high = any_high.or(unsafe { V::load(ptr.wrapping_add(k * V::LANES)) });
    }
    any_high.is_ascii()
}

/// Inputs up to this long go through [`ascii_prefix`] first. Longer ones
/// start with the main loop, whose ASCII steps are faster on long runs
/// (aligned, four blocks a test) but need the tables made first.
const ASCII_SCAN_MAX: usize = 1024;

/// The offset of the first 64-byte block of `bytes` (at a multiple of 64)
/// that is not all ASCII, or of the incomplete block at its end when only
/// that one is not; `None` when every byte is ASCII.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and `bytes` must be at least
/// one block long.
#[inline(always)]
unsafe fn ascii_prefix<V: SimdU8>(bytes: &[u8]) -> Option<usize> {
    let len = bytes.len();
    let mut at = 0;
    while len - at >= BLOCK {
        // SAFETY: `at + BLOCK <= len`; the instruction set (caller).
        if !unsafe { is_ascii_run::<V, BLOCK>(bytes.as_ptr().wrapping_add(at)) } {
            return Some(at);
        }
        at += BLOCK;
    }
    // The last bytes, as the last whole block of the input (`len >= BLOCK`,
    // so it exists; it overlaps bytes found ASCII already).
    // SAFETY: `len - BLOCK .. len` is inside `bytes`; the instruction set.
    if at == len || unsafe { is_ascii_run::<V, BLOCK>(bytes.as_ptr().wrapping_add(len - BLOCK)) } {
        None
    } else {
        Some(at)
    }
}

/// Validate `bytes`. `Err(offset)` names the first block with an error: the
/// bytes before `offset` are well formed except, possibly, for a character
/// that starts less than 4 bytes before `offset` and is unfinished there.
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn validate<V: SimdU8, const LOADS: bool>(
    bytes: &[u8],
    rules: &Rules,
) -> Result<(), usize> {
    let len = bytes.len();
    if len < BLOCK {
        // SAFETY: the caller guarantees the instruction set.
        return unsafe { validate_short::<V, LOADS>(bytes, rules) };
    }
    // A short input is first scanned for the ASCII blocks it starts with,
    // before any table is made: an ASCII input is done then, and one with
    // text further on is checked from its first block that is not ASCII.
    let start = if len <= ASCII_SCAN_MAX {
        // SAFETY: the caller guarantees the instruction set.
        match unsafe { ascii_prefix::<V>(bytes) } {
            None => return Ok(()),
            Some(start) => start,
        }
    } else {
        0
    };
    // SAFETY: the caller guarantees the instruction set.
    let t = unsafe { Tables::<V>::new(rules, LOADS) };
    let zero = t.low_nibble_mask.xor(t.low_nibble_mask);

    // The first block, in place: its look-behind bytes are made by shifting
    // a vector of zeros into its first vector (the shuffle strategy), so
    // nothing before the slice is read, and the start of the input behaves
    // as if it followed ASCII. After an ASCII prefix, the run of ASCII the
    // main loop skips is where the checking starts (the bytes before it
    // being ASCII, zeros stand for them as look-behind).
    let mut carry = Carry {
        prev: zero,
        incomplete: false,
    };
    let (mut verdict, mut pos) = if start == 0 {
        // SAFETY: `len >= BLOCK`; with the shuffle strategy only the
        // block's own bytes are read.
        let verdict = unsafe { check_block::<V, false>(bytes.as_ptr(), &t, &mut carry) };
        if verdict == Verdict::Error {
            return Err(0);
        }
        (verdict, BLOCK)
    } else {
        (Verdict::Ascii, start)
    };
    while len - pos >= BLOCK {
        if verdict == Verdict::Ascii {
            // In a run of ASCII: skip several blocks per step, with one
            // test for all, until a step has a high bit.
            let start = pos;
            // First move to a vector-aligned address, past bytes that one
            // unaligned load shows to be ASCII: aligned loads never span
            // two cache lines, which doubles the speed of wide vectors on
            // ASCII.
            let misaligned = bytes.as_ptr().wrapping_add(pos) as usize % V::LANES;
            if misaligned != 0 && len - pos >= ASCII_STEP + V::LANES {
                // SAFETY: `pos + LANES <= len`: the bytes are in `bytes`.
                if unsafe { V::load(bytes.as_ptr().wrapping_add(pos)) }.is_ascii() {
                    pos += V::LANES - misaligned;
                }
            }
            while len - pos >= ASCII_STEP {
                // SAFETY: `pos + ASCII_STEP <= len`: the bytes are in `bytes`.
                if !unsafe { is_ascii_run::<V, ASCII_STEP>(bytes.as_ptr().wrapping_add(pos)) } {
                    break;
                }
                pos += ASCII_STEP;
            }
            if pos != start && !LOADS {
                // The skipped bytes are ASCII: as look-behind, a vector of
                // zeros stands for them.
                carry.prev = zero;
            }
            if len - pos < BLOCK {
                break;
            }
        }
        let step = if len - pos >= 2 * BLOCK {
            // SAFETY: `pos >= BLOCK >= PAD`, so `pos - PAD .. pos + 2 * BLOCK`
            // is inside `bytes`.
            verdict = unsafe {
                check_two_blocks::<V, LOADS>(bytes.as_ptr().wrapping_add(pos), &t, &mut carry)
            };
            2 * BLOCK
        } else {
            // SAFETY: `pos >= BLOCK >= PAD`, so `pos - PAD .. pos + BLOCK` is
            // inside `bytes`.
            verdict = unsafe {
                check_block::<V, LOADS>(bytes.as_ptr().wrapping_add(pos), &t, &mut carry)
            };
            BLOCK
        };
        if verdict == Verdict::Error {
            return Err(pos);
        }
        pos += step;
    }
    let rest = len - pos;
    if rest > 0 {
        if LOADS && len >= BLOCK + PAD {
            // The tail, as the last whole block of the input: it overlaps
            // bytes already checked, which is harmless, and reads nothing
            // past the end. An error in it lies after `len - BLOCK`, since
            // the bytes before were checked.
            let at = len - BLOCK;
            // SAFETY: `at >= PAD`, so `at - PAD .. at + BLOCK = len` is
            // inside `bytes`.
            if unsafe { check_block::<V, LOADS>(bytes.as_ptr().wrapping_add(at), &t, &mut carry) }
                == Verdict::Error
            {
                return Err(at);
            }
        } else {
            // The tail, with its real look-behind, then zeros: the shuffle
            // strategy needs the vector before the tail in `carry`, which
            // an overlapping block would not have.
            let mut buf = [0u8; PAD + BLOCK];
            buf[..PAD + rest].copy_from_slice(&bytes[pos - PAD..]);
            // SAFETY: `buf` holds PAD look-behind bytes and a whole block
            // after them.
            if unsafe { check_block::<V, LOADS>(buf.as_ptr().wrapping_add(PAD), &t, &mut carry) }
                == Verdict::Error
            {
                return Err(pos);
            }
        }
    }
    if ends_inside_sequence(bytes) {
        // The input ends inside a sequence. (Where zeros follow the input
        // in a padded block this was an error already.)
        return Err(len);
    }
    Ok(())
}

/// Validate an input shorter than a block. From one vector on, its
/// vectors are checked in place: the first with look-behind shifted in from
/// zeros, the others (the last one overlapping its neighbour when the
/// length is not a multiple of the vector) with look-behind loaded from the
/// input. An input shorter than a vector goes to the narrower vector type
/// (`V::Half`), if there is one, and so on down to the narrowest (16
/// bytes): a 20-byte input on the AVX-512 kernel is checked with 16-byte
/// vectors in place, not copied into a buffer for one 64-byte vector.
/// Only an input shorter than the narrowest vector, or one that leaves
/// less than 3 bytes of look-behind to its last vector, goes through a
/// zero-padded buffer. The tables are made for the vector type that does
/// the work.
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[inline(always)]
unsafe fn validate_short<V: SimdU8, const LOADS: bool>(
    bytes: &[u8],
    rules: &Rules,
) -> Result<(), usize> {
    let len = bytes.len();
    debug_assert!(len < BLOCK);
    if len < V::LANES && V::Half::LANES < V::LANES {
        // SAFETY: `V`'s instruction set implies `V::Half`'s (the contract of
        // `SimdU8::Half`), and the caller guarantees `V`'s.
        return unsafe { validate_short::<V::Half, LOADS>(bytes, rules) };
    }
    // SAFETY: the caller guarantees `V`'s instruction set.
    let t = &unsafe { Tables::<V>::new(rules, LOADS) };
    let zero = t.low_nibble_mask.xor(t.low_nibble_mask);
    if len < V::LANES || (len > V::LANES && len < V::LANES + PAD) {
        let mut buf = [0u8; PAD + BLOCK];
        buf[PAD..PAD + len].copy_from_slice(bytes);
        let mut carry = Carry {
            prev: zero,
            incomplete: false,
        };
        // SAFETY: `buf` holds PAD look-behind bytes and a whole block after
        // them. Zeros follow the input, so one that ends inside a sequence
        // is an error.
        return match unsafe {
            check_block::<V, LOADS>(buf.as_ptr().wrapping_add(PAD), t, &mut carry)
        } {
            Verdict::Error => Err(0),
            _ => Ok(()),
        };
    }
    let ptr = bytes.as_ptr();
    // SAFETY: `len >= LANES`: the first vector is inside `bytes`.
    let first = unsafe { V::load(ptr) };
    let mut error = check_vector(
        t,
        first,
        first.prev::<1>(zero),
        first.prev::<2>(zero),
        first.prev::<3>(zero),
    );
    let mut at = V::LANES;
    while at < len {
        // The last vector ends at the end of the input.
        let at_vector = at.min(len - V::LANES);
        let p = ptr.wrapping_add(at_vector);
        // SAFETY: `at_vector + LANES <= len`, and `at_vector >= PAD`: either
        // `at_vector = at >= LANES >= PAD`, or `at_vector = len - LANES`
        // with `len >= LANES + PAD` (shorter inputs took the buffer above).
        // So `p - PAD .. p + LANES` is inside `bytes`.
        let (input, prev1, prev2, prev3) = unsafe {
            (
                V::load(p),
                V::load(p.wrapping_sub(1)),
                V::load(p.wrapping_sub(2)),
                V::load(p.wrapping_sub(3)),
            )
        };
        error = error.or(check_vector(t, input, prev1, prev2, prev3));
        at += V::LANES;
    }
    if error.any() {
        return Err(0);
    }
    if ends_inside_sequence(bytes) {
        return Err(len);
    }
    Ok(())
}

/// `true` when `bytes` ends with a lead byte whose sequence needs more bytes
/// than follow it. Only meaningful for a well-formed prefix.
#[inline(always)]
fn ends_inside_sequence(bytes: &[u8]) -> bool {
    let n = bytes.len();
    (n >= 1 && bytes[n - 1] >= 0xC0)
        || (n >= 2 && bytes[n - 2] >= 0xE0)
        || (n >= 3 && bytes[n - 3] >= 0xF0)
}

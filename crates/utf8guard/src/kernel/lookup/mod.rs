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
//!    is done with a load and an OR per vector (in a function of its own,
//!    with no stack frame), and one with text further on is checked from
//!    its first block that is not ASCII. With 64-byte
//!    vectors that scan loads 32 bytes at a time, and inputs of up to 256
//!    bytes are checked with 32-byte vectors altogether: a 64-byte load at
//!    an offset that is not a multiple of 64 spans two cache lines, and the
//!    first block's lane-crossing shifts cost more than short inputs save.
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
//! That is strict UTF-8. Each dialect of the family is the same loop with
//! its own tables, its own longest sequence (how far back `must23` looks:
//! `prev2`..`prev5`) and a few extra checks, all given by its
//! [`Spec`](super::dialects::Spec) and compiled separately; the
//! [`dialects`](super::dialects) module derives each one from its grammar.
//!
//! The bytes before each vector (`prev1`..`prev3`) can be obtained two ways:
//! by shuffling the previous vector into this one (`alignr`; on AVX2 it
//! also needs a lane-crossing permute), or by three more unaligned loads at
//! offsets -1, -2 and -3. Loads use the load ports instead of the shuffle
//! ports that the lookups already saturate; the `LOADS` parameter picks the
//! strategy. The x86 kernels' blocks load, NEON's and simd128's shuffle;
//! the AVX-512 kernel shuffles on long inputs where the CPU takes no
//! prefetch hints ([`SHUFFLES_FROM`]) and in its straight check of
//! strings; the first block always shuffles (below).
//!
//! # Where the error is
//!
//! The kernels stop at the first block that holds an error and report its
//! offset. Everything before that block was checked, so it is well formed
//! apart from, possibly, a character that the block goes on to finish (or
//! break). `super::locate` backs up to the start of that character, at
//! most three bytes back, and decodes from there with strict UTF-8's
//! `check_character` (not the DFA) to find the exact `valid_up_to` and
//! `error_len`: the prefix is never scanned twice.
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
//! fits in them (down to 16 bytes), or, by the AVX-512 kernel's strict
//! entry point, whole in one masked load, which reads none of the lanes
//! past the input's end and zeroes them; only those shorter than 16 bytes (and
//! the tails of the shuffle strategy, which needs the vector before the
//! tail) are copied into a zero-filled stack buffer with three bytes of
//! look-behind (five for the 6-byte dialects), where a zero after an
//! unfinished sequence is an error. The dialects without `00` fill it with
//! spaces instead.
//!
//! # The files
//!
//! [`rules`]: the tables and the check of one vector. [`blocks`]: the main
//! loop over 64-byte blocks, with its tests for ASCII. [`memory`]: the
//! prefetch hints, and the length from which the look-behind is shifted
//! in. [`short`]: short inputs and strings, checked before or instead of
//! the main loop. Here: the entry points, [`validate`], [`validate_from`]
//! and [`validate_located`].

mod blocks;
mod memory;
mod rules;
mod short;

#[cfg(target_arch = "x86_64")]
pub(crate) use memory::decide as decide_memory;
#[cfg(all(target_arch = "x86_64", feature = "rayon"))]
pub(crate) use memory::far_input;
pub(crate) use memory::memory;
#[cfg(target_arch = "x86_64")]
pub(crate) use memory::{far_stream, force_hints, force_shuffles_from};
pub(crate) use rules::BLOCK;
#[cfg(target_arch = "x86_64")]
pub(crate) use short::{
    apart, takes_pair, valid_pair, valid_straight, valid_whole, ASCII_SCAN_MAX,
};
pub(crate) use short::{ascii_front, validate_short};

use super::dialects::Spec;
use super::simd::SimdU8;
use blocks::validate_blocks;
use short::{is_valid_straight, straight_max, HALF_WIDTH_MAX};

// Named in the documentation only.
#[cfg(doc)]
use blocks::first_flagged;
#[cfg(doc)]
use memory::{REMOTE_FROM, SHUFFLES_FROM};

/// Validate `bytes` as dialect `D`. `Err(offset)` names the first block
/// with an error (for strict UTF-8 with loaded look-behind, past the first
/// block, the byte in it that shows the error: [`first_flagged`]): the
/// bytes before `offset` are well formed except,
/// possibly, for a sequence that starts less than `D::MAX_LEN` bytes before
/// `offset` and is unfinished there (in CESU-8, a surrogate pair, which may
/// start 3 bytes earlier still), or, in a dialect without `00`, a `00` right
/// before `offset`.
///
/// [`ascii_front`] then [`validate_from`]. The strict UTF-8 entry points
/// of the x86 kernels split the same work over three functions
/// (`kernel::x86_entry_points`), so that short strings are done in
/// functions with no frame of saved registers.
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn validate<V: SimdU8, const LOADS: bool, D: Spec>(
    bytes: &[u8],
) -> Result<(), usize> {
    // SAFETY: the caller guarantees the instruction set.
    match unsafe { ascii_front::<V, D>(bytes, BLOCK) } {
        None => Ok(()),
        // SAFETY: as above; `start` is what `ascii_front` returned.
        Some(start) => unsafe { validate_from::<V, LOADS, D>(bytes, start) },
    }
}

/// [`validate`] from `start`, where [`ascii_front`] left off: 0, or the
/// offset of the first block of an input of up to 1 KiB that is not all
/// ASCII, every byte before it being ASCII.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and `start` must be such an
/// offset.
#[inline(always)]
pub(crate) unsafe fn validate_from<V: SimdU8, const LOADS: bool, D: Spec>(
    bytes: &[u8],
    start: usize,
) -> Result<(), usize> {
    let len = bytes.len();
    if len < BLOCK {
        // SAFETY: the caller guarantees the instruction set.
        return unsafe { validate_short::<V, LOADS, D>(bytes) };
    }
    // Strings (up to 1 KiB, or 256 bytes with the 16-byte vectors of
    // SSE4.2): first one test for all their vectors; only on an error, the
    // blocks below, which say where it is.
    let straight = (LOADS || V::SHUFFLED_STRAIGHT) && len <= straight_max::<V>();
    // SAFETY: the caller guarantees the instruction set and `start`;
    // `len >= BLOCK`.
    if straight && unsafe { is_valid_straight::<V, D>(bytes, start) } {
        return Ok(());
    }
    // SAFETY: the caller's contract; `len >= BLOCK`.
    unsafe { validate_located::<V, LOADS, D>(bytes, start, false) }
}

/// [`validate_from`] without the straight check, for an input of at least
/// [`BLOCK`] bytes: the blocks, which say where an error is. `far`: the
/// input is a piece of a longer one checked piece by piece, whose bytes
/// come from as far as the whole input's would: it gets the prefetch hints
/// a single call on an input of [`REMOTE_FROM`] bytes gets, whatever its
/// length ([`validate_blocks`]).
///
/// # Safety
/// As [`validate_from`], and `bytes` must be at least [`BLOCK`] long.
#[inline(always)]
pub(crate) unsafe fn validate_located<V: SimdU8, const LOADS: bool, D: Spec>(
    bytes: &[u8],
    start: usize,
    far: bool,
) -> Result<(), usize> {
    let len = bytes.len();
    if V::LANES == 64 && LOADS && {
        let policy = memory();
        len >= policy.shuffles_from && !policy.hints
    } {
        // A long input, most likely beyond the caches, where the look-behind
        // is shifted in ([`SHUFFLES_FROM`]).
        // SAFETY: the caller's contract; the shuffle strategy reads only
        // the input's bytes (as the first block always does).
        return unsafe { validate_blocks::<V, false, D>(bytes, start, far) };
    }
    if V::LANES > 32 && len <= HALF_WIDTH_MAX {
        // Short inputs, with 32-byte vectors: the 64-byte ones check the
        // first block with lane-crossing shifts, and loads of 64 bytes at
        // offsets that are not multiples of 64 span two cache lines; on
        // strings of up to 256 bytes 32-byte vectors were faster when this
        // loop was the path of valid strings too (docs/TUNING.md, "ASCII
        // front with 32-byte loads"). (It is now that of strings with an
        // error, to say where.)
        // SAFETY: the caller guarantees `V`'s instruction set, which implies
        // `V::Half`'s (the contract of `SimdU8::Half`), and `start`.
        return unsafe { validate_blocks::<V::Half, LOADS, D>(bytes, start, far) };
    }
    // SAFETY: the caller's contract.
    unsafe { validate_blocks::<V, LOADS, D>(bytes, start, far) }
}

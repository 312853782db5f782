//! Short inputs, checked before the main loop or instead of it: the scan
//! of the ASCII blocks an input of up to 1 KiB starts with
//! ([`ascii_front`]), the straight check of strings, all their vectors with
//! one test ([`is_valid_straight`]), the checks the strict entry points
//! make of strings of up to two vectors, and inputs shorter than a block
//! ([`validate_short`]). Valid strings are done here; on an error, the
//! blocks ([`super::blocks`]) say where it is.

use super::blocks::{check_block, is_ascii_run, Carry, Checker, Verdict};
use super::rules::{
    behind, check_end, check_vector, ends_inside_sequence, last_leads, pad_byte, Behind, Tables,
    BLOCK,
};
use crate::kernel::dialects::{Pairs, Spec};
use crate::kernel::simd::SimdU8;

// Named in the documentation only.
#[cfg(doc)]
use super::{blocks::validate_blocks, validate_from};

/// Inputs up to this long go through the block loop with vectors of at
/// most 32 bytes (with AVX-512 only those with an error: valid ones are
/// done by [`is_valid_straight`] with 64-byte vectors), and the straight
/// check of SSE4.2's 16-byte vectors goes up to it ([`straight_max`]).
pub(super) const HALF_WIDTH_MAX: usize = 256;

/// Inputs up to this long are checked straight through first
/// ([`is_valid_straight`]): 1 KiB with 64-byte vectors, whose look-behind
/// is shifted in, and with 32-byte ones, which load it; [`HALF_WIDTH_MAX`]
/// with the 16-byte ones of SSE4.2, 1 KiB with those of WebAssembly
/// ([`SimdU8::SHUFFLED_STRAIGHT`]): one test for all the vectors beats
/// the blocks' loop, which tests each block for ASCII and for errors, on
/// text strings up to those lengths (docs/TUNING.md, "Straight check of
/// strings").
pub(super) const fn straight_max<V: SimdU8>() -> usize {
    if V::LANES >= 32 || V::SHUFFLED_STRAIGHT {
        ASCII_SCAN_MAX
    } else {
        HALF_WIDTH_MAX
    }
}

/// Inputs up to this long go through [`ascii_prefix`] first. Longer ones
/// start with the main loop, whose ASCII steps are faster on long runs
/// (aligned, four blocks a test) but need the tables made first.
pub(crate) const ASCII_SCAN_MAX: usize = 1024;

/// The offset of the first 64-byte block of `bytes` (at a multiple of 64)
/// that is not all ASCII, or of the incomplete block at its end when only
/// that one is not; `None` when every byte is ASCII. (In a dialect without
/// `00`, a block with one counts as not ASCII.)
///
/// # Safety
/// The CPU must support `V`'s instruction set, and `bytes` must be at least
/// one block long.
#[inline(always)]
unsafe fn ascii_prefix<V: SimdU8, D: Spec>(bytes: &[u8]) -> Option<usize> {
    let len = bytes.len();
    let ascii_block = |at: usize| {
        // SAFETY: `at + BLOCK <= len` (each call below); the instruction
        // set (caller).
        unsafe { is_ascii_run::<V, BLOCK, D>(bytes.as_ptr().wrapping_add(at)) }
    };
    if len <= 2 * BLOCK {
        // Up to two blocks: the first, then the last (which overlaps it
        // unless the input is 128 bytes long), without the loop's tests of
        // where it is; text strings leave at the first block either way
        // (docs/TUNING.md, "ASCII front of up to four blocks").
        return if !ascii_block(0) {
            Some(0)
        } else if ascii_block(len - BLOCK) {
            None
        } else {
            Some(BLOCK)
        };
    }
    // Up to four blocks: the first, then the others in one test (the last
    // overlapping the one before unless the length is a multiple of 64),
    // which a string that is all ASCII passes with two branches where the
    // loop below takes two a block; where it fails, the loop looks from
    // the second block on (docs/TUNING.md, "ASCII front of up to four
    // blocks").
    let mut at = 0;
    if len <= 4 * BLOCK {
        if !ascii_block(0) {
            return Some(0);
        }
        let middle = (2 * BLOCK).min(len - BLOCK);
        // `&`, not `&&`: one test for the three blocks.
        if ascii_block(BLOCK) & ascii_block(middle) & ascii_block(len - BLOCK) {
            return None;
        }
        at = BLOCK;
    }
    // Four blocks a round, each with its own exit: a string of up to 256
    // bytes takes no branch back, where a loop of one block a round
    // slowed when its code fell across a 64-byte line (docs/TUNING.md,
    // "ASCII front of up to four blocks").
    let whole = len - len % BLOCK;
    'rounds: loop {
        for _ in 0..4 {
            // `at + BLOCK <= whole <= len`.
            if !ascii_block(at) {
                return Some(at);
            }
            at += BLOCK;
            if at == whole {
                break 'rounds;
            }
        }
    }
    // The last bytes, as the last whole block of the input (`len >= BLOCK`,
    // so it exists; it overlaps bytes found ASCII already).
    if at == len || ascii_block(len - BLOCK) {
        None
    } else {
        Some(at)
    }
}

/// The ASCII blocks a short input starts with, scanned before any table is
/// made: `None` when the input is all ASCII (and, in a dialect without
/// `00`, has none), else where [`validate_from`] takes over. Inputs of
/// `shortest` bytes (at least a block) to 1 KiB are scanned 64 bytes at a
/// time; the others start at 0 (the shorter ones have their own path, the
/// longer the main loop's ASCII steps, which are faster on long runs:
/// aligned, four blocks a test). The strict entry points start above what
/// `validate` tests inline ([`crate::small::SHORT`]).
///
/// The scan loads at most 32 bytes at a time: a 64-byte load at an offset
/// that is not a multiple of 64 spans two cache lines, which makes it
/// slower than two 32-byte loads (docs/TUNING.md, "ASCII front with
/// 32-byte loads").
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn ascii_front<V: SimdU8, D: Spec>(
    bytes: &[u8],
    shortest: usize,
) -> Option<usize> {
    let len = bytes.len();
    debug_assert!(shortest >= BLOCK);
    if !(shortest..=ASCII_SCAN_MAX).contains(&len) {
        return Some(0);
    }
    // SAFETY: the caller guarantees `V`'s instruction set, which implies
    // `V::Half`'s (the contract of `SimdU8::Half`); the input is at least
    // one block long.
    unsafe {
        if V::LANES > 32 {
            ascii_prefix::<V::Half, D>(bytes)
        } else {
            ascii_prefix::<V, D>(bytes)
        }
    }
}

/// `true` when `bytes`, of 64 bytes to [`straight_max`] and not all ASCII
/// (`start` is what [`ascii_front`] returned), is valid by the straight
/// check; `false` when it is longer or shorter, or has an error.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and `start` must be what
/// [`ascii_front`] returned for `bytes`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn valid_straight<V: SimdU8, D: Spec>(bytes: &[u8], start: usize) -> bool {
    // SAFETY: the caller guarantees the instruction set and `start`; the
    // input is at least a block long.
    (BLOCK..=straight_max::<V>()).contains(&bytes.len())
        && unsafe { is_valid_straight::<V, D>(bytes, start) }
}

/// Marks the branch it is called in as the one to lay out apart from the
/// straight line of code, where the compiler would put it first: a call
/// to an empty function marked cold, which the compiler removes after
/// taking the hint.
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(always)]
pub(crate) fn apart() {}

/// `true` for the lengths [`valid_pair`] takes: with vectors of up to 32
/// bytes (64-byte vectors check inputs of up to 64 bytes whole),
/// `LANES + behind` to `2 * LANES`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn takes_pair<V: SimdU8, D: Spec>(len: usize) -> bool {
    V::LANES <= 32 && (V::LANES + behind::<D>()..=2 * V::LANES).contains(&len)
}

/// `true` when `bytes`, of `LANES + behind` to `2 * LANES` bytes (strings
/// of 35 to 64 bytes with 32-byte vectors), is valid: two vectors, the
/// first at the start with look-behind shifted in from zeros, the second
/// at the end (overlapping the first) with look-behind loaded, and one
/// test for both, with no loop and no ASCII scan (inputs of up to
/// [`crate::small::SHORT`] bytes were found not all ASCII inline). The
/// straight check did the same work through a loop, after the range tests
/// of longer strings (and shorter strings now skip those tests on their
/// way to [`validate_short`]); see docs/TUNING.md, "Two vectors for 35 to
/// 64 bytes". `false` on an error, without saying where.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and `bytes` must be of such
/// a length.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn valid_pair<V: SimdU8, D: Spec>(bytes: &[u8]) -> bool {
    let len = bytes.len();
    debug_assert!((V::LANES + behind::<D>()..=2 * V::LANES).contains(&len));
    // SAFETY: the instruction set (caller).
    let t = unsafe { Tables::<V>::new::<D>(true) };
    let first_at = bytes.as_ptr();
    let last_at = bytes.as_ptr().wrapping_add(len - V::LANES);
    // SAFETY: `LANES <= len`: both vectors are inside `bytes`, and the
    // last one starts at `len - LANES >= behind`, so its look-behind is
    // too; the instruction set (caller).
    let (first, last, behind) = unsafe {
        (
            V::load(first_at),
            V::load(last_at),
            Behind::loaded::<D>(last_at),
        )
    };
    let error = check_vector::<V, D>(&t, first, &Behind::shifted::<D>(first, t.fill))
        .or(check_vector::<V, D>(&t, last, &behind));
    // The last vector ends the input: its last lanes against the largest
    // lead each may hold.
    // SAFETY: the instruction set (caller).
    !error
        .or(last.saturating_sub(unsafe { last_leads::<V, D>() }))
        .any()
}

/// An input of 64 to [`straight_max`] bytes checked straight through
/// ([`has_error_in_place`] from `start`): `true` when it is valid. One
/// test for all its vectors, where [`validate_blocks`] tests each block
/// for ASCII and for errors, and, with AVX-512, 64-byte vectors where
/// [`validate_blocks`] takes 32-byte ones up to 256 bytes (docs/TUNING.md,
/// "Straight check of strings"). On an error it says no more than that:
/// [`validate_blocks`] checks the input again to say where.
///
/// # Safety
/// The CPU must support `V`'s instruction set; `bytes` must be at least
/// [`BLOCK`] long, and `start` an offset [`ascii_front`] returned for it.
#[inline(always)]
pub(super) unsafe fn is_valid_straight<V: SimdU8, D: Spec>(bytes: &[u8], start: usize) -> bool {
    let len = bytes.len();
    if len > V::LANES && len < V::LANES + behind::<D>() {
        // Its last vector would overlap the first by less than the
        // look-behind, which would then start before the input: with
        // 64-byte vectors, 65 to 68 bytes take the narrower ones.
        // SAFETY: `V`'s instruction set implies `V::Half`'s (the contract
        // of `SimdU8::Half`); `len >= BLOCK >= 2 * V::Half::LANES`, which
        // is at least `V::Half::LANES + behind`.
        return unsafe { is_valid_straight::<V::Half, D>(bytes, start) };
    }
    // The ASCII front leaves at least one byte to check after `start`; a
    // start less than a vector from the end moves back to the last vector
    // (over bytes that are ASCII).
    let start = start.min(len - V::LANES);
    // SAFETY: the instruction set (caller).
    let t = unsafe { Tables::<V>::new::<D>(true) };
    // SAFETY: the instruction set (caller); `start + LANES <= len`, and
    // `len` is `LANES` or at least `LANES + behind` (above); the bytes
    // before `start` are ASCII and, in a dialect without `00`, not `00`
    // (what `ascii_front` found).
    unsafe { valid_in_place::<V, D>(&t, bytes, start) }
}

/// `true` when `input`, a whole input of at most `LANES` bytes followed by
/// zeros ([`SimdU8::load_whole`]), is valid. The zeros after an input
/// shorter than a vector end any sequence it leaves unfinished, which the
/// checks then flag; for an input of exactly `LANES` bytes its last lanes
/// are checked against the largest lead each may hold.
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn valid_whole<V: SimdU8, D: Spec>(input: V) -> bool {
    const { assert!(!D::NO_NUL && !matches!(D::PAIRS, Pairs::Required)) };
    // SAFETY: the instruction set (caller).
    let t = unsafe { Tables::<V>::new::<D>(true) };
    let error = check_vector::<V, D>(&t, input, &Behind::shifted::<D>(input, t.fill));
    // SAFETY: the instruction set (caller).
    !error
        .or(input.saturating_sub(unsafe { last_leads::<V, D>() }))
        .any()
}

/// `true` when `bytes[start..]` is valid: [`has_error_in_place`] finds no
/// error, and the input does not end inside a sequence (asked of its last
/// vector with one saturating subtraction, where the dialect's pair rule
/// does not need the scalar [`check_end`]) or, in a dialect without `00`,
/// with one.
///
/// # Safety
/// As [`has_error_in_place`].
#[inline(always)]
unsafe fn valid_in_place<V: SimdU8, D: Spec>(t: &Tables<V>, bytes: &[u8], start: usize) -> bool {
    if D::PAIRS == Pairs::Required {
        // SAFETY: the caller's contract.
        return !unsafe { has_error_in_place::<V, D, false>(t, bytes, start) }
            && check_end::<D>(bytes).is_ok();
    }
    let ends_with_nul = D::NO_NUL && bytes.last() == Some(&0);
    // SAFETY: the caller's contract.
    !ends_with_nul && !unsafe { has_error_in_place::<V, D, true>(t, bytes, start) }
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
/// less than the dialect's look-behind to its last vector, goes through a
/// padded buffer. The tables are made for the vector type that does the
/// work.
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn validate_short<V: SimdU8, const LOADS: bool, D: Spec>(
    bytes: &[u8],
) -> Result<(), usize> {
    let pad = behind::<D>();
    let len = bytes.len();
    debug_assert!(len < BLOCK);
    if len < V::LANES && V::Half::LANES < V::LANES {
        // SAFETY: `V`'s instruction set implies `V::Half`'s (the contract of
        // `SimdU8::Half`), and the caller guarantees `V`'s.
        return unsafe { validate_short::<V::Half, LOADS, D>(bytes) };
    }
    // SAFETY: the caller guarantees `V`'s instruction set.
    let mut c = unsafe { Checker::<V>::new::<D>(LOADS) };
    let t = &c.t;
    if len < V::LANES || (len > V::LANES && len < V::LANES + pad) {
        let mut buf = [pad_byte::<D>(); 5 + BLOCK];
        buf[5..5 + len].copy_from_slice(bytes);
        let mut carry = Carry::after_ascii(t);
        // SAFETY: `buf` holds 5 look-behind bytes and a whole block after
        // them. Padding follows the input, so one that ends inside a
        // sequence is an error, except a CESU-8 lead surrogate that ends
        // within 3 bytes of the block's end: the trail it needs would be
        // checked in the next block.
        return match unsafe {
            check_block::<V, LOADS, D>(buf.as_ptr().wrapping_add(5), &mut c, &mut carry)
        } {
            Verdict::Error => Err(0),
            _ if D::PAIRS == Pairs::Required && ends_inside_sequence::<D>(bytes) => Err(len),
            _ => Ok(()),
        };
    }
    // SAFETY: the instruction set (caller); `len >= LANES`, and an input
    // longer than one vector is at least `LANES + pad` long (shorter ones
    // took the buffer above).
    if D::PAIRS != Pairs::Required {
        // An error, or an end inside a sequence: `Err(0)` says no more
        // than that (the caller's automaton finds which, in under a block).
        // SAFETY: as above.
        return if unsafe { valid_in_place::<V, D>(t, bytes, 0) } {
            Ok(())
        } else {
            Err(0)
        };
    }
    // SAFETY: as above.
    if unsafe { has_error_in_place::<V, D, false>(t, bytes, 0) } {
        return Err(0);
    }
    check_end::<D>(bytes)
}

/// `true` when the checks flag a byte of `bytes[start..]`, checked in
/// place one vector after another with one test at the end: the first
/// vector with look-behind shifted in from `t.fill` (the bytes before
/// `start` must be ASCII, or there must be none, and in a dialect without
/// `00` none of them `00`), the others with look-behind shifted in from
/// the vector before or loaded from the input, the last one overlapping
/// its neighbour when the length is not a multiple of the vector. With
/// `END`, the checks also flag a lead byte in the last vector whose
/// sequence would end past the input (except a `CESU-8` lead surrogate's
/// want of a trail: [`check_end`]); without, whether the input ends inside
/// a sequence is not asked.
///
/// # Safety
/// The CPU must support `V`'s instruction set; `bytes` must be at least
/// `start + LANES` long, and either exactly that long or at least
/// `LANES + behind::<D>()` long.
#[inline(always)]
unsafe fn has_error_in_place<V: SimdU8, D: Spec, const END: bool>(
    t: &Tables<V>,
    bytes: &[u8],
    start: usize,
) -> bool {
    let len = bytes.len();
    let ptr = bytes.as_ptr();
    // SAFETY: `start + LANES <= len`: the first vector is inside `bytes`.
    let first = unsafe { V::load(ptr.wrapping_add(start)) };
    let mut error = check_vector::<V, D>(t, first, &Behind::shifted::<D>(first, t.fill));
    let mut prev = first;
    let mut at = start + V::LANES;
    while at < len {
        // The last vector ends at the end of the input.
        let at_vector = at.min(len - V::LANES);
        let p = ptr.wrapping_add(at_vector);
        // SAFETY: `at_vector + LANES <= len`: the vector is inside `bytes`.
        let input = unsafe { V::load(p) };
        // 64-byte vectors (and WebAssembly's, `SHUFFLED_STRAIGHT`) take
        // their look-behind from the vector before (lane shifts), the
        // other narrower ones load it: each the faster way for its width
        // (docs/TUNING.md, "Look-behind in the straight check"). The last
        // vector, which may overlap the one before, loads it.
        let behind = if (V::LANES == 64 || V::SHUFFLED_STRAIGHT) && at_vector == at {
            Behind::shifted::<D>(input, prev)
        } else {
            // SAFETY: `at_vector >= pad`: either `at_vector = at >= LANES >=
            // pad`, or `at_vector = len - LANES` with `len >= LANES + pad`
            // (the input is longer than `start + LANES`: caller). So
            // `p - pad .. p + LANES` is inside `bytes`.
            unsafe { Behind::loaded::<D>(p) }
        };
        prev = input;
        error = error.or(check_vector::<V, D>(t, input, &behind));
        at += V::LANES;
    }
    if END {
        // The last vector ends at the end of the input: its last lanes
        // against the largest lead each may hold.
        // SAFETY: the instruction set (caller).
        error = error.or(prev.saturating_sub(unsafe { last_leads::<V, D>() }));
    }
    error.any()
}

//! The main loop: an input of at least a block checked 64 bytes at a time,
//! or 128 with one test for errors ([`validate_blocks`]), step 3 of the
//! [algorithm](super). A block that is all ASCII skips the tables, and a
//! run of them is skipped several blocks a step; a dialect with a screen
//! checks each block with the screen's tables first ([`check_screened`]).
//! The loop stops at the first block with an error and says where it is.

use super::memory::{memory, prefetch, PREFETCH_MIN, PREFETCH_TEXT_MIN, REMOTE_FROM};
use super::rules::{
    behind, check_end, check_vector, lead_back, lead_in_last_four, lead_in_last_four_out_of_line,
    pad_byte, Behind, Tables, BLOCK,
};
use crate::kernel::dialects::{Pairs, Spec};
use crate::kernel::simd::SimdU8;

// Named in the documentation only.
#[cfg(doc)]
use super::{validate_from, validate_located};

/// What a block hands to the next one.
pub(super) struct Carry<V> {
    /// The block's last vector (used by the shuffle strategy only). Whether
    /// the block ended inside a multi-byte sequence is read from it only
    /// when an ASCII block follows ([`check_vectors`]), not reduced to a
    /// flag after every step of text, which paid a subtraction and a
    /// horizontal test per step for an answer that text seldom needs
    /// (docs/TUNING.md, "Text steps in a loop of their own"). With loads,
    /// an ASCII block looks back in memory instead.
    prev: V,
}

impl<V: SimdU8> Carry<V> {
    /// Before the first byte, or after bytes that are all ASCII.
    #[inline(always)]
    pub(super) fn after_ascii(t: &Tables<V>) -> Self {
        Carry { prev: t.fill }
    }
}

/// How many steps after a block its screen flagged go to the dialect's
/// own check directly (see [`Spec::Screen`]); when the screen flags the
/// block after such a run too, the next run is twice as long, up to
/// [`EXACT_RUN_MAX`], so that text dense in the rarer forms (CESU-8's
/// surrogate pairs in text of emoji) seldom pays for a screen.
const EXACT_RUN: u32 = 4;
const EXACT_RUN_MAX: u32 = 256;

/// The tables of a dialect and of its screen, and which of them the next
/// step starts with.
pub(super) struct Checker<V> {
    pub(super) t: Tables<V>,
    screen: Tables<V>,
    /// Steps left that skip the screen.
    exact_left: u32,
    /// The length of the next run of steps that skip it.
    exact_run: u32,
    /// The last step was checked with the dialect's own tables.
    after_exact: bool,
}

impl<V: SimdU8> Checker<V> {
    /// # Safety
    /// The CPU must support `V`'s instruction set.
    #[inline(always)]
    pub(super) unsafe fn new<D: Spec>(loads: bool) -> Self {
        // SAFETY: the caller guarantees the instruction set.
        let t = unsafe { Tables::<V>::new::<D>(loads) };
        let screen = if D::SCREENED {
            const { assert!(<D::Screen as Spec>::MAX_LEN == D::MAX_LEN) };
            // SAFETY: as above.
            unsafe { Tables::<V>::new::<D::Screen>(loads) }
        } else {
            t
        };
        Checker {
            t,
            screen,
            exact_left: 0,
            exact_run: EXACT_RUN,
            after_exact: false,
        }
    }
}

/// What [`check_block`] found.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    Error,
    Ascii,
    Mixed,
}

/// Check one 64-byte block.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and `ptr .. ptr + 64` must
/// be valid for reads, and the [`behind`] bytes before `ptr` too with
/// `LOADS` or when `c` has checked a step before.
#[inline(always)]
pub(super) unsafe fn check_block<V: SimdU8, const LOADS: bool, D: Spec>(
    ptr: *const u8,
    c: &mut Checker<V>,
    carry: &mut Carry<V>,
) -> Verdict {
    // SAFETY: 64 bytes from `ptr` are readable (caller).
    let block = unsafe { V::load_block(ptr) };
    // SAFETY: the block, and with `LOADS` or after a first step the bytes
    // before it, are readable (caller).
    unsafe { check_screened::<V, LOADS, D>(ptr, block.as_ref(), &[], c, carry) }
}

/// Check two consecutive 64-byte blocks with one test for errors: in text
/// that is not ASCII, this halves the branches per byte.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and
/// `ptr - behind .. ptr + 128` must be valid for reads.
#[inline(always)]
unsafe fn check_two_blocks<V: SimdU8, const LOADS: bool, D: Spec>(
    ptr: *const u8,
    c: &mut Checker<V>,
    carry: &mut Carry<V>,
) -> Verdict {
    // SAFETY: 128 bytes from `ptr` are readable (caller).
    let (first, second) = unsafe { (V::load_block(ptr), V::load_block(ptr.wrapping_add(BLOCK))) };
    // SAFETY: `ptr - behind .. ptr + 128` is readable (caller).
    unsafe { check_screened::<V, LOADS, D>(ptr, first.as_ref(), second.as_ref(), c, carry) }
}

/// [`check_vectors`] with the dialect's screen first, where it has one: a
/// block the screen passes is done; one it flags is checked with the
/// dialect's own tables, and so are the next [`EXACT_RUN`] steps. (A block
/// the screen flags leaves `carry` as it was.)
///
/// # Safety
/// As [`check_vectors`], with the look-behind of both specs; and when `c`
/// has checked a step before, the [`behind`] bytes before `ptr` must be
/// valid for reads whatever the strategy.
#[inline(always)]
unsafe fn check_screened<V: SimdU8, const LOADS: bool, D: Spec>(
    ptr: *const u8,
    first: &[V],
    second: &[V],
    c: &mut Checker<V>,
    carry: &mut Carry<V>,
) -> Verdict {
    if D::SCREENED {
        if c.exact_left > 0 {
            c.exact_left -= 1;
        } else if c.after_exact
            // SAFETY: a step came before this one, so the look-behind
            // bytes before `ptr` are readable (caller).
            && unsafe { unfinished_for_screen::<V, D>(ptr) }
        {
            // The step before ends inside something only the dialect's
            // own tables check to its end.
        } else {
            // SAFETY: the caller's contract (the screen reads no more
            // look-behind than the dialect: its longest sequence is the
            // same, and it has no pair rule).
            let verdict = unsafe {
                check_vectors::<V, LOADS, D::Screen>(ptr, first, second, &c.screen, carry)
            };
            if verdict != Verdict::Error {
                c.exact_run = EXACT_RUN;
                c.after_exact = false;
                return verdict;
            }
            c.exact_left = c.exact_run;
            c.exact_run = (c.exact_run * 2).min(EXACT_RUN_MAX);
        }
    }
    c.after_exact = true;
    if D::PAIRS == Pairs::Required {
        // Without the test for a step of ASCII (which the checks of text
        // get right too, only slower than the test does): in CESU-8 text
        // of emoji, whose surrogate pairs the screen flags in every block,
        // the runs of these steps are long, and the test seldom pays there
        // (docs/TUNING.md, "CESU-8: exact steps as text"). The other
        // dialects seldom have such runs.
        // SAFETY: the caller's contract.
        return unsafe { check_text::<V, LOADS, D>(ptr, first, second, &c.t, carry) };
    }
    // SAFETY: the caller's contract.
    unsafe { check_vectors::<V, LOADS, D>(ptr, first, second, &c.t, carry) }
}

/// `true` when the bytes before `ptr` hold the start of something whose
/// end a dialect's screen does not check, but its own tables do: a
/// CESU-8 lead surrogate (its trail's second byte is due up to 3 bytes on)
/// or a 5- or 6-byte sequence (whose 5th and 6th bytes lie beyond the
/// screen's [`Spec::MUST_LEN`]). A block that the screen flags is checked
/// with the dialect's own tables, and these reach into the next block:
/// that block may go back to the screen only when nothing reaches it.
///
/// # Safety
/// The [`behind`] bytes before `ptr` must be valid for reads.
#[inline(always)]
unsafe fn unfinished_for_screen<V: SimdU8, D: Spec>(ptr: *const u8) -> bool {
    let pad = behind::<D>();
    // SAFETY: `ptr - pad .. ptr` is readable (caller).
    let before = unsafe { core::slice::from_raw_parts(ptr.wrapping_sub(pad), pad) };
    // The test for a lead surrogate inlined with 32- and 64-byte vectors
    // and with WebAssembly's, a call with the other 16-byte ones. In CESU-8
    // text of emoji this runs at every block of the dialect's own checks,
    // and inlining it helped where the vectors are wide and slowed SSE4.2
    // (docs/TUNING.md, "CESU-8: lead-surrogate test inlined"). NEON's, not
    // measured, keep the call.
    let pair = D::PAIRS == Pairs::Required
        && if V::LANES >= 32 || cfg!(target_arch = "wasm32") {
            lead_in_last_four(before)
        } else {
            lead_in_last_four_out_of_line(before)
        };
    let long = <D::Screen as Spec>::MUST_LEN < D::MUST_LEN
        && before
            .iter()
            .rev()
            .enumerate()
            .any(|(k, &b)| (k < 4 && b >= 0xF8) || b >= 0xFC);
    pair || long
}

/// Check the vectors of `first` then `second`, the bytes loaded from `ptr`
/// on: whether they hold an error, or are all ASCII.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and the vectors' bytes (and
/// with `LOADS` the [`behind`] bytes before `ptr`) must be valid for reads.
#[inline(always)]
unsafe fn check_vectors<V: SimdU8, const LOADS: bool, D: Spec>(
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
        // The bytes before the block, from the first lanes of a vector.
        let before = if LOADS {
            // SAFETY: `ptr - behind .. ptr - behind + LANES` is readable
            // (caller).
            unsafe { V::load(ptr.wrapping_sub(behind::<D>())) }
        } else {
            first[0].prev::<1>(carry.prev)
        };
        // With shuffles, the last lanes of the vector before the block; the
        // fill that stands for ASCII (zeros or spaces) is below every limit.
        // (A kernel of the load strategy checks only its first block with
        // shuffles, after that fill: the layout of its `incomplete_max`,
        // made for loads, does not matter there.)
        let ends_inside = if LOADS {
            before.saturating_sub(t.incomplete_max).any()
        } else {
            carry.prev.saturating_sub(t.incomplete_max).any()
        };
        if ends_inside {
            return Verdict::Error;
        }
        if D::NO_NUL {
            // In a block of text, a `00` is flagged by the tables as the
            // byte before another; in an ASCII block, by the block's
            // smallest byte, which takes in the byte before the block too
            // (the last of a block of text). Two loops, not a chain, for
            // the reason above.
            let mut lowest = before.min(first[0]);
            for &v in &first[1..] {
                lowest = lowest.min(v);
            }
            for &v in second {
                lowest = lowest.min(v);
            }
            if t.one.saturating_sub(lowest).any() {
                return Verdict::Error;
            }
        }
        if D::PAIRS == Pairs::Required {
            // A lead surrogate that ends in the last 3 bytes before the
            // block needs its trail in the block, which has none.
            let back = if LOADS {
                // SAFETY: the `behind` bytes before `ptr` are readable
                // (caller).
                unsafe { Behind::loaded::<D>(ptr) }
            } else {
                Behind::shifted::<D>(first[0], carry.prev)
            };
            if lead_back(t, back.p4, back.p3).any() {
                return Verdict::Error;
            }
        }
        Verdict::Ascii
    } else {
        // SAFETY: the caller's contract.
        return unsafe { check_text::<V, LOADS, D>(ptr, first, second, t, carry) };
    };
    if !LOADS {
        carry.prev = last;
    }
    verdict
}

/// [`check_vectors`] for vectors that are not all ASCII (and right for
/// those that are, without the shortcut): whether they hold an error
/// (`Error`, or `Mixed`).
///
/// # Safety
/// As [`check_vectors`].
#[inline(always)]
unsafe fn check_text<V: SimdU8, const LOADS: bool, D: Spec>(
    ptr: *const u8,
    first: &[V],
    second: &[V],
    t: &Tables<V>,
    carry: &mut Carry<V>,
) -> Verdict {
    let last = *second.last().unwrap_or(&first[first.len() - 1]);
    let mut error = t.zero();
    let mut before = carry.prev;
    for (k, &input) in first.iter().enumerate() {
        // SAFETY: vector `k` is one of the vectors' (caller).
        error = error.or(unsafe { check_at::<V, LOADS, D>(ptr, k, input, &mut before, t) });
    }
    for (k, &input) in second.iter().enumerate() {
        let k = first.len() + k;
        // SAFETY: as above.
        error = error.or(unsafe { check_at::<V, LOADS, D>(ptr, k, input, &mut before, t) });
    }
    if error.any() {
        return Verdict::Error;
    }
    if !LOADS {
        carry.prev = last;
    }
    Verdict::Mixed
}

/// The error bits of vector `k` of the bytes from `ptr`, `input`; `before`
/// is the vector before it (used by the shuffle strategy only), and becomes
/// `input`.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and
/// `ptr + k * LANES - behind .. ptr + (k + 1) * LANES` must be valid for
/// reads.
#[inline(always)]
unsafe fn check_at<V: SimdU8, const LOADS: bool, D: Spec>(
    ptr: *const u8,
    k: usize,
    input: V,
    before: &mut V,
    t: &Tables<V>,
) -> V {
    let mut behind = if LOADS {
        // SAFETY: `at - behind .. at + LANES` is readable (caller).
        unsafe { Behind::loaded::<D>(ptr.wrapping_add(k * V::LANES)) }
    } else {
        Behind::shifted::<D>(input, *before)
    };
    if LOADS && D::PAIRS == Pairs::Required && V::LANES == 64 && k > 0 {
        // CESU-8's fifth load, 4 bytes back, made from the vector before
        // (one shift of whole 32-bit lanes with AVX-512) where the step has
        // it in a register: one load fewer on text whose pairs keep the
        // kernel on its dialect's own tables. With AVX2 the shift crosses
        // 128-bit lanes (two instructions) and the load stays faster
        // (docs/TUNING.md, "CESU-8: fifth look-behind by a shift").
        behind.p4 = input.prev::<4>(*before);
    }
    *before = input;
    check_vector::<V, D>(t, input, &behind)
}

/// Where in the `span` bytes at `bytes[pos..]`, found to hold an error,
/// the first byte is that the checks flag: the offset a kernel returns.
/// Everything before that byte is well formed but for an unfinished
/// character in its last 3 bytes (the checks flag each error at the byte
/// that shows it, looking back only), so the callers that find the exact
/// error (`locate`, the lossy conversion) start right there instead of at
/// the step's start, up to 127 bytes earlier. For strict UTF-8 with loaded
/// look-behind; `pos` itself otherwise (or if no byte is flagged).
///
/// # Safety
/// The CPU must support `V`'s instruction set, and
/// `pos - behind .. pos + span` must be inside `bytes`.
#[inline(always)]
pub(super) unsafe fn first_flagged<V: SimdU8, const LOADS: bool, D: Spec>(
    bytes: &[u8],
    pos: usize,
    span: usize,
    t: &Tables<V>,
) -> usize {
    const { assert!(core::mem::size_of::<V>() == V::LANES && V::LANES <= BLOCK) };
    if !LOADS || D::SCREENED || D::NO_NUL || !matches!(D::PAIRS, Pairs::Free) {
        return pos;
    }
    let ptr = bytes.as_ptr().wrapping_add(pos);
    let mut before = t.zero();
    for k in 0..span / V::LANES {
        // SAFETY: vector `k` and the look-behind before it are inside
        // `bytes` (caller).
        let error = unsafe {
            let input = V::load(ptr.wrapping_add(k * V::LANES));
            check_at::<V, LOADS, D>(ptr, k, input, &mut before, t)
        };
        if error.any() {
            let mut lanes = [0u8; BLOCK];
            // SAFETY: a vector is `LANES` bytes of plain data (asserted
            // above), in the order of its lanes, and `lanes` has room.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    (&error as *const V).cast::<u8>(),
                    lanes.as_mut_ptr(),
                    V::LANES,
                );
            }
            // The first lane that is not zero, 8 lanes at a time (a
            // search lane by lane compiled to an extraction and a branch
            // per lane).
            for (w, word) in lanes[..V::LANES].chunks_exact(8).enumerate() {
                let word = u64::from_le_bytes(word.try_into().expect("8 lanes"));
                if word != 0 {
                    return pos + k * V::LANES + w * 8 + (word.trailing_zeros() / 8) as usize;
                }
            }
        }
    }
    pos
}

/// Bytes per step in a run of ASCII. The step is tested with vectors of
/// at most 32 bytes, eight loads, with the AVX-512 kernel too: there, four
/// 64-byte loads a step made the loop slower wherever the bytes came from
/// beyond the first-level cache, while in the caches the 32-byte loads
/// cost nothing (docs/TUNING.md, "ASCII steps of 32-byte loads").
const ASCII_STEP: usize = 4 * BLOCK;

/// `true` when the `N` bytes at `ptr` (a multiple of the vector width) are
/// all ASCII (and, in a dialect without `00`, none is `00`): one test for
/// all of them.
///
/// # Safety
/// The CPU must support `V`'s instruction set, and `ptr .. ptr + N` must be
/// valid for reads.
#[inline(always)]
pub(super) unsafe fn is_ascii_run<V: SimdU8, const N: usize, D: Spec>(ptr: *const u8) -> bool {
    const { assert!(N >= V::LANES && N.is_multiple_of(V::LANES)) };
    // SAFETY: N bytes from `ptr` are readable (caller).
    let mut acc = unsafe { V::load(ptr) };
    for k in 1..N / V::LANES {
        // SAFETY: as above; `k * LANES + LANES <= N`.
        acc = ascii_acc::<V, D>(acc, unsafe { V::load(ptr.wrapping_add(k * V::LANES)) });
    }
    // SAFETY: the caller guarantees the instruction set.
    unsafe { ascii_acc_is_ascii::<V, D>(acc) }
}

/// Two vectors in one for the test of ASCII: in a dialect without `00`,
/// the bytes must be `01..7F`, positive as signed bytes, so their signed
/// minimum tells both at once; elsewhere their `or`.
#[inline(always)]
fn ascii_acc<V: SimdU8, D: Spec>(acc: V, v: V) -> V {
    if D::NO_NUL {
        acc.signed_min(v)
    } else {
        acc.or(v)
    }
}

/// The test of ASCII on the vector [`ascii_acc`] made.
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[inline(always)]
unsafe fn ascii_acc_is_ascii<V: SimdU8, D: Spec>(acc: V) -> bool {
    if D::NO_NUL {
        // A negative lane is a byte from `80` on; a zero lane a `00`
        // (`1 - 0` is the one unsigned difference that is not zero).
        // SAFETY: the caller guarantees the instruction set.
        let one = unsafe { V::splat(1) };
        return acc.is_ascii() && !one.saturating_sub(acc).any();
    }
    acc.is_ascii()
}

/// Whether [`validate_blocks`] checks text two blocks a step (one with
/// x86's 16- and 32-byte vectors, SSE4.2 and AVX2).
#[inline(always)]
const fn two_blocks_a_step<V: SimdU8>() -> bool {
    !(cfg!(target_arch = "x86_64") && V::LANES <= 32)
}

/// [`validate_from`] for inputs of at least [`BLOCK`] bytes, a block or
/// two at a time; `far` as in [`validate_located`].
///
/// # Safety
/// As [`validate_from`].
#[inline(always)]
pub(super) unsafe fn validate_blocks<V: SimdU8, const LOADS: bool, D: Spec>(
    bytes: &[u8],
    start: usize,
    far: bool,
) -> Result<(), usize> {
    let pad = behind::<D>();
    let len = bytes.len();
    // SAFETY: the caller guarantees the instruction set.
    let mut c = unsafe { Checker::<V>::new::<D>(LOADS) };

    // The first block, in place: its look-behind bytes are made by shifting
    // a vector of zeros into its first vector (the shuffle strategy), so
    // nothing before the slice is read, and the start of the input behaves
    // as if it followed ASCII. After an ASCII prefix, the run of ASCII the
    // main loop skips is where the checking starts (the bytes before it
    // being ASCII, zeros stand for them as look-behind).
    let mut carry = Carry::after_ascii(&c.t);
    let (mut verdict, mut pos) = if start == 0 {
        // SAFETY: `len >= BLOCK`; with the shuffle strategy only the
        // block's own bytes are read (and the pair rule reads before the
        // block only after a vector with a surrogate, of which there is
        // none before the first).
        let verdict = unsafe { check_block::<V, false, D>(bytes.as_ptr(), &mut c, &mut carry) };
        if verdict == Verdict::Error {
            return Err(0);
        }
        (verdict, BLOCK)
    } else {
        (Verdict::Ascii, start)
    };
    let far_text = (far || len >= PREFETCH_TEXT_MIN) && memory().hints;
    let far_ascii = far_text && len >= PREFETCH_MIN;
    let remote = far || len >= REMOTE_FROM;
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
                let v = unsafe { V::load(bytes.as_ptr().wrapping_add(pos)) };
                if v.is_ascii() && !(D::NO_NUL && c.t.one.saturating_sub(v).any()) {
                    pos += V::LANES - misaligned;
                }
            }
            while len - pos >= ASCII_STEP {
                if far_ascii {
                    for line in 0..ASCII_STEP / BLOCK {
                        prefetch(bytes, pos + line * BLOCK, remote);
                    }
                }
                let at = bytes.as_ptr().wrapping_add(pos);
                // SAFETY: `pos + ASCII_STEP <= len`: the bytes are in
                // `bytes`; `V`'s instruction set implies `V::Half`'s (the
                // contract of `SimdU8::Half`).
                let ascii = unsafe {
                    if V::LANES > 32 {
                        is_ascii_run::<V::Half, ASCII_STEP, D>(at)
                    } else {
                        is_ascii_run::<V, ASCII_STEP, D>(at)
                    }
                };
                if !ascii {
                    break;
                }
                pos += ASCII_STEP;
            }
            if pos != start {
                // The skipped bytes are ASCII: as look-behind, a vector of
                // zeros stands for them.
                carry = Carry::after_ascii(&c.t);
            }
            if len - pos < BLOCK {
                break;
            }
        }
        // Two blocks a step with one test for ASCII and one for errors,
        // except with AVX2 and SSE4.2: there a test per block skips the
        // blocks of ASCII that text mixing a script with ASCII markup is
        // full of (a tenth of its blocks, three times the share of its
        // two-block steps that are ASCII), and was faster on text without
        // them too; with SSE4.2's 16 registers, a block's four vectors
        // also leave room for the constants, which the eight of two
        // blocks pushed out (docs/TUNING.md, "AVX2: one block a step",
        // "SSE4.2: one block a step"). NEON and simd128, not timed, keep
        // two.
        if two_blocks_a_step::<V>() && len - pos >= 2 * BLOCK {
            // A loop of its own for the steps of text, left only for a step
            // of ASCII, an error or the end: in the outer loop each step
            // also went through the test of the last step's verdict and the
            // choice of the step's length (docs/TUNING.md, "Text steps in a
            // loop of their own").
            loop {
                if far_text {
                    prefetch(bytes, pos, remote);
                    prefetch(bytes, pos + BLOCK, remote);
                }
                // SAFETY: `pos >= BLOCK >= pad`, so
                // `pos - pad .. pos + 2 * BLOCK` is inside `bytes`.
                verdict = unsafe {
                    check_two_blocks::<V, LOADS, D>(
                        bytes.as_ptr().wrapping_add(pos),
                        &mut c,
                        &mut carry,
                    )
                };
                if verdict == Verdict::Error {
                    // SAFETY: the step's bytes and the look-behind before
                    // them are in `bytes` (as for the step itself).
                    return Err(unsafe {
                        first_flagged::<V, LOADS, D>(bytes, pos, 2 * BLOCK, &c.t)
                    });
                }
                pos += 2 * BLOCK;
                if verdict == Verdict::Ascii || len - pos < 2 * BLOCK {
                    break;
                }
            }
            continue;
        }
        if far_text {
            prefetch(bytes, pos, remote);
        }
        // SAFETY: `pos >= BLOCK >= pad`, so `pos - pad .. pos + BLOCK` is
        // inside `bytes`.
        verdict = unsafe {
            check_block::<V, LOADS, D>(bytes.as_ptr().wrapping_add(pos), &mut c, &mut carry)
        };
        if verdict == Verdict::Error {
            // SAFETY: the block's bytes and the look-behind before them are
            // in `bytes` (as for the block itself).
            return Err(unsafe { first_flagged::<V, LOADS, D>(bytes, pos, BLOCK, &c.t) });
        }
        pos += BLOCK;
    }
    let rest = len - pos;
    if rest > 0 {
        if LOADS && len >= BLOCK + pad {
            // The tail, as the last whole block of the input: it overlaps
            // bytes already checked, which is harmless, and reads nothing
            // past the end. An error in it lies after `len - BLOCK`, since
            // the bytes before were checked.
            let at = len - BLOCK;
            // SAFETY: `at >= pad`, so `at - pad .. at + BLOCK = len` is
            // inside `bytes`.
            if unsafe {
                check_block::<V, LOADS, D>(bytes.as_ptr().wrapping_add(at), &mut c, &mut carry)
            } == Verdict::Error
            {
                // SAFETY: as for the block just checked.
                return Err(unsafe { first_flagged::<V, LOADS, D>(bytes, at, BLOCK, &c.t) });
            }
        } else {
            // The tail, with its real look-behind, then padding: the shuffle
            // strategy needs the vector before the tail in `carry`, which an
            // overlapping block would not have.
            let mut buf = [pad_byte::<D>(); 5 + BLOCK];
            buf[5 - pad..5 + rest].copy_from_slice(&bytes[pos - pad..]);
            // SAFETY: `buf` holds `pad` look-behind bytes before offset 5
            // and a whole block after it.
            if unsafe {
                check_block::<V, LOADS, D>(buf.as_ptr().wrapping_add(5), &mut c, &mut carry)
            } == Verdict::Error
            {
                return Err(pos);
            }
        }
    }
    // (Where padding follows the input in a block, these were errors
    // already.)
    check_end::<D>(bytes)
}

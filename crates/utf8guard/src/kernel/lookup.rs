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

use core::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use super::dialects::{Pairs, Spec, SURROGATE_MARK};
use super::simd::SimdU8;

/// Bytes per block of the main loop.
pub(crate) const BLOCK: usize = 64;
/// Bytes of look-behind a dialect needs: 3 (enough for `prev3`, which the
/// 4-byte dialects use), 4 with a surrogate-pair rule (a lead surrogate's
/// `ED` stands 4 bytes before its trail's second byte), 5 for the 6-byte
/// dialects.
const fn behind<D: Spec>() -> usize {
    if D::MAX_LEN > 4 {
        5
    } else if !matches!(D::PAIRS, Pairs::Free) {
        4
    } else {
        3
    }
}

/// Where a sequence would be unfinished: the largest byte value that may
/// stand 1 to 5 bytes before a boundary (`BF`, `DF`, `EF`, `F7`, `FB`, as
/// far back as the dialect's longest sequence reaches) at offsets 63, 62,
/// ..., and `FF` (no limit) everywhere else. A vector loaded at offset
/// `64 - LANES` checks the end of a vector; one loaded at offset
/// `64 - behind` checks the bytes before a vector loaded that many bytes
/// early.
const fn incomplete_max(max_len: usize) -> [u8; 128] {
    let mut max = [0xFF; 128];
    max[63] = 0xC0 - 1;
    max[62] = 0xE0 - 1;
    if max_len >= 4 {
        max[61] = 0xF0 - 1;
    }
    if max_len >= 5 {
        max[60] = 0xF8 - 1;
    }
    if max_len >= 6 {
        max[59] = 0xFC - 1;
    }
    max
}

static INCOMPLETE_MAX_3: [u8; 128] = incomplete_max(3);
static INCOMPLETE_MAX_4: [u8; 128] = incomplete_max(4);
static INCOMPLETE_MAX_6: [u8; 128] = incomplete_max(6);

/// The rules and constants as vectors, made once per call.
#[derive(Clone, Copy)]
struct Tables<V> {
    byte_1_high: V,
    byte_1_low: V,
    byte_2_high: V,
    /// The fourth table, where the dialect has one (else unused).
    byte_2_low: V,
    low_nibble_mask: V,
    /// `prev2 - 0x60` has its high bit set exactly when `prev2 >= 0xE0`.
    third_byte: V,
    /// `prev3 - 0x70` has its high bit set exactly when `prev3 >= 0xF0`.
    fourth_byte: V,
    /// `prev4 - 0x78` has its high bit set exactly when `prev4 >= 0xF8`.
    fifth_byte: V,
    /// `prev5 - 0x7C` has its high bit set exactly when `prev5 >= 0xFC`.
    sixth_byte: V,
    high_bit: V,
    /// Ones: `one - x` is not zero exactly when `x` is `00`.
    one: V,
    /// What stands for the bytes before the input, or before a run of
    /// ASCII, as look-behind: zeros, or spaces in the dialects without
    /// `00` (whose tables flag a `00` before a byte).
    fill: V,
    /// `x - 0xFD` is not zero exactly when `x` is `FE` or `FF`.
    below_fe: V,
    /// [`SURROGATE_MARK`] in every lane.
    surrogate_mark: V,
    /// `ED`, `F0` and `A0` in every lane: the pair rule's lead surrogate,
    /// `ED A0..AF`.
    ed: V,
    high_nibble_mask: V,
    a0: V,
    /// Non-zero after saturating subtraction in the lanes before a boundary
    /// when they hold a lead byte whose sequence cannot end before it: the
    /// last lanes, or with `LOADS` the first lanes of a vector loaded
    /// [`behind`] bytes before the boundary.
    incomplete_max: V,
}

impl<V: SimdU8> Tables<V> {
    /// # Safety
    /// The CPU must support `V`'s instruction set.
    #[inline(always)]
    unsafe fn new<D: Spec>(loads: bool) -> Self {
        const { assert!(behind::<D>() <= 5) };
        const { assert!(V::LANES <= BLOCK && BLOCK.is_multiple_of(V::LANES)) };
        let table = match D::MAX_LEN {
            3 => &INCOMPLETE_MAX_3,
            4 => &INCOMPLETE_MAX_4,
            _ => &INCOMPLETE_MAX_6,
        };
        let from = if loads {
            64 - behind::<D>()
        } else {
            64 - V::LANES
        };
        let max = table[from..from + V::LANES].as_ptr();
        let rules = D::RULES;
        // SAFETY: the caller guarantees the instruction set; `max` points
        // to LANES bytes of the table.
        unsafe {
            Tables {
                byte_1_high: V::table(&rules.byte_1_high),
                byte_1_low: V::table(&rules.byte_1_low),
                byte_2_high: V::table(&rules.byte_2_high),
                byte_2_low: V::table(&rules.byte_2_low.unwrap_or([0xFF; 16])),
                low_nibble_mask: V::splat(0x0F),
                third_byte: V::splat(0xE0 - 0x80),
                fourth_byte: V::splat(0xF0 - 0x80),
                fifth_byte: V::splat(0xF8 - 0x80),
                sixth_byte: V::splat(0xFC - 0x80),
                high_bit: V::splat(0x80),
                // Hidden from the optimizer in CESU-8, whose pair rule
                // subtracts it in the lanes of a mask: knowing it is one,
                // LLVM turns AVX-512's one masked subtraction into a
                // vector made from the mask and an addition (two
                // instructions, slower; see docs/TUNING.md, "CESU-8: the
                // constant one hidden").
                one: if D::PAIRS == Pairs::Required {
                    core::hint::black_box(V::splat(1))
                } else {
                    V::splat(1)
                },
                fill: V::splat(pad_byte::<D>()),
                below_fe: V::splat(0xFD),
                surrogate_mark: V::splat(SURROGATE_MARK),
                ed: V::splat(0xED),
                high_nibble_mask: V::splat(0xF0),
                a0: V::splat(0xA0),
                incomplete_max: V::load(max),
            }
        }
    }

    /// A vector of zeros.
    #[inline(always)]
    fn zero(&self) -> V {
        self.low_nibble_mask.xor(self.low_nibble_mask)
    }
}

/// The bytes 1 to 5 before each lane of a vector (those past the
/// dialect's [`behind`] are not used, and hold anything).
struct Behind<V> {
    p1: V,
    p2: V,
    p3: V,
    p4: V,
    p5: V,
}

impl<V: SimdU8> Behind<V> {
    /// Loaded from the bytes before `at`.
    ///
    /// # Safety
    /// The CPU must support `V`'s instruction set, and
    /// `at - behind::<D>() .. at + LANES - 1` must be valid for reads.
    #[inline(always)]
    unsafe fn loaded<D: Spec>(at: *const u8) -> Self {
        // SAFETY: the bytes from `at - behind` on are readable (caller).
        unsafe {
            let p1 = V::load(at.wrapping_sub(1));
            let p2 = V::load(at.wrapping_sub(2));
            let p3 = V::load(at.wrapping_sub(3));
            Behind {
                p1,
                p2,
                p3,
                p4: if behind::<D>() >= 4 {
                    V::load(at.wrapping_sub(4))
                } else {
                    p3
                },
                p5: if behind::<D>() >= 5 {
                    V::load(at.wrapping_sub(5))
                } else {
                    p3
                },
            }
        }
    }

    /// Shifted in from `before`, the vector before `input`.
    #[inline(always)]
    fn shifted<D: Spec>(input: V, before: V) -> Self {
        let p1 = input.prev::<1>(before);
        let p2 = input.prev::<2>(before);
        let p3 = input.prev::<3>(before);
        Behind {
            p1,
            p2,
            p3,
            p4: if behind::<D>() >= 4 {
                input.prev::<4>(before)
            } else {
                p3
            },
            p5: if behind::<D>() >= 5 {
                input.prev::<5>(before)
            } else {
                p3
            },
        }
    }
}

/// Lanes where a lead surrogate's second byte stands 3 bytes back: `ED` 4
/// bytes back and `A0..AF` 3 bytes back. [`SURROGATE_MARK`] there, zero
/// elsewhere.
#[inline(always)]
fn lead_back<V: SimdU8>(t: &Tables<V>, p4: V, p3: V) -> V {
    p4.select_eq2(t.ed, p3, t.high_nibble_mask, t.a0, t.surrogate_mark)
}

/// The error bits of one vector, given the bytes that precede each of its
/// lanes.
#[inline(always)]
fn check_vector<V: SimdU8, D: Spec>(t: &Tables<V>, input: V, behind: &Behind<V>) -> V {
    let byte_1_high = behind.p1.lookup_high(t.byte_1_high);
    let byte_1_low = behind.p1.lookup_low(t.byte_1_low, t.low_nibble_mask);
    let byte_2_high = input.lookup_high(t.byte_2_high);
    let mut special = byte_1_high.and(byte_1_low).and(byte_2_high);
    if D::RULES.byte_2_low.is_some() {
        let byte_2_low = input.lookup_low(t.byte_2_low, t.low_nibble_mask);
        special = special.and(byte_2_low);
    }
    let mut required = behind.p2.saturating_sub(t.third_byte);
    if D::MUST_LEN >= 4 {
        required = required.or(behind.p3.saturating_sub(t.fourth_byte));
    }
    if D::MUST_LEN >= 6 {
        required = required
            .or(behind.p4.saturating_sub(t.fifth_byte))
            .or(behind.p5.saturating_sub(t.sixth_byte));
    }
    let mut error = special.xor(required.and(t.high_bit));
    if D::NO_FE_FF {
        // Flagged on the byte after an `FE`/`FF`, where the screens flag a
        // lead from `F8` on: a block the screen passes may end with one,
        // and the block after it is the one checked again. (An input's
        // last byte has no byte after it; it is a lead that ends the input
        // inside a sequence.)
        error = error.or(behind.p1.saturating_sub(t.below_fe));
    }
    if D::PAIRS != Pairs::Free {
        // A bit of `special` marks a trail surrogate's second byte (`ED
        // B0..BF`: [`PAIR_MARK`] in CESU-8, [`SURROGATE_MARK`] in WTF-8).
        // CESU-8: it is an error exactly when no lead stands 3 bytes back,
        // and so is a lead back there with no trail here. WTF-8: it is an
        // error exactly when a lead stands back there.
        error = if D::PAIRS == Pairs::Required {
            // The mark is the value 1 ([`PAIR_MARK`]): one less where a
            // lead stands back there leaves zero exactly in the lanes
            // where the mark is all there was, and makes a zero lane (a
            // lead with no trail) non-zero.
            error.sub_one_where_eq2(behind.p4, t.ed, behind.p3, t.high_nibble_mask, t.a0, t.one)
        } else {
            error.and_not(t.surrogate_mark.and_not(lead_back(t, behind.p4, behind.p3)))
        };
    }
    error
}

/// What a block hands to the next one.
struct Carry<V> {
    /// The block's last vector (used by the shuffle strategy only).
    prev: V,
    /// The block ended inside a multi-byte sequence (used by the shuffle
    /// strategy only: with loads, an ASCII block looks back in memory). A
    /// kernel of the load strategy checks its first block with shuffles,
    /// and never reads this value afterwards: the `incomplete_max` of its
    /// tables is laid out for loads, so the value it computes is not
    /// meaningful.
    incomplete: bool,
}

impl<V: SimdU8> Carry<V> {
    /// Before the first byte, or after bytes that are all ASCII.
    #[inline(always)]
    fn after_ascii(t: &Tables<V>) -> Self {
        Carry {
            prev: t.fill,
            incomplete: false,
        }
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
struct Checker<V> {
    t: Tables<V>,
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
    unsafe fn new<D: Spec>(loads: bool) -> Self {
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
enum Verdict {
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
unsafe fn check_block<V: SimdU8, const LOADS: bool, D: Spec>(
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
        let ends_inside = if LOADS {
            before.saturating_sub(t.incomplete_max).any()
        } else {
            carry.incomplete
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
        carry.incomplete = last.saturating_sub(t.incomplete_max).any();
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
unsafe fn first_flagged<V: SimdU8, const LOADS: bool, D: Spec>(
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

/// How far ahead of the bytes being checked the main loop asks for cache
/// lines, on x86_64 CPUs where [`hints_help`] says the hints pay, for inputs
/// shorter than [`REMOTE_FROM`]: into the first-level cache. The hardware
/// prefetchers alone leave a kernel that does more than read well below the
/// speed of a loop that only reads, on inputs that come from memory. See
/// docs/TUNING.md, "Prefetch distance", for the distances tried.
// Only x86_64 has the hints ([`prefetch`]).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const PREFETCH_DISTANCE: usize = 2048;

/// Inputs from this long on, most likely beyond the caches, are prefetched
/// [`REMOTE_DISTANCE`] ahead into the second-level cache instead (the
/// length from which 64-byte vectors shift their look-behind in where
/// there are no hints, [`SHUFFLES_FROM`]).
const REMOTE_FROM: usize = SHUFFLES_FROM;

/// How far ahead the lines of an input of [`REMOTE_FROM`] bytes or more are
/// asked for, into the second-level cache (`prefetcht1`), where the
/// first-level hints [`PREFETCH_DISTANCE`] ahead left the kernels well below
/// the speed of a loop that reads with the same hints. On inputs in the
/// caches these hints cost speed, and shorter inputs gained nothing from
/// them: hence only from [`REMOTE_FROM`] on (docs/TUNING.md, "Far inputs:
/// second-level hints").
// Only x86_64 has the hints ([`prefetch`]).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const REMOTE_DISTANCE: usize = 8192;

/// Inputs from this long on are prefetched in runs of ASCII. Shorter ones
/// are likely in the caches, where the hints slow the ASCII loop (see
/// docs/TUNING.md, "Prefetch in runs of ASCII").
const PREFETCH_MIN: usize = 1 << 20;

/// Inputs from this long on are prefetched in the blocks that are not all
/// ASCII. There the hints cost little in the caches, and the pieces of a
/// large input given one at a time, as a
/// [`StreamValidator`](crate::StreamValidator) is, get them too. Such a
/// piece of 64 KiB mostly starts with the last bytes of a character begun
/// in the piece before, which the stream checks with that character, so the
/// kernel sees the piece less those bytes: hence a block less than 64 KiB.
/// Starting lower slowed text in the caches (docs/TUNING.md, "Prefetch in
/// text").
const PREFETCH_TEXT_MIN: usize = (64 << 10) - BLOCK;

/// Whether the main loop's prefetch hints are sent: [`HINTS_UNKNOWN`] until
/// the first input long enough for them asks [`hints_help`].
static HINTS: AtomicU8 = AtomicU8::new(HINTS_UNKNOWN);
const HINTS_UNKNOWN: u8 = 0;
const HINTS_ON: u8 = 1;
const HINTS_OFF: u8 = 2;

/// `true` when the main loop should send prefetch hints on this CPU: on
/// x86_64, unless it is an AMD (or Hygon) one. There the hardware
/// prefetchers alone keep up with memory and the hints slowed the kernels;
/// on Intel they are what brings the kernels to the speed of reading
/// (docs/TUNING.md, "No prefetch hints on AMD"). Asked once, for the first
/// input long enough to be prefetched; one load after that.
#[inline(always)]
pub(crate) fn hints_help() -> bool {
    match HINTS.load(Ordering::Relaxed) {
        HINTS_ON => true,
        HINTS_OFF => false,
        _ => decide_hints(),
    }
}

#[cold]
#[inline(never)]
fn decide_hints() -> bool {
    let on = cfg!(target_arch = "x86_64") && !is_amd();
    HINTS.store(if on { HINTS_ON } else { HINTS_OFF }, Ordering::Relaxed);
    on
}

/// `true` on an x86_64 CPU whose vendor string is AMD's or Hygon's (never
/// under Miri, which has no CPUID).
fn is_amd() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // Leaf 0: the vendor string in EBX, EDX, ECX ("Auth" "enti"
        // "cAMD"); the first four bytes tell AMD and Hygon from Intel.
        // `unsafe` before Rust 1.95 (the crate's minimum is older).
        #[allow(unused_unsafe)]
        // SAFETY: every x86_64 CPU has the CPUID instruction, and leaf 0
        // exists on all of them.
        let leaf = unsafe { core::arch::x86_64::__cpuid(0) };
        let first = leaf.ebx.to_le_bytes();
        first == *b"Auth" || first == *b"Hygo"
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    false
}

/// Sets whether the main loop sends prefetch hints: `Some` forces them on
/// or off, `None` goes back to the CPU's default ([`hints_help`]). For the
/// benchmarks and tests, which compare and cover both ways on any machine.
#[cfg(target_arch = "x86_64")]
pub(crate) fn force_hints(on: Option<bool>) {
    let value = match on {
        Some(true) => HINTS_ON,
        Some(false) => HINTS_OFF,
        None => HINTS_UNKNOWN,
    };
    HINTS.store(value, Ordering::Relaxed);
}

/// Inputs from this long on take their look-behind bytes by shuffles of
/// the vectors before, not by loads, with 64-byte vectors on CPUs without
/// prefetch hints ([`hints_help`]). Each of the loads at offsets -1 to -3
/// spans two cache lines, which costs far more when the lines come from
/// memory; in the caches the loads are the faster way, and the two cross
/// near this length (docs/TUNING.md, "Shuffled look-behind for long
/// inputs").
const SHUFFLES_FROM: usize = 16 << 20;

/// [`SHUFFLES_FROM`], or what the tests set ([`force_shuffles_from`]).
static SHUFFLES_MIN: AtomicUsize = AtomicUsize::new(SHUFFLES_FROM);

#[inline(always)]
fn shuffles_from() -> usize {
    SHUFFLES_MIN.load(Ordering::Relaxed)
}

/// `true` when `par`'s chunks of an input of `len` bytes are to be checked
/// as pieces of a long input (`dispatch::run_far`), the way a single call
/// on the whole input would check them: their bytes come from beyond the
/// caches as much as its do. On a CPU without prefetch hints that is with
/// the look-behind shifted in, from [`SHUFFLES_FROM`] on; on one with them,
/// with the hints of a long input ([`validate_located`]'s `far`), which
/// from the same length on a single call sends ([`REMOTE_FROM`]) and the
/// chunks, shorter, did not (docs/TUNING.md, "Chunks of a long input in
/// par").
#[cfg(all(target_arch = "x86_64", feature = "rayon"))]
pub(crate) fn far_input(len: usize) -> bool {
    len >= shuffles_from()
}

/// `true` when a stream's pieces that walk one stretch of memory of `len`
/// bytes so far are to be checked with the look-behind shifted in: from an
/// eighth of [`SHUFFLES_FROM`] (2 MiB, past the second-level cache) on.
/// Lower than for a single call, because guessing wrong costs more one way
/// than the other: the shifts slow pieces of a buffer in the third-level
/// cache a little, the loads slow pieces of one beyond the caches much more
/// (docs/TUNING.md, "Streams: shuffled look-behind from 2 MiB").
#[cfg(target_arch = "x86_64")]
pub(crate) fn far_stream(len: usize) -> bool {
    len >= shuffles_from() / 8 && !hints_help()
}

/// Sets the length from which 64-byte vectors take the look-behind by
/// shuffles (`None`: [`SHUFFLES_FROM`]), so that the tests cover that way
/// on short inputs.
#[cfg(target_arch = "x86_64")]
pub(crate) fn force_shuffles_from(len: Option<usize>) {
    SHUFFLES_MIN.store(len.unwrap_or(SHUFFLES_FROM), Ordering::Relaxed);
}

/// A hint to bring the cache line of `bytes[at + ahead]` (of the last byte,
/// if that is past the end) closer: into the second-level cache
/// [`REMOTE_DISTANCE`] ahead when `remote`, else into the first-level cache
/// [`PREFETCH_DISTANCE`] ahead. Nothing on targets without such hints.
#[inline(always)]
fn prefetch(bytes: &[u8], at: usize, remote: bool) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};
        let ahead = if remote {
            REMOTE_DISTANCE
        } else {
            PREFETCH_DISTANCE
        };
        let p = bytes
            .as_ptr()
            .wrapping_add((at + ahead).min(bytes.len().saturating_sub(1)));
        // SAFETY: a prefetch reads nothing the program sees and cannot
        // fault; SSE, which it needs, is part of x86_64. The address is in
        // the slice all the same.
        unsafe {
            if remote {
                _mm_prefetch::<_MM_HINT_T1>(p.cast());
            } else {
                _mm_prefetch::<_MM_HINT_T0>(p.cast());
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, at, remote);
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
unsafe fn is_ascii_run<V: SimdU8, const N: usize, D: Spec>(ptr: *const u8) -> bool {
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

/// Inputs up to this long go through the block loop with vectors of at
/// most 32 bytes (with AVX-512 only those with an error: valid ones are
/// done by [`is_valid_straight`] with 64-byte vectors), and the straight
/// check of SSE4.2's 16-byte vectors goes up to it ([`straight_max`]).
const HALF_WIDTH_MAX: usize = 256;

/// Inputs up to this long are checked straight through first
/// ([`is_valid_straight`]): 1 KiB with 64-byte vectors, whose look-behind
/// is shifted in, and with 32-byte ones, which load it; [`HALF_WIDTH_MAX`]
/// with the 16-byte ones of SSE4.2, 1 KiB with those of WebAssembly
/// ([`SimdU8::SHUFFLED_STRAIGHT`]): one test for all the vectors beats
/// the blocks' loop, which tests each block for ASCII and for errors, on
/// text strings up to those lengths (docs/TUNING.md, "Straight check of
/// strings").
const fn straight_max<V: SimdU8>() -> usize {
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

/// The byte that fills padded buffers: `00`, which is ASCII, or a space in
/// the dialects where `00` is an error.
const fn pad_byte<D: Spec>() -> u8 {
    if D::NO_NUL {
        b' '
    } else {
        0
    }
}

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
/// (`kernel::strict_entry_points`), so that short strings are done in
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

/// For the last vector of an input, the largest lead byte each lane may
/// hold with the rest of its sequence inside the vector (dialect `D`'s
/// longest sequences): a lane above it, after a saturating subtraction,
/// starts a sequence the input ends inside.
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[inline(always)]
unsafe fn last_leads<V: SimdU8, D: Spec>() -> V {
    let table = match D::MAX_LEN {
        3 => &INCOMPLETE_MAX_3,
        4 => &INCOMPLETE_MAX_4,
        _ => &INCOMPLETE_MAX_6,
    };
    // SAFETY: the table is 128 bytes, and `64 - LANES + LANES <= 128`; the
    // instruction set (caller).
    unsafe { V::load(table[BLOCK - V::LANES..].as_ptr()) }
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
    if V::LANES == 64 && LOADS && len >= shuffles_from() && !hints_help() {
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
unsafe fn is_valid_straight<V: SimdU8, D: Spec>(bytes: &[u8], start: usize) -> bool {
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

/// [`validate_from`] for inputs of at least [`BLOCK`] bytes, a block or
/// two at a time; `far` as in [`validate_located`].
///
/// # Safety
/// As [`validate_from`].
#[inline(always)]
unsafe fn validate_blocks<V: SimdU8, const LOADS: bool, D: Spec>(
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
    let far_text = (far || len >= PREFETCH_TEXT_MIN) && hints_help();
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
        let step = if len - pos >= 2 * BLOCK {
            if far_text {
                prefetch(bytes, pos, remote);
                prefetch(bytes, pos + BLOCK, remote);
            }
            // SAFETY: `pos >= BLOCK >= pad`, so `pos - pad .. pos + 2 * BLOCK`
            // is inside `bytes`.
            verdict = unsafe {
                check_two_blocks::<V, LOADS, D>(
                    bytes.as_ptr().wrapping_add(pos),
                    &mut c,
                    &mut carry,
                )
            };
            2 * BLOCK
        } else {
            // SAFETY: `pos >= BLOCK >= pad`, so `pos - pad .. pos + BLOCK` is
            // inside `bytes`.
            verdict = unsafe {
                check_block::<V, LOADS, D>(bytes.as_ptr().wrapping_add(pos), &mut c, &mut carry)
            };
            BLOCK
        };
        if verdict == Verdict::Error {
            // SAFETY: the step's bytes and the look-behind before them are
            // in `bytes` (as for the step itself).
            return Err(unsafe { first_flagged::<V, LOADS, D>(bytes, pos, step, &c.t) });
        }
        pos += step;
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

/// What the checks of vectors leave to the end of an input of well-formed
/// vectors: `Err(len)` when it ends inside a sequence, and, in a dialect
/// without `00`, `Err(len - 1)` when it ends with one (a `00` is flagged
/// as the byte before another, and the last byte has none after it).
#[inline(always)]
fn check_end<D: Spec>(bytes: &[u8]) -> Result<(), usize> {
    let len = bytes.len();
    if ends_inside_sequence::<D>(bytes) {
        return Err(len);
    }
    if D::NO_NUL && bytes.last() == Some(&0) {
        return Err(len - 1);
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

/// `true` when `bytes` ends with a lead byte whose sequence needs more bytes
/// than follow it (in CESU-8, also a lead surrogate whose trail would end
/// past the end). Only meaningful for a well-formed prefix.
#[inline(always)]
fn ends_inside_sequence<D: Spec>(bytes: &[u8]) -> bool {
    let n = bytes.len();
    let at_least = |back: usize, lead: u8| n >= back && bytes[n - back] >= lead;
    at_least(1, 0xC0)
        || at_least(2, 0xE0)
        || (D::MAX_LEN >= 4 && at_least(3, 0xF0))
        || (D::MAX_LEN >= 5 && at_least(4, 0xF8))
        || (D::MAX_LEN >= 6 && at_least(5, 0xFC))
        || (D::PAIRS == Pairs::Required && (lead_at(bytes, 3) || lead_at(bytes, 4)))
}

/// `true` when a lead surrogate's first two bytes (`ED A0..AF`) start 2, 3
/// or 4 bytes before the end of `bytes`: a trail is still due after it.
#[inline(always)]
fn lead_in_last_four(bytes: &[u8]) -> bool {
    lead_at(bytes, 2) || lead_at(bytes, 3) || lead_at(bytes, 4)
}

/// [`lead_in_last_four`], not inlined.
#[inline(never)]
fn lead_in_last_four_out_of_line(bytes: &[u8]) -> bool {
    lead_in_last_four(bytes)
}

/// `true` when a lead surrogate's first two bytes (`ED A0..AF`) start
/// `back` bytes before the end of `bytes`: its trail, 3 bytes after its
/// second byte, would lie at or past the end.
#[inline(always)]
fn lead_at(bytes: &[u8], back: usize) -> bool {
    let n = bytes.len();
    n >= back && bytes[n - back] == 0xED && bytes[n - back + 1] & 0xF0 == 0xA0
}

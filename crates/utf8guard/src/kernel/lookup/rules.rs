//! The rules: the dialect's tables, made into vectors once per call
//! ([`Tables`]), the bytes before each lane of a vector ([`Behind`]), and the
//! check of one vector against both ([`check_vector`]), steps 1 and 2 of
//! the [algorithm](super). Every path checks its vectors with these; the
//! scalar checks of how an input ends ([`check_end`]) complete them.

use crate::kernel::dialects::{Pairs, Spec, SURROGATE_MARK};
use crate::kernel::simd::SimdU8;

/// Bytes per block of the main loop.
pub(crate) const BLOCK: usize = 64;
/// Bytes of look-behind a dialect needs: 3 (enough for `prev3`, which the
/// 4-byte dialects use), 4 with a surrogate-pair rule (a lead surrogate's
/// `ED` stands 4 bytes before its trail's second byte), 5 for the 6-byte
/// dialects.
pub(super) const fn behind<D: Spec>() -> usize {
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
pub(super) struct Tables<V> {
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
    pub(super) one: V,
    /// What stands for the bytes before the input, or before a run of
    /// ASCII, as look-behind: zeros, or spaces in the dialects without
    /// `00` (whose tables flag a `00` before a byte).
    pub(super) fill: V,
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
    pub(super) incomplete_max: V,
}

impl<V: SimdU8> Tables<V> {
    /// # Safety
    /// The CPU must support `V`'s instruction set.
    #[inline(always)]
    pub(super) unsafe fn new<D: Spec>(loads: bool) -> Self {
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
    pub(super) fn zero(&self) -> V {
        self.low_nibble_mask.xor(self.low_nibble_mask)
    }
}

/// The bytes 1 to 5 before each lane of a vector (those past the
/// dialect's [`behind`] are not used, and hold anything).
pub(super) struct Behind<V> {
    p1: V,
    p2: V,
    pub(super) p3: V,
    pub(super) p4: V,
    p5: V,
}

impl<V: SimdU8> Behind<V> {
    /// Loaded from the bytes before `at`.
    ///
    /// # Safety
    /// The CPU must support `V`'s instruction set, and
    /// `at - behind::<D>() .. at + LANES - 1` must be valid for reads.
    #[inline(always)]
    pub(super) unsafe fn loaded<D: Spec>(at: *const u8) -> Self {
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
    pub(super) fn shifted<D: Spec>(input: V, before: V) -> Self {
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
pub(super) fn lead_back<V: SimdU8>(t: &Tables<V>, p4: V, p3: V) -> V {
    p4.select_eq2(t.ed, p3, t.high_nibble_mask, t.a0, t.surrogate_mark)
}

/// The error bits of one vector, given the bytes that precede each of its
/// lanes.
#[inline(always)]
pub(super) fn check_vector<V: SimdU8, D: Spec>(t: &Tables<V>, input: V, behind: &Behind<V>) -> V {
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

/// The byte that fills padded buffers: `00`, which is ASCII, or a space in
/// the dialects where `00` is an error.
pub(super) const fn pad_byte<D: Spec>() -> u8 {
    if D::NO_NUL {
        b' '
    } else {
        0
    }
}

/// For the last vector of an input, the largest lead byte each lane may
/// hold with the rest of its sequence inside the vector (dialect `D`'s
/// longest sequences): a lane above it, after a saturating subtraction,
/// starts a sequence the input ends inside.
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[inline(always)]
pub(super) unsafe fn last_leads<V: SimdU8, D: Spec>() -> V {
    let table = match D::MAX_LEN {
        3 => &INCOMPLETE_MAX_3,
        4 => &INCOMPLETE_MAX_4,
        _ => &INCOMPLETE_MAX_6,
    };
    // SAFETY: the table is 128 bytes, and `64 - LANES + LANES <= 128`; the
    // instruction set (caller).
    unsafe { V::load(table[BLOCK - V::LANES..].as_ptr()) }
}

/// What the checks of vectors leave to the end of an input of well-formed
/// vectors: `Err(len)` when it ends inside a sequence, and, in a dialect
/// without `00`, `Err(len - 1)` when it ends with one (a `00` is flagged
/// as the byte before another, and the last byte has none after it).
#[inline(always)]
pub(super) fn check_end<D: Spec>(bytes: &[u8]) -> Result<(), usize> {
    let len = bytes.len();
    if ends_inside_sequence::<D>(bytes) {
        return Err(len);
    }
    if D::NO_NUL && bytes.last() == Some(&0) {
        return Err(len - 1);
    }
    Ok(())
}

/// `true` when `bytes` ends with a lead byte whose sequence needs more bytes
/// than follow it (in CESU-8, also a lead surrogate whose trail would end
/// past the end). Only meaningful for a well-formed prefix.
#[inline(always)]
pub(super) fn ends_inside_sequence<D: Spec>(bytes: &[u8]) -> bool {
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
pub(super) fn lead_in_last_four(bytes: &[u8]) -> bool {
    lead_at(bytes, 2) || lead_at(bytes, 3) || lead_at(bytes, 4)
}

/// [`lead_in_last_four`], not inlined.
#[inline(never)]
pub(super) fn lead_in_last_four_out_of_line(bytes: &[u8]) -> bool {
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

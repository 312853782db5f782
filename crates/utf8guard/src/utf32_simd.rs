//! AVX2 steps for UTF-32: well-formed UTF-8 into UTF-32, and UTF-32 into
//! UTF-8. Each is a `#[target_feature]` function inlined into a loop that
//! is compiled for AVX2 as a whole ([`crate::utf32`]): a call across the
//! target features for each block would cost what the vectors save.
//!
//! Out of UTF-8, a step takes 16 bytes, checked well formed by a kernel and
//! starting between two characters: every byte lane computes the code point
//! of the sequence it would start, and only the lanes that hold a lead are
//! kept and stored. A sequence that starts in a step's last bytes ends in
//! the next step, where its continuation bytes start nothing; so a step
//! never waits for the one before it. Steps without a 4-byte lead compute
//! 16-bit code units and keep them with a byte shuffle per eight lanes,
//! then widen them; steps with one gather each byte and the three after it
//! into a 32-bit lane and keep those lanes with a `vpermd`, both halves'
//! into one vector where they hold at most eight characters (text of
//! 4-byte forms), so that only that vector is decoded. ASCII is
//! widened as it is, 32 bytes at a time while it lasts, and the ASCII that
//! starts a window is widened before the kernel checks it. After a step of
//! 3-byte forms with leads from `E1` up (CJK), runs of them go ten at a
//! time, as into UTF-16.
//!
//! Into UTF-8, a step takes 16 units. Any surrogate or value above U+10FFFF
//! stops the loop before the step, so that the exact scalar loop reports
//! or replaces it. ASCII is packed (32 units at a time while it lasts).
//! Steps of the Basic Multilingual Plane are narrowed to 16-bit lanes and
//! take UTF-16's steps (one or two bytes a lane below U+0800, one to three
//! otherwise), but for those of 3-byte forms only, packed by one fixed
//! shuffle from 32-bit lanes. Steps beyond the plane become 32-bit lanes of
//! one to four bytes, packed by a byte shuffle per four lanes looked up by
//! their lengths.

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use crate::transcode::{bmp_units, leads_above_e0, three_byte_run, COUNT, KEEP16};

/// For each set of eight 32-bit lanes to keep (bit `k`: lane `k`), the
/// indexes of the kept lanes, in order, a nibble each (lowest first):
/// spread over the lanes of a vector by a variable shift, it is the
/// permutation that moves them to the front (`vpermd` reads only the low
/// three bits of each index). A nibble a lane keeps the table at 1 KiB.
static KEEP: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut bits = 0;
    while bits < 256 {
        let (mut lane, mut to) = (0, 0);
        while lane < 8 {
            if bits >> lane & 1 == 1 {
                t[bits] |= (lane as u32) << (4 * to);
                to += 1;
            }
            lane += 1;
        }
        bits += 1;
    }
    t
};

/// The bytes of UTF-8 that the steps out of UTF-8 read at once: 16, and
/// the three after them (the rest of a sequence that starts in the last).
pub(crate) const FROM_UTF8_READ: usize = 19;
/// The units of room those steps need: 16 (they write at most a unit a
/// byte, in two stores of eight units, the second at most eight on).
pub(crate) const FROM_UTF8_ROOM: usize = 16;

/// Keeps the lanes of `v` marked in `bits` (eight bits), in order, at the
/// front of the vector.
#[target_feature(enable = "avx2")]
#[inline]
fn keep(v: __m256i, bits: u32) -> __m256i {
    let nibbles = _mm256_set1_epi32(KEEP[bits as usize & 0xFF] as i32);
    let index = _mm256_srlv_epi32(nibbles, _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28));
    _mm256_permutevar8x32_epi32(v, index)
}

/// The lanes of `lo` marked in `low` and of `hi` marked in `high` (eight
/// bits each; `n_low` the first's count, at most eight in all), in order,
/// at the front of one vector.
#[target_feature(enable = "avx2")]
#[inline]
fn keep_both(lo: __m256i, hi: __m256i, low: u32, high: u32, n_low: usize) -> __m256i {
    let kept_low = keep(lo, low);
    // `high`'s indexes moved up `n_low` lanes (those past the eighth are
    // dropped: there are none when the two counts add up to at most 8).
    let nibbles = (u64::from(KEEP[high as usize & 0xFF]) << (4 * n_low)) as u32;
    let index = _mm256_srlv_epi32(
        _mm256_set1_epi32(nibbles as i32),
        _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28),
    );
    let kept_high = _mm256_permutevar8x32_epi32(hi, index);
    let from_high = _mm256_cmpgt_epi32(
        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
        _mm256_set1_epi32(n_low as i32 - 1),
    );
    _mm256_blendv_epi8(kept_low, kept_high, from_high)
}

/// Stores `lo` and `hi`, 16 code points in 32-bit lanes, the lanes marked
/// in `starts` (bit `k`: lane `k`), in order, at the start of `out`;
/// returns how many.
#[target_feature(enable = "avx2")]
#[inline]
fn store_kept(
    out: &mut [MaybeUninit<u32>; FROM_UTF8_ROOM],
    lo: __m256i,
    hi: __m256i,
    starts: u32,
) -> usize {
    let (low, high) = (starts & 0xFF, starts >> 8 & 0xFF);
    let n_low = usize::from(COUNT[low as usize]);
    let q = out.as_mut_ptr();
    // SAFETY: `out` is 16 writable units: 8 at `q`, and 8 at `q + n_low`
    // (`n_low <= 8`).
    unsafe {
        _mm256_storeu_si256(q.cast(), keep(lo, low));
        _mm256_storeu_si256(q.add(n_low).cast(), keep(hi, high));
    }
    n_low + usize::from(COUNT[high as usize])
}

/// Converts well-formed UTF-8 from `src[i..]`, a character start, into
/// UTF-32 at `dst[w..]`, a step of 16 bytes at a time, while
/// [`FROM_UTF8_READ`] bytes are left and [`FROM_UTF8_ROOM`] units of room;
/// returns the new `i`, a character start, and `w`. Past the units written,
/// `dst` may hold scratch.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn from_utf8(
    src: &[u8],
    dst: &mut [MaybeUninit<u32>],
    i: usize,
    w: usize,
) -> (usize, usize) {
    let (mut i, mut w) = (i, w);
    let cont_bits = _mm_set1_epi8(0xC0u8 as i8);
    let cont = _mm_set1_epi8(0x80u8 as i8);
    let above_ef = _mm_set1_epi8(0xEFu8 as i8);
    while let (Some(chunk), Some(out)) = (
        src.get(i..i + FROM_UTF8_READ),
        dst.get_mut(w..w + FROM_UTF8_ROOM),
    ) {
        let chunk: &[u8; FROM_UTF8_READ] = chunk.try_into().expect("19 bytes");
        let out: &mut [MaybeUninit<u32>; FROM_UTF8_ROOM] = out.try_into().expect("16 units");
        let p = chunk.as_ptr();
        // SAFETY: `chunk` is 19 readable bytes, 16 at `p`.
        let x = unsafe { _mm_loadu_si128(p.cast()) };
        let high_bits = _mm_movemask_epi8(x);
        if high_bits == 0 {
            // ASCII: each byte is its code point, widened.
            let q = out.as_mut_ptr();
            // SAFETY: `out` is 16 writable units: 8 at `q`, 8 at `q + 8`.
            unsafe {
                _mm256_storeu_si256(q.cast(), _mm256_cvtepu8_epi32(x));
                _mm256_storeu_si256(
                    q.add(8).cast(),
                    _mm256_cvtepu8_epi32(_mm_srli_si128::<8>(x)),
                );
            }
            i += 16;
            w += 16;
            // And so on 32 at a time while the ASCII lasts (only after an
            // ASCII step: text with short ASCII runs would pay the test
            // at every step).
            (i, w) = ascii_from_utf8(src, dst, i, w);
            continue;
        }
        // The lanes that start a sequence: all but continuation bytes.
        let is_cont = _mm_cmpeq_epi8(_mm_and_si128(x, cont_bits), cont);
        let starts = !_mm_movemask_epi8(is_cont) as u32 & 0xFFFF;
        let four = _mm_subs_epu8(x, above_ef);
        let written = if _mm_testz_si128(four, four) == 1 {
            // 1 to 3 bytes a sequence: code units of 16 bits, computed
            // from each byte and the two after it.
            // SAFETY: `chunk` is 19 readable bytes: 16 at `p + 1` and at
            // `p + 2`.
            let (x1, x2) = unsafe {
                (
                    _mm_loadu_si128(p.add(1).cast()),
                    _mm_loadu_si128(p.add(2).cast()),
                )
            };
            let units = bmp_units(x, x1, x2);
            // Kept in 16-bit lanes, a byte shuffle per eight (one
            // instruction, where keeping 32-bit lanes takes three), then
            // widened.
            let (low, high) = (starts & 0xFF, starts >> 8);
            // SAFETY: each entry of `KEEP16` is 16 readable bytes.
            let shuffles = unsafe {
                _mm256_loadu2_m128i(
                    KEEP16[high as usize].as_ptr().cast(),
                    KEEP16[low as usize].as_ptr().cast(),
                )
            };
            let kept = _mm256_shuffle_epi8(units, shuffles);
            let n_low = usize::from(COUNT[low as usize]);
            let q = out.as_mut_ptr();
            // SAFETY: `out` is 16 writable units: 8 at `q`, and 8 at
            // `q + n_low` (`n_low <= 8`).
            unsafe {
                _mm256_storeu_si256(
                    q.cast(),
                    _mm256_cvtepu16_epi32(_mm256_castsi256_si128(kept)),
                );
                _mm256_storeu_si256(
                    q.add(n_low).cast(),
                    _mm256_cvtepu16_epi32(_mm256_extracti128_si256::<1>(kept)),
                );
            }
            let n = n_low + usize::from(COUNT[high as usize]);
            // No ASCII and at most six sequences: likely 3-byte forms
            // only (CJK), whose runs go ten at a time.
            if high_bits == 0xFFFF && n <= 6 && leads_above_e0(x, starts) {
                (i, w) = three_byte_run(src, dst, i + 16, w + n);
                continue;
            }
            n
        } else {
            // A 4-byte lead: each 32-bit lane gathers its byte and the
            // three after it, lowest first, and decodes them as a sequence
            // of the length its first byte says.
            // SAFETY: `chunk` is 19 readable bytes: 16 at `p + 3`.
            let y = unsafe { _mm_loadu_si128(p.add(3).cast()) };
            let (xx, yy) = (
                _mm256_broadcastsi128_si256(x),
                _mm256_broadcastsi128_si256(y),
            );
            let lo = _mm256_shuffle_epi8(
                xx,
                _mm256_setr_epi8(
                    0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6, //
                    4, 5, 6, 7, 5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10,
                ),
            );
            // Bytes 8 to 18, at 5 to 15 of `y`.
            let hi = _mm256_shuffle_epi8(
                yy,
                _mm256_setr_epi8(
                    5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10, 8, 9, 10, 11, //
                    9, 10, 11, 12, 10, 11, 12, 13, 11, 12, 13, 14, 12, 13, 14, 15,
                ),
            );
            let (low, high) = (starts & 0xFF, starts >> 8);
            let n_low = usize::from(COUNT[low as usize]);
            let n = n_low + usize::from(COUNT[high as usize]);
            if n <= 8 {
                // Few characters (emoji take 4 bytes each): the kept lanes
                // of both halves fit in one vector, and only it is decoded,
                // half the work.
                let merged = keep_both(lo, hi, low, high, n_low);
                // SAFETY: `out` is 16 writable units, 8 at its start.
                unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), decode_words(merged)) };
                n
            } else {
                store_kept(out, decode_words(lo), decode_words(hi), starts)
            }
        };
        w += written;
        i += 16;
    }
    // The last step's last sequence may end after it: past its
    // continuation bytes, the next one starts.
    while src.get(i).is_some_and(|&b| b & 0xC0 == 0x80) {
        i += 1;
    }
    (i, w)
}

/// [`ascii_from_utf8`] from the starts of `src` and `dst`, for
/// [`crate::utf8_input::Convert::ascii`]; returns the bytes read.
#[target_feature(enable = "avx2")]
pub(crate) fn ascii_prefix(src: &[u8], dst: &mut [MaybeUninit<u32>]) -> usize {
    ascii_from_utf8(src, dst, 0, 0).0
}

/// Widens the ASCII bytes from `src[i..]` into `dst[w..]`, 32 at a time,
/// while the next 32 are all ASCII and have room; returns the new `i` and
/// `w`.
#[target_feature(enable = "avx2")]
#[inline]
fn ascii_from_utf8(src: &[u8], dst: &mut [MaybeUninit<u32>], i: usize, w: usize) -> (usize, usize) {
    let (Some(src), Some(dst)) = (src.get(i..), dst.get_mut(w..)) else {
        return (i, w);
    };
    let mut k = 0;
    for (chunk, out) in src.chunks_exact(32).zip(dst.chunks_exact_mut(32)) {
        // SAFETY: `chunk` is 32 readable bytes.
        let x = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
        if _mm256_movemask_epi8(x) != 0 {
            break;
        }
        let (lo, hi) = (_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x));
        let q = out.as_mut_ptr();
        // SAFETY: `out` is 32 writable units: 8 at `q`, `q + 8`, `q + 16`
        // and `q + 24`.
        unsafe {
            _mm256_storeu_si256(q.cast(), _mm256_cvtepu8_epi32(lo));
            _mm256_storeu_si256(
                q.add(8).cast(),
                _mm256_cvtepu8_epi32(_mm_srli_si128::<8>(lo)),
            );
            _mm256_storeu_si256(q.add(16).cast(), _mm256_cvtepu8_epi32(hi));
            _mm256_storeu_si256(
                q.add(24).cast(),
                _mm256_cvtepu8_epi32(_mm_srli_si128::<8>(hi)),
            );
        }
        k += 32;
    }
    (i + k, w + k)
}

/// Eight 32-bit lanes, each a byte and the three after it (lowest first),
/// decoded as the sequence the byte leads (what a continuation byte or an
/// ASCII byte's lane holds past its first byte does not matter).
#[target_feature(enable = "avx2")]
#[inline]
fn decode_words(v: __m256i) -> __m256i {
    let mask = |x: __m256i, m: i32| _mm256_and_si256(x, _mm256_set1_epi32(m));
    let b0 = mask(v, 0xFF);
    // 110xxxxx 10yyyyyy.
    let two = _mm256_or_si256(
        _mm256_slli_epi32::<6>(mask(v, 0x1F)),
        mask(_mm256_srli_epi32::<8>(v), 0x3F),
    );
    // 1110xxxx 10yyyyyy 10zzzzzz.
    let three = _mm256_or_si256(
        _mm256_or_si256(
            _mm256_slli_epi32::<12>(mask(v, 0x0F)),
            mask(_mm256_srli_epi32::<2>(v), 0xFC0),
        ),
        mask(_mm256_srli_epi32::<16>(v), 0x3F),
    );
    // 11110www 10xxxxxx 10yyyyyy 10zzzzzz.
    let four = _mm256_or_si256(
        _mm256_or_si256(
            _mm256_slli_epi32::<18>(mask(v, 0x07)),
            mask(_mm256_slli_epi32::<4>(v), 0x3_F000),
        ),
        _mm256_or_si256(
            mask(_mm256_srli_epi32::<10>(v), 0xFC0),
            _mm256_srli_epi32::<24>(mask(v, 0x3F00_0000)),
        ),
    );
    let is_two = _mm256_cmpgt_epi32(b0, _mm256_set1_epi32(0xBF));
    let is_three = _mm256_cmpgt_epi32(b0, _mm256_set1_epi32(0xDF));
    let is_four = _mm256_cmpgt_epi32(b0, _mm256_set1_epi32(0xEF));
    _mm256_blendv_epi8(
        _mm256_blendv_epi8(_mm256_blendv_epi8(b0, two, is_two), three, is_three),
        four,
        is_four,
    )
}

/// The units of UTF-32 the steps into UTF-8 read at once.
pub(crate) const TO_UTF8_READ: usize = 16;
/// The bytes of room they need: 64, the most 16 units take (they store 16
/// bytes at a time, the last at most 48 bytes on).
pub(crate) const TO_UTF8_ROOM: usize = 64;

/// For four 32-bit lanes, indexed by their lengths in UTF-8 less one (two
/// bits a lane, lane 0 lowest), the byte shuffle that packs their bytes at
/// the front of a vector.
static PACK: [[u8; 16]; 256] = {
    let mut t = [[0x80u8; 16]; 256];
    let mut lens = 0;
    while lens < 256 {
        let (mut lane, mut to) = (0, 0);
        while lane < 4 {
            let len = 1 + (lens >> (2 * lane) & 3);
            let mut k = 0;
            while k < len {
                t[lens][to] = (4 * lane + k) as u8;
                to += 1;
                k += 1;
            }
            lane += 1;
        }
        lens += 1;
    }
    t
};

/// The bytes four lanes take, by the index of [`PACK`].
static FOUR_LEN: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut lens = 0;
    while lens < 256 {
        t[lens] = (4 + (lens & 3) + (lens >> 2 & 3) + (lens >> 4 & 3) + (lens >> 6 & 3)) as u8;
        lens += 1;
    }
    t
};

/// Each bit `k` of a byte moved to bit `2k`: three lane masks spread and
/// added give each lane's length less one in two bits.
static SPREAD: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut bits = 0;
    while bits < 256 {
        let mut k = 0;
        while k < 8 {
            t[bits] |= ((bits >> k & 1) as u16) << (2 * k);
            k += 1;
        }
        bits += 1;
    }
    t
};

/// Whether any of the eight units is a surrogate or above U+10FFFF.
#[target_feature(enable = "avx2")]
#[inline]
fn unencodable(v: __m256i) -> __m256i {
    let surrogate = _mm256_cmpeq_epi32(
        _mm256_and_si256(v, _mm256_set1_epi32(0xFFFF_F800u32 as i32)),
        _mm256_set1_epi32(0xD800),
    );
    // Above U+10FFFF: above 0x10 once shifted (the shift clears the sign).
    let large = _mm256_cmpgt_epi32(_mm256_srli_epi32::<16>(v), _mm256_set1_epi32(0x10));
    _mm256_or_si256(surrogate, large)
}

/// Eight scalar values (at most U+10FFFF) in 32-bit lanes, each made into
/// its UTF-8 bytes (the first lowest), stored packed at `q`; returns how
/// many bytes. Steps of the Basic Multilingual Plane take the UTF-16
/// step, in 16-bit lanes, instead.
///
/// # Safety
///
/// `q` must have 32 writable bytes: the bytes stored (at most 32) and
/// scratch after them, up to 16 bytes after the first four lanes' bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store_utf8_words(q: *mut u8, v: __m256i) -> usize {
    let mask = |x: __m256i, m: i32| _mm256_and_si256(x, _mm256_set1_epi32(m));
    let more = _mm256_cmpgt_epi32(v, _mm256_set1_epi32(0x7F));
    let three = _mm256_cmpgt_epi32(v, _mm256_set1_epi32(0x7FF));
    // 110xxxxx 10yyyyyy.
    let two_bytes = _mm256_or_si256(
        _mm256_or_si256(_mm256_srli_epi32::<6>(v), _mm256_set1_epi32(0x80C0)),
        _mm256_slli_epi32::<8>(mask(v, 0x3F)),
    );
    // 1110xxxx 10yyyyyy 10zzzzzz.
    let three_bytes = _mm256_or_si256(
        _mm256_or_si256(_mm256_srli_epi32::<12>(v), _mm256_set1_epi32(0x80_80E0)),
        _mm256_or_si256(
            _mm256_slli_epi32::<2>(mask(v, 0xFC0)),
            _mm256_slli_epi32::<16>(mask(v, 0x3F)),
        ),
    );
    let four = _mm256_cmpgt_epi32(v, _mm256_set1_epi32(0xFFFF));
    // 11110www 10xxxxxx 10yyyyyy 10zzzzzz.
    let four_bytes = _mm256_or_si256(
        _mm256_or_si256(
            _mm256_srli_epi32::<18>(v),
            _mm256_set1_epi32(0x8080_80F0u32 as i32),
        ),
        _mm256_or_si256(
            _mm256_srli_epi32::<4>(mask(v, 0x3_F000)),
            _mm256_or_si256(
                _mm256_slli_epi32::<10>(mask(v, 0xFC0)),
                _mm256_slli_epi32::<24>(mask(v, 0x3F)),
            ),
        ),
    );
    let words = _mm256_blendv_epi8(v, two_bytes, more);
    let words = _mm256_blendv_epi8(words, three_bytes, three);
    let words = _mm256_blendv_epi8(words, four_bytes, four);
    let bits = |m: __m256i| _mm256_movemask_ps(_mm256_castsi256_ps(m)) as usize;
    let lens = SPREAD[bits(more)] + SPREAD[bits(three)] + SPREAD[bits(four)];
    let (lo, hi) = (usize::from(lens & 0xFF), usize::from(lens >> 8));
    // SAFETY: each entry of `PACK` is 16 readable bytes.
    let shuffles =
        unsafe { _mm256_loadu2_m128i(PACK[hi].as_ptr().cast(), PACK[lo].as_ptr().cast()) };
    let packed = _mm256_shuffle_epi8(words, shuffles);
    let n_lo = usize::from(FOUR_LEN[lo]);
    // SAFETY: the caller gives 32 writable bytes at `q`: 16 at `q` and 16
    // at `q + n_lo` (`n_lo <= 16`).
    unsafe {
        _mm_storeu_si128(q.cast(), _mm256_castsi256_si128(packed));
        _mm_storeu_si128(q.add(n_lo).cast(), _mm256_extracti128_si256::<1>(packed));
    }
    n_lo + usize::from(FOUR_LEN[hi])
}

/// Eight units from U+0800 to U+FFFF in 32-bit lanes, made into their
/// 3-byte forms and packed: the 12 bytes of each four units at the front
/// of its 128-bit half.
#[target_feature(enable = "avx2")]
#[inline]
fn three_byte_forms(v: __m256i) -> __m256i {
    let mask = |x: __m256i, m: i32| _mm256_and_si256(x, _mm256_set1_epi32(m));
    // 1110xxxx 10yyyyyy 10zzzzzz.
    let words = _mm256_or_si256(
        _mm256_or_si256(_mm256_srli_epi32::<12>(v), _mm256_set1_epi32(0x80_80E0)),
        _mm256_or_si256(
            _mm256_slli_epi32::<2>(mask(v, 0xFC0)),
            _mm256_slli_epi32::<16>(mask(v, 0x3F)),
        ),
    );
    let pack = _mm256_setr_epi8(
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, //
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
    );
    _mm256_shuffle_epi8(words, pack)
}

/// 16 units in two vectors of 32-bit lanes, all below U+10000, narrowed
/// to 16-bit lanes, in order.
#[target_feature(enable = "avx2")]
#[inline]
fn narrow(a: __m256i, b: __m256i) -> __m256i {
    // The pack works within 128-bit halves: the permutation puts the four
    // groups of four back in order.
    _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(a, b))
}

/// Narrows the ASCII units from `src[i..]` into `dst[w..]`, 32 at a time,
/// while the next 32 are all ASCII and have room; returns the new `i` and
/// `w`.
#[target_feature(enable = "avx2")]
#[inline]
fn ascii_to_utf8(src: &[u32], dst: &mut [MaybeUninit<u8>], i: usize, w: usize) -> (usize, usize) {
    let (Some(src), Some(dst)) = (src.get(i..), dst.get_mut(w..)) else {
        return (i, w);
    };
    let mut k = 0;
    for (chunk, out) in src.chunks_exact(32).zip(dst.chunks_exact_mut(32)) {
        let p = chunk.as_ptr();
        // SAFETY: `chunk` is 32 readable units: 8 at `p`, `p + 8`, `p + 16`
        // and `p + 24`.
        let (a, b, c, d) = unsafe {
            (
                _mm256_loadu_si256(p.cast()),
                _mm256_loadu_si256(p.add(8).cast()),
                _mm256_loadu_si256(p.add(16).cast()),
                _mm256_loadu_si256(p.add(24).cast()),
            )
        };
        let any = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
        if _mm256_testz_si256(any, _mm256_set1_epi32(!0x7F)) == 0 {
            break;
        }
        // Both packs work within 128-bit halves: each half ends up with
        // four units of each vector, and the permutation puts the groups
        // back in order.
        let bytes = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
        let bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        // SAFETY: `out` is 32 writable bytes.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), bytes) };
        k += 32;
    }
    (i + k, w + k)
}

/// Converts UTF-32 from `src[i..]` into UTF-8 at `dst[w..]`, a step of
/// [`TO_UTF8_READ`] units at a time, while that many are left and
/// [`TO_UTF8_ROOM`] bytes of room, and stops before a step that holds a
/// surrogate or a value above U+10FFFF; returns the new `i` and `w`. Past
/// the bytes written, `dst` may hold scratch.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn to_utf8(
    src: &[u32],
    dst: &mut [MaybeUninit<u8>],
    i: usize,
    w: usize,
) -> (usize, usize) {
    let (mut i, mut w) = (i, w);
    while let (Some(chunk), Some(out)) = (
        src.get(i..i + TO_UTF8_READ),
        dst.get_mut(w..w + TO_UTF8_ROOM),
    ) {
        let p = chunk.as_ptr();
        // SAFETY: `chunk` is 16 readable units: 8 at `p`, 8 at `p + 8`.
        let (a, b) = unsafe {
            (
                _mm256_loadu_si256(p.cast()),
                _mm256_loadu_si256(p.add(8).cast()),
            )
        };
        let q: *mut u8 = out.as_mut_ptr().cast();
        let any = _mm256_or_si256(a, b);
        if _mm256_testz_si256(any, _mm256_set1_epi32(!0x7F)) == 1 {
            // ASCII: each unit is its byte.
            let units = narrow(a, b);
            let bytes = _mm_packus_epi16(
                _mm256_castsi256_si128(units),
                _mm256_extracti128_si256::<1>(units),
            );
            // SAFETY: `out` is 64 writable bytes.
            unsafe { _mm_storeu_si128(q.cast(), bytes) };
            i += TO_UTF8_READ;
            w += TO_UTF8_READ;
            // And so on 32 at a time while the ASCII lasts.
            (i, w) = ascii_to_utf8(src, dst, i, w);
            continue;
        }
        if _mm256_testz_si256(any, _mm256_set1_epi32(!0xFFFF)) == 0 {
            // Beyond the Basic Multilingual Plane, in 32-bit lanes.
            let bad = _mm256_or_si256(unencodable(a), unencodable(b));
            if _mm256_testz_si256(bad, bad) == 0 {
                break;
            }
            // SAFETY: `out` is 64 writable bytes; the first eight units
            // take at most 32 of them, so each call has its 32.
            w += unsafe {
                let n = store_utf8_words(q, a);
                n + store_utf8_words(q.add(n), b)
            };
            i += TO_UTF8_READ;
            continue;
        }
        // The Basic Multilingual Plane: the UTF-16 steps, once the units
        // are narrowed to 16-bit lanes and found to hold no surrogate.
        let units = narrow(a, b);
        let high5 = _mm256_and_si256(units, _mm256_set1_epi16(0xF800u16 as i16));
        let surrogates = _mm256_cmpeq_epi16(high5, _mm256_set1_epi16(0xD800u16 as i16));
        if _mm256_testz_si256(surrogates, surrogates) == 0 {
            break;
        }
        let short = _mm256_cmpeq_epi16(high5, _mm256_setzero_si256());
        if _mm256_testc_si256(short, _mm256_set1_epi8(-1)) == 1 {
            // All below U+0800: one or two bytes a lane.
            // SAFETY: `out` is 64 writable bytes, more than 32.
            w += unsafe { crate::transcode::store_below_0800(units, q) };
        } else if _mm256_testz_si256(short, short) == 1 {
            // All 3 bytes long (CJK text): the bytes of each four units
            // are packed by one fixed shuffle, at fixed places.
            let (x, y) = (three_byte_forms(a), three_byte_forms(b));
            // SAFETY: `out` is 64 writable bytes: 16 at `q`, `q + 12`,
            // `q + 24` and `q + 36`.
            unsafe {
                _mm_storeu_si128(q.cast(), _mm256_castsi256_si128(x));
                _mm_storeu_si128(q.add(12).cast(), _mm256_extracti128_si256::<1>(x));
                _mm_storeu_si128(q.add(24).cast(), _mm256_castsi256_si128(y));
                _mm_storeu_si128(q.add(36).cast(), _mm256_extracti128_si256::<1>(y));
            }
            w += 3 * TO_UTF8_READ;
        } else {
            // SAFETY: `out` is 64 writable bytes.
            w += unsafe { crate::transcode::store_bmp(units, q) };
        }
        i += TO_UTF8_READ;
    }
    (i, w)
}

//! Lossy conversion: every ill-formed sequence becomes U+FFFD.
//!
//! Two phases alternate. The fast phase runs the active kernel over the
//! rest of the input: valid input is borrowed as is, and otherwise the
//! kernel names where the next error is (on the x86 kernels, past the
//! first block, the byte that shows it; otherwise the block holding it);
//! everything before
//! the start of the character at that offset is valid and copied as is. The
//! slow phase decodes from there one character at a time (words of ASCII
//! at a time), writing one U+FFFD per maximal subpart (the rule of
//! `String::from_utf8_lossy`, and the Unicode standard's "substitution of
//! maximal subparts"), and hands back to the kernel once it has seen
//! [`CLEAN_RUN`] valid bytes after an error (more where errors are dense,
//! see [`DENSE`]). Sparse errors thus cost a
//! kernel call and a few bytes of decoding each (a few dozen where the
//! kernel names a block), and dense errors
//! (binary data, another encoding) cost no kernel call at all.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use crate::bytes::{is_continuation, LEADS};
use crate::dispatch;

#[cfg(target_arch = "x86_64")]
mod lone_shuffle;

/// U+FFFD REPLACEMENT CHARACTER.
const REPLACEMENT: &str = "\u{FFFD}";

/// How many valid bytes after an error send the decoding back to the
/// kernel.
const CLEAN_RUN: usize = 8;

/// A kernel call that finds an error within this many bytes of where it
/// started says that errors are dense (text in another encoding, binary
/// data): the decoding loop then waits for a clean run twice as long before
/// it calls the kernel again, up to [`MAX_CLEAN_RUN`], as a call per error
/// costs more than decoding the few bytes between them.
const DENSE: usize = 32;

/// The longest clean run awaited before a kernel call.
const MAX_CLEAN_RUN: usize = 1024;

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Converts bytes to a string, replacing each ill-formed sequence with
/// U+FFFD: exactly what [`String::from_utf8_lossy`] returns, borrowed when
/// the input is valid, at the speed of [`from_utf8`](crate::from_utf8) on
/// mostly valid input.
///
/// ```
/// use std::borrow::Cow;
///
/// // Valid input is borrowed.
/// assert!(matches!(utf8guard::from_utf8_lossy(b"valid"), Cow::Borrowed("valid")));
///
/// // One U+FFFD per maximal subpart: F0 9F 98 is one (a truncated emoji),
/// // C0 and AF are two (C0 can never start a character).
/// let bytes = b"a\xF0\x9F\x98b\xC0\xAFc";
/// let text = utf8guard::from_utf8_lossy(bytes);
/// assert_eq!(text, "a\u{FFFD}b\u{FFFD}\u{FFFD}c");
/// assert_eq!(text, String::from_utf8_lossy(bytes));
/// ```
pub fn from_utf8_lossy(bytes: &[u8]) -> Cow<'_, str> {
    let first = match dispatch::run(bytes) {
        // SAFETY: the active kernel accepted all of `bytes`.
        Ok(()) => return Cow::Borrowed(unsafe { core::str::from_utf8_unchecked(bytes) }),
        Err(offset) => offset,
    };
    let mut out = String::with_capacity(capacity(bytes.len()));
    push_lossy(&mut out, bytes, first);
    Cow::Owned(out)
}

/// Room for `len` bytes of input and, without growing, for a replacement
/// longer than what it replaces in one byte in 500.
pub(crate) fn capacity(len: usize) -> usize {
    len + len / 256 + 16
}

/// Appends the lossy conversion of `bytes` to `out`, given `first`, a
/// kernel's offset for `bytes` (or any offset the bytes before which are
/// well formed but for an unfinished character in their last 3 bytes, such
/// as an error's `valid_up_to`).
pub(crate) fn push_lossy(out: &mut String, bytes: &[u8], first: usize) {
    push_repaired::<false, _>(
        out,
        bytes,
        first,
        Some(&Shape::FFFD),
        &mut |out, _, _, _| out.push_str(REPLACEMENT),
    );
}

/// What a replacement may write into a string: whole characters.
pub(crate) struct Text<'v>(&'v mut Vec<u8>);

impl Text<'_> {
    /// Appends `text`.
    #[inline(always)]
    pub(crate) fn push_str(&mut self, text: &str) {
        self.0.extend_from_slice(text.as_bytes());
    }

    /// Appends four ASCII bytes.
    #[inline(always)]
    pub(crate) fn push_ascii(&mut self, bytes: [u8; 4]) {
        assert!(bytes.is_ascii(), "only ASCII is written this way");
        self.0.extend_from_slice(&bytes);
    }

    /// Appends `c`.
    #[inline(always)]
    pub(crate) fn push(&mut self, c: char) {
        let mut bytes = [0; 4];
        let len = c.encode_utf8(&mut bytes).len();
        // All four written, the character's kept: a store of fixed size
        // rather than a copy of its length.
        self.0.extend_from_slice(&bytes);
        self.0.truncate(self.0.len() - 4 + len);
    }
}

/// [`push_lossy`] with `replace` in place of U+FFFD: it is given `bytes`
/// and where each maximal subpart starts and ends (the unfinished
/// character at the end of the input is one), and appends what stands for
/// it. (The bounds are passed, not the slice, so that a `replace` that
/// does not look at the bytes leaves no bounds check behind.)
///
/// With `SURROGATES_WHOLE`, a surrogate's 3-byte form (`ED A0..BF
/// 80..BF`), or a prefix of it cut short, is one unit where Unicode's rule
/// makes one of each byte: the JDK's UTF-8 decoder replaces them so.
///
/// `lone`, when given, is what `replace` writes for a byte above `7F`
/// between ASCII ones: blocks of such bytes are then replaced by shuffles,
/// without calling `replace` (so not where `replace` counts the units).
pub(crate) fn push_repaired<const SURROGATES_WHOLE: bool, F>(
    out: &mut String,
    bytes: &[u8],
    first: usize,
    lone: Option<&'static Shape>,
    replace: &mut F,
) where
    F: FnMut(&mut Text<'_>, &[u8], usize, usize),
{
    // SAFETY: what is appended is well formed: the runs of `bytes` that
    // the kernels or the decoding loop found so, and what `replace`
    // writes through `Text`, which keeps only `str`s and whole `char`s.
    // (Bytes beyond those are written ahead and cut at once, with no
    // call or panic between.)
    let vec = unsafe { out.as_mut_vec() };
    push_repaired_bytes::<SURROGATES_WHOLE, _>(
        vec,
        bytes,
        first,
        lone,
        &mut |out, bytes, start, end| replace(&mut Text(out), bytes, start, end),
    );
}

/// [`push_repaired`] into bytes: `replace` may write anything (the escape
/// writes lone surrogates).
pub(crate) fn push_repaired_bytes<const SURROGATES_WHOLE: bool, F>(
    out: &mut Vec<u8>,
    bytes: &[u8],
    first: usize,
    lone: Option<&'static Shape>,
    replace: &mut F,
) where
    F: FnMut(&mut Vec<u8>, &[u8], usize, usize),
{
    let mut at = 0;
    let mut flagged = first;
    let mut clean_run = CLEAN_RUN;
    let lone = lone.filter(|_| lone_shuffles());
    loop {
        // The kernel validated `bytes[at..flagged]` up to, possibly, an
        // unfinished character in its last 3 bytes.
        let start = at + crate::kernel::character_start(&bytes[at..], flagged - at);
        out.extend_from_slice(&bytes[at..start]);
        at = decode_replacing::<SURROGATES_WHOLE, F>(out, bytes, start, clean_run, lone, replace);
        if at == bytes.len() {
            return;
        }
        match dispatch::run(&bytes[at..]) {
            Ok(()) => {
                out.extend_from_slice(&bytes[at..]);
                return;
            }
            Err(offset) => {
                clean_run = if offset < DENSE {
                    (2 * clean_run).min(MAX_CLEAN_RUN)
                } else {
                    CLEAN_RUN
                };
                flagged = at + offset;
            }
        }
    }
}

/// Decodes `bytes` from `i`, a character start, into `out`, with what
/// `replace` makes of each maximal subpart, until `clean_run` valid
/// bytes have followed an error or the input ends. Returns where it
/// stopped: a character start, or the end.
///
/// Where errors are dense the cost is in the branches, not the bytes: each
/// step writes 16 bytes of input ahead and keeps its ASCII prefix (a store
/// and a length), rather than finding the run's length first and copying
/// it with a call.
fn decode_replacing<const SURROGATES_WHOLE: bool, F>(
    out: &mut Vec<u8>,
    bytes: &[u8],
    i: usize,
    clean_run: usize,
    lone: Option<&Shape>,
    replace: &mut F,
) -> usize
where
    F: FnMut(&mut Vec<u8>, &[u8], usize, usize),
{
    #[cfg(target_arch = "x86_64")]
    if lone.is_some() {
        // SAFETY: `lone` is given only where the CPU has SSSE3
        // (`lone_shuffles`).
        return unsafe {
            decode_replacing_ssse3::<SURROGATES_WHOLE, F>(out, bytes, i, clean_run, lone, replace)
        };
    }
    decode_loop::<SURROGATES_WHOLE, F>(out, bytes, i, clean_run, lone, replace)
}

/// [`decode_loop`] compiled for SSSE3, so that the shuffles inline into it
/// (a call for each block cost what they saved).
///
/// # Safety
///
/// The CPU must have SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn decode_replacing_ssse3<const SURROGATES_WHOLE: bool, F>(
    out: &mut Vec<u8>,
    bytes: &[u8],
    i: usize,
    clean_run: usize,
    lone: Option<&Shape>,
    replace: &mut F,
) -> usize
where
    F: FnMut(&mut Vec<u8>, &[u8], usize, usize),
{
    decode_loop::<SURROGATES_WHOLE, F>(out, bytes, i, clean_run, lone, replace)
}

/// The loop of [`decode_replacing`].
#[inline(always)]
fn decode_loop<const SURROGATES_WHOLE: bool, F>(
    out: &mut Vec<u8>,
    bytes: &[u8],
    mut i: usize,
    clean_run: usize,
    lone: Option<&Shape>,
    replace: &mut F,
) -> usize
where
    F: FnMut(&mut Vec<u8>, &[u8], usize, usize),
{
    #[cfg(not(target_arch = "x86_64"))]
    let _ = lone;
    let len = bytes.len();
    // Until the first error, `stop` is the end of the input; after an
    // error, the end of the clean run that hands back to the kernels.
    let mut stop = len;
    while i < stop {
        if let Some(ahead) = bytes.get(i..i + 32) {
            let block: [u8; 16] = ahead[..16].try_into().expect("16 bytes");
            // The bytes with their high bit set, and the one after the block.
            let high = high_bits(block) | u32::from(ahead[16] >> 7) << 16;
            #[cfg(target_arch = "x86_64")]
            if let Some(shape) = lone {
                if high & 0xFFFF != 0 {
                    // SAFETY: `lone` is given only where the CPU has SSSE3
                    // (`lone_shuffles`).
                    let done = unsafe { lone_shuffle::append(out, ahead, shape) };
                    if done {
                        i += 16;
                        stop = len.min(i + clean_run);
                        continue;
                    }
                }
            }
            let ascii = high.trailing_zeros().min(16) as usize;
            // Written ahead, the ASCII prefix kept.
            out.extend_from_slice(&block);
            out.truncate(out.len() - 16 + ascii);
            if ascii == 16 {
                i += 16;
                continue;
            }
            // Up to the first of two bytes in a row with their high bit set
            // (the start of a multi-byte character, well formed or not),
            // each flagged byte stands between ASCII ones: a maximal subpart
            // of its own (text in a single-byte encoding). Those are
            // replaced in one pass over the bits, without a look at what
            // each byte is.
            let pairs = high & (high >> 1);
            let limit = if pairs == 0 {
                16
            } else {
                pairs.trailing_zeros() as usize
            };
            let mut lone = high & ((1 << limit) - 1);
            if lone != 0 {
                loop {
                    let k = lone.trailing_zeros() as usize;
                    replace(out, bytes, i + k, i + k + 1);
                    lone &= lone - 1;
                    let next = if lone == 0 {
                        limit
                    } else {
                        lone.trailing_zeros() as usize
                    };
                    let run: [u8; 16] = ahead[k + 1..k + 17].try_into().expect("16 bytes");
                    out.extend_from_slice(&run);
                    out.truncate(out.len() - 16 + (next - k - 1));
                    if lone == 0 {
                        break;
                    }
                }
                stop = len.min(i + limit + clean_run);
            }
            i += limit;
            if limit == 16 {
                continue;
            }
            if i >= stop {
                break;
            }
            let c = &ahead[limit..limit + 4];
            if let Some(width) = whole_character(c[0], c[1], c[2], c[3]) {
                out.extend_from_slice(&c[..width]);
                i += width;
                continue;
            }
        } else if bytes[i] < 0x80 {
            // The last 31 bytes: ASCII one at a time.
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        match crate::kernel::check_character(bytes, i) {
            // Too close to the end for the block path.
            Ok(width) => {
                out.extend_from_slice(&bytes[i..i + width]);
                i += width;
            }
            Err(subpart) => {
                let subpart = if SURROGATES_WHOLE {
                    surrogate_unit(bytes, i).unwrap_or(subpart)
                } else {
                    subpart
                };
                match subpart {
                    Some(n) => {
                        replace(out, bytes, i, i + n);
                        i += n;
                    }
                    // The input ends inside a character: one replacement
                    // for what is left.
                    None => {
                        replace(out, bytes, i, len);
                        return len;
                    }
                }
                stop = len.min(i + clean_run);
            }
        }
    }
    i
}

/// The length of the surrogate's 3-byte form at `i` (`Some(2)` when its
/// last byte is not a continuation byte, `None` when the input ends inside
/// it), or `None` (the outer one) when there is none.
#[inline(never)]
fn surrogate_unit(bytes: &[u8], i: usize) -> Option<Option<usize>> {
    match bytes[i..] {
        [0xED, 0xA0..=0xBF, b2, ..] if b2 & 0xC0 == 0x80 => Some(Some(3)),
        [0xED, 0xA0..=0xBF, _, ..] => Some(Some(2)),
        [0xED, 0xA0..=0xBF] => Some(None),
        _ => None,
    }
}

/// What a policy writes for a lone byte `b` above `7F`, in the form the
/// shuffles of `lone_shuffle` make it: `width` bytes (at most 4), byte `j`
/// being `fixed[1 + j] | (b >> 6 & top[1 + j]) | (b & 0x3F & low[1 + j])`,
/// or, where `high_digit[1 + j]` or `low_digit[1 + j]` is set, the hex digit
/// of `b`'s high or low nibble (index 0 is an ASCII byte's, which stays as
/// it is). With `high_only`, only bytes from `A0` up are replaced so
/// (Windows-1252's `80`..`9F` are other characters).
#[derive(Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct Shape {
    width: u8,
    fixed: [u8; 16],
    top: [u8; 16],
    low: [u8; 16],
    high_digit: [u8; 16],
    low_digit: [u8; 16],
    hex: bool,
    high_only: bool,
}

impl Shape {
    /// U+FFFD.
    pub(crate) const FFFD: Shape = Shape::new(3, [0xEF, 0xBF, 0xBD, 0], [0; 4], [0; 4], false);
    /// The byte read as Latin-1: U+0080..U+00FF, `C2`/`C3` then `80 | b & 3F`.
    pub(crate) const LATIN1: Shape = Shape::new(
        2,
        [0xC0, 0x80, 0, 0],
        [0xFF, 0, 0, 0],
        [0, 0xFF, 0, 0],
        false,
    );
    /// The byte read as Windows-1252, from `A0` up (where it is Latin-1).
    pub(crate) const WINDOWS_1252: Shape = Shape::new(
        2,
        [0xC0, 0x80, 0, 0],
        [0xFF, 0, 0, 0],
        [0, 0xFF, 0, 0],
        true,
    );
    /// The surrogate escape: U+DC00 + b, `ED`, `B2`/`B3`, `80 | b & 3F`.
    pub(crate) const ESCAPE: Shape = Shape::new(
        3,
        [0xED, 0xB0, 0x80, 0],
        [0, 0xFF, 0, 0],
        [0, 0, 0xFF, 0],
        false,
    );
    /// Nothing.
    pub(crate) const DROP: Shape = Shape::new(0, [0; 4], [0; 4], [0; 4], false);
    /// `\xNN`, lower-case hex digits.
    pub(crate) const BACKSLASH: Shape = {
        let mut shape = Shape::new(4, [b'\\', b'x', 0, 0], [0; 4], [0; 4], false);
        shape.high_digit[3] = 0xFF;
        shape.low_digit[4] = 0xFF;
        shape.hex = true;
        shape
    };

    const fn new(width: u8, fixed: [u8; 4], top: [u8; 4], low: [u8; 4], high_only: bool) -> Shape {
        let mut shape = Shape {
            width,
            fixed: [0; 16],
            top: [0; 16],
            low: [0; 16],
            high_digit: [0; 16],
            low_digit: [0; 16],
            hex: false,
            high_only,
        };
        let mut j = 0;
        while j < 4 {
            shape.fixed[1 + j] = fixed[j];
            shape.top[1 + j] = top[j];
            shape.low[1 + j] = low[j];
            j += 1;
        }
        shape
    }
}

/// Whether blocks of lone bytes may be replaced by shuffles:
/// on x86_64 with SSSE3, unless the scalar kernel was chosen (so that the
/// portable loop runs, and is tested, wherever it is asked for).
fn lone_shuffles() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        crate::cpu::has_sse42() && crate::validate::active_kernel() != crate::Kernel::Scalar
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The width of the well-formed character that starts with the
/// non-ASCII byte `b0` and goes on with `b1`, `b2`, `b3` (which may belong
/// to the characters after it), or `None` when it is ill formed. The fast
/// path of [`decode_replacing`], with no bounds to check.
#[inline(always)]
fn whole_character(b0: u8, b1: u8, b2: u8, b3: u8) -> Option<usize> {
    let lead = LEADS[usize::from(b0)];
    let (low, high) = lead.second;
    let whole = match lead.width {
        2 => low <= b1 && b1 <= high,
        3 => low <= b1 && b1 <= high && is_continuation(b2),
        4 => low <= b1 && b1 <= high && is_continuation(b2) && is_continuation(b3),
        _ => false,
    };
    whole.then_some(usize::from(lead.width))
}

/// A bit for each byte of `block` whose high bit is set, in order.
#[inline(always)]
fn high_bits(block: [u8; 16]) -> u32 {
    // Each byte's high bit moved to its low bit, then gathered in the top
    // byte by a multiplication (no two partial products meet there).
    let pack = |word: [u8; 8]| {
        let flags = (u64::from_le_bytes(word) & HIGH_BITS) >> 7;
        (flags.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
    };
    let (low, high) = block.split_at(8);
    pack(low.try_into().expect("8 bytes")) | pack(high.try_into().expect("8 bytes")) << 8
}

//! Transcoding between the dialects, and between WTF-8 and UTF-16.
//!
//! A [`Transcoder`] reads one dialect and writes another, code point by
//! code point, with an error [`Policy`]. Most text needs no change at all
//! (ASCII; and, between the dialects that share UTF-8's forms, every
//! character but a few: CESU-8's surrogate pairs, modified UTF-8's
//! `C0 80`, ...), so the transcoder goes through three phases in turn:
//!
//! * the copy phase finds, with the active vector kernel, the longest
//!   prefix of the rest of the input that is valid strict UTF-8 *and* made
//!   only of bytes that mean the same in both dialects (a byte range per
//!   dialect: everything for UTF-8, Unicode 3.1, WTF-8 and RFC 2279; no
//!   `F0..FF` for CESU-8; no `00` or `F0..FF` for modified UTF-8; ASCII
//!   without `00` for Corrected UTF-8), and copies it as it is (into or out
//!   of CESU-8 and modified UTF-8, with one vector check of exactly that
//!   text; otherwise by validating, then scanning for bytes out of the
//!   range), a piece at a time: the first twice what the last copy phase
//!   copied, doubling up to 16 KiB;
//! * the conversion phase checks a window of the input ahead (256 bytes at
//!   first, doubling up to 64 KiB while the windows are valid) with the
//!   dialect's vector kernel, and converts its well-formed prefix with a
//!   tight loop for the pair of dialects (`fast.rs`), which decodes without
//!   checking again and copies ASCII 8 bytes at a time (with the AVX2 or
//!   AVX-512 kernel dispatched, vector loops convert runs of supplementary
//!   characters whose form changes, `pairs_simd.rs`, and, between UTF-8
//!   and Corrected UTF-8, 32-byte blocks in which every sequence keeps its
//!   length, `corrected_simd.rs`; where only a few items change, it
//!   copies 32 bytes a step and writes the changed items over the copy);
//!   it stops before
//!   anything that needs care (a code point the target cannot hold, a lone
//!   surrogate, a reserved run, a sequence longer than 4 bytes, a pair cut
//!   by the window's end), or after a long run of unchanged bytes, when the
//!   copy phase takes over again;
//! * the careful phase converts the one item where the conversion stopped
//!   with the scalar decoder ([`Dialect::decode`]) and encoder
//!   ([`Dialect::encode`]), the reference, which also gives the errors
//!   (their offset, length and cause) and the replacements.

use core::fmt;
use core::mem::MaybeUninit;

#[cfg(feature = "alloc")]
use alloc::{string::String, vec::Vec};

use crate::cpu::Level;
use crate::decode::{self, Decode, Decoded, MAGIC};
use crate::dialect::Dialect;
use crate::encode::{EncodeError, Encoded};
use crate::error::ErrorKind;
use crate::kernel;

mod bmp_simd;
#[cfg(target_arch = "x86_64")]
pub(crate) use bmp_simd::x86::{bmp_units, leads_above_e0, three_byte_run};
#[cfg(target_arch = "x86_64")]
pub(crate) use bmp_simd::COUNT;
#[cfg(vector_kernels)]
pub(crate) use bmp_simd::KEEP as KEEP16;
mod corrected_simd;
mod fast;
mod pairs_simd;
mod strict;
mod utf16_simd;
#[cfg(feature = "alloc")]
pub use strict::{utf16_to_utf8, utf8_to_utf16};
pub use strict::{utf16_to_utf8_into, utf8_to_utf16_into};
#[cfg(target_arch = "x86_64")]
pub(crate) use utf16_simd::x86::{store_below_0800, store_bmp};

/// What a transcoder does with input it cannot convert.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Stop at the first ill-formed sequence or code point the target
    /// cannot hold, and report where and why.
    Strict,
    /// Write U+FFFD (in the target dialect) for each: one per maximal
    /// subpart of ill-formed input (as `String::from_utf8_lossy` does), one
    /// per code point the target cannot hold, one per reserved run.
    Replace,
}

/// Why a transcoder stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cause {
    /// The input is ill formed in the source dialect (the kind is
    /// [`Dialect::check`]'s).
    Malformed(ErrorKind),
    /// A well-formed code point that the target dialect cannot hold.
    Unencodable(EncodeError),
    /// A Corrected UTF-8 reserved `FE`/`FF` run, which no other dialect can
    /// hold.
    Reserved,
}

/// Where and why a [`Policy::Strict`] transcoding stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TranscodeError {
    offset: usize,
    len: Option<usize>,
    cause: Cause,
}

impl TranscodeError {
    /// An error at `offset`, `len` long (`None`: the input ends inside it).
    pub(crate) fn new(offset: usize, len: Option<usize>, cause: Cause) -> TranscodeError {
        TranscodeError { offset, len, cause }
    }

    /// The offset of the input (in bytes, or in UTF-16 code units for UTF-16
    /// input) where the offending item starts; everything before it was
    /// converted.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// How long the offending item is: the maximal subpart of an ill-formed
    /// sequence, or the whole sequence of a code point or run (of a run that
    /// reaches the end of a piece of a stream, the part in that piece);
    /// `None` when the input ends inside a sequence.
    pub fn error_len(&self) -> Option<usize> {
        self.len
    }

    /// Why it could not be converted.
    pub fn cause(&self) -> Cause {
        self.cause
    }
}

impl fmt::Display for TranscodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.cause {
            Cause::Malformed(kind) => write!(f, "{kind} at offset {}", self.offset),
            Cause::Unencodable(why) => write!(f, "{why} at offset {}", self.offset),
            Cause::Reserved => write!(
                f,
                "reserved FE/FF run, which the target cannot hold, at offset {}",
                self.offset
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for TranscodeError {}

/// Why [`Transcoder::transcode`] returned without an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// All of the input that can be converted now was: with `last`, all of
    /// it; without, all but a tail of up to 5 bytes that more input may
    /// complete (up to 7 at the start of Corrected UTF-8, which may be the
    /// beginning of the magic number), to be passed again at the start of
    /// the next call.
    InputEmpty,
    /// The output is full; call again with the rest of the input.
    OutputFull,
}

/// What one call of [`Transcoder::transcode`] (or of
/// [`wtf8_to_utf16_into`], [`utf16_to_wtf8_into`]) did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Progress {
    /// Input bytes (UTF-16 units) consumed.
    pub read: usize,
    /// Output bytes (UTF-16 units) written.
    pub written: usize,
    /// Why it returned, or the error that stopped it (its offset counts
    /// from the start of the whole stream).
    pub result: Result<Status, TranscodeError>,
}

/// A caller's `slice` as room for the converters, which take room that
/// may be uninitialized (a vector's spare capacity, not zeroed first).
///
/// # Safety
///
/// Only initialized values may be written through the result (as the
/// crate's converters do): `slice` must hold initialized values after.
pub(crate) unsafe fn as_room<T: Copy>(slice: &mut [T]) -> &mut [MaybeUninit<T>] {
    // SAFETY: `MaybeUninit<T>` has the layout of `T`; what is written
    // through it is initialized, the caller's promise.
    unsafe { &mut *(slice as *mut [T] as *mut [MaybeUninit<T>]) }
}

/// Appends to `out` what `convert` writes into `room` elements of its
/// spare capacity: `convert` returns its result and how many elements it
/// wrote (stores past them are scratch, not kept).
///
/// # Safety
///
/// `convert` must have initialized the first elements of the room, as
/// many as it says, in order and with no gap, on every path (an error's
/// too): the crate's converters do.
#[cfg(feature = "alloc")]
pub(crate) unsafe fn append<T, R>(
    out: &mut Vec<T>,
    room: usize,
    convert: impl FnOnce(&mut [MaybeUninit<T>]) -> (R, usize),
) -> R {
    out.reserve(room);
    let len = out.len();
    let (result, written) = convert(&mut out.spare_capacity_mut()[..room]);
    assert!(written <= room);
    // SAFETY: the converter initialized the first `written` elements of
    // the spare capacity (the caller's promise), and `written` is within
    // the reserved room.
    unsafe { out.set_len(len + written) };
    result
}

/// [`append`] for a converter of a whole input of `len` items, which
/// reports its [`Progress`]: the conversion's result, `out` holding what
/// was converted before an error.
///
/// # Safety
///
/// As for [`append`]: `convert` initializes the first `written` elements
/// of the room, in order, on every path.
#[cfg(feature = "alloc")]
pub(crate) unsafe fn append_whole<T>(
    out: &mut Vec<T>,
    room: usize,
    len: usize,
    convert: impl FnOnce(&mut [MaybeUninit<T>]) -> Progress,
) -> Result<(), TranscodeError> {
    // SAFETY: the caller's promise, passed on.
    let progress = unsafe {
        append(out, room, |room| {
            let progress = convert(room);
            (progress, progress.written)
        })
    };
    debug_assert!(progress.result.is_err() || progress.read == len);
    progress.result.map(drop)
}

/// Where converted bytes go: a caller's slice or a growing vector.
trait Sink {
    /// How many more bytes fit.
    fn room(&self) -> usize;
    /// How many bytes fit in all, written or not.
    fn capacity(&self) -> usize;
    /// Appends `bytes` (at most `room()` of them).
    fn put(&mut self, bytes: &[u8]);
    /// Lets `write` fill the next bytes of the output (at least `want` of
    /// them, or all the room there is) and keeps as many as it returns.
    fn fill(&mut self, want: usize, write: impl FnOnce(&mut [u8]) -> usize);
}

/// A caller's buffer and how much of it is written.
struct SliceSink<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl Sink for SliceSink<'_> {
    fn room(&self) -> usize {
        self.buf.len() - self.len
    }

    fn capacity(&self) -> usize {
        self.buf.len()
    }

    fn put(&mut self, bytes: &[u8]) {
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    fn fill(&mut self, _want: usize, write: impl FnOnce(&mut [u8]) -> usize) {
        self.len += write(&mut self.buf[self.len..]);
    }
}

/// A vector the output is appended to. Its bytes after `len` are room
/// already initialized (zeros, or what an earlier step wrote and did not
/// keep), cut off when the sink is dropped: each step of the conversion
/// phase asks for room for the whole window it may convert, and
/// zeroing that room at every step (as `Vec::resize` does) cost more than
/// the conversion where steps are short (docs/TUNING.md, "Output room
/// zeroed once").
#[cfg(feature = "alloc")]
struct VecSink<'a> {
    vec: &'a mut Vec<u8>,
    len: usize,
}

#[cfg(feature = "alloc")]
impl<'a> VecSink<'a> {
    fn new(vec: &'a mut Vec<u8>) -> Self {
        let len = vec.len();
        VecSink { vec, len }
    }

    /// Makes the room after `len` at least `want` bytes.
    fn room_for(&mut self, want: usize) {
        if self.vec.len() - self.len < want {
            self.vec.resize(self.len + want, 0);
        }
    }
}

#[cfg(feature = "alloc")]
impl Drop for VecSink<'_> {
    fn drop(&mut self) {
        self.vec.truncate(self.len);
    }
}

#[cfg(feature = "alloc")]
impl Sink for VecSink<'_> {
    fn room(&self) -> usize {
        usize::MAX
    }

    fn capacity(&self) -> usize {
        usize::MAX
    }

    fn put(&mut self, bytes: &[u8]) {
        // Into the room there is, the rest appended (not zeroed first).
        let room = self.vec.len() - self.len;
        let (into_room, after) = bytes.split_at(room.min(bytes.len()));
        self.vec[self.len..self.len + into_room.len()].copy_from_slice(into_room);
        self.vec.extend_from_slice(after);
        self.len += bytes.len();
    }

    fn fill(&mut self, want: usize, write: impl FnOnce(&mut [u8]) -> usize) {
        self.room_for(want);
        self.len += write(&mut self.vec[self.len..]);
    }
}

/// The bytes that may be copied unchanged out of (or into) `dialect`, as
/// part of valid strict UTF-8: an inclusive range.
fn unchanged_bytes(dialect: Dialect) -> (u8, u8) {
    match dialect {
        Dialect::Cesu8 => (0x00, 0xEF),
        Dialect::Mutf8 => (0x01, 0xEF),
        Dialect::Corrected => (0x01, 0x7F),
        _ => (0x00, 0xFF),
    }
}

/// The most bytes the copy phase validates, scans and copies at a time.
const COPY_PIECE: usize = 16 * 1024;

/// The least first piece of a copy phase. A copy phase starts with a piece
/// twice as long as what the one before it copied (the first with a whole
/// [`COPY_PIECE`]), and each piece that is unchanged to its end doubles the
/// next, up to [`COPY_PIECE`]. In text that changes often, the copy phase
/// starts some way before the next change (the conversion phase hands
/// back after [`fast::PATCH_CLEAN_RUN`] unchanged bytes): with a whole
/// [`COPY_PIECE`] each time, 16 KiB were validated for every 200 bytes
/// copied in text with an emoji every 200 bytes. Starting every copy phase
/// at this size slowed text that needs no change (docs/TUNING.md, "First
/// piece of a copy phase").
const COPY_FIRST_PIECE: usize = 256;

/// The length of the longest prefix of `bytes` that is valid strict UTF-8
/// made of bytes in `lo..=hi` only.
fn unchanged_prefix(bytes: &[u8], (lo, hi): (u8, u8)) -> usize {
    /// Bytes validated and scanned at a time: the work stays in proportion
    /// to the prefix found, not to the rest of the input.
    const PIECE: usize = 16 * 1024;
    let outside = |b: &u8| *b < lo || *b > hi;
    // Where the conversion phase hands back in the middle of text that
    // changes (a run of emoji into CESU-8), without validating a piece.
    if bytes.first().is_some_and(outside) {
        return 0;
    }
    let mut at = 0;
    // Into or out of CESU-8 or modified UTF-8: the vector kernel's check of
    // exactly such text, in one pass, where validating and then scanning
    // for the bytes outside the range made two (docs/TUNING.md, "CESU-8's
    // screen for unchanged text"). From where it flags something (a change,
    // or an error), the two passes say where.
    if hi == 0xEF && lo <= 1 {
        let no_nul = lo == 1;
        if let Some(check) = kernel::bmp_utf8_fn(crate::dispatch::active(), no_nul) {
            // SAFETY: the active kernel is one this CPU supports, which is
            // all its entry points need.
            match unsafe { check(bytes) } {
                Ok(()) => return bytes.len(),
                Err(offset) => {
                    at = kernel::character_start(bytes, offset);
                    if no_nul && at > 0 && bytes[at - 1] == 0 {
                        at -= 1;
                    }
                }
            }
        }
    }
    let level = crate::dispatch::level();
    while at < bytes.len() {
        let end = bytes.len().min(at + PIECE);
        let piece = &bytes[at..end];
        // First the validation (bytes in an ASCII range are valid whatever
        // they are), then the bytes in the range.
        let (valid, done) = if hi < 0x80 {
            (piece.len(), false)
        } else {
            match crate::validate::from_utf8(piece) {
                Ok(_) => (piece.len(), false),
                // A sequence cut by the piece's end: the next piece starts
                // with it.
                Err(e) if e.error_len().is_none() && end < bytes.len() => (e.valid_up_to(), false),
                Err(e) => (e.valid_up_to(), true),
            }
        };
        if !(lo == 0 && hi == 0xFF) {
            if let Some(n) = first_outside(&piece[..valid], (lo, hi), level) {
                return at + n;
            }
        }
        at += valid;
        if done {
            break;
        }
    }
    at
}

/// The offset of the first byte of `bytes` outside `lo..=hi`, with the
/// widest vectors `level` allows.
#[inline(always)]
fn first_outside(bytes: &[u8], range: (u8, u8), level: Level) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    match level {
        // SAFETY: a `Level` above `Scalar` proves its features on this CPU
        // (`dispatch::level_for`): AVX2 here.
        Level::Avx2 => return unsafe { first_outside_avx2(bytes, range) },
        // SAFETY: as above: AVX-512 F and BW.
        Level::Avx512 | Level::Vbmi => return unsafe { first_outside_avx512(bytes, range) },
        Level::Scalar => {}
    }
    let _ = level;
    scan_blocks(bytes, range)
}

/// [`scan_blocks`] compiled for AVX-512 (64 bytes per instruction).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn first_outside_avx512(bytes: &[u8], range: (u8, u8)) -> Option<usize> {
    scan_blocks(bytes, range)
}

/// [`scan_blocks`] compiled for AVX2 (32 bytes per instruction rather
/// than SSE2's 16).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn first_outside_avx2(bytes: &[u8], range: (u8, u8)) -> Option<usize> {
    scan_blocks(bytes, range)
}

/// [`first_outside`] itself: a block of 512 bytes at a time, with one
/// test for the block, then the byte in the block. The blocks start at
/// addresses that are multiples of 64 (after a first one that ends at
/// one): a vector load that spans two cache lines costs two. With the
/// loop over the blocks inside the function compiled for the vectors, not
/// a call per block, and aligned blocks, the scan no longer takes a large
/// share of the time of UTF-8 text copied into CESU-8 unchanged
/// (docs/TUNING.md, "Scan of aligned 512-byte blocks").
#[inline(always)]
fn scan_blocks(bytes: &[u8], range: (u8, u8)) -> Option<usize> {
    // With the range's least byte a constant where it is `00` (the usual
    // case), the bytes are compared as they are, without moving them down.
    if range.0 == 0 {
        scan_aligned(bytes, (0, range.1))
    } else {
        scan_aligned(bytes, range)
    }
}

/// [`scan_blocks`] for a range the caller may have made constant.
#[inline(always)]
fn scan_aligned(bytes: &[u8], range: (u8, u8)) -> Option<usize> {
    let (lo, hi) = range;
    let position = |block: &[u8], from: usize| {
        block
            .iter()
            .position(|&b| b < lo || b > hi)
            .map(|n| from + n)
    };
    let head = bytes.as_ptr().align_offset(64).min(bytes.len());
    let (first, rest) = bytes.split_at(head);
    if outside_bytes(first, range) {
        return position(first, 0);
    }
    let mut from = head;
    let mut blocks = rest.chunks_exact(512);
    for block in &mut blocks {
        if outside_bytes(block, range) {
            return position(block, from);
        }
        from += block.len();
    }
    let last = blocks.remainder();
    if outside_bytes(last, range) {
        return position(last, from);
    }
    None
}

/// Whether a byte of `block` is outside `lo..=hi`, in one pass with no
/// early exit (so that it vectorizes): moved down by `lo`, a byte in the
/// range is at most `hi - lo` and one below it wraps around above that.
#[inline(always)]
fn outside_bytes(block: &[u8], (lo, hi): (u8, u8)) -> bool {
    // Or'd flags, not the greatest byte: the compiler then takes the
    // vectors' greatest bytes and makes one comparison of the result (on
    // AVX-512 into a mask, tested at once), where the greatest byte took
    // a reduction across the vector's lanes first.
    block
        .iter()
        .fold(false, |out, &b| out | (b.wrapping_sub(lo) > hi - lo))
}

/// The most bytes the fast converter writes for `len` bytes of `from` in
/// `to` (it converts only code points up to U+10FFFF): twice as many into
/// modified UTF-8 (`00` becomes `C0 80`); half as many again into CESU-8
/// (a 4-byte form becomes a 6-byte pair) and out of Corrected UTF-8 (2
/// bytes may become 3); otherwise no more (a pair becomes 4 bytes, `C0 80`
/// one, and Corrected UTF-8's offsets never lengthen a sequence).
fn expansion(from: Dialect, to: Dialect, len: usize) -> usize {
    match (from, to) {
        (Dialect::Mutf8 | Dialect::Corrected, Dialect::Mutf8) => len + len / 2,
        (_, Dialect::Mutf8) => 2 * len,
        (_, Dialect::Cesu8) | (Dialect::Corrected, _) => len + len / 2,
        _ => len,
    }
}

/// Converts a stream of one dialect into another, a piece at a time, with
/// an error [`Policy`].
///
/// Text that needs no change (ASCII; between the dialects that share
/// UTF-8's forms, every character but a few) is copied as it is, once the
/// active vector kernel has found it valid strict UTF-8 made only of bytes
/// that mean the same in both dialects; from the first byte that differs,
/// a tight loop converts what the kernel found well formed, and the scalar
/// decoder and encoder the few items that need care (see the module's
/// documentation).
///
/// Code points the target cannot hold are errors (or U+FFFD): surrogates
/// in strict UTF-8, CESU-8 (lone ones) and Corrected UTF-8; code points
/// above the target's [`max_code_point`](Dialect::max_code_point); C1
/// controls and U+0000 in Corrected UTF-8; Corrected UTF-8's reserved runs
/// anywhere else. A lead surrogate right before a trail is joined into
/// their supplementary code point first (Unicode 3.1's irregular pairs and
/// modified UTF-8's pairs are read that way by the decoder already; RFC
/// 2279's surrogates only here, for the targets that would read them as a
/// pair). Corrected UTF-8's magic number at the start of the input is
/// skipped, and written at the start of the output when asked for
/// ([`with_magic_number`](Self::with_magic_number)).
///
/// ```
/// use utf8guard::{Dialect, Policy, Status, Transcoder};
///
/// let cesu = b"smile \xED\xA0\xBD\xED\xB8\x80!";
/// let mut t = Transcoder::new(Dialect::Cesu8, Dialect::Utf8, Policy::Strict);
/// let mut out = [0u8; 64];
/// let p = t.transcode(cesu, &mut out, true);
/// assert_eq!(p.result, Ok(Status::InputEmpty));
/// assert_eq!(p.read, cesu.len());
/// assert_eq!(&out[..p.written], "smile 😀!".as_bytes());
/// ```
#[derive(Clone, Debug)]
pub struct Transcoder {
    from: Dialect,
    to: Dialect,
    policy: Policy,
    write_magic: bool,
    /// Nothing was read or written yet.
    at_start: bool,
    /// Bytes consumed by earlier calls.
    consumed: usize,
    /// The last item read was a WTF-8 lead surrogate.
    after_lead: bool,
    /// The last item read was a reserved run that reached the end of the
    /// piece: continuation bytes at the start of the next belong to it.
    in_run: bool,
    /// The whole document is a proper prefix of Corrected UTF-8's magic
    /// number (so it ends inside it).
    magic_prefix: bool,
    /// The bytes of U+FFFD in the target.
    replacement: Encoded,
    /// U+FFFD written so far in place of what could not be converted.
    replaced: u64,
    /// The offset (from the stream's start) of the first item replaced.
    first_replaced: Option<usize>,
    /// The first piece of the next copy phase: twice what the last one
    /// copied, from [`COPY_FIRST_PIECE`] to [`COPY_PIECE`].
    copy_first: usize,
    /// The end of an item (or of the magic number) longer than the whole
    /// output of the call that converted it, written first by the next
    /// call: `held[held_at..held_len]`.
    held: [u8; MAGIC.len()],
    held_at: u8,
    held_len: u8,
}

impl Transcoder {
    /// A transcoder from `from` to `to`.
    pub fn new(from: Dialect, to: Dialect, policy: Policy) -> Transcoder {
        Transcoder {
            from,
            to,
            policy,
            write_magic: false,
            at_start: true,
            consumed: 0,
            after_lead: false,
            in_run: false,
            magic_prefix: false,
            replacement: to.encode(0xFFFD).expect("every dialect holds U+FFFD"),
            replaced: 0,
            first_replaced: None,
            copy_first: COPY_PIECE,
            held: [0; MAGIC.len()],
            held_at: 0,
            held_len: 0,
        }
    }

    /// How many U+FFFD a [`Policy::Replace`] transcoder has written so far
    /// in place of what it could not convert: one per maximal subpart of
    /// ill-formed input, per code point the target cannot hold, per
    /// reserved run.
    ///
    /// ```
    /// use utf8guard::{Dialect, Policy, Transcoder};
    ///
    /// let mut t = Transcoder::new(Dialect::Wtf8, Dialect::Utf8, Policy::Replace);
    /// let mut out = Vec::new();
    /// t.transcode_to_vec(b"a\xED\xA0\x80b\xFF", &mut out, true).unwrap();
    /// assert_eq!(out, "a\u{FFFD}b\u{FFFD}".as_bytes());
    /// assert_eq!((t.replacements(), t.first_replacement()), (2, Some(1)));
    /// ```
    pub fn replacements(&self) -> u64 {
        self.replaced
    }

    /// Where the first item replaced with U+FFFD starts, counting from the
    /// start of the stream; `None` if none was.
    pub fn first_replacement(&self) -> Option<usize> {
        self.first_replaced
    }

    /// Writes Corrected UTF-8's magic number at the start of the output
    /// (when the target is Corrected UTF-8; otherwise no effect).
    pub fn with_magic_number(mut self, write: bool) -> Transcoder {
        self.write_magic = write && self.to == Dialect::Corrected;
        self
    }

    /// Converts `input` into `output`. Any output of one byte or more makes
    /// progress: an item longer than the whole output (the longest is 8
    /// bytes, the magic number) is written across calls, its end first in
    /// the next one; with 8 bytes or more, every call writes whole items
    /// only. `last` says that no input follows:
    /// without it, a tail that more input may complete is left unread
    /// ([`Status::InputEmpty`] with `read < input.len()`), to be passed
    /// again with what follows. After an error, the transcoder must not be
    /// used again. The bytes of `output` after the `written` ones are left
    /// unspecified (the conversion may use them as scratch).
    pub fn transcode(&mut self, input: &[u8], output: &mut [u8], last: bool) -> Progress {
        let mut sink = SliceSink {
            buf: output,
            len: 0,
        };
        let (read, result) = self.run(input, &mut sink, last);
        Progress {
            read,
            written: sink.len,
            result,
        }
    }

    /// Converts `input` and appends it to `output`, which grows as needed.
    /// Returns how much of the input was read (all of it with `last`; see
    /// [`transcode`](Self::transcode)). On an error, `output` holds the
    /// conversion of everything before it.
    #[cfg(feature = "alloc")]
    pub fn transcode_to_vec(
        &mut self,
        input: &[u8],
        output: &mut Vec<u8>,
        last: bool,
    ) -> Result<usize, TranscodeError> {
        output.reserve(input.len() + input.len() / 2 + 16);
        let (read, result) = self.run(input, &mut VecSink::new(output), last);
        result.map(|_| read)
    }

    fn fail(&self, offset: usize, len: Option<usize>, cause: Cause) -> TranscodeError {
        TranscodeError {
            offset: self.consumed + offset,
            len,
            cause,
        }
    }

    /// The engine of both entry points.
    fn run<S: Sink>(
        &mut self,
        input: &[u8],
        out: &mut S,
        last: bool,
    ) -> (usize, Result<Status, TranscodeError>) {
        if self.held_at < self.held_len {
            let held = &self.held[self.held_at as usize..self.held_len as usize];
            let n = held.len().min(out.room());
            out.put(&held[..n]);
            self.held_at += n as u8;
            if self.held_at < self.held_len {
                return (0, Ok(Status::OutputFull));
            }
        }
        let mut at = 0;
        if self.at_start {
            if self.from == Dialect::Corrected {
                if !last && input.len() < MAGIC.len() && MAGIC.starts_with(input) {
                    return (0, Ok(Status::InputEmpty));
                }
                if input.starts_with(MAGIC) {
                    at = MAGIC.len();
                }
                self.magic_prefix = last
                    && !input.is_empty()
                    && input.len() < MAGIC.len()
                    && MAGIC.starts_with(input);
            }
            if self.write_magic {
                if out.room() < MAGIC.len() && out.capacity() >= MAGIC.len() {
                    return (0, Ok(Status::OutputFull));
                }
                self.put_or_hold(MAGIC, out);
            }
            self.at_start = false;
        }
        let mut result = self.convert(input, &mut at, out, last);
        self.consumed += at;
        if self.held_at < self.held_len && result.is_ok() {
            // Not done before the held bytes are out.
            result = Ok(Status::OutputFull);
        }
        (at, result)
    }

    /// Writes `bytes`, or as many as there is room for and holds the rest
    /// for the next call (only where they are more than the whole output).
    fn put_or_hold<S: Sink>(&mut self, bytes: &[u8], out: &mut S) {
        let n = bytes.len().min(out.room());
        out.put(&bytes[..n]);
        let rest = &bytes[n..];
        self.held[..rest.len()].copy_from_slice(rest);
        self.held_at = 0;
        self.held_len = rest.len() as u8;
    }

    fn convert<S: Sink>(
        &mut self,
        input: &[u8],
        at: &mut usize,
        out: &mut S,
        last: bool,
    ) -> Result<Status, TranscodeError> {
        if self.in_run {
            let more = input[*at..]
                .iter()
                .take_while(|&&b| crate::bytes::is_continuation(b))
                .count();
            if self.to == Dialect::Corrected {
                let n = more.min(out.room());
                out.put(&input[*at..*at + n]);
                *at += n;
                if n < more {
                    return Ok(Status::OutputFull);
                }
            } else {
                *at += more;
            }
            self.in_run = *at == input.len() && !last;
        }
        let range = {
            let (a, b) = (unchanged_bytes(self.from), unchanged_bytes(self.to));
            (a.0.max(b.0), a.1.min(b.1))
        };
        // Where the careful phase must stop without `last`: a sequence from
        // there may go on in the next piece.
        let settled = if last {
            input.len()
        } else {
            input.len().saturating_sub(5)
        };
        // The input from `*at` to `valid_end` is well formed (checked by
        // the kernel); the next window to check ahead is `window` long.
        let mut valid_end = 0;
        let mut window = fast::WINDOW_MIN;
        loop {
            // A piece at a time, each copied while it is still in the
            // cache, until a piece yields nothing (a piece's end may cut a
            // sequence, which the next piece starts with). Without `last`,
            // the prefix may end inside a sequence that the next piece of
            // the stream completes: `from_utf8` stops before it.
            if !self.after_lead {
                let mut piece = self.copy_first;
                let copy_start = *at;
                loop {
                    let end = *at + out.room().min(input.len() - *at).min(piece);
                    let n = unchanged_prefix(&input[*at..end], range);
                    out.put(&input[*at..*at + n]);
                    // Unchanged to its end, but for a character the end
                    // cuts (which the next piece starts with).
                    if end - (*at + n) < 4 {
                        piece = (2 * piece).min(COPY_PIECE);
                    }
                    *at += n;
                    if n == 0 || *at == input.len() || out.room() == 0 {
                        break;
                    }
                }
                self.copy_first = (2 * (*at - copy_start)).clamp(COPY_FIRST_PIECE, COPY_PIECE);
            }
            if *at >= settled {
                return Ok(Status::InputEmpty);
            }
            if out.room() == 0 {
                return Ok(Status::OutputFull);
            }
            if !self.after_lead && !self.in_run {
                if *at >= valid_end {
                    // Up to `settled` only: a sequence there may go on in the
                    // next piece (the window's end cuts it, and the kernel
                    // stops before it).
                    let end = settled.min(*at + window);
                    let valid = fast::valid_prefix(self.from, &input[*at..end]);
                    window = fast::next_window(end - *at, valid);
                    valid_end = *at + valid;
                }
                let src = &input[*at..valid_end];
                let mut read = 0;
                out.fill(expansion(self.from, self.to, src.len()) + 16, |dst| {
                    let (r, w) = fast::convert(self.from, self.to, src, dst);
                    read = r;
                    w
                });
                *at += read;
                if read > 0 {
                    continue;
                }
            }
            if let Some(status) = self.careful(input, at, out, settled, last)? {
                return Ok(status);
            }
        }
    }

    /// Decodes and encodes the item at `at` (returns `None`), or returns
    /// at the end of what may be read (`Some(InputEmpty)`) or on a full
    /// output.
    fn careful<S: Sink>(
        &mut self,
        input: &[u8],
        at: &mut usize,
        out: &mut S,
        settled: usize,
        last: bool,
    ) -> Result<Option<Status>, TranscodeError> {
        let joins = matches!(
            self.to,
            Dialect::Unicode31 | Dialect::Wtf8 | Dialect::Mutf8 | Dialect::Cesu8
        );
        let mut items = Decode::resume(self.from, input, *at, self.after_lead, self.consumed == 0);
        if *at < settled {
            let Some(item) = items.next() else {
                return Ok(Some(Status::InputEmpty));
            };
            let mut end = item.offset() + item.len();
            let encoded;
            // Where the item replaced with U+FFFD starts, if it is.
            let mut replaced = None;
            let produced: &[u8] = match item {
                Decoded::Char { mut code_point, .. } => {
                    if joins && decode::is_lead(code_point) {
                        let mut peek = items.clone();
                        if let Some(Decoded::Char {
                            code_point: trail,
                            len: 3,
                            ..
                        }) = peek.next()
                        {
                            if (0xDC00..0xE000).contains(&trail) {
                                code_point = decode::combine(code_point, trail);
                                end += 3;
                                items = peek;
                            }
                        }
                    }
                    encoded = match self.to.encode(code_point) {
                        Ok(enc) => enc,
                        Err(why) => {
                            let len = end - item.offset();
                            replaced = Some(item.offset());
                            self.refuse(item.offset(), Some(len), Cause::Unencodable(why))?
                        }
                    };
                    &encoded
                }
                Decoded::Reserved { offset, len } => {
                    if self.to == Dialect::Corrected {
                        // Copied as is, in parts if the output is short.
                        let n = len.min(out.room());
                        out.put(&input[offset..offset + n]);
                        *at = offset + n;
                        self.after_lead = false;
                        if n < len {
                            self.in_run = true;
                            return Ok(Some(Status::OutputFull));
                        }
                        if end == input.len() && !last {
                            self.in_run = true;
                            return Ok(Some(Status::InputEmpty));
                        }
                        return Ok(None);
                    } else {
                        encoded = self.refuse(offset, Some(len), Cause::Reserved)?;
                        replaced = Some(offset);
                        &encoded
                    }
                }
                Decoded::Invalid { error, .. } if self.magic_prefix => {
                    // The document ends inside the magic number, even if
                    // this call does not see its start.
                    let cause = Cause::Malformed(ErrorKind::Incomplete);
                    encoded = self.refuse(error.valid_up_to(), None, cause)?;
                    replaced = Some(error.valid_up_to());
                    end = input.len();
                    &encoded
                }
                Decoded::Invalid { error, .. } => {
                    let cause = Cause::Malformed(error.kind());
                    encoded = self.refuse(error.valid_up_to(), error.error_len(), cause)?;
                    replaced = Some(error.valid_up_to());
                    &encoded
                }
            };
            if produced.len() > out.room() && out.capacity() >= produced.len() {
                return Ok(Some(Status::OutputFull));
            }
            self.put_or_hold(produced, out);
            if let Some(offset) = replaced {
                // Counted once written (an item that does not fit is
                // converted again by the next call).
                self.replaced += 1;
                self.first_replaced.get_or_insert(self.consumed + offset);
            }
            self.after_lead = items.after_lead();
            if matches!(item, Decoded::Reserved { .. }) && end == input.len() && !last {
                self.in_run = true;
            }
            *at = end;
            return Ok(None);
        }
        Ok(Some(Status::InputEmpty))
    }

    /// The replacement for an item the target cannot take, or the error.
    fn refuse(
        &self,
        offset: usize,
        len: Option<usize>,
        cause: Cause,
    ) -> Result<Encoded, TranscodeError> {
        match self.policy {
            Policy::Strict => Err(self.fail(offset, len, cause)),
            Policy::Replace => Ok(self.replacement),
        }
    }
}

/// Converts all of `input` from `from` to `to`.
///
/// ```
/// use utf8guard::{transcode, Cause, Dialect, EncodeError, Policy};
///
/// // Modified UTF-8 to UTF-8: C0 80 becomes 00, a pair its 4-byte form.
/// let out = transcode(Dialect::Mutf8, Dialect::Utf8, b"a\xC0\x80\xED\xA0\xBD\xED\xB8\x80", Policy::Strict);
/// assert_eq!(out.unwrap(), b"a\x00\xF0\x9F\x98\x80");
///
/// // A lone surrogate has no UTF-8 form.
/// let err = transcode(Dialect::Wtf8, Dialect::Utf8, b"ab\xED\xA0\x80", Policy::Strict).unwrap_err();
/// assert_eq!((err.offset(), err.error_len()), (2, Some(3)));
/// assert_eq!(err.cause(), Cause::Unencodable(EncodeError::Surrogate));
/// let out = transcode(Dialect::Wtf8, Dialect::Utf8, b"ab\xED\xA0\x80", Policy::Replace);
/// assert_eq!(out.unwrap(), "ab\u{FFFD}".as_bytes());
/// ```
#[cfg(feature = "alloc")]
pub fn transcode(
    from: Dialect,
    to: Dialect,
    input: &[u8],
    policy: Policy,
) -> Result<Vec<u8>, TranscodeError> {
    let mut out = Vec::new();
    Transcoder::new(from, to, policy).transcode_to_vec(input, &mut out, true)?;
    Ok(out)
}

/// Converts all of `input` from `from` to a UTF-8 `String`.
///
/// ```
/// use utf8guard::{transcode_to_string, Dialect, Policy};
///
/// // Corrected UTF-8: C0 AF is U+00CF.
/// let text = transcode_to_string(Dialect::Corrected, b"\xC0\xAF!", Policy::Strict).unwrap();
/// assert_eq!(text, "Ï!");
/// ```
#[cfg(feature = "alloc")]
pub fn transcode_to_string(
    from: Dialect,
    input: &[u8],
    policy: Policy,
) -> Result<String, TranscodeError> {
    let bytes = transcode(from, Dialect::Utf8, input, policy)?;
    // The transcoder wrote strict UTF-8: each code point through the
    // UTF-8 encoder, or copied after strict validation.
    Ok(String::from_utf8(bytes).expect("the transcoder writes valid UTF-8"))
}

/// Converts WTF-8 to potentially ill-formed UTF-16, appending to `out`:
/// lone surrogates become themselves; with [`Policy::Replace`], each
/// ill-formed sequence becomes U+FFFD. Offsets in errors count bytes. On
/// an error, `out` holds the conversion of everything before it.
///
/// ```
/// use utf8guard::{wtf8_to_utf16, Policy};
///
/// let mut units = Vec::new();
/// wtf8_to_utf16(b"a\xED\xA0\x80\xF0\x9F\x98\x80", Policy::Strict, &mut units).unwrap();
/// assert_eq!(units, [0x61, 0xD800, 0xD83D, 0xDE00]);
/// ```
#[cfg(feature = "alloc")]
pub fn wtf8_to_utf16(
    input: &[u8],
    policy: Policy,
    out: &mut Vec<u16>,
) -> Result<(), TranscodeError> {
    to_utf16_vec(Dialect::Wtf8, input, policy, out)
}

/// [`wtf8_to_utf16`] or [`utf8_to_utf16`] (`dialect`).
#[cfg(feature = "alloc")]
pub(crate) fn to_utf16_vec(
    dialect: Dialect,
    input: &[u8],
    policy: Policy,
    out: &mut Vec<u16>,
) -> Result<(), TranscodeError> {
    // Never more units than bytes: each sequence of 1 to 3 bytes (and
    // each replaced subpart) is one unit, a 4-byte one two. Written into
    // the vector's spare capacity: zeroing it first cost as much as the
    // conversion on ASCII (docs/TUNING.md, "UTF-8 to UTF-16 into a
    // vector, zeroed by chunks").
    // SAFETY: the converter writes each unit it counts, in order.
    unsafe {
        append_whole(out, input.len(), input.len(), |room| {
            to_utf16_room(dialect, input, policy, room, true)
        })
    }
}

/// Converts WTF-8 to potentially ill-formed UTF-16 into a caller's buffer
/// (no allocation): [`wtf8_to_utf16`] a piece at a time. `written` counts
/// units. An `output` at least as long as `input` always has room for all
/// of it; one of fewer than 3 units may not make progress (a lone lead
/// surrogate is written only with the item after it). `last` says that no input follows: without it, a sequence that
/// the next piece may complete, or a lead surrogate that a trail may
/// follow (which would make the two ill formed), is left unread
/// ([`Status::InputEmpty`] with `read < input.len()`), to be passed again
/// with what follows. The call keeps no state: the next one starts with
/// `input[read..]`. Error offsets count bytes from the start of `input`.
///
/// ```
/// use utf8guard::{wtf8_to_utf16_into, Policy, Status};
///
/// let mut units = [0u16; 8];
/// // A lead surrogate at the end of a piece waits for the next one.
/// let p = wtf8_to_utf16_into(b"a\xED\xA0\xBD", Policy::Strict, &mut units, false);
/// assert_eq!((p.read, p.written, p.result), (1, 1, Ok(Status::InputEmpty)));
/// let p = wtf8_to_utf16_into(b"\xED\xA0\xBD\xED\xB8\x80", Policy::Strict, &mut units, true);
/// assert_eq!(p.result.unwrap_err().offset(), 3); // a lead and a trail: ill formed
/// ```
pub fn wtf8_to_utf16_into(
    input: &[u8],
    policy: Policy,
    output: &mut [u16],
    last: bool,
) -> Progress {
    // SAFETY: the converter writes only units.
    to_utf16_room(
        Dialect::Wtf8,
        input,
        policy,
        unsafe { as_room(output) },
        last,
    )
}

/// [`wtf8_to_utf16_into`] (`dialect` WTF-8) or [`utf8_to_utf16_into`]
/// (UTF-8, a subset of WTF-8 without the surrogates' forms) into room that
/// may be uninitialized: it writes the units it counts as written, in
/// order, and may store scratch after them.
pub(crate) fn to_utf16_room(
    dialect: Dialect,
    input: &[u8],
    policy: Policy,
    output: &mut [MaybeUninit<u16>],
    last: bool,
) -> Progress {
    let mut at = 0;
    let mut w = 0;
    // The item before `at` was a lead surrogate: a trail now is an error.
    let mut after_lead = false;
    let mut window = fast::WINDOW_MIN;
    let status = loop {
        if at == input.len() {
            break Status::InputEmpty;
        }
        // A run of ASCII needs no check: widened at once, in one pass.
        let ascii = bmp_simd::ascii_to_utf16(&input[at..], &mut output[w..]);
        if ascii > 0 {
            (at, w, after_lead) = (at + ascii, w + ascii, false);
            continue;
        }
        if !after_lead {
            // Well-formed text, checked by the kernel a window at a time,
            // converted in a tight loop (at most a unit per byte, so no
            // more bytes than there is room for).
            let end = input.len().min(at + window).min(at + (output.len() - w));
            let part = &input[at..end];
            let mut valid = fast::valid_prefix(dialect, part);
            window = fast::next_window(part.len(), valid);
            // A lead surrogate that ends the valid part but not the input:
            // a trail after it would be an error, which the careful path
            // below finds.
            if (at + valid < input.len() || !last)
                && valid >= 3
                && part[valid - 3] == 0xED
                && (0xA0..0xB0).contains(&part[valid - 2])
            {
                valid -= 3;
            }
            if valid > 0 {
                w += fast::wtf8_to_utf16(&part[..valid], &mut output[w..]);
                at += valid;
                continue;
            }
        }
        // One item at a time. ASCII, without decoding.
        while let (Some(&b), Some(unit)) = (input.get(at), output.get_mut(w)) {
            if b >= 0x80 {
                break;
            }
            unit.write(u16::from(b));
            at += 1;
            w += 1;
            after_lead = false;
        }
        if at == input.len() {
            break Status::InputEmpty;
        }
        // The room an item needs is known once it is decoded: none for an
        // error, one unit for U+FFFD or a BMP character, two for a pair.
        let (code_point, len) = match decode::sequence(dialect, input, at, after_lead) {
            Some((decode::Unit::Char(cp), len)) => (cp, len),
            _ => {
                let item = Decode::resume(dialect, input, at, after_lead, at == 0)
                    .next()
                    .expect("an item where no sequence starts");
                let Decoded::Invalid { error, len } = item else {
                    unreachable!("the decoder found no sequence at {at}")
                };
                if error.error_len().is_none() && !last {
                    // The next piece may complete it.
                    break Status::InputEmpty;
                }
                if policy == Policy::Strict {
                    return Progress {
                        read: at,
                        written: w,
                        result: Err(TranscodeError {
                            offset: at,
                            len: error.error_len(),
                            cause: Cause::Malformed(error.kind()),
                        }),
                    };
                }
                if w == output.len() {
                    break Status::OutputFull;
                }
                output[w].write(0xFFFD);
                w += 1;
                at += len;
                after_lead = false;
                continue;
            }
        };
        if decode::is_lead(code_point) && at + len == input.len() && !last {
            // A trail surrogate may start the next piece.
            break Status::InputEmpty;
        }
        if output.len() - w < 1 + usize::from(code_point >= 0x1_0000) {
            break Status::OutputFull;
        }
        after_lead = decode::is_lead(code_point);
        if code_point < 0x1_0000 {
            output[w].write(code_point as u16);
            w += 1;
        } else {
            let offset = code_point - 0x1_0000;
            output[w].write(0xD800 | (offset >> 10) as u16);
            output[w + 1].write(0xDC00 | (offset & 0x3FF) as u16);
            w += 2;
        }
        at += len;
    };
    if after_lead && at < input.len() {
        // Stopped right after a lone lead surrogate: the next call starts
        // with it again, so that it sees a trail that follows it.
        at -= 3;
        w -= 1;
    }
    Progress {
        read: at,
        written: w,
        result: Ok(status),
    }
}

/// Converts potentially ill-formed UTF-16 to WTF-8, appending to `out`:
/// surrogate pairs become 4-byte forms, lone surrogates their 3-byte
/// forms. Never fails: WTF-8 holds every sequence of code units.
///
/// ```
/// use utf8guard::utf16_to_wtf8;
///
/// let mut bytes = Vec::new();
/// utf16_to_wtf8(&[0x61, 0xD83D, 0xDE00, 0xDC00], &mut bytes);
/// assert_eq!(bytes, b"a\xF0\x9F\x98\x80\xED\xB0\x80");
/// ```
#[cfg(feature = "alloc")]
pub fn utf16_to_wtf8(input: &[u16], out: &mut Vec<u8>) {
    // Room for all of it at once, from a bound of its length, and one
    // conversion into the vector's spare capacity: a vector that grew as
    // it went would be copied (and a large one mapped and unmapped) at
    // every step (docs/TUNING.md, "WTF-8 length bound", "UTF-16 to WTF-8
    // into a vector").
    let bound = utf16_simd::wtf8_len_bound(input);
    // SAFETY: the converter writes each byte it counts, in order.
    let read = unsafe { append(out, bound, |room| fast::utf16_to_wtf8(input, room, true)) };
    debug_assert_eq!(read, input.len());
}

/// Converts potentially ill-formed UTF-16 to WTF-8 into a caller's buffer
/// (no allocation): [`utf16_to_wtf8`] a piece at a time. `read` counts
/// units. An `output` three times as long as `input` always has room for
/// all of it; one of fewer than 4 bytes may not make progress (a surrogate
/// pair becomes 4 bytes). `last` says that no input follows: without it, a lead
/// surrogate that ends `input` is left unread (the next piece may start
/// with its trail). The result is never an error.
///
/// ```
/// use utf8guard::{utf16_to_wtf8_into, Status};
///
/// let mut bytes = [0u8; 5];
/// let p = utf16_to_wtf8_into(&[0x61, 0xD83D], &mut bytes, false);
/// assert_eq!((p.read, p.written, p.result), (1, 1, Ok(Status::InputEmpty)));
/// let p = utf16_to_wtf8_into(&[0xD83D, 0xDE00, 0x62, 0x63], &mut bytes, true);
/// assert_eq!((p.read, p.written, p.result), (3, 5, Ok(Status::OutputFull)));
/// assert_eq!(&bytes[..5], b"\xF0\x9F\x98\x80b");
/// ```
pub fn utf16_to_wtf8_into(input: &[u16], output: &mut [u8], last: bool) -> Progress {
    // SAFETY: the converter writes only bytes.
    utf16_to_wtf8_room(input, unsafe { as_room(output) }, last)
}

/// [`utf16_to_wtf8_into`] into room that may be uninitialized: it writes
/// the bytes it counts as written, in order, and may store scratch after
/// them.
fn utf16_to_wtf8_room(input: &[u16], output: &mut [MaybeUninit<u8>], last: bool) -> Progress {
    let (mut i, mut w) = (0, 0);
    // Whole chunks, while there is room for the longest conversion.
    while i < input.len() && output.len() - w >= 3 {
        let end = input.len().min(i + (output.len() - w) / 3);
        // A lead surrogate that ends the chunk is left for the next chunk
        // (which holds its trail, if any) or the unit loop below.
        let (read, written) =
            fast::utf16_to_wtf8(&input[i..end], &mut output[w..], last && end == input.len());
        i += read;
        w += written;
        if read == 0 {
            break;
        }
    }
    // Then a unit at a time, each written only where it fits.
    let status = loop {
        let Some(&unit) = input.get(i) else {
            break Status::InputEmpty;
        };
        let value = u32::from(unit);
        let (value, units) = if decode::is_lead(value) {
            match input.get(i + 1) {
                Some(&next) if (0xDC00..0xE000).contains(&next) => {
                    (decode::combine(value, u32::from(next)), 2)
                }
                None if !last => break Status::InputEmpty,
                _ => (value, 1),
            }
        } else {
            (value, 1)
        };
        let Some(len) = fast::put_fitting(&mut output[w..], value) else {
            break Status::OutputFull;
        };
        i += units;
        w += len;
    };
    Progress {
        read: i,
        written: w,
        result: Ok(status),
    }
}

/// A vector of `old` with room for `more`, the room holding stale copies
/// of `stale`: the vector forms' tests append to it.
#[cfg(all(test, feature = "alloc"))]
pub(crate) fn stale_vector<T: Copy>(old: &[T], stale: T, more: usize) -> Vec<T> {
    let mut vector = Vec::with_capacity(old.len() + more);
    vector.resize(vector.capacity(), stale);
    vector.truncate(old.len());
    vector.copy_from_slice(old);
    vector
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound of UTF-16 in WTF-8 that `utf16_to_wtf8` reserves: exact
    /// but for surrogate pairs (6 where they take 4), at lengths across the
    /// pieces it counts at a time (where 16-bit counts would wrap). Under
    /// Miri, which checks the loads and not the sums, one length past a
    /// piece, and the units at the ends of the widths.
    #[cfg(feature = "alloc")]
    #[test]
    fn the_bound_of_utf16_in_wtf8() {
        let lengths: &[usize] = if cfg!(miri) {
            &[0, 1, 15, 16, 17, 31, 33, 16385]
        } else {
            &[0, 1, 15, 16, 17, 31, 33, 16383, 16384, 16385, 40000]
        };
        for &len in lengths {
            for (unit, bytes) in [
                (0x41, 1),
                (0x7F, 1),
                (0x80, 2),
                (0x7FF, 2),
                (0x800, 3),
                (0xFFFF, 3),
                (0xDBFF, 3),
            ] {
                if cfg!(miri) && len > 33 && ![0x7F, 0xFFFF].contains(&unit) {
                    continue;
                }
                let units = vec![unit; len];
                assert_eq!(
                    utf16_simd::wtf8_len_bound(&units),
                    bytes * len,
                    "{unit:X} x {len}"
                );
            }
        }
        let units = [0x61, 0xD83D, 0xDE00, 0x5B57, 0x3B1, 0xDC00];
        assert_eq!(utf16_simd::wtf8_len_bound(&units), 1 + 6 + 3 + 2 + 3);
        let mut out = Vec::new();
        utf16_to_wtf8(&units, &mut out);
        assert_eq!(
            out,
            "a\u{1F600}字α"
                .bytes()
                .chain([0xED, 0xB0, 0x80])
                .collect::<Vec<u8>>()
        );
    }

    /// The vector forms append what the `_into` forms write, to a vector
    /// whose spare capacity holds stale values (the room is not zeroed
    /// first), for each policy and kind of item, errors too: short inputs,
    /// for Miri, which reports any read of a unit not written; and without
    /// Miri, all of them in one input, errors in the middle.
    #[cfg(feature = "alloc")]
    #[test]
    fn vec_forms_append_what_the_into_forms_write() {
        let ascii = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let mut wtf8: Vec<Vec<u8>> = [
            "",
            ascii,
            "\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}",
            "\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}",
            "\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}",
            "a\u{E9}\u{5B57}\u{1F600}a\u{E9}\u{5B57}\u{1F600}a\u{E9}\u{5B57}\u{1F600}a\u{E9}\u{5B57}\u{1F600}",
        ]
        .iter()
        .map(|text| text.as_bytes().to_vec())
        .collect();
        for item in [
            &b"\xED\xA0\x80"[..],        // a lone lead surrogate
            b"\xED\xB0\x80",             // a lone trail surrogate
            b"\xED\xA0\xBD\xED\xB8\x80", // a lead and a trail: ill formed
            b"\xFF",                     // a byte no sequence has
            b"\xC0\x80",                 // an overlong form
            b"\xF0\x9F\x98",             // a sequence cut short
        ] {
            for at in [0, 20, ascii.len()] {
                let mut input = ascii.as_bytes().to_vec();
                input.splice(at..at, item.iter().copied());
                wtf8.push(input);
            }
            // At the very end.
            wtf8.push([&b"\xE5\xAD\x97\xCE\xB1 "[..], item].concat());
        }
        let mut utf16: Vec<Vec<u16>> = Vec::new();
        for text in &wtf8 {
            if let Ok(text) = core::str::from_utf8(text) {
                utf16.push(text.encode_utf16().collect());
            }
        }
        let mut lone: Vec<u16> = ascii.encode_utf16().collect();
        lone[10] = 0xD800; // a lead, then ASCII
        lone[20] = 0xDC00; // a trail alone
        utf16.push(lone.clone());
        lone.push(0xDBFF); // a lead that ends the input
        utf16.push(lone);
        if !cfg!(miri) {
            let all = wtf8.concat();
            wtf8.push(all.repeat(20));
            let all = utf16.concat();
            utf16.push(all.repeat(20));
        }
        for input in &wtf8 {
            for policy in [Policy::Strict, Policy::Replace] {
                let mut into = vec![0x5A5Au16; input.len()];
                let p = wtf8_to_utf16_into(input, policy, &mut into, true);
                let mut vector = stale_vector(&[0x41, 0xD800, 0x42], 0xBEEF, input.len() + 8);
                let result = wtf8_to_utf16(input, policy, &mut vector);
                assert_eq!(result, p.result.map(drop), "{input:02X?} {policy:?}");
                assert_eq!(vector[..3], [0x41, 0xD800, 0x42]);
                assert_eq!(vector[3..], into[..p.written], "{input:02X?} {policy:?}");
                // Into room never written (which Miri tells from stale).
                let mut fresh = Vec::new();
                assert_eq!(wtf8_to_utf16(input, policy, &mut fresh), result);
                assert_eq!(fresh, into[..p.written]);
            }
        }
        for input in &utf16 {
            let mut into = vec![0x5Au8; 3 * input.len()];
            let p = utf16_to_wtf8_into(input, &mut into, true);
            assert_eq!((p.read, p.result), (input.len(), Ok(Status::InputEmpty)));
            let mut vector = stale_vector(b"xyz", 0xEE, 3 * input.len() + 8);
            utf16_to_wtf8(input, &mut vector);
            assert_eq!(vector[..3], *b"xyz");
            assert_eq!(vector[3..], into[..p.written], "{input:04X?}");
            let mut fresh = Vec::new();
            utf16_to_wtf8(input, &mut fresh);
            assert_eq!(fresh, into[..p.written]);
        }
    }

    /// The widths of scan this CPU can run.
    fn widths() -> Vec<Level> {
        #[allow(unused_mut)]
        let mut widths = vec![Level::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            use crate::kernel::Kernel;
            for kernel in [Kernel::Avx2, Kernel::Avx512] {
                let level = crate::dispatch::level_for(kernel);
                if level != Level::Scalar && !widths.contains(&level) {
                    widths.push(level);
                }
            }
        }
        widths
    }

    /// The first byte outside the range, wherever the input starts against
    /// the 64-byte lines and wherever the byte falls against the scan's
    /// head and blocks; none in a buffer that has none.
    #[test]
    fn first_outside_finds_the_first_byte_outside() {
        let step = if cfg!(miri) { 61 } else { 1 };
        let len = if cfg!(miri) { 700 } else { 1300 };
        for width in widths() {
            for (range, inside, outside) in [
                ((0x00, 0xEF), 0xEF, 0xF0),
                ((0x00, 0xEF), 0x00, 0xFF),
                ((0x01, 0xEF), 0x01, 0x00),
                ((0x01, 0x7F), 0x7F, 0x80),
            ] {
                let mut buf = vec![inside; len + 64];
                for start in (0..64).step_by(if cfg!(miri) { 13 } else { 1 }) {
                    let end = buf.len();
                    assert_eq!(first_outside(&buf[start..end], range, width), None);
                    for at in (0..len).step_by(step) {
                        buf[start + at] = outside;
                        // A second one after it, which must not be the one
                        // found.
                        let second = (start + at + 7).min(end - 1);
                        let kept = buf[second];
                        buf[second] = outside;
                        assert_eq!(
                            first_outside(&buf[start..end], range, width),
                            Some(at),
                            "{range:x?} from {start}, at {at}"
                        );
                        buf[second] = kept;
                        buf[start + at] = inside;
                    }
                }
            }
        }
    }
}

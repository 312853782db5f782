//! The `str` of UTF-8 text written directly in CPython's own representation
//! (PEP 393), without CPython's UTF-8 decoder reading the text again.
//!
//! A compact `str` holds its characters in 1, 2 or 4 bytes each, chosen by
//! its widest character: ASCII and Latin-1 (up to U+00FF) in one byte, the
//! rest of the BMP in two (UCS-2), and supplementary characters in four
//! (UCS-4). [`Layout::of`] finds the number of characters and that width in
//! one pass over well-formed text (the characters are the bytes that are
//! not continuation bytes; the largest byte tells the widest character),
//! [`build`] asks CPython for the `str` (`PyUnicode_New`) and fills its
//! buffer: ASCII is the bytes themselves; UCS-2 is written by the library's
//! SIMD UTF-16 transcoder (`wtf8_to_utf16_into`) straight into the `str`;
//! Latin-1 and UCS-4 go through the same transcoder a cache-sized block at
//! a time, each block narrowed to bytes or widened to code points (a
//! surrogate pair to one). [`decode_strict`] first bets on ASCII, copied
//! and checked in one pass, as CPython's own decoder does.
//! [`build_repaired`] writes the `str` of text that a handler repairs, a
//! window of the input at a time, so that the repaired text of the whole
//! input is never held beside the `str`.
//!
//! `PyUnicode_New` and `PyUnicode_DATA` are outside the limited API, which
//! is why the extension is built per Python version (docs/PYTHON.md).

use core::mem::MaybeUninit;
use std::borrow::Cow;

use pyo3::exceptions::{PyMemoryError, PySystemError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// What the `str` of well-formed text looks like: its length in characters
/// and its widest character's class.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// The number of characters: the bytes that are not continuation bytes.
    chars: usize,
    /// The largest byte. In well-formed UTF-8 it tells the widest
    /// character: below `80` all are ASCII; `C2` or `C3` (continuation
    /// bytes are at most `BF`) lead only U+0080..U+00FF; `C4`..`EF` lead
    /// the rest of the BMP; `F0`..`F4` supplementary characters.
    max: u8,
}

/// Bytes scanned (or copied) at a time, in loops the compiler vectorizes.
const BLOCK: usize = 4096;

impl Layout {
    /// The layout of `text`, well-formed UTF-8 (or WTF-8: a surrogate's
    /// 3-byte form counts as a BMP character). On other bytes the result
    /// means nothing, except that a `max` below `80` proves the bytes are
    /// ASCII, hence valid.
    pub(crate) fn of(text: &[u8]) -> Layout {
        let mut chars = 0;
        let mut max = 0;
        for block in text.chunks(BLOCK) {
            let (c, m) = scan(block);
            chars += c;
            max = max.max(m);
        }
        Layout { chars, max }
    }

    /// Whether every byte is ASCII (and so the text valid UTF-8).
    pub(crate) fn is_ascii(&self) -> bool {
        self.max < 0x80
    }

    /// The `maxchar` to give `PyUnicode_New`: the largest code point of the
    /// class, which selects the same kind as the text's widest character.
    fn maxchar(&self) -> ffi::Py_UCS4 {
        match self.max {
            0x00..=0x7F => 0x7F,
            0x80..=0xC3 => 0xFF,
            0xC4..=0xEF => 0xFFFF,
            0xF0..=0xFF => 0x10_FFFF,
        }
    }
}

/// The characters (bytes that are not `80`..`BF`) and the largest byte of
/// a block, in two loops the compiler vectorizes.
fn scan(block: &[u8]) -> (usize, u8) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above), which is all
            // that `scan_avx2` requires beyond the safe code's own rules.
            return unsafe { scan_avx2(block) };
        }
    }
    scan_generic(block)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn scan_avx2(block: &[u8]) -> (usize, u8) {
    scan_generic(block)
}

#[inline(always)]
fn scan_generic(block: &[u8]) -> (usize, u8) {
    let mut chars = 0usize;
    let mut max = 0u8;
    // Counted in a `u8` per 255 bytes, so that the compiler keeps the
    // counts in byte lanes; the block's count is summed from those.
    for part in block.chunks(255) {
        let mut n = 0u8;
        for &b in part {
            n += u8::from((b as i8) >= -0x40);
        }
        chars += usize::from(n);
        max = part.iter().fold(max, |m, &b| m.max(b));
    }
    (chars, max)
}

/// A raw pointer into the buffer of a `str` that no one else can see yet,
/// to fill it with the GIL released.
struct Buffer(*mut core::ffi::c_void);

// SAFETY: the pointer is the data of a `str` just made by `PyUnicode_New`
// and referenced only by the function that made it, which waits for the
// fill to finish: no other thread can reach the object, so moving the
// pointer to the thread that fills it (the same thread, with the GIL
// released) races with nothing.
unsafe impl Send for Buffer {}
// SAFETY: as for `Send`: the closures that borrow a `Buffer` run on one
// thread at a time, while the function that made the `str` waits.
unsafe impl Sync for Buffer {}

impl Buffer {
    /// The pointer (a method, so that closures capture the whole `Buffer`,
    /// not its field).
    fn ptr(&self) -> *mut core::ffi::c_void {
        self.0
    }
}

/// A new `str` of `chars` characters whose widest is `maxchar`, its buffer
/// not yet written, and that buffer and its kind (bytes per character).
fn new_str(
    py: Python<'_>,
    chars: usize,
    maxchar: ffi::Py_UCS4,
) -> PyResult<(Bound<'_, PyString>, Buffer, core::ffi::c_uint)> {
    let size =
        ffi::Py_ssize_t::try_from(chars).map_err(|_| PyMemoryError::new_err("input too large"))?;
    // SAFETY: the GIL is held (`py`). `PyUnicode_New` returns a new
    // reference, or NULL with an exception set (MemoryError when the size
    // is too large for memory or for `Py_ssize_t`), which
    // `from_owned_ptr_or_err` turns into `Err`.
    let string = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyUnicode_New(size, maxchar))? };
    let string = string.cast_into::<PyString>()?;
    let ptr = string.as_ptr();
    // SAFETY: `ptr` is a `str` (just made by `PyUnicode_New`, so ready and
    // compact) and the GIL is held.
    let (data, kind) = unsafe { (ffi::PyUnicode_DATA(ptr), ffi::PyUnicode_KIND(ptr)) };
    huge_pages(data, chars.saturating_mul(kind as usize));
    Ok((string, Buffer(data), kind))
}

/// Buffers from this size on are offered transparent huge pages.
#[cfg(target_os = "linux")]
const HUGE_AT: usize = 8 << 20;

/// Asks Linux to back the 2 MiB pages inside `data[..len]`, a buffer just
/// allocated and not yet written, with transparent huge pages (where the
/// system enables them on request: `madvise` in
/// /sys/kernel/mm/transparent_hugepage/enabled). Filling a large `str`
/// otherwise costs a page fault per 4 KiB, which on a virtual machine is
/// most of the time of the fill. Advice only: nothing else changes, and an
/// error (huge pages disabled, an old kernel) is ignored.
#[cfg(target_os = "linux")]
fn huge_pages(data: *mut core::ffi::c_void, len: usize) {
    const HUGE: usize = 2 << 20;
    /// `MADV_HUGEPAGE` of <linux/mman.h>.
    const MADV_HUGEPAGE: core::ffi::c_int = 14;
    extern "C" {
        fn madvise(
            addr: *mut core::ffi::c_void,
            len: usize,
            advice: core::ffi::c_int,
        ) -> core::ffi::c_int;
    }
    if len < HUGE_AT {
        return;
    }
    let start = (data as usize).next_multiple_of(HUGE);
    let end = (data as usize + len) / HUGE * HUGE;
    if start < end {
        // SAFETY: `[start, end)` lies inside the `len` bytes at `data`,
        // the buffer of a `str` that only its maker references; it is
        // page aligned. `MADV_HUGEPAGE` changes neither the contents nor
        // the validity of the memory, only how the kernel backs it.
        unsafe {
            madvise(start as *mut core::ffi::c_void, end - start, MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn huge_pages(_data: *mut core::ffi::c_void, _len: usize) {}

/// Bytes looked at before `decode_strict` bets on ASCII.
const HEAD: usize = 4096;

/// `bytes` decoded as strict UTF-8, or the library's error. With `detach`,
/// the work on the bytes is done with the GIL released: `bytes` must then
/// be memory that no Python thread can write (a read-only export).
///
/// Text that starts with ASCII is first copied into an ASCII `str` of
/// `bytes.len()` characters, a block at a time, each checked as it is
/// copied (one pass, as CPython's own decoder does): when every byte is
/// ASCII, that is the `str`, without any other pass. At the first other
/// byte, that `str` is dropped, and the text is measured, validated and
/// decoded as any other.
pub(crate) fn decode_strict<'py>(
    py: Python<'py>,
    bytes: &[u8],
    detach: bool,
) -> PyResult<Result<Bound<'py, PyString>, utf8guard::Utf8Error>> {
    let run = |f: &mut (dyn FnMut() + Send)| if detach { py.detach(f) } else { f() };
    if Layout::of(&bytes[..bytes.len().min(HEAD)]).is_ascii() {
        let (string, buffer, kind) = new_str(py, bytes.len(), 0x7F)?;
        if bytes.is_empty() {
            // The empty string, a shared singleton: nothing to write.
            return Ok(Ok(string));
        }
        if kind != ffi::PyUnicode_1BYTE_KIND {
            return Err(PySystemError::new_err(
                "utf8guard: an ASCII str is not 1 byte a character",
            ));
        }
        let mut ascii = false;
        run(&mut || {
            // SAFETY: `buffer` is the data of the `str` that
            // `new_str(py, bytes.len(), 0x7F)` just made, of kind 1 (checked
            // above): `bytes.len()` writable bytes, not yet written, which
            // nothing else references while `string` waits for this call.
            let out = unsafe { slice::<u8>(buffer.ptr(), bytes.len()) };
            ascii = copy_ascii(bytes, out);
        });
        if ascii {
            return Ok(Ok(string));
        }
    }
    let mut checked = Ok(Layout { chars: 0, max: 0 });
    run(&mut || {
        let layout = Layout::of(bytes);
        // ASCII is valid: only other text needs the validation.
        checked = match layout.is_ascii() {
            true => Ok(layout),
            false => utf8guard::from_utf8(bytes).map(|_| layout),
        };
    });
    match checked {
        Ok(layout) => build(py, bytes, layout, detach).map(Ok),
        Err(e) => Ok(Err(e)),
    }
}

/// The `str` of `text`, well-formed UTF-8 (or WTF-8, for the surrogate
/// escape's lone surrogates), whose layout is `layout` (`Layout::of(text)`).
/// With `detach`, the buffer is filled with the GIL released: `text` must
/// then be memory that no Python thread can write (a read-only export, or
/// owned by the caller).
pub(crate) fn build<'py>(
    py: Python<'py>,
    text: &[u8],
    layout: Layout,
    detach: bool,
) -> PyResult<Bound<'py, PyString>> {
    let (string, buffer, kind) = new_str(py, layout.chars, layout.maxchar())?;
    if layout.chars == 0 {
        // The empty string is a shared singleton: nothing to write.
        return Ok(string);
    }
    let write = move || {
        let buffer = buffer;
        // SAFETY: `buffer` is the data of the `str` that `new_str` just made
        // of `layout.chars` characters of `kind`, referenced by `build`
        // only, which keeps it alive and reads nothing of it until the fill
        // returns.
        unsafe { fill(kind, text, layout, buffer.ptr()) }
    };
    let filled = if detach { py.detach(write) } else { write() };
    if !filled {
        // Unreachable for well-formed text; the `str` (never exposed) is
        // freed with its buffer partly written.
        return Err(PySystemError::new_err(
            "utf8guard: the text's layout did not match its decoding",
        ));
    }
    Ok(string)
}

/// Input bytes repaired and measured at a time by [`build_repaired`]: the
/// repaired text of a window (at most 4 bytes a byte, for `\xNN`) stays in
/// the cache between the repair and the fill.
const WINDOW: usize = 64 * 1024;

/// Repaired text kept from the first pass of [`build_repaired`] for the
/// second, at most (more is repaired again).
const KEPT: usize = 1 << 20;

/// Where the window of `bytes` that starts at `start` ends: `WINDOW` bytes
/// on, moved back to a byte that is not a continuation byte (`80`..`BF`)
/// if one of the 3 bytes before is.
///
/// Every unit a handler replaces or keeps (a character, a maximal subpart,
/// the JDK's surrogate form) is a byte followed by at most 3 continuation
/// bytes, so none spans such a byte, nor the 4th of 4 continuation bytes
/// in a row: the repair of the input is then the repairs of its windows
/// put together.
fn window_end(bytes: &[u8], start: usize) -> usize {
    let end = start + WINDOW;
    if end >= bytes.len() {
        return bytes.len();
    }
    (end - 3..=end)
        .rev()
        .find(|&at| (bytes[at] as i8) >= -0x40)
        .unwrap_or(end)
}

/// A window of the input, as the first pass of [`build_repaired`] left it.
struct Window<'a> {
    /// Where it ends in the input.
    end: usize,
    /// The layout of its repaired text.
    layout: Layout,
    /// Its repaired text: the input's bytes when valid, the repair when it
    /// was kept, `None` when the repair is to be made again.
    text: Option<Cow<'a, [u8]>>,
}

/// The `str` of `bytes` repaired by `repair` (one of the handlers that
/// replace: valid UTF-8 out, or WTF-8 for the surrogate escape), without
/// ever holding the repaired text of the whole input beside the `str`.
///
/// A first pass repairs a window (`WINDOW` bytes) at a time and keeps its
/// layout (and its repaired text, up to `KEPT` bytes in all); the `str` is
/// allocated for the total, and a second pass writes each window into it:
/// the valid ones straight from the input, the others from the text kept
/// or repaired again. With `detach`, the passes run with the GIL released:
/// `bytes` must then be memory that no Python thread can write.
pub(crate) fn build_repaired<'py, 'a>(
    py: Python<'py>,
    bytes: &'a [u8],
    repair: impl Fn(&'a [u8]) -> Cow<'a, [u8]> + Sync,
    detach: bool,
) -> PyResult<Bound<'py, PyString>> {
    if bytes.len() < WINDOW {
        // One window, whose repair is all there is to hold: no second pass.
        let text = repair(bytes);
        return build(py, &text, Layout::of(&text), detach);
    }
    let run = |f: &mut (dyn FnMut() + Send)| if detach { py.detach(f) } else { f() };
    let mut windows = Vec::new();
    let mut total = Layout { chars: 0, max: 0 };
    run(&mut || {
        let (mut start, mut kept) = (0, 0);
        while start < bytes.len() {
            let end = window_end(bytes, start);
            let piece = &bytes[start..end];
            let mut layout = Layout::of(piece);
            // ASCII is valid: only other text can need a repair.
            let mut text = Some(Cow::Borrowed(piece));
            if !layout.is_ascii() {
                if let Cow::Owned(repaired) = repair(piece) {
                    layout = Layout::of(&repaired);
                    kept += repaired.len();
                    text = (kept <= KEPT).then_some(Cow::Owned(repaired));
                }
            }
            total.chars += layout.chars;
            total.max = total.max.max(layout.max);
            windows.push(Window { end, layout, text });
            start = end;
        }
    });
    let (string, buffer, kind) = new_str(py, total.chars, total.maxchar())?;
    if total.chars == 0 {
        // The empty string is a shared singleton: nothing to write.
        return Ok(string);
    }
    let mut filled = true;
    run(&mut || {
        let (mut start, mut at) = (0, 0);
        for window in &windows {
            let again;
            let text: &[u8] = match &window.text {
                Some(text) => text,
                None => {
                    again = repair(&bytes[start..window.end]);
                    &again
                }
            };
            start = window.end;
            if at + window.layout.chars > total.chars {
                filled = false;
                return;
            }
            // SAFETY: `buffer` is the data of the `str` that `new_str` just
            // made of `total.chars` characters of `kind`, referenced by
            // this function only, which reads nothing of it until the fill
            // returns; characters `at..at + window.layout.chars` are inside
            // it (checked above), written by this window alone (`at` grows
            // by each window's count), and the offset of a whole number of
            // units keeps them aligned.
            filled = unsafe {
                let data = buffer.ptr().cast::<u8>().add(at * kind as usize);
                fill(kind, text, window.layout, data.cast())
            };
            if !filled {
                return;
            }
            at += window.layout.chars;
        }
        filled = at == total.chars;
    });
    if !filled {
        // Unreachable: each window is repaired alike both times; the `str`
        // (never exposed) is freed with its buffer partly written.
        return Err(PySystemError::new_err(
            "utf8guard: the text's layout did not match its decoding",
        ));
    }
    Ok(string)
}

/// Writes `text`, well-formed UTF-8 (or WTF-8) whose layout is `layout`,
/// as `layout.chars` characters of `kind` at `data`; false when the text
/// does not decode to exactly that many.
///
/// # Safety
///
/// `data` is `layout.chars` characters of `kind` bytes each (1, 2 or 4)
/// inside the data of a compact `str` made by `PyUnicode_New` with that
/// kind, aligned for `kind`-byte units, not yet initialized, and referenced
/// by nothing else while the fill runs.
unsafe fn fill(
    kind: core::ffi::c_uint,
    text: &[u8],
    layout: Layout,
    data: *mut core::ffi::c_void,
) -> bool {
    // SAFETY: as the caller promises: `data` is `layout.chars` units of
    // `kind` bytes (a compact str's data follows its header, whose size is
    // a multiple of 8, in memory `PyObject_Malloc` aligns to 8 at least, so
    // a unit's offset keeps it aligned), writable, and only these slices
    // reference it. `MaybeUninit` needs no initialized bytes.
    unsafe {
        match kind {
            ffi::PyUnicode_1BYTE_KIND if layout.is_ascii() => {
                fill_ascii(text, slice::<u8>(data, layout.chars))
            }
            ffi::PyUnicode_1BYTE_KIND => fill_latin1(text, slice::<u8>(data, layout.chars)),
            ffi::PyUnicode_2BYTE_KIND => fill_ucs2(text, slice::<u16>(data, layout.chars)),
            ffi::PyUnicode_4BYTE_KIND => fill_ucs4(text, slice::<u32>(data, layout.chars)),
            _ => false,
        }
    }
}

/// # Safety
///
/// `data` is `len` writable units of `T`, aligned for `T`, to which no
/// other reference exists while the slice lives.
unsafe fn slice<'a, T>(data: *mut core::ffi::c_void, len: usize) -> &'a mut [MaybeUninit<T>] {
    // SAFETY: as the caller promises; `MaybeUninit` needs no initialized
    // bytes.
    unsafe { core::slice::from_raw_parts_mut(data.cast::<MaybeUninit<T>>(), len) }
}

/// ASCII: the `str`'s characters are the bytes.
fn fill_ascii(text: &[u8], out: &mut [MaybeUninit<u8>]) -> bool {
    if text.len() != out.len() {
        return false;
    }
    // SAFETY: `u8` and `MaybeUninit<u8>` have the same layout, and both
    // slices are `text.len()` long.
    let text = unsafe { &*(text as *const [u8] as *const [MaybeUninit<u8>]) };
    out.copy_from_slice(text);
    true
}

/// Copies `text` into `out` (as long) a block at a time while every byte
/// is ASCII; false at the first block with another byte.
fn copy_ascii(text: &[u8], out: &mut [MaybeUninit<u8>]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { copy_ascii_avx2(text, out) };
        }
    }
    copy_ascii_generic(text, out)
}

/// 128 bytes at a time, each loaded once, stored and ORed (a plain loop
/// becomes a `memcpy` and a second pass over each block).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn copy_ascii_avx2(text: &[u8], out: &mut [MaybeUninit<u8>]) -> bool {
    use core::arch::x86_64::{
        __m256i, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256, _mm256_storeu_si256,
    };
    if text.len() != out.len() {
        return false;
    }
    let (src, dst) = (text.as_ptr(), out.as_mut_ptr().cast::<u8>());
    let mut i = 0;
    while i + 128 <= text.len() {
        // SAFETY: `i + 128 <= text.len() == out.len()`, so the 128 bytes
        // at `i` are inside both slices (`out`'s are writable: `&mut`);
        // the loads and stores are unaligned ones, and AVX2 is enabled.
        let any = unsafe {
            let v: [__m256i; 4] =
                core::array::from_fn(|k| _mm256_loadu_si256(src.add(i + 32 * k).cast()));
            for (k, &x) in v.iter().enumerate() {
                _mm256_storeu_si256(dst.add(i + 32 * k).cast(), x);
            }
            _mm256_or_si256(_mm256_or_si256(v[0], v[1]), _mm256_or_si256(v[2], v[3]))
        };
        if _mm256_movemask_epi8(any) != 0 {
            return false;
        }
        i += 128;
    }
    copy_ascii_generic(&text[i..], &mut out[i..])
}

#[inline(always)]
fn copy_ascii_generic(text: &[u8], out: &mut [MaybeUninit<u8>]) -> bool {
    if text.len() != out.len() {
        return false;
    }
    // One loop that copies and ORs together (a block that turns out not
    // to be ASCII has been copied too: the `str` is then dropped).
    for (src, dst) in text.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
        let mut any = 0;
        for (d, &b) in dst.iter_mut().zip(src) {
            any |= b;
            d.write(b);
        }
        if any >= 0x80 {
            return false;
        }
    }
    true
}

/// Latin-1: the text decoded to UTF-16 a block at a time (every unit is
/// at most 0xFF), each block narrowed into the `str`.
fn fill_latin1(text: &[u8], out: &mut [MaybeUninit<u8>]) -> bool {
    let mut w = 0;
    let filled = via_utf16(text, |units| {
        let Some(dst) = out.get_mut(w..w + units.len()) else {
            return false;
        };
        for (d, &u) in dst.iter_mut().zip(units) {
            d.write(u as u8);
        }
        w += units.len();
        true
    });
    filled && w == out.len()
}

/// Bytes (at most as many units) decoded to UTF-16 at a time by
/// `via_utf16`: the units stay in the L1 cache.
const STAGE: usize = 8 * 1024;

/// Decodes `text` (well-formed UTF-8 or WTF-8) with the library's UTF-16
/// transcoder, a block at a time into a buffer on the stack, and hands
/// each block of units to `put`. False when the transcoder or `put` fails.
fn via_utf16(text: &[u8], mut put: impl FnMut(&[u16]) -> bool) -> bool {
    let mut units = [0u16; STAGE];
    let mut at = 0;
    while at < text.len() {
        // At most a unit per byte: the block always has room.
        let end = text.len().min(at + STAGE);
        let progress = utf8guard::wtf8_to_utf16_into(
            &text[at..end],
            utf8guard::Policy::Strict,
            &mut units,
            end == text.len(),
        );
        if progress.result.is_err() || progress.read == 0 || !put(&units[..progress.written]) {
            return false;
        }
        at += progress.read;
    }
    true
}

/// Units converted at a time into UCS-2: the block is zeroed (the
/// transcoder writes into initialized `u16`s) while it is in the cache.
const UCS2_BLOCK: usize = 16 * 1024;

/// UCS-2: the library's WTF-8 to UTF-16 transcoder, which writes one unit
/// per BMP character (and per lone surrogate) straight into the `str`.
fn fill_ucs2(text: &[u8], out: &mut [MaybeUninit<u16>]) -> bool {
    let (mut at, mut w, mut zeroed) = (0, 0, 0);
    while at < text.len() {
        // A piece of bytes has at most as many characters as bytes.
        let end = text.len().min(at + UCS2_BLOCK);
        let room = out.len().min(w + UCS2_BLOCK);
        if zeroed < room {
            for unit in &mut out[zeroed.max(w)..room] {
                unit.write(0);
            }
            zeroed = room;
        }
        // SAFETY: every unit of `out[w..room]` was written above (`zeroed`
        // only grows, and `w <= zeroed`), and `MaybeUninit<u16>` has the
        // layout of `u16`.
        let units = unsafe { &mut *(&mut out[w..room] as *mut [MaybeUninit<u16>] as *mut [u16]) };
        let last = end == text.len();
        let progress =
            utf8guard::wtf8_to_utf16_into(&text[at..end], utf8guard::Policy::Strict, units, last);
        if progress.result.is_err() || (progress.read == 0 && progress.written == 0) {
            return false;
        }
        at += progress.read;
        w += progress.written;
    }
    w == out.len()
}

/// UCS-4: the text decoded to UTF-16 a block at a time, each block
/// widened into the `str`, a surrogate pair to its code point (a lone
/// surrogate, from the surrogate escape, stays itself). A block's pairs
/// are whole: the transcoder writes both units of a pair or neither.
fn fill_ucs4(text: &[u8], out: &mut [MaybeUninit<u32>]) -> bool {
    let mut w = 0;
    let filled = via_utf16(text, |units| {
        let mut k = 0;
        while k < units.len() {
            // 32 units at a time where none is a surrogate (tested
            // without a branch per unit, so that it vectorizes).
            if let (Some(chunk), Some(dst)) = (units.get(k..k + 32), out.get_mut(w..w + 32)) {
                if !chunk
                    .iter()
                    .fold(false, |any, &u| any | (u & 0xF800 == 0xD800))
                {
                    for (d, &u) in dst.iter_mut().zip(chunk) {
                        d.write(u32::from(u));
                    }
                    (k, w) = (k + 32, w + 32);
                    continue;
                }
            }
            let Some(dst) = out.get_mut(w) else {
                return false;
            };
            let u = u32::from(units[k]);
            match units.get(k + 1) {
                Some(&trail) if (0xD800..0xDC00).contains(&u) && trail & 0xFC00 == 0xDC00 => {
                    dst.write(0x1_0000 + ((u - 0xD800) << 10) + (u32::from(trail) - 0xDC00));
                    k += 2;
                }
                _ => {
                    dst.write(u);
                    k += 1;
                }
            }
            w += 1;
        }
        true
    });
    filled && w == out.len()
}

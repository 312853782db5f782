//! The single-byte encodings: Latin-1 (ISO-8859-1) and Windows-1252, to and
//! from UTF-8.
//!
//! Both agree with ASCII below `80`, which most text is: runs of it are
//! copied a block at a time ([`crate::ascii`]), and only the other bytes
//! go through a table. Out of UTF-8, the kernel validates first
//! ([`crate::utf8_input`]), so the conversion decodes without checking.
//! With a vector kernel, a vector of bytes at a time is converted both
//! ways (`vector`, written once over the conversions' vector layer and
//! compiled for each instruction set): into UTF-8 every block, out of it
//! the blocks of ASCII and U+0080..U+00FF, which that step also checks, so
//! that only the other blocks call the kernel; after the kernel, blocks
//! with Windows-1252's characters above U+00FF too.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

use core::mem::MaybeUninit;

use crate::ascii;
use crate::encode::EncodeError;
#[cfg(feature = "alloc")]
use crate::transcode::TranscodeError;
use crate::transcode::{Policy, Progress, Status};
use crate::utf8_input::{self, Convert, Stop};

#[cfg(vector_kernels)]
mod vector;
// The UTF-32 steps pack with the same shuffles.
#[cfg(vector_kernels)]
pub(crate) use vector::{EXPAND, ONES};

/// A single-byte encoding: each byte is one character.
///
/// ```
/// use utf8guard::SingleByte;
///
/// assert_eq!(SingleByte::from_name("CP1252"), Some(SingleByte::Windows1252));
/// assert_eq!(SingleByte::Latin1.name(), "latin-1");
/// assert_eq!(SingleByte::Windows1252.decode(0x80), '€');
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SingleByte {
    /// ISO-8859-1: byte `b` is U+00`b`, so it holds U+0000..U+00FF.
    Latin1,
    /// Windows-1252 as the WHATWG index has it: Latin-1 but for `80`..`9F`,
    /// which hold punctuation and a few letters (`80` is `€`); the five
    /// bytes Microsoft's table leaves unassigned (`81`, `8D`, `8F`, `90`,
    /// `9D`) are the C1 controls of their value, so every byte decodes.
    Windows1252,
}

impl SingleByte {
    /// The encoding's name: `latin-1` or `windows-1252`.
    ///
    /// ```
    /// assert_eq!(utf8guard::SingleByte::Windows1252.name(), "windows-1252");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            SingleByte::Latin1 => "latin-1",
            SingleByte::Windows1252 => "windows-1252",
        }
    }

    /// The encoding a name stands for, in any case: `latin-1`, `latin1`,
    /// `iso-8859-1`, `iso8859-1`; `windows-1252`, `cp1252`.
    ///
    /// ```
    /// use utf8guard::SingleByte;
    ///
    /// assert_eq!(SingleByte::from_name("ISO-8859-1"), Some(SingleByte::Latin1));
    /// assert_eq!(SingleByte::from_name("utf-8"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<SingleByte> {
        let is = |s: &str| name.eq_ignore_ascii_case(s);
        if ["latin-1", "latin1", "iso-8859-1", "iso8859-1"]
            .into_iter()
            .any(is)
        {
            Some(SingleByte::Latin1)
        } else if ["windows-1252", "cp1252"].into_iter().any(is) {
            Some(SingleByte::Windows1252)
        } else {
            None
        }
    }

    /// The character byte `byte` stands for.
    ///
    /// ```
    /// use utf8guard::SingleByte;
    ///
    /// assert_eq!(SingleByte::Latin1.decode(0xE9), 'é');
    /// assert_eq!(SingleByte::Latin1.decode(0x80), '\u{80}');
    /// assert_eq!(SingleByte::Windows1252.decode(0x93), '“');
    /// assert_eq!(SingleByte::Windows1252.decode(0x81), '\u{81}');
    /// ```
    pub fn decode(self, byte: u8) -> char {
        match self {
            SingleByte::Latin1 => char::from(byte),
            SingleByte::Windows1252 => windows_1252(byte),
        }
    }

    /// The byte that stands for `c`, if the encoding has one.
    ///
    /// ```
    /// use utf8guard::SingleByte;
    ///
    /// assert_eq!(SingleByte::Windows1252.encode('€'), Some(0x80));
    /// assert_eq!(SingleByte::Windows1252.encode('\u{80}'), None);
    /// assert_eq!(SingleByte::Latin1.encode('\u{80}'), Some(0x80));
    /// assert_eq!(SingleByte::Latin1.encode('€'), None);
    /// ```
    pub fn encode(self, c: char) -> Option<u8> {
        self.byte_of(u32::from(c))
    }

    #[inline(always)]
    fn byte_of(self, cp: u32) -> Option<u8> {
        match (self, cp) {
            (_, 0..=0x7F) | (SingleByte::Latin1, 0x80..=0xFF) => Some(cp as u8),
            (SingleByte::Windows1252, 0xA0..=0xFF) => Some(cp as u8),
            (SingleByte::Latin1, _) => None,
            // The table holds the five C1 controls at their own bytes, and
            // no other character below U+0100; the others are on four
            // pages of 256 code points.
            (SingleByte::Windows1252, _) => {
                let page = match cp >> 8 {
                    0x00 => 0,
                    0x01 => 1,
                    0x02 => 2,
                    0x20 => 3,
                    0x21 => 4,
                    _ => return None,
                };
                let byte = WINDOWS_1252_PAGES[page][(cp & 0xFF) as usize];
                (byte != 0).then_some(byte)
            }
        }
    }

    /// The UTF-8 form of each byte (up to 3 bytes, then the length).
    fn utf8_table(self) -> &'static [[u8; 4]; 256] {
        match self {
            SingleByte::Latin1 => &LATIN_1_UTF8,
            SingleByte::Windows1252 => &WINDOWS_1252_UTF8,
        }
    }
}

/// The characters of bytes `80`..`9F` in Windows-1252, per the WHATWG
/// index; the five bytes it leaves unassigned map to the C1 controls of
/// their value.
const WINDOWS_1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}', '\u{017D}', '\u{008F}',
    '\u{0090}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
];

/// Windows-1252's bytes `80`..`9F` by character, on the pages (the code
/// point's bits above the low 8) `00`, `01`, `02`, `20` and `21`; 0 for a
/// character it lacks. (A search of [`WINDOWS_1252_HIGH`] for each
/// character made typographic text the slowest to encode.)
static WINDOWS_1252_PAGES: [[u8; 256]; 5] = {
    let mut pages = [[0; 256]; 5];
    let mut k = 0;
    while k < 32 {
        let cp = WINDOWS_1252_HIGH[k] as u32;
        let page = match cp >> 8 {
            0x00 => 0,
            0x01 => 1,
            0x02 => 2,
            0x20 => 3,
            0x21 => 4,
            _ => panic!("a page without a table"),
        };
        pages[page][(cp & 0xFF) as usize] = 0x80 + k as u8;
        k += 1;
    }
    pages
};

/// Byte `b` read as Windows-1252 (as Latin-1 outside `80`..`9F`).
pub(crate) fn windows_1252(b: u8) -> char {
    match b {
        0x80..=0x9F => WINDOWS_1252_HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// The UTF-8 forms of the 256 bytes in an encoding, from its characters.
const fn utf8_table(windows: bool) -> [[u8; 4]; 256] {
    let mut table = [[0u8; 4]; 256];
    let mut b = 0;
    while b < 256 {
        let cp = if windows && b >= 0x80 && b < 0xA0 {
            WINDOWS_1252_HIGH[b - 0x80] as u32
        } else {
            b as u32
        };
        table[b] = match cp {
            0..=0x7F => [cp as u8, 0, 0, 1],
            0x80..=0x7FF => [0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8, 0, 2],
            _ => [
                0xE0 | (cp >> 12) as u8,
                0x80 | ((cp >> 6) & 0x3F) as u8,
                0x80 | (cp & 0x3F) as u8,
                3,
            ],
        };
        b += 1;
    }
    table
}

static LATIN_1_UTF8: [[u8; 4]; 256] = utf8_table(false);
static WINDOWS_1252_UTF8: [[u8; 4]; 256] = utf8_table(true);

/// Bit `b - 0x80` set where Windows-1252's byte `b` (`80`..`9F`) takes 3
/// bytes in UTF-8.
const WINDOWS_1252_THREE: u32 = {
    let mut mask = 0;
    let mut k = 0;
    while k < 32 {
        if WINDOWS_1252_HIGH[k] as u32 >= 0x800 {
            mask |= 1 << k;
        }
        k += 1;
    }
    mask
};

/// The length in UTF-8 of `input` in `encoding`: the room
/// [`single_byte_to_utf8_into`] needs for all of it (every byte is a
/// character, so any input has one).
///
/// ```
/// use utf8guard::{utf8_len_from_single_byte, SingleByte};
///
/// assert_eq!(utf8_len_from_single_byte(SingleByte::Latin1, b"caf\xE9 \x80"), 8);
/// assert_eq!(utf8_len_from_single_byte(SingleByte::Windows1252, b"caf\xE9 \x80"), 9);
/// ```
pub fn utf8_len_from_single_byte(encoding: SingleByte, input: &[u8]) -> usize {
    // A byte from `80` takes 2 bytes, 3 for most of Windows-1252's
    // `80`..`9F`; summed without branches, so that the loop uses vectors.
    let extra = match encoding {
        SingleByte::Latin1 => crate::lengths::sum_per_byte(input, |b| b >> 7),
        SingleByte::Windows1252 => crate::lengths::sum_per_byte(input, |b| {
            let c1 = u8::from(b & 0xE0 == 0x80);
            let three = (WINDOWS_1252_THREE >> (b & 0x1F)) as u8 & 1;
            (b >> 7) + (c1 & three)
        }),
    };
    input.len() + extra
}

/// Converts `input` in `encoding` to UTF-8, appending to `out`. Every byte
/// is a character, so it never fails.
///
/// ```
/// use utf8guard::{single_byte_to_utf8, SingleByte};
///
/// let mut text = Vec::new();
/// single_byte_to_utf8(SingleByte::Windows1252, b"\x93caf\xE9\x94 \x80", &mut text);
/// assert_eq!(text, "“café” €".as_bytes());
/// ```
#[cfg(feature = "alloc")]
pub fn single_byte_to_utf8(encoding: SingleByte, input: &[u8], out: &mut Vec<u8>) {
    // Room for Latin-1's length (a vector loop; Windows-1252's exact one
    // looks up a bit per byte, which does not vectorize), then, if that
    // was short (a few of Windows-1252's `80`..`9F` take 3 bytes), room for
    // the rest at 3 bytes a byte.
    let mut room = input.len() + crate::lengths::sum_per_byte(input, |b| b >> 7);
    let kernel = crate::dispatch::active();
    let mut at = 0;
    loop {
        // SAFETY: the loops write initialized bytes only, the `written`
        // first ones in order (what they store past them is scratch).
        let read = unsafe {
            crate::transcode::append(out, room, |room| {
                let progress = to_utf8_room(kernel, encoding, &input[at..], room);
                (progress.read, progress.written)
            })
        };
        at += read;
        if at == input.len() {
            break;
        }
        room = 3 * (input.len() - at);
    }
}

/// Converts `input` in `encoding` to UTF-8 into a caller's buffer (no
/// allocation), whole characters only: [`Status::OutputFull`] when the next
/// does not fit (an `output` of [`utf8_len_from_single_byte`] bytes, or 3
/// times as long as `input`, always has room for all of it). Never an
/// error. The call keeps no state: the next one starts with
/// `input[read..]`.
/// Past `written`, `output` may hold scratch (the conversion copies whole
/// blocks and table entries).
///
/// ```
/// use utf8guard::{single_byte_to_utf8_into, SingleByte, Status};
///
/// let mut buf = [0u8; 4];
/// let p = single_byte_to_utf8_into(SingleByte::Latin1, b"ab\xE9\xE9", &mut buf);
/// assert_eq!((p.read, p.written, p.result), (3, 4, Ok(Status::OutputFull)));
/// assert_eq!(&buf, "abé".as_bytes());
/// ```
pub fn single_byte_to_utf8_into(encoding: SingleByte, input: &[u8], output: &mut [u8]) -> Progress {
    single_byte_to_utf8_into_with(crate::dispatch::active(), encoding, input, output)
}

/// [`single_byte_to_utf8_into`] with the vectors of `kernel`, which must be
/// available on this CPU (the scalar loop where it has none).
pub(crate) fn single_byte_to_utf8_into_with(
    kernel: crate::Kernel,
    encoding: SingleByte,
    input: &[u8],
    output: &mut [u8],
) -> Progress {
    // SAFETY: the loops write initialized bytes only.
    to_utf8_room(kernel, encoding, input, unsafe {
        crate::transcode::as_room(output)
    })
}

/// [`single_byte_to_utf8_into_with`] into room that may be uninitialized
/// (a vector's spare capacity): it initializes the `written` first bytes.
fn to_utf8_room(
    kernel: crate::Kernel,
    encoding: SingleByte,
    input: &[u8],
    output: &mut [MaybeUninit<u8>],
) -> Progress {
    #[cfg(vector_kernels)]
    if let Some(progress) = vector::to_utf8(kernel, encoding, input, output) {
        return progress;
    }
    let _ = kernel;
    to_utf8_loop(NoSteps, encoding, input, output)
}

/// Copies `src` to the start of `dst`, which must be as long.
#[inline(always)]
fn put(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    assert_eq!(dst.len(), src.len());
    // SAFETY: both are `src.len()` long (checked) and do not overlap (one
    // is borrowed mutably); `MaybeUninit<u8>` has `u8`'s layout.
    unsafe {
        core::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<u8>(), src.len())
    }
}

/// The vector steps of the loops ([`to_utf8_loop`], [`from_utf8_loop`]):
/// a vector type's (`vector`), whose value proves its instruction set, or
/// [`NoSteps`]. Each takes `BLOCK` bytes of input.
trait Steps: Copy {
    /// The bytes of input a step takes; 0 for [`NoSteps`].
    const BLOCK: usize;
    /// The room [`Steps::expand_windows`] needs: 3 bytes a byte, and its
    /// last 16-byte store.
    const WINDOWS_ROOM: usize;

    /// Converts the `BLOCK` bytes of `block` to UTF-8 at the start of `out`
    /// (at least `2 * BLOCK` long), and returns how many bytes that is;
    /// `None` (nothing written) when `windows` and the block holds a byte
    /// of `80`..`9F`.
    fn expand(self, block: &[u8], out: &mut [MaybeUninit<u8>], windows: bool) -> Option<usize>;

    /// Converts the `BLOCK` bytes of Windows-1252 in `block` to UTF-8 at the
    /// start of `out` (at least `WINDOWS_ROOM` long), and returns how many
    /// bytes that is.
    fn expand_windows(self, block: &[u8], out: &mut [MaybeUninit<u8>]) -> usize;

    /// Copies the ASCII at the start of `input` to `output` in runs, and
    /// returns how many bytes that is (the caller's steps take the rest).
    fn ascii_run(self, input: &[u8], output: &mut [MaybeUninit<u8>]) -> usize;

    /// Converts the characters that start in `block` (`BLOCK` bytes of
    /// well-formed UTF-8 that starts with a character) into the encoding
    /// at the start of `out` (at least `BLOCK` long): the bytes read and
    /// written; `None` (nothing written) where a character is not ASCII
    /// nor U+00A0..U+00FF (for Latin-1, U+0080..U+00FF).
    fn compress(
        self,
        block: &[u8],
        out: &mut [MaybeUninit<u8>],
        windows: bool,
    ) -> Option<(usize, usize)>;

    /// [`Steps::compress`] for Windows-1252 with its characters above
    /// U+00FF as well.
    fn compress_windows(self, block: &[u8], out: &mut [MaybeUninit<u8>]) -> Option<(usize, usize)>;
}

/// No vector steps: the loops a character at a time (and ASCII a word
/// block at a time).
#[derive(Clone, Copy)]
struct NoSteps;

impl Steps for NoSteps {
    const BLOCK: usize = 0;
    const WINDOWS_ROOM: usize = 0;

    fn expand(self, _: &[u8], _: &mut [MaybeUninit<u8>], _: bool) -> Option<usize> {
        unreachable!("no vector steps")
    }

    fn expand_windows(self, _: &[u8], _: &mut [MaybeUninit<u8>]) -> usize {
        unreachable!("no vector steps")
    }

    fn ascii_run(self, _: &[u8], _: &mut [MaybeUninit<u8>]) -> usize {
        unreachable!("no vector steps")
    }

    fn compress(self, _: &[u8], _: &mut [MaybeUninit<u8>], _: bool) -> Option<(usize, usize)> {
        unreachable!("no vector steps")
    }

    fn compress_windows(self, _: &[u8], _: &mut [MaybeUninit<u8>]) -> Option<(usize, usize)> {
        unreachable!("no vector steps")
    }
}

/// The loop of [`single_byte_to_utf8_into`]; with vector `steps` (only in
/// a function compiled for their instruction set) it takes a block at a
/// time by vectors while there is room for any block's UTF-8
/// ([`Steps::expand`]).
#[inline(always)]
fn to_utf8_loop<S: Steps>(
    steps: S,
    encoding: SingleByte,
    input: &[u8],
    output: &mut [MaybeUninit<u8>],
) -> Progress {
    let table = encoding.utf8_table();
    let windows = encoding == SingleByte::Windows1252;
    let n = S::BLOCK;
    // The bytes before `slow` go through the table: a block the vectors
    // left (Windows-1252's `80`..`9F`).
    let mut slow = 0;
    let (mut at, mut w) = (0, 0);
    let status = loop {
        if n != 0 && at >= slow {
            if let (Some(block), Some(out)) = (input.get(at..at + n), output.get_mut(w..w + 2 * n))
            {
                if let Some(written) = steps.expand(block, out, windows) {
                    at += n;
                    w += written;
                    // As many bytes of UTF-8 as of input: ASCII, and the
                    // run that may follow is copied as it is.
                    if written == n {
                        let run = steps.ascii_run(&input[at..], &mut output[w..]);
                        at += run;
                        w += run;
                    }
                    continue;
                }
                // Windows-1252's `80`..`9F`, up to 3 bytes each.
                if let Some(out) = output.get_mut(w..w + S::WINDOWS_ROOM) {
                    w += steps.expand_windows(block, out);
                    at += n;
                    continue;
                }
                slow = at + n;
            }
        }
        let Some(&b) = input.get(at) else {
            break Status::InputEmpty;
        };
        if b < 0x80 {
            // A block copied at once, its ASCII prefix kept.
            if let (Some((block, n)), Some(out)) = (
                ascii::run_at(input, at),
                output.get_mut(w..w + ascii::BLOCK),
            ) {
                put(out, block);
                at += n;
                w += n;
                continue;
            }
        }
        let form = &table[usize::from(b)];
        let len = usize::from(form[3]);
        // With room for the whole table entry, one fixed-size copy (its
        // length byte is overwritten by what follows, or left past
        // `written`).
        if let Some(dst) = output.get_mut(w..w + 4) {
            put(dst, form);
        } else if let Some(dst) = output.get_mut(w..w + len) {
            put(dst, &form[..len]);
        } else {
            break Status::OutputFull;
        }
        at += 1;
        w += len;
    };
    Progress {
        read: at,
        written: w,
        result: Ok(status),
    }
}

/// UTF-8 into a single-byte encoding, for [`utf8_input::convert`].
struct ToSingleByte(SingleByte);

impl Convert for ToSingleByte {
    type Unit = MaybeUninit<u8>;
    const REPLACEMENT: MaybeUninit<u8> = MaybeUninit::new(b'?');

    #[inline]
    fn valid(&self, src: &[u8], dst: &mut [MaybeUninit<u8>]) -> (usize, usize, Stop) {
        from_utf8_loop(NoSteps, self.0, src, dst)
    }
}

/// [`Convert::valid`] of [`ToSingleByte`]; with vector `steps` (only in a
/// function compiled for their instruction set) it takes a block at a
/// time by vectors where its characters are all ASCII or U+00A0..U+00FF
/// ([`Steps::compress`]), for Windows-1252 also its 27 characters above
/// U+00FF ([`Steps::compress_windows`]), and where not, goes a character
/// at a time to the end of the block (which reports what the encoding
/// lacks).
#[inline(always)]
fn from_utf8_loop<S: Steps>(
    steps: S,
    encoding: SingleByte,
    src: &[u8],
    dst: &mut [MaybeUninit<u8>],
) -> (usize, usize, Stop) {
    let windows = encoding == SingleByte::Windows1252;
    let n = S::BLOCK;
    let mut slow = 0;
    let (mut r, mut w) = (0, 0);
    while let Some(&b) = src.get(r) {
        if n != 0 && r >= slow {
            if let (Some(block), Some(out)) = (src.get(r..r + n), dst.get_mut(w..w + n)) {
                let step = match steps.compress(block, &mut *out, windows) {
                    None if windows => steps.compress_windows(block, out),
                    step => step,
                };
                match step {
                    Some((read, written)) => {
                        r += read;
                        w += written;
                        continue;
                    }
                    None => slow = r + n,
                }
            }
        }
        if b < 0x80 {
            // A block copied at once, its ASCII prefix kept.
            if let (Some((block, n)), Some(out)) =
                (ascii::run_at(src, r), dst.get_mut(w..w + ascii::BLOCK))
            {
                put(out, block);
                r += n;
                w += n;
                continue;
            }
        }
        let Some(slot) = dst.get_mut(w) else {
            return (r, w, Stop::Full);
        };
        if b < 0x80 {
            *slot = MaybeUninit::new(b);
            r += 1;
        } else {
            let (cp, len) = utf8_input::decode_valid(&src[r..]);
            let Some(byte) = encoding.byte_of(cp) else {
                return (r, w, Stop::Unencodable(EncodeError::NotInCharset, len));
            };
            *slot = MaybeUninit::new(byte);
            r += len;
        }
        w += 1;
    }
    (r, w, Stop::Done)
}

/// Converts UTF-8 to `encoding`, appending to `out`. With
/// [`Policy::Strict`], an ill-formed sequence is a
/// [`Cause::Malformed`](crate::Cause::Malformed) error (at std's
/// `valid_up_to`, `error_len` its maximal subpart) and a character the
/// encoding lacks a
/// [`Cause::Unencodable`](crate::Cause::Unencodable)`(`[`EncodeError::NotInCharset`]`)`
/// one; on an error, `out` holds the conversion of everything before it.
/// With [`Policy::Replace`], each is one `?`, as CPython's
/// `encode(..., 'replace')` writes.
///
/// ```
/// use utf8guard::{utf8_to_single_byte, Cause, EncodeError, Policy, SingleByte};
///
/// let mut out = Vec::new();
/// utf8_to_single_byte(SingleByte::Windows1252, "“café” €".as_bytes(), Policy::Strict, &mut out).unwrap();
/// assert_eq!(out, b"\x93caf\xE9\x94 \x80");
///
/// out.clear();
/// let err = utf8_to_single_byte(SingleByte::Latin1, "café €".as_bytes(), Policy::Strict, &mut out);
/// let err = err.unwrap_err();
/// assert_eq!((err.offset(), err.error_len()), (6, Some(3)));
/// assert_eq!(err.cause(), Cause::Unencodable(EncodeError::NotInCharset));
/// assert_eq!(out, b"caf\xE9 ");
///
/// out.clear();
/// utf8_to_single_byte(SingleByte::Latin1, b"caf\xC3\xA9 \xE2\x82\xAC \xFF", Policy::Replace, &mut out).unwrap();
/// assert_eq!(out, b"caf\xE9 ? ?");
/// ```
#[cfg(feature = "alloc")]
pub fn utf8_to_single_byte(
    encoding: SingleByte,
    input: &[u8],
    policy: Policy,
    out: &mut Vec<u8>,
) -> Result<(), TranscodeError> {
    // Never more bytes out than in.
    let kernel = crate::dispatch::active();
    // SAFETY: the loops write initialized bytes only, the `written` first
    // ones in order, on every path.
    unsafe {
        crate::transcode::append_whole(out, input.len(), input.len(), |room| {
            from_utf8_room(kernel, encoding, input, policy, room, true)
        })
    }
}

/// Converts UTF-8 to `encoding` into a caller's buffer (no allocation):
/// [`utf8_to_single_byte`] a piece at a time, with the conventions of
/// [`wtf8_to_utf16_into`](crate::wtf8_to_utf16_into): an `output` as long
/// as `input` always has room for all of it; without `last`, a sequence the
/// input ends inside is left unread, to be passed again with what follows;
/// error offsets count bytes from the start of `input`.
/// Past `written`, `output` may hold scratch (ASCII is copied in whole
/// blocks).
///
/// ```
/// use utf8guard::{utf8_to_single_byte_into, Policy, SingleByte, Status};
///
/// let mut buf = [0u8; 8];
/// let p = utf8_to_single_byte_into(SingleByte::Latin1, b"caf\xC3", Policy::Strict, &mut buf, false);
/// assert_eq!((p.read, p.written, p.result), (3, 3, Ok(Status::InputEmpty)));
/// let p = utf8_to_single_byte_into(SingleByte::Latin1, b"\xC3\xA9!", Policy::Strict, &mut buf[3..], true);
/// assert_eq!((p.read, p.written), (3, 2));
/// assert_eq!(&buf[..5], b"caf\xE9!");
/// ```
pub fn utf8_to_single_byte_into(
    encoding: SingleByte,
    input: &[u8],
    policy: Policy,
    output: &mut [u8],
    last: bool,
) -> Progress {
    utf8_to_single_byte_into_with(
        crate::dispatch::active(),
        encoding,
        input,
        policy,
        output,
        last,
    )
}

/// [`utf8_to_single_byte_into`] with the vectors of `kernel`, which must be
/// available on this CPU (the scalar loop where it has none).
pub(crate) fn utf8_to_single_byte_into_with(
    kernel: crate::Kernel,
    encoding: SingleByte,
    input: &[u8],
    policy: Policy,
    output: &mut [u8],
    last: bool,
) -> Progress {
    // SAFETY: the loops write initialized bytes only.
    let room = unsafe { crate::transcode::as_room(output) };
    from_utf8_room(kernel, encoding, input, policy, room, last)
}

/// [`utf8_to_single_byte_into_with`] into room that may be uninitialized
/// (a vector's spare capacity): it initializes the `written` first bytes.
fn from_utf8_room(
    kernel: crate::Kernel,
    encoding: SingleByte,
    input: &[u8],
    policy: Policy,
    output: &mut [MaybeUninit<u8>],
    last: bool,
) -> Progress {
    #[cfg(vector_kernels)]
    if let Some(progress) =
        vector::from_utf8_into_with(kernel, encoding, input, policy, output, last)
    {
        return progress;
    }
    let _ = kernel;
    utf8_input::convert(&ToSingleByte(encoding), input, policy, output, last)
}

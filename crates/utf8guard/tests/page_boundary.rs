//! Every entry point that reads its input with vector loads, run natively
//! on inputs placed against pages that cannot be touched: ending at the
//! last byte before such a page, and starting at the first byte after one.
//! A read of one byte outside the slice then stops the test with a fault
//! (SIGSEGV). Miri, which would see such reads, runs the SSE4.2 and AVX2
//! kernels only, and never the AVX-512 kernel's paths; this runs them all
//! (those the CPU has). `tests/bounds.rs` places `validate` and
//! `validate_dialect` so; this adds exact errors, every alignment, the
//! other entry points and the dispatched paths.
//!
//! Covered, for every input length from 0 to 1100 bytes (past 1 KiB, where
//! the vector kernels' strict entry points stop scanning for ASCII first
//! and their `validate_far_hinted` no longer hands over to `validate`):
//! - strict UTF-8: the dispatched `validate` and `from_utf8` (with their
//!   inlined short paths), every available kernel's `validate` and
//!   `from_utf8`, and on x86_64 the entry points the dispatcher takes on
//!   other CPUs or for `par`'s chunks of a long input (the AVX-512 kernel
//!   without AVX-512VBMI, the kernels' `validate_far_hinted`, the AVX2 and
//!   AVX-512 kernels with the look-behind shuffled in); against
//!   `core::str::from_utf8` and the reference DFA, error positions and
//!   kinds exactly. ASCII and mixed text, whole and ending with a lead
//!   byte, at every gap of 0 to 63 bytes from either page (every alignment
//!   of their start and of their end); the others right against it;
//! - every dialect but strict UTF-8 on every available vector kernel
//!   (`check_dialect`, `validate_dialect`, and on x86_64 the AVX-512
//!   kernel's entry points without VBMI), on text that the dialect takes
//!   (CESU-8 and modified UTF-8 pairs, `C0 80`, lone surrogates, RFC 2279's
//!   5- and 6-byte forms, Corrected UTF-8's offsets, reserved runs and
//!   magic number) and on the same text with an error or a sequence cut
//!   at its end, against the dialect's automaton. The whole text with
//!   every form at every gap, as above. (`Dialect::check`, `validate` and
//!   `inspect` take the active kernel's same entry points.)
//! - the paths that take the dispatched kernel, with each vector kernel the
//!   CPU has forced (`UTF8GUARD_KERNEL`, in a process of its own per
//!   kernel; elsewhere than on x86_64, the one detected), on the text of
//!   each dialect with every form, against the same on the heap: the
//!   transcoders from every dialect (the whole text into every dialect,
//!   the text ending with a lead byte into strict and modified UTF-8;
//!   replacing what they cannot convert; the output into a buffer of just
//!   its size that ends against a page that cannot be written), WTF-8 to
//!   UTF-16 and back (both buffers placed so), the stream validator in
//!   every dialect, `from_utf8_lossy`; with the AVX-512 kernel, also
//!   `par`'s chunks and the stream with the look-behind shifted in.
//!
//! The scalar kernel, which reads with bounds checks (and which Miri runs),
//! is checked for strict UTF-8 only.

#![cfg(all(unix, any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]

mod common;

use std::fmt;

use common::automaton;
use utf8guard::{Dialect, ErrorKind, Kernel, Policy, Status, StreamValidator, Transcoder};

/// The longest input: past `lookup::ASCII_SCAN_MAX` (1 KiB) by more than
/// a block.
const MAX_LEN: usize = 1100;

/// Every gap from the page that cannot be read, for the inputs placed at
/// every alignment (the widest vector is 64 bytes).
const GAPS: usize = 64;

/// An item an input or an output is made of: an integer, which any bytes
/// are a valid value of.
trait Unit: Copy {}
impl Unit for u8 {}
impl Unit for u16 {}

/// Where an input goes in a [`Fenced`] region.
#[derive(Clone, Copy, Debug)]
enum Place {
    /// Ending this many units before the page after the region.
    End(usize),
    /// Starting this many units after the page before the region.
    Start(usize),
}

/// The places an input is checked at: right against either page, and with
/// `every_gap` at every gap below [`GAPS`] too.
fn places(every_gap: bool) -> Vec<Place> {
    let gaps = if every_gap { GAPS } else { 1 };
    (0..gaps)
        .flat_map(|g| [Place::End(g), Place::Start(g)])
        .collect()
}

/// Readable and writable pages between two that cannot be touched.
struct Fenced {
    base: *mut u8,
    page: usize,
    /// The readable pages.
    pages: usize,
}

impl Fenced {
    /// Room for `room` bytes (at least one page) between the two fences.
    fn new(room: usize) -> Fenced {
        // SAFETY: sysconf has no preconditions.
        let page =
            usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).expect("the page size");
        let pages = room.div_ceil(page).max(1);
        let len = (pages + 2) * page;
        // SAFETY: an anonymous private mapping with no address asked for;
        // the result is checked below.
        let base = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap");
        let base = base.cast::<u8>();
        for fence in [0, pages + 1] {
            // SAFETY: the first and the last page of the mapping just made.
            let done =
                unsafe { libc::mprotect(base.add(fence * page).cast(), page, libc::PROT_NONE) };
            assert_eq!(done, 0, "mprotect");
        }
        Fenced { base, page, pages }
    }

    /// How many bytes fit between the fences.
    fn room(&self) -> usize {
        self.pages * self.page
    }

    /// `items` copied to `place`, and the slice they are in there.
    fn place<T: Unit>(&mut self, items: &[T], place: Place) -> &mut [T] {
        let size = core::mem::size_of::<T>();
        let bytes = core::mem::size_of_val(items);
        let offset = match place {
            Place::End(gap) => self.room().checked_sub(gap * size + bytes),
            Place::Start(gap) => Some(gap * size).filter(|&o| o + bytes <= self.room()),
        };
        let offset = offset.unwrap_or_else(|| panic!("no room for {bytes} bytes at {place:?}"));
        // SAFETY: `offset + bytes` is within the readable pages, after the
        // first page of the mapping.
        let at = unsafe { self.base.add(self.page + offset) }.cast::<T>();
        assert!(
            at.is_aligned(),
            "{place:?} of {}",
            core::any::type_name::<T>()
        );
        // SAFETY: `items.len()` values of `T` from `at`: in the readable and
        // writable pages of the mapping (above), aligned (asserted), and
        // initialized (a `Unit` is an integer, and the mapping was made
        // with zeros or written since); only borrowed through `self`.
        let slot = unsafe { core::slice::from_raw_parts_mut(at, items.len()) };
        slot.copy_from_slice(items);
        slot
    }
}

impl Drop for Fenced {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, no longer borrowed (`place`'s
        // slices borrow `self`).
        let done = unsafe { libc::munmap(self.base.cast(), (self.pages + 2) * self.page) };
        assert_eq!(done, 0, "munmap");
    }
}

/// `Ok(())`, or the error's `valid_up_to`, `error_len` and kind.
type Outcome = Result<(), (usize, Option<usize>, ErrorKind)>;

fn outcome<T>(result: Result<T, utf8guard::Utf8Error>) -> Outcome {
    result
        .map(drop)
        .map_err(|e| (e.valid_up_to(), e.error_len(), e.kind()))
}

/// What `dialect`'s automaton says of `bytes`.
fn expected(dialect: Dialect, bytes: &[u8]) -> Outcome {
    automaton(dialect)
        .validate(bytes)
        .map_err(|e| (e.valid_up_to, e.error_len, ErrorKind::from(e.fault)))
}

/// `len` bytes of text: `unit` repeated, after as many ASCII bytes as make
/// the length (so that it ends with a whole `unit`), or with `cut` from the
/// start and cut at `len` (which may end inside a sequence).
fn fill(unit: &[u8], len: usize, cut: bool) -> Vec<u8> {
    if cut {
        return unit.iter().copied().cycle().take(len).collect();
    }
    let whole = len / unit.len();
    let mut out = vec![b'a'; len - whole * unit.len()];
    for _ in 0..whole {
        out.extend_from_slice(unit);
    }
    out
}

/// What an input of [`inputs`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The text, ending with a whole unit.
    Whole,
    /// The text with a lead byte as its last byte.
    EndsWithLead,
    /// The others.
    Other,
}

/// Inputs of `len` bytes made of `unit`: repeated, whole and cut at the
/// end, and the whole one with errors at its end (a lead byte as its last
/// byte, a 4-byte sequence's first two as its last two, an invalid byte
/// three from the end) and an invalid byte three quarters in.
fn inputs(unit: &[u8], len: usize) -> Vec<(Kind, Vec<u8>)> {
    let whole = fill(unit, len, false);
    let mut out = vec![
        (Kind::Whole, whole.clone()),
        (Kind::Other, fill(unit, len, true)),
    ];
    let mut changed = |kind: Kind, at: usize, bytes: &[u8]| {
        if len >= at {
            let mut e = whole.clone();
            e[len - at..len - at + bytes.len()].copy_from_slice(bytes);
            out.push((kind, e));
        }
    };
    changed(Kind::EndsWithLead, 1, b"\xE4");
    changed(Kind::Other, 2, b"\xF0\x9F");
    changed(Kind::Other, 3, b"\xC0");
    if len > 0 {
        let mut e = whole.clone();
        e[len * 3 / 4] = 0xFF;
        out.push((Kind::Other, e));
    }
    let mut seen = Vec::new();
    out.retain(|(_, input)| {
        let new = !seen.contains(input);
        seen.push(input.clone());
        new
    });
    out
}

/// Strict UTF-8 text in every width.
fn strict_units() -> Vec<Vec<u8>> {
    ["a", "é", "€", "😀", "aé€😀", "Grüße, Jürgen ❤ 🌍"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect()
}

/// Text that `dialect` takes: ASCII; characters of every width it has; its
/// own forms (`C0 80`, lone surrogates, 5- and 6-byte sequences, reserved
/// runs); a surrogate pair; all of them (but the runs), with ASCII
/// between. Those the dialect does not take are left out.
fn dialect_units(dialect: Dialect) -> Vec<Vec<u8>> {
    let encode = |cps: &[u32]| -> Vec<u8> {
        let mut out = Vec::new();
        for e in cps.iter().filter_map(|&cp| dialect.encode(cp).ok()) {
            out.extend_from_slice(&e);
            out.push(b'x');
        }
        out
    };
    let widths = encode(&[0xE9, 0x4E2D, 0x1F600, 0x10_FFFF]);
    let own = encode(&[0, 0xD800, 0xDFFF, 0x20_0000, 0x7FFF_FFFF, 0x8421_109F]);
    let alone = |cp: u32| dialect.encode(cp).map_or(Vec::new(), |e| e.to_vec());
    let pair = [alone(0xD83D), alone(0xDE00)].concat();
    let mut units = vec![b"a".to_vec(), widths, own, pair];
    units.retain(|u| !u.is_empty() && automaton(dialect).is_valid(u));
    let all = units.join(&b'a');
    units.push(all);
    if dialect == Dialect::Corrected {
        // Not in the mixed text: a run stops the kernel at its block, which
        // the automaton then reads; at every gap, too long a test.
        units.push(b"x\xFE\x80\x80y\xFFz".to_vec());
    }
    units.retain(|u| automaton(dialect).is_valid(u));
    units.sort();
    units.dedup();
    units
}

/// Runs `check` on the inputs of every length made of each of `units`,
/// at each of their places: every gap for those of which `every_gap` says
/// so (from their unit and kind).
fn for_each_placed(
    units: &[Vec<u8>],
    every_gap: impl Fn(&[u8], Kind) -> bool,
    oracle: impl Fn(&[u8]) -> Outcome,
    mut check: impl FnMut(&[u8], &Outcome, &dyn fmt::Display),
) {
    let mut fenced = Fenced::new(MAX_LEN + GAPS);
    let (all, some) = (places(true), places(false));
    for len in 0..=MAX_LEN {
        for unit in units {
            for (kind, input) in inputs(unit, len) {
                let expected = oracle(&input);
                for &place in if every_gap(unit, kind) { &all } else { &some } {
                    let bytes = fenced.place(&input, place);
                    check(bytes, &expected, &At { len, place, bytes });
                }
            }
        }
    }
}

/// Where a failing input was, for the messages.
struct At<'a> {
    len: usize,
    place: Place,
    bytes: &'a [u8],
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} bytes at {:?}: {:02X?}",
            self.len, self.place, self.bytes
        )
    }
}

/// What core says of `bytes`, with the DFA's kind of error.
fn expected_strict(bytes: &[u8]) -> Outcome {
    core::str::from_utf8(bytes).map(drop).map_err(|e| {
        let fault = utf8guard_dfa::validate(bytes).expect_err("the DFA agrees with core");
        (e.valid_up_to(), e.error_len(), ErrorKind::from(fault.fault))
    })
}

/// Strict UTF-8 through every entry point against what was `expected`.
fn check_strict(bytes: &[u8], expected: &Outcome, at: &dyn fmt::Display) {
    let expected = *expected;
    assert_eq!(
        utf8guard::validate(bytes),
        expected.is_ok(),
        "validate, {at}"
    );
    assert_eq!(
        outcome(utf8guard::from_utf8(bytes)),
        expected,
        "from_utf8, {at}"
    );
    for kernel in Kernel::available() {
        assert_eq!(kernel.validate(bytes), expected.is_ok(), "{kernel}, {at}");
        assert_eq!(outcome(kernel.from_utf8(bytes)), expected, "{kernel}, {at}");
    }
    #[cfg(target_arch = "x86_64")]
    {
        use utf8guard::__bench;
        if let Some(got) = __bench::avx512_without_vbmi(bytes) {
            assert_eq!(outcome(got), expected, "avx512 without VBMI, {at}");
        }
        for (kernel, vbmi) in [
            (Kernel::Sse42, false),
            (Kernel::Avx2, false),
            (Kernel::Avx512, true),
            (Kernel::Avx512, false),
        ] {
            if let Some(got) = __bench::far_hinted(kernel, vbmi, bytes) {
                assert_eq!(outcome(got), expected, "{kernel} far (VBMI {vbmi}), {at}");
            }
        }
        for (name, got) in [
            ("avx2", __bench::avx2_shuffled(bytes)),
            ("avx512", __bench::avx512_shuffled(bytes)),
        ] {
            if let Some(got) = got {
                assert_eq!(got, expected.is_ok(), "{name} shuffled, {at}");
            }
        }
    }
}

#[test]
fn strict_validation_reads_only_its_input() {
    // ASCII and mixed text at every alignment.
    let every_gap =
        |unit: &[u8], kind| (unit == b"a" || unit == "aé€😀".as_bytes()) && kind != Kind::Other;
    for_each_placed(&strict_units(), every_gap, expected_strict, check_strict);
}

/// `dialect` through every vector kernel against what its automaton
/// said, `expected`. (The scalar kernel reads with bounds checks, and Miri
/// runs it.)
fn check_dialect(dialect: Dialect, bytes: &[u8], expected: Outcome, at: &dyn fmt::Display) {
    for kernel in Kernel::available().filter(|&k| k != Kernel::Scalar) {
        let got = outcome(kernel.check_dialect(dialect, bytes));
        assert_eq!(got, expected, "{dialect} check on {kernel}, {at}");
        let valid = kernel.validate_dialect(dialect, bytes);
        assert_eq!(
            valid,
            expected.is_ok(),
            "{dialect} validate on {kernel}, {at}"
        );
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(got) = utf8guard::__bench::avx512_dialect_without_vbmi(dialect, bytes) {
        assert_eq!(
            outcome(got),
            expected,
            "{dialect} on avx512 without VBMI, {at}"
        );
    }
}

#[test]
fn dialects_read_only_their_input() {
    // Strict UTF-8 has its test above.
    for &dialect in &Dialect::ALL[1..] {
        let units = dialect_units(dialect);
        // The mixed text (the longest unit) at every alignment.
        let longest = units.iter().map(Vec::len).max();
        let every_gap = |unit: &[u8], kind| Some(unit.len()) == longest && kind == Kind::Whole;
        let oracle = |bytes: &[u8]| expected(dialect, bytes);
        for_each_placed(&units, every_gap, oracle, |bytes, &expected, at| {
            check_dialect(dialect, bytes, expected, at);
        });
    }
    // Corrected UTF-8 that starts with its magic number (or a part of it).
    let magic = utf8guard_dfa::grammar::CORRECTED_MAGIC;
    let text = dialect_units(Dialect::Corrected).concat();
    let mut fenced = Fenced::new(MAX_LEN + GAPS);
    for len in 0..=MAX_LEN {
        let head = &magic[..len.min(magic.len())];
        let input = [head, &fill(&text, len - head.len(), true)].concat();
        let expected = expected(Dialect::Corrected, &input);
        for place in places(false) {
            let bytes = fenced.place(&input, place);
            check_dialect(
                Dialect::Corrected,
                bytes,
                expected,
                &At { len, place, bytes },
            );
        }
    }
}

/// `input` through the transcoder from `from` to `to` with `policy` into
/// an output buffer of `room` bytes that ends against a page that cannot be
/// written, in as many calls as it takes; the output, or the error.
fn transcode_fenced(
    (from, to, policy): (Dialect, Dialect, Policy),
    input: &[u8],
    output: &mut Fenced,
    room: usize,
) -> Result<Vec<u8>, utf8guard::TranscodeError> {
    let out = output.place(&vec![0u8; room], Place::End(0));
    let mut transcoder = Transcoder::new(from, to, policy);
    let (mut read, mut written) = (0, 0);
    loop {
        let p = transcoder.transcode(&input[read..], &mut out[written..], true);
        read += p.read;
        written += p.written;
        match p.result? {
            Status::InputEmpty => {
                assert_eq!(read, input.len(), "{from} to {to}: all read");
                return Ok(out[..written].to_vec());
            }
            Status::OutputFull => assert!(p.read + p.written > 0, "{from} to {to}: stuck"),
        }
    }
}

/// The transcoders from `from` into each of `targets`, replacing what they
/// cannot convert, on `bytes` (placed) into an output buffer of just the
/// size it takes against a fence, against `expected` (from the same input
/// on the heap, for each of `targets`).
fn check_transcoders(
    (from, targets): (Dialect, &[Dialect]),
    bytes: &[u8],
    expected: &[Vec<u8>],
    output: &mut Fenced,
    at: &At,
) {
    for (&to, expected) in targets.iter().zip(expected) {
        let got = transcode_fenced((from, to, Policy::Replace), bytes, output, expected.len());
        assert_eq!(got.as_ref(), Ok(expected), "{from} to {to}, {at}");
    }
}

/// WTF-8 to UTF-16 and back, both buffers against fences, against the
/// same on `copy`.
fn check_utf16(bytes: &[u8], copy: &[u8], fences: &mut [Fenced; 2], at: &At) {
    let [input, output] = fences;
    for policy in [Policy::Strict, Policy::Replace] {
        let mut expected = Vec::new();
        let result = utf8guard::wtf8_to_utf16(copy, policy, &mut expected);
        // The room `wtf8_to_utf16` gives: enough for all of it in one
        // call. (The input's length, which `wtf8_to_utf16_into`'s
        // documentation says always has room, is not: `E4` alone with one
        // unit of room, or `61 E4` with two, returns `OutputFull`, not the
        // error.)
        let out = output.place(&vec![0u16; copy.len() + 2], Place::End(0));
        let p = utf8guard::wtf8_to_utf16_into(bytes, policy, out, true);
        assert_eq!(p.result.map(drop), result, "to UTF-16, {policy:?}, {at}");
        assert_eq!(
            &out[..p.written],
            &expected[..],
            "to UTF-16, {policy:?}, {at}"
        );
        // And back, from UTF-16 against a fence.
        let mut wtf8 = Vec::new();
        utf8guard::utf16_to_wtf8(&expected, &mut wtf8);
        for place in places(false) {
            let units = input.place(&expected, place);
            let back = output.place(&vec![0u8; wtf8.len()], Place::End(0));
            let p = utf8guard::utf16_to_wtf8_into(units, back, true);
            assert_eq!(p.result, Ok(Status::InputEmpty), "from UTF-16, {at}");
            assert_eq!(
                (p.read, &back[..p.written]),
                (units.len(), &wtf8[..]),
                "{at}"
            );
        }
    }
}

/// The stream validator in `dialect` against what was `expected`.
fn check_stream(dialect: Dialect, bytes: &[u8], expected: Outcome, at: &At) {
    let mut stream = StreamValidator::with_dialect(dialect);
    let got = stream.update(bytes).and_then(|()| stream.finish());
    assert_eq!(outcome(got), expected, "{dialect} stream, {at}");
}

/// Everything that takes the dispatched kernel, on the text of each
/// dialect with every form it has (whole, and with a lead byte as its last
/// byte): the transcoders into every dialect, the stream validator; for
/// strict UTF-8 also ASCII and `from_utf8_lossy`; for WTF-8 the
/// conversions to UTF-16 and back.
fn dispatched_paths() {
    let mut fenced = Fenced::new(MAX_LEN + GAPS);
    let mut output = Fenced::new(3 * MAX_LEN + 64);
    let mut utf16 = [Fenced::new(2 * MAX_LEN), Fenced::new(3 * MAX_LEN + 64)];
    for &dialect in Dialect::ALL {
        let units = match dialect {
            Dialect::Utf8 => strict_units(),
            _ => dialect_units(dialect),
        };
        let longest = units.iter().map(Vec::len).max();
        let units: Vec<_> = units
            .into_iter()
            .filter(|u| Some(u.len()) == longest || (dialect == Dialect::Utf8 && u == b"a"))
            .collect();
        for len in 0..=MAX_LEN {
            for unit in &units {
                let whole = fill(unit, len, false);
                let mut truncated = whole.clone();
                if let Some(last) = truncated.last_mut() {
                    *last = 0xE4;
                }
                // The truncated text at the end only (the other place sees
                // the same start as the whole text's), and into strict and
                // modified UTF-8 only (the target changes only how the
                // text before it is written).
                let whole = (whole, places(false), Dialect::ALL);
                let cut = (
                    truncated,
                    vec![Place::End(0)],
                    &[Dialect::Utf8, Dialect::Mutf8][..],
                );
                for (input, places, targets) in [whole, cut] {
                    let expected = expected(dialect, &input);
                    let converted: Vec<Vec<u8>> = targets
                        .iter()
                        .map(|&to| utf8guard::transcode(dialect, to, &input, Policy::Replace))
                        .collect::<Result<_, _>>()
                        .expect("replacing, nothing stops the transcoder");
                    for place in places {
                        let bytes = fenced.place(&input, place);
                        let at = At { len, place, bytes };
                        if dialect == Dialect::Utf8 {
                            let lossy = utf8guard::from_utf8_lossy(bytes);
                            assert_eq!(lossy, String::from_utf8_lossy(&input), "lossy, {at}");
                        }
                        check_stream(dialect, bytes, expected, &at);
                        let transcoders = (dialect, targets);
                        check_transcoders(transcoders, bytes, &converted, &mut output, &at);
                        if dialect == Dialect::Wtf8 {
                            check_utf16(bytes, &input, &mut utf16, &at);
                        }
                    }
                }
            }
        }
    }
}

/// The dispatched paths with each vector kernel this CPU has, each in a
/// process of its own (the kernel is chosen once per process), all at
/// once. (The scalar kernel's would take the transcoders' paths that
/// SSE4.2's takes, and no vector kernel's.) A fault in one is reported as
/// its failure.
#[cfg(target_arch = "x86_64")]
#[test]
fn dispatched_paths_read_only_their_input() {
    use std::process::{Command, Stdio};
    let name = "dispatched_paths_with_the_kernel_forced";
    let exe = std::env::current_exe().expect("the test binary's path");
    let children: Vec<_> = Kernel::available()
        .filter(|&k| k != Kernel::Scalar)
        .map(|kernel| {
            let child = Command::new(&exe)
                .args(["--ignored", "--exact", name, "--test-threads=1"])
                .env(utf8guard::KERNEL_ENV, kernel.name())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("the test binary runs");
            (kernel, child)
        })
        .collect();
    for (kernel, child) in children {
        let output = child.wait_with_output().expect("the test binary ends");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{name} with {kernel} failed ({}):\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(stdout.contains("1 passed"), "{name} did not run:\n{stdout}");
    }
}

/// Run by the test above with `UTF8GUARD_KERNEL` set; on its own, with the
/// kernel detected. With the AVX-512 kernel, also `par`'s chunks and the
/// stream with the look-behind shifted in (`validate_far` and
/// `validate_shuffled`), as for an input from beyond the caches on a CPU
/// that takes no prefetch hints. (With the hints, `par` takes the kernels'
/// `validate_far_hinted`, which the strict test runs; with another kernel
/// active, `from_utf8`.)
#[cfg(target_arch = "x86_64")]
#[test]
#[ignore = "run by dispatched_paths_read_only_their_input, a process per kernel"]
fn dispatched_paths_with_the_kernel_forced() {
    // The kernel asked for, if this CPU has it (the test above asks only
    // for those).
    let asked = std::env::var(utf8guard::KERNEL_ENV).ok();
    if let Some(kernel) = asked.and_then(|name| Kernel::from_name(&name)) {
        if kernel.is_available() {
            assert_eq!(utf8guard::active_kernel(), kernel);
        }
    }
    dispatched_paths();
    if utf8guard::active_kernel() != Kernel::Avx512 {
        return;
    }
    let mut fenced = Fenced::new(MAX_LEN + GAPS);
    utf8guard::__bench::with_prefetch(Some(false), || {
        utf8guard::__bench::with_shuffles_from(Some(0), || {
            for len in 0..=MAX_LEN {
                for unit in [&b"a"[..], "aé€😀".as_bytes()] {
                    for (_, input) in inputs(unit, len) {
                        let expected = expected_strict(&input);
                        for place in places(false) {
                            let bytes = fenced.place(&input, place);
                            let at = At { len, place, bytes };
                            check_stream(Dialect::Utf8, bytes, expected, &at);
                            // In chunks of 256 bytes: the last one ends at
                            // the fence after, the first starts at the one
                            // before.
                            let got = outcome(utf8guard::par::check_split(bytes, 256));
                            assert_eq!(got, expected, "par, {at}");
                        }
                    }
                }
            }
        })
    });
}

/// Elsewhere the one vector kernel (NEON) is the dispatched one, and the
/// child processes would have to be started through the emulator.
#[cfg(not(target_arch = "x86_64"))]
#[test]
fn dispatched_paths_read_only_their_input() {
    dispatched_paths();
}

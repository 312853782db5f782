//! The code under test: every kernel, the dispatched API and the APIs
//! built on them, each wrapped as a [`Subject`] that answers for one input
//! in one dialect.
//!
//! Adding a subject is one entry in [`registry`].

use std::borrow::Cow;
use std::fmt;

use utf8guard::{Dialect, ErrorKind, Escaper, Kernel, Replacement, StreamValidator};
use utf8guard::{RepairReader, Repairer};

use crate::answer::{hex, Answer, Context, Found, Inspected};
use crate::ingest;
use crate::rng::Rng;

type Run = dyn Fn(&[u8], &mut Context) -> Answer + Send + Sync;

/// One thing under test: a name, the dialect it validates, and a function
/// from input to [`Answer`].
pub struct Subject {
    name: String,
    dialect: Dialect,
    run: Box<Run>,
}

impl fmt::Debug for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subject")
            .field("name", &self.name)
            .field("dialect", &self.dialect)
            .finish()
    }
}

impl Subject {
    /// A subject named `name` that answers with `run`.
    ///
    /// ```
    /// use utf8guard_difftest::{Answer, Subject};
    ///
    /// let subject = Subject::new("validate", |bytes, _| Answer::Verdict(utf8guard::validate(bytes)));
    /// assert_eq!(subject.name(), "validate");
    /// ```
    pub fn new(
        name: impl Into<String>,
        run: impl Fn(&[u8], &mut Context) -> Answer + Send + Sync + 'static,
    ) -> Subject {
        Subject {
            name: name.into(),
            dialect: Dialect::Utf8,
            run: Box::new(run),
        }
    }

    /// The same subject, validating `dialect` (checked against that
    /// dialect's oracle) instead of strict UTF-8.
    ///
    /// ```
    /// use utf8guard::Dialect;
    /// use utf8guard_difftest::{Answer, Subject};
    ///
    /// let subject = Subject::new("cesu", |b, _| Answer::Verdict(Dialect::Cesu8.validate(b)))
    ///     .in_dialect(Dialect::Cesu8);
    /// assert_eq!(subject.dialect(), Dialect::Cesu8);
    /// ```
    pub fn in_dialect(self, dialect: Dialect) -> Subject {
        Subject { dialect, ..self }
    }

    /// The subject's name, e.g. `avx2.from_utf8`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The dialect the subject validates.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The subject's answer for `input`.
    pub fn answer(&self, input: &[u8], cx: &mut Context) -> Answer {
        (self.run)(input, cx)
    }
}

/// Every subject this CPU can run, in every dialect: [`registry_in`] over
/// [`Dialect::ALL`].
pub fn registry(only: Option<Kernel>) -> Vec<Subject> {
    registry_in(only, Dialect::ALL)
}

/// Every subject this CPU can run in the given dialects; with `only`, the
/// kernel subjects are limited to that kernel (the dispatched API is always
/// included: it runs whichever kernel is active).
///
/// In strict UTF-8 ([`utf8_subjects`]):
/// - `<kernel>.validate` and `<kernel>.from_utf8` for each available kernel;
/// - `avx2-shuffled.validate`, the AVX2 kernel's alternative look-behind
///   strategy, where AVX2 is available;
/// - `avx512-without-vbmi.from_utf8`, the AVX-512 kernel's strict entry
///   point for CPUs without AVX-512VBMI (which `avx512` does not run on a
///   CPU that has it), where AVX-512 is available;
/// - `validate`, `from_utf8` and `from_utf8_mut`, the dispatched API;
/// - `StreamValidator`, fed the input in a random [`chunking`];
/// - `from_utf8_lossy`, whose output must equal `String::from_utf8_lossy`'s;
/// - `compat::from_utf8` (std's error type) and `string_from_utf8` (the
///   bytes given back in the error);
/// - `utf8_chunks`, put together with one U+FFFD per invalid sequence,
///   which must be `String::from_utf8_lossy`'s output;
/// - `validate_offsets` (with `i32`, `i64` or `usize` offsets) and
///   `validate_batch`, over the input cut into strings by
///   [`boundary_cuts`]; half the time `validate_offsets` sees the input
///   inside a larger buffer, with offsets that start past 0 (a sliced
///   Arrow array's) and bytes before and after that belong to no string;
/// - `par::validate` and `par::from_utf8`, the parallel API (sequential
///   below its 1 MiB threshold, so on most inputs here);
/// - `par::validate_split` and `par::check_split`, the parallel API's
///   split-and-combine path forced on every input, with a chunk length
///   from [`split_len`];
/// - `Utf8Reader::read`, a [`utf8guard::Utf8Reader`] over random short
///   reads read to its end with `Read::read` ([`ingest::utf8_reader_read`]);
/// - `Utf8Reader::fill_buf`, the same through `BufRead` over a
///   `BufReader` of a small random capacity
///   ([`ingest::utf8_reader_fill_buf`]);
/// - `io::validate_reader` over random short reads
///   ([`ingest::validate_reader`]);
/// - `Dialect::check(utf-8)`, `Dialect::validate(utf-8)` and
///   `Dialect::inspect(utf-8)` (which goes through the dialects' path of
///   the kernel, not `from_utf8`'s);
/// - `repair(<policy>)` for each repair policy and `escape`, each through
///   the whole input at once, a `Repairer` (or `Escaper`) given random
///   pieces, or (the policies) a `RepairReader` read with a random buffer
///   size, compared with [`crate::repair_reference`].
///
/// In each other dialect `d` ([`dialect_subjects`]):
/// - `<kernel>.check_dialect(d)` and `<kernel>.validate_dialect(d)` for
///   each available kernel;
/// - `Dialect::check(d)`, `Dialect::validate(d)` and `Dialect::inspect(d)`
///   (the magic number and first reserved run too), the dispatched API;
/// - `StreamValidator::with_dialect(d)`, fed the input in a random
///   [`chunking`], its inspection compared too.
///
/// [`split_len`]: ingest::split_len
pub fn registry_in(only: Option<Kernel>, dialects: &[Dialect]) -> Vec<Subject> {
    let mut subjects = Vec::new();
    for &dialect in Dialect::ALL {
        if !dialects.contains(&dialect) {
            continue;
        }
        if dialect == Dialect::Utf8 {
            subjects.extend(utf8_subjects(only));
        } else {
            subjects.extend(dialect_subjects(only, dialect));
        }
    }
    subjects
}

/// The subjects of strict UTF-8 (see [`registry_in`]).
pub fn utf8_subjects(only: Option<Kernel>) -> Vec<Subject> {
    let mut subjects = Vec::new();
    let wanted = |k: Kernel| only.is_none_or(|o| o == k);
    for kernel in Kernel::available().filter(|&k| wanted(k)) {
        subjects.push(Subject::new(format!("{kernel}.validate"), move |b, _| {
            Answer::Verdict(kernel.validate(b))
        }));
        subjects.push(Subject::new(format!("{kernel}.from_utf8"), move |b, _| {
            Answer::from_result(b, kernel.from_utf8(b))
        }));
    }
    #[cfg(target_arch = "x86_64")]
    if Kernel::Avx2.is_available() && wanted(Kernel::Avx2) {
        subjects.push(Subject::new("avx2-shuffled.validate", |b, _| {
            match utf8guard::__bench::avx2_shuffled(b) {
                Some(valid) => Answer::Verdict(valid),
                None => Answer::Broken("AVX2 disappeared".into()),
            }
        }));
    }
    #[cfg(target_arch = "x86_64")]
    if Kernel::Avx512.is_available() && wanted(Kernel::Avx512) {
        subjects.push(Subject::new("avx512-without-vbmi.from_utf8", |b, _| {
            match utf8guard::__bench::avx512_without_vbmi(b) {
                Some(result) => Answer::from_result(b, result),
                None => Answer::Broken("AVX-512 disappeared".into()),
            }
        }));
    }
    subjects.push(Subject::new("validate", |b, _| {
        Answer::Verdict(utf8guard::validate(b))
    }));
    subjects.push(Subject::new("from_utf8", |b, _| {
        Answer::from_result(b, utf8guard::from_utf8(b))
    }));
    subjects.push(Subject::new("from_utf8_mut", |b, cx| {
        cx.scratch.clear();
        cx.scratch.extend_from_slice(b);
        let copy = cx.scratch.as_mut_slice();
        match utf8guard::from_utf8_mut(copy) {
            Ok(s) if s.as_bytes() == b => Answer::Exact(Ok(())),
            Ok(_) => Answer::Broken("Ok with a string that is not the input".into()),
            Err(e) => Answer::Exact(Err(Found::from_error(&e))),
        }
    }));
    subjects.push(Subject::new("StreamValidator", |b, cx| {
        stream(StreamValidator::new(), b, cx)
    }));
    subjects.push(Subject::new(
        "from_utf8_lossy",
        |b, _| match utf8guard::from_utf8_lossy(b) {
            Cow::Borrowed(s) if s.as_ptr() != b.as_ptr() || s.len() != b.len() => {
                Answer::Broken("borrowed a string that is not the input".into())
            }
            // A broken conversion could hand back bytes that are not UTF-8
            // in a `str`; they must not reach code that assumes UTF-8.
            text if core::str::from_utf8(text.as_bytes()).is_err() => Answer::Broken(format!(
                "returned a str that is not UTF-8: {}",
                hex(text.as_bytes())
            )),
            text => Answer::Lossy(text.into_owned()),
        },
    ));
    subjects.push(Subject::new("compat::from_utf8", |b, _| {
        match utf8guard::compat::from_utf8(b) {
            Ok(s) if s.as_ptr() == b.as_ptr() && s.len() == b.len() => Answer::Exact(Ok(())),
            Ok(_) => Answer::Broken("Ok with a string that is not the input".into()),
            // std's own error type: the position only, no kind.
            Err(e) => Answer::Exact(Err(Found {
                valid_up_to: e.valid_up_to(),
                error_len: e.error_len(),
                kind: None,
            })),
        }
    }));
    subjects.push(Subject::new(
        "string_from_utf8",
        |b, _| match utf8guard::string_from_utf8(b.to_vec()) {
            Ok(s) if s.as_bytes() == b => Answer::Exact(Ok(())),
            Ok(_) => Answer::Broken("Ok with a string that is not the input".into()),
            Err(e) if e.as_bytes() != b => Answer::Broken("the error lost the bytes".into()),
            Err(e) => Answer::Exact(Err(Found::from_error(&e.utf8_error()))),
        },
    ));
    subjects.push(Subject::new("utf8_chunks", |b, _| {
        // The chunks put together with one U+FFFD per invalid sequence:
        // `from_utf8_lossy`'s output exactly when the chunks are std's.
        let mut text = String::new();
        let mut length = 0;
        for chunk in utf8guard::utf8_chunks(b) {
            length += chunk.valid().len() + chunk.invalid().len();
            text.push_str(chunk.valid());
            if !chunk.invalid().is_empty() {
                text.push('\u{FFFD}');
            }
        }
        if length != b.len() {
            return Answer::Broken(format!("chunks of {length} bytes in all"));
        }
        Answer::Lossy(text)
    }));
    subjects.push(Subject::new("validate_offsets", |b, cx| {
        let cuts = boundary_cuts(b, &mut cx.rng);
        // Half the time the strings sit inside a larger values buffer, as
        // those of a sliced Arrow array do: the offsets start past 0, and
        // the bytes around them (often not UTF-8) belong to no string.
        let mut values = std::mem::take(&mut cx.scratch);
        let before = surround(b, &mut values, cx);
        let offsets: Vec<usize> = cuts.iter().map(|&c| c + before).collect();
        let values_in = if values.is_empty() { b } else { &values[..] };
        let result = match cx.rng.below(3) {
            0 => offsets_as::<i32>(values_in, &offsets),
            1 => offsets_as::<i64>(values_in, &offsets),
            _ => offsets_as::<usize>(values_in, &offsets),
        };
        cx.scratch = values;
        batch_answer(b.len(), &cuts, result)
    }));
    subjects.push(Subject::new("validate_batch", |b, cx| {
        let cuts = boundary_cuts(b, &mut cx.rng);
        let strings: Vec<&[u8]> = cuts.windows(2).map(|w| &b[w[0]..w[1]]).collect();
        batch_answer(b.len(), &cuts, utf8guard::validate_batch(&strings))
    }));
    subjects.push(Subject::new("par::validate", |b, _| {
        Answer::Verdict(utf8guard::par::validate(b))
    }));
    subjects.push(Subject::new("par::from_utf8", |b, _| {
        Answer::from_result(b, utf8guard::par::from_utf8(b))
    }));
    subjects.push(Subject::new("par::validate_split", |b, cx| {
        let chunk_len = split_len_noted(b.len(), cx);
        Answer::Verdict(utf8guard::par::validate_split(b, chunk_len))
    }));
    subjects.push(Subject::new("par::check_split", |b, cx| {
        let chunk_len = split_len_noted(b.len(), cx);
        let result = utf8guard::par::check_split(b, chunk_len);
        Answer::Exact(result.map_err(|e| Found::from_error(&e)))
    }));
    subjects.push(Subject::new("Utf8Reader::read", ingest::utf8_reader_read));
    subjects.push(Subject::new(
        "Utf8Reader::fill_buf",
        ingest::utf8_reader_fill_buf,
    ));
    subjects.push(Subject::new("io::validate_reader", ingest::validate_reader));
    subjects.extend(dispatched_dialect_subjects(Dialect::Utf8));
    subjects.extend(repair_subjects());
    subjects
}

/// One subject per repair policy (in the order of `Replacement::ALL`) and
/// one for the escape, last, each answering through one of the library's
/// forms, chosen at random: the whole input at once (`repair`, `escape`),
/// a `Repairer` or `Escaper` given random pieces, or a `RepairReader` read
/// with random buffer sizes. Part of the registry; alone, the fuzz target
/// of one policy.
pub fn repair_subjects() -> Vec<Subject> {
    let mut subjects: Vec<Subject> = Replacement::ALL
        .into_iter()
        .map(|policy| {
            Subject::new(format!("repair({policy})"), move |b, cx| {
                let out = match cx.rng.below(3) {
                    0 => {
                        cx.note = "repair".into();
                        utf8guard::repair(b, policy).into_owned()
                    }
                    1 => {
                        let mut repairer = Repairer::new(policy);
                        let mut out = String::new();
                        for piece in random_pieces(b, cx) {
                            repairer.push(piece, &mut out);
                        }
                        repairer.finish(&mut out);
                        out
                    }
                    _ => {
                        let reader = RepairReader::new(b, policy);
                        // Short reads on short inputs; on long ones (the
                        // corpora, 1 MiB texts) reads of up to 64 KiB.
                        let most = if b.len() <= 4096 { 64 } else { 64 << 10 };
                        let step = cx.rng.range(1, most);
                        cx.note = format!("RepairReader, reads of {step} bytes");
                        let mut out = Vec::new();
                        let mut reader = reader;
                        let mut buf = vec![0; step];
                        loop {
                            match std::io::Read::read(&mut reader, &mut buf) {
                                Ok(0) => break,
                                Ok(n) => out.extend_from_slice(&buf[..n]),
                                Err(e) => return Answer::Broken(format!("read error: {e}")),
                            }
                        }
                        match String::from_utf8(out) {
                            Ok(text) => text,
                            Err(_) => {
                                return Answer::Broken("read bytes that are not UTF-8".into())
                            }
                        }
                    }
                };
                Answer::Repaired(Some(policy), out.into_bytes())
            })
        })
        .collect();
    subjects.push(Subject::new("escape", |b, cx| {
        let out = if cx.rng.one_in(2) {
            cx.note = "escape".into();
            utf8guard::escape(b).into_owned()
        } else {
            let mut escaper = Escaper::new();
            let mut out = Vec::new();
            for piece in random_pieces(b, cx) {
                escaper.push(piece, &mut out);
            }
            escaper.finish(&mut out);
            out
        };
        Answer::Repaired(None, out)
    }));
    subjects
}

/// `input` cut into pieces of random lengths (up to 9 bytes, or up to a
/// quarter of the input; on inputs over 4 KiB, up to 4 KiB or a quarter),
/// said in `cx.note`.
pub(crate) fn random_pieces<'a>(input: &'a [u8], cx: &mut Context) -> Vec<&'a [u8]> {
    let short = if input.len() <= 4096 { 9 } else { 4096 };
    let most = if cx.rng.one_in(2) {
        short
    } else {
        (input.len() / 4).max(1)
    };
    let mut pieces = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let n = cx.rng.range(0, most).min(rest.len());
        let (piece, after) = rest.split_at(n);
        pieces.push(piece);
        rest = after;
    }
    cx.note = if pieces.len() <= 64 {
        format!(
            "pieces of at most {most} bytes: {:?}",
            pieces.iter().map(|p| p.len()).collect::<Vec<_>>()
        )
    } else {
        format!("{} pieces of at most {most} bytes", pieces.len())
    };
    pieces
}

/// The subjects of `dialect`, one of the dialects other than strict UTF-8
/// (see [`registry_in`]).
pub fn dialect_subjects(only: Option<Kernel>, dialect: Dialect) -> Vec<Subject> {
    let mut subjects = Vec::new();
    for kernel in Kernel::available().filter(|&k| only.is_none_or(|o| o == k)) {
        subjects.push(
            Subject::new(format!("{kernel}.check_dialect({dialect})"), move |b, _| {
                Answer::Exact(
                    kernel
                        .check_dialect(dialect, b)
                        .map_err(|e| Found::from_error(&e)),
                )
            })
            .in_dialect(dialect),
        );
        subjects.push(
            Subject::new(
                format!("{kernel}.validate_dialect({dialect})"),
                move |b, _| Answer::Verdict(kernel.validate_dialect(dialect, b)),
            )
            .in_dialect(dialect),
        );
    }
    #[cfg(target_arch = "x86_64")]
    if Kernel::Avx512.is_available() && only.is_none_or(|o| o == Kernel::Avx512) {
        subjects.push(
            Subject::new(
                format!("avx512-without-vbmi.check_dialect({dialect})"),
                move |b, _| match utf8guard::__bench::avx512_dialect_without_vbmi(dialect, b) {
                    Some(result) => Answer::Exact(result.map_err(|e| Found::from_error(&e))),
                    None => Answer::Broken("AVX-512 disappeared".into()),
                },
            )
            .in_dialect(dialect),
        );
    }
    subjects.extend(dispatched_dialect_subjects(dialect));
    subjects.push(
        Subject::new(
            format!("StreamValidator::with_dialect({dialect})"),
            move |b, cx| stream(StreamValidator::with_dialect(dialect), b, cx),
        )
        .in_dialect(dialect),
    );
    subjects
}

/// `Dialect::check`, `Dialect::validate` and `Dialect::inspect` of
/// `dialect`.
fn dispatched_dialect_subjects(dialect: Dialect) -> [Subject; 3] {
    [
        Subject::new(format!("Dialect::check({dialect})"), move |b, _| {
            Answer::Exact(dialect.check(b).map_err(|e| Found::from_error(&e)))
        }),
        Subject::new(format!("Dialect::validate({dialect})"), move |b, _| {
            Answer::Verdict(dialect.validate(b))
        }),
        Subject::new(format!("Dialect::inspect({dialect})"), move |b, _| {
            Answer::Inspected(
                dialect
                    .inspect(b)
                    .map(Inspected::from)
                    .map_err(|e| Found::from_error(&e)),
            )
        }),
    ]
    .map(|s| s.in_dialect(dialect))
}

/// A chunk length from [`ingest::split_len`], written in the note.
fn split_len_noted(len: usize, cx: &mut Context) -> usize {
    let chunk_len = ingest::split_len(len, &mut cx.rng);
    let chunks = len.div_ceil(chunk_len).max(1);
    cx.note = format!("chunk_len {chunk_len} ({chunks} nominal chunks)");
    chunk_len
}

/// String boundaries for the batch subjects: `0`, the end, and random
/// positions of bytes that are not continuation bytes (`80..BF`), so that
/// in valid input every cut is a character boundary. Then the strings are
/// all valid exactly when the input is, and the first invalid string holds
/// the input's first error: string `i`'s error at `v` is the input's error
/// at `cuts[i] + v`.
pub fn boundary_cuts(input: &[u8], rng: &mut Rng) -> Vec<usize> {
    let len = input.len();
    let mut cuts = vec![0];
    let strings = match rng.below(3) {
        0 => 1,
        1 => rng.range(1, 8),
        _ => rng.range(1, len / 8 + 1),
    };
    for _ in 1..strings {
        let at = rng.below(len + 1);
        if at == len || !(0x80..0xC0).contains(&input[at]) {
            cuts.push(at);
        }
    }
    cuts.push(len);
    cuts.sort_unstable();
    cuts
}

/// Half the time, fills `values` with `input` between a few random bytes
/// (continuation bytes, `FF`, a cut-short lead byte, ASCII) and returns how
/// many come before it, with the choice in the note; otherwise leaves
/// `values` empty (the input is used as it is) and returns 0.
fn surround(input: &[u8], values: &mut Vec<u8>, cx: &mut Context) -> usize {
    values.clear();
    if cx.rng.one_in(2) {
        return 0;
    }
    const AROUND: [u8; 5] = [0x80, 0xBF, 0xFF, 0xE2, b'a'];
    let (before, after) = (cx.rng.below(8), cx.rng.below(4));
    for _ in 0..before {
        values.push(*cx.rng.pick(&AROUND));
    }
    values.extend_from_slice(input);
    for _ in 0..after {
        values.push(*cx.rng.pick(&AROUND));
    }
    cx.note = format!(
        "values: {} then the input then {}",
        hex(&values[..before]),
        hex(&values[before + input.len()..])
    );
    before
}

fn offsets_as<O: TryFrom<usize> + utf8guard::Offset>(
    values: &[u8],
    cuts: &[usize],
) -> Result<(), utf8guard::BatchError> {
    let offsets: Vec<O> = cuts.iter().filter_map(|&c| O::try_from(c).ok()).collect();
    if offsets.len() != cuts.len() {
        // Does not fit the offset type (over 2 GiB for i32): use usize.
        return offsets_as::<usize>(values, cuts);
    }
    utf8guard::validate_offsets(values, &offsets)
}

/// A batch result, with the strings cut at `cuts`, as the error of the whole
/// input: string `i`'s error at `v` is the input's error at `cuts[i] + v`.
/// A string that ends inside a character (`error_len` `None`) is followed
/// by a byte that cannot continue it (a cut is never before a continuation
/// byte), so in the whole input that is a sequence cut short of the same
/// length, unless it is the last string.
fn batch_answer(len: usize, cuts: &[usize], result: Result<(), utf8guard::BatchError>) -> Answer {
    let err = match result {
        Ok(()) => return Answer::Exact(Ok(())),
        Err(err) => err,
    };
    let (Some(error), Some(&start), Some(&end)) = (
        err.utf8_error(),
        cuts.get(err.index()),
        cuts.get(err.index() + 1),
    ) else {
        return Answer::Broken(format!("offsets rejected: {err:?}"));
    };
    let valid_up_to = start + error.valid_up_to();
    let found = match error.error_len() {
        None if end < len => Found {
            valid_up_to,
            error_len: Some(end - valid_up_to),
            kind: Some(ErrorKind::TooShort),
        },
        _ => Found {
            valid_up_to,
            ..Found::from_error(&error)
        },
    };
    Answer::Exact(Err(found))
}

/// Cut points for a chunked feed of `len` bytes, in one of four styles:
/// tiny chunks (1 to 7 bytes; for inputs up to 4 KiB), chunks of random
/// log-distributed sizes, cuts inside characters (at random positions, so
/// mostly inside multi-byte ones in non-ASCII text) with empty chunks
/// mixed in, or a single chunk.
pub fn chunking(len: usize, rng: &mut Rng) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut at = 0;
    match rng.below(4) {
        0 if len <= 4096 => {
            while at < len {
                at = (at + rng.range(1, 7)).min(len);
                cuts.push(at);
            }
        }
        0 | 1 => {
            while at < len {
                at = (at + rng.log_size(1, len)).min(len);
                cuts.push(at);
            }
        }
        2 => {
            let n = rng.range(1, 16);
            cuts.extend((0..n).map(|_| rng.below(len + 1)));
            cuts.push(len);
            cuts.sort_unstable();
        }
        _ => cuts.push(len),
    }
    cuts
}

/// The chunk ends of a chunking, in words for a note: the first few of
/// them and how many there are.
fn describe_cuts(cuts: &[usize]) -> String {
    const SHOWN: usize = 24;
    let shown: Vec<String> = cuts.iter().take(SHOWN).map(usize::to_string).collect();
    let more = if cuts.len() > SHOWN { ", ..." } else { "" };
    format!(
        "{} chunks, ending at {}{more}",
        cuts.len(),
        shown.join(", ")
    )
}

/// `v`, a [`StreamValidator`] at the start of a stream, fed `input` in a
/// random [`chunking`] (written in the note). After the first error every
/// later `update` and the `finish` must return that same error. In the
/// dialects other than strict UTF-8, what the stream learned on the way
/// ([`StreamValidator::inspection`]) is part of a well-formed answer.
fn stream(mut v: StreamValidator, input: &[u8], cx: &mut Context) -> Answer {
    let mut start = 0;
    let mut first_error = None;
    let cuts = chunking(input.len(), &mut cx.rng);
    cx.note = describe_cuts(&cuts);
    for end in cuts {
        let result = v.update(&input[start..end]);
        start = end;
        match (result, first_error) {
            (Err(e), None) => first_error = Some(e),
            (Err(e), Some(first)) if e != first => {
                return Answer::Broken(format!("update after an error: {e:?}, first {first:?}"))
            }
            (Ok(()), Some(first)) => {
                return Answer::Broken(format!("update Ok after the error {first:?}"))
            }
            _ => {}
        }
    }
    let dialect = v.dialect();
    let inspected = Inspected::from(v.inspection());
    match (v.finish(), first_error) {
        (Err(e), Some(first)) if e != first => {
            Answer::Broken(format!("finish: {e:?}, but update reported {first:?}"))
        }
        (Ok(()), Some(first)) => Answer::Broken(format!("finish Ok after the error {first:?}")),
        (result, _) if dialect == Dialect::Utf8 => {
            Answer::Exact(result.map_err(|e| Found::from_error(&e)))
        }
        (result, _) => Answer::Inspected(
            result
                .map(|()| inspected)
                .map_err(|e| Found::from_error(&e)),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Truth;

    #[test]
    fn chunkings_cover_the_input_in_order() {
        let mut rng = Rng::new(8);
        let mut styles = [0usize; 3];
        for len in (0..300).chain([4097, 100_000]) {
            let cuts = chunking(len, &mut rng);
            assert_eq!(cuts.last(), Some(&len));
            assert!(cuts.windows(2).all(|w| w[0] <= w[1]), "{cuts:?}");
            match cuts.len() {
                1 => styles[0] += 1,
                n if n > len / 8 => styles[1] += 1,
                _ => styles[2] += 1,
            }
        }
        assert!(styles.iter().all(|&n| n > 10), "{styles:?}");
    }

    fn context(seed: u64) -> Context {
        Context {
            rng: Rng::new(seed),
            scratch: Vec::new(),
            note: String::new(),
        }
    }

    #[test]
    fn the_stream_subject_reports_the_whole_stream_error() {
        let mut cx = context(1);
        let input = "aé€😀".repeat(40).into_bytes();
        for _ in 0..100 {
            let answer = stream(StreamValidator::new(), &input, &mut cx);
            assert_eq!(answer, Answer::Exact(Ok(())));
            assert!(cx.note.contains(" chunks, ending at "), "{}", cx.note);
            assert!(cx.note.ends_with(&input.len().to_string()) || cx.note.ends_with("..."));
        }
        let mut bad = input.clone();
        bad.extend_from_slice(b"\xF0\x9F");
        let want = Answer::Exact(Err(Found {
            valid_up_to: input.len(),
            error_len: None,
            kind: Some(ErrorKind::Incomplete),
        }));
        for _ in 0..100 {
            assert_eq!(stream(StreamValidator::new(), &bad, &mut cx), want);
        }
    }

    #[test]
    fn the_dialect_stream_subject_reports_what_it_learned() {
        let mut cx = context(2);
        let mut doc = crate::encode::CORRECTED_MAGIC.to_vec();
        doc.extend_from_slice(b"text \xFE\x80\x80 more");
        let want = Answer::Inspected(Ok(Inspected {
            magic_number: true,
            first_reserved_run: Some(13),
        }));
        for _ in 0..100 {
            let v = StreamValidator::with_dialect(Dialect::Corrected);
            assert_eq!(stream(v, &doc, &mut cx), want);
        }
        doc.push(0);
        let want = Answer::Inspected(Err(Found {
            valid_up_to: doc.len() - 1,
            error_len: Some(1),
            kind: Some(ErrorKind::Nul),
        }));
        let v = StreamValidator::with_dialect(Dialect::Corrected);
        assert_eq!(stream(v, &doc, &mut cx), want);
    }

    #[test]
    fn describing_cuts_keeps_the_note_short() {
        assert_eq!(describe_cuts(&[3, 5]), "2 chunks, ending at 3, 5");
        let many: Vec<usize> = (1..=100).collect();
        let note = describe_cuts(&many);
        assert!(note.starts_with("100 chunks, ending at 1, 2, 3,"), "{note}");
        assert!(note.ends_with("23, 24, ..."), "{note}");
    }

    #[test]
    fn answers_agree_with_the_truth_of_their_form() {
        let found = Found {
            valid_up_to: 2,
            error_len: Some(1),
            kind: Some(ErrorKind::Nul),
        };
        let doc = Truth {
            result: Ok(()),
            inspected: Inspected {
                magic_number: true,
                first_reserved_run: Some(9),
            },
        };
        let bad = Truth::plain(Err(found));
        let input = b"ab\x00";
        assert!(Answer::Inspected(Ok(doc.inspected)).agrees(input, &doc));
        assert!(!Answer::Inspected(Ok(Inspected::default())).agrees(input, &doc));
        assert!(Answer::Exact(Ok(())).agrees(input, &doc));
        assert!(Answer::Verdict(true).agrees(input, &doc));
        assert!(Answer::Inspected(Err(found)).agrees(input, &bad));
        assert!(!Answer::Inspected(Ok(Inspected::default())).agrees(input, &bad));
        assert_eq!(
            Answer::Inspected(Ok(Inspected::default())).expected(input, &doc),
            Answer::Inspected(Ok(doc.inspected))
        );
        assert_eq!(
            Answer::Inspected(Ok(doc.inspected)).to_string(),
            "valid, magic number, first reserved run at 9"
        );
        assert_eq!(
            doc.to_string(),
            "valid, magic number, first reserved run at 9"
        );
        assert_eq!(bad.to_string(), "valid_up_to 2, error_len Some(1), Nul");
    }
}

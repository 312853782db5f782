//! Shared pieces of the benchmarks: the implementations under test, the
//! inputs, and the criterion settings for the quick and full modes.
//!
//! Every implementation is a type implementing [`Validator`], and the
//! benchmarks are generic over it, so each is called exactly as a user would
//! call it, with inlining where the library allows it, rather than through a
//! function pointer that would add an indirect call to every tiny input.
//! [`for_each_validator`] visits the ones this CPU can run, in the order the
//! report lists them; every kernel of [`utf8guard::Kernel::available`] is
//! among them, forced, so a kernel added to the library is benchmarked
//! without a change here.
//!
//! ```
//! use utf8guard_bench::{for_each_validator, Validator, Verdict, Visit};
//!
//! struct Names(Vec<String>);
//! impl Visit for Names {
//!     fn visit<V: Validator + Copy + 'static>(&mut self, v: &V) {
//!         assert_eq!(v.check(b"ok"), Verdict::Valid);
//!         self.0.push(v.name());
//!     }
//! }
//! let mut names = Names(Vec::new());
//! for_each_validator(&mut names);
//! assert!(names.0.iter().any(|n| n == "std"));
//! assert!(names.0.iter().any(|n| n == "utf8guard scalar"));
//! ```

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Duration;

use criterion::Criterion;

pub mod inputs;
pub mod paired;
pub mod runner;
pub mod wikitext;

/// The environment variable that selects the mode: `quick` or `full`
/// (the default).
pub const MODE_ENV: &str = "UTF8GUARD_BENCH_MODE";

/// The environment variable naming a file the benchmarks append notes to
/// (`key: value` lines: the active kernel, skipped inputs, the mode), for
/// `scripts/bench-report`. Unset: notes go to stderr only.
pub const NOTES_ENV: &str = "UTF8GUARD_BENCH_NOTES";

/// How long and how widely to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Short warm-up and measurement, fewer sizes: the whole suite in a few
    /// minutes, for smoke tests and for a first look on a busy machine.
    Quick,
    /// Every size of the issue, with longer measurements.
    Full,
}

impl Mode {
    /// The mode `UTF8GUARD_BENCH_MODE` names; [`Mode::Full`] when unset.
    ///
    /// # Panics
    /// When the variable holds anything but `quick` or `full`.
    pub fn from_env() -> Mode {
        match std::env::var(MODE_ENV) {
            Err(std::env::VarError::NotPresent) => Mode::Full,
            Ok(v) if v == "full" => Mode::Full,
            Ok(v) if v == "quick" => Mode::Quick,
            Ok(v) => panic!("{MODE_ENV}={v:?}: expected `quick` or `full`"),
            Err(e) => panic!("{MODE_ENV}: {e}"),
        }
    }

    /// `"quick"` or `"full"`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Quick => "quick",
            Mode::Full => "full",
        }
    }

    /// The input sizes of the size sweeps, in bytes.
    pub fn sizes(self) -> &'static [usize] {
        const KIB: usize = 1024;
        const MIB: usize = 1024 * KIB;
        match self {
            Mode::Quick => &[1, 8, 32, 128, KIB, 64 * KIB, MIB],
            Mode::Full => &[
                1,
                2,
                4,
                8,
                16,
                32,
                64,
                128,
                256,
                KIB,
                4 * KIB,
                64 * KIB,
                MIB,
                64 * MIB,
            ],
        }
    }

    /// A criterion configured for this mode. Command-line options
    /// (`--warm-up-time`, `--measurement-time`, a filter, ...) still apply
    /// on top.
    pub fn criterion(self) -> Criterion {
        let c = Criterion::default().without_plots();
        let c = match self {
            Mode::Quick => c
                .warm_up_time(Duration::from_millis(50))
                .measurement_time(Duration::from_millis(200))
                .sample_size(10)
                .nresamples(5_000),
            Mode::Full => c
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(2))
                .sample_size(50)
                .nresamples(50_000),
        };
        c.configure_from_args()
    }
}

/// The strings of a batch one by one, each picked by an index the
/// compiler cannot see through (so that no call is hoisted out of the loop
/// or specialised for the batch), and handed over as the slice read from
/// the batch, in registers.
///
/// `black_box` on the slice itself made the compiler store it to the stack
/// and load its pointer and length back from there, at an offset within
/// the frame that changed from one benchmark's loop to another's; on AMD
/// EPYC (Zen 5) a 16-byte store at an offset of 8 and the two loads after
/// it made one loop 1.5 times slower than its neighbour on the same calls
/// (`utf8guard::validate` on 64-byte strings: 9.7 ns a string against 6.4
/// for `from_utf8`, whose slot was aligned; 6.4 and 5.5 ns with this).
pub fn one_by_one<'a>(strings: &'a [&'a [u8]]) -> impl Iterator<Item = &'a [u8]> + 'a {
    (0..strings.len()).map(move |i| strings[std::hint::black_box(i)])
}

/// Records a fact about the run for the report (and prints it to stderr):
/// appended as `key: value` to the file `UTF8GUARD_BENCH_NOTES` names.
pub fn note(key: &str, value: &str) {
    eprintln!("utf8guard-bench: {key}: {value}");
    let Some(path) = std::env::var_os(NOTES_ENV) else {
        return;
    };
    let line = format!("{key}: {}\n", value.replace('\n', " "));
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        eprintln!("utf8guard-bench: cannot write notes to {path:?}: {e}");
    }
}

/// Stops the benchmark when `UTF8GUARD_KERNEL` asked for a kernel the
/// library could not use: the library then runs the detected kernel, and
/// results timed with it must not be labelled with the one asked for.
///
/// # Panics
/// When the override was ignored, with the reason.
pub fn require_kernel_override() {
    if let Err(e) = utf8guard::kernel_override() {
        panic!("{e}: not timing another kernel under this name");
    }
}

/// Notes the kernels of this machine: the one utf8guard dispatches to and
/// all it could run. Refuses to go on when a forced kernel was not granted
/// ([`require_kernel_override`]).
pub fn note_kernels() {
    require_kernel_override();
    note("active_kernel", utf8guard::active_kernel().name());
    let mut available = String::new();
    for k in utf8guard::Kernel::available() {
        if !available.is_empty() {
            available.push_str(", ");
        }
        let _ = write!(available, "{k}");
    }
    note("available_kernels", &available);
}

/// What an implementation says about its input. Implementations that only
/// answer yes or no give [`Verdict::Invalid`]; those that locate the error
/// give what they found, so a benchmark cannot skip the locating work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Well-formed UTF-8.
    Valid,
    /// Not UTF-8; no position given.
    Invalid,
    /// Not UTF-8: the longest valid prefix and, when known, the length of
    /// the invalid sequence (`None`: the input ends inside a character).
    Error {
        /// Bytes before the first error.
        valid_up_to: usize,
        /// As `core::str::Utf8Error::error_len`.
        error_len: Option<usize>,
    },
    /// Not UTF-8, with the position of the error but not its length.
    ErrorAt {
        /// Bytes before the first error.
        valid_up_to: usize,
    },
}

impl Verdict {
    /// The verdict of `core::str::from_utf8`: the reference every other
    /// implementation is checked against before it is timed.
    pub fn of_std(bytes: &[u8]) -> Verdict {
        Std.check(bytes)
    }

    /// `true` when `self` says the same as the std verdict `reference`, as
    /// far as `self` goes (a yes/no answer only has to agree on validity).
    pub fn agrees_with(self, reference: Verdict) -> bool {
        match (self, reference) {
            (Verdict::Valid, r) => r == Verdict::Valid,
            (Verdict::Invalid, r) => r != Verdict::Valid,
            (e @ Verdict::Error { .. }, r) => e == r,
            (Verdict::ErrorAt { valid_up_to }, Verdict::Error { valid_up_to: v, .. }) => {
                valid_up_to == v
            }
            (Verdict::ErrorAt { .. }, _) => false,
        }
    }
}

/// One implementation under test.
pub trait Validator {
    /// The name benchmarks and the report use: `utf8guard...` for this
    /// project's entry points, anything else for a peer.
    fn name(&self) -> String;

    /// Validates `bytes`.
    fn check(&self, bytes: &[u8]) -> Verdict;
}

/// Something to do with each implementation; see [`for_each_validator`].
pub trait Visit {
    /// Called once per available implementation.
    fn visit<V: Validator + Copy + 'static>(&mut self, validator: &V);
}

/// Calls `visitor` with every implementation this CPU can run: utf8guard's
/// entry points first, then each of its kernels forced (slowest first) and
/// the kernel variants, then the peers.
pub fn for_each_validator<T: Visit>(visitor: &mut T) {
    visitor.visit(&Utf8guard);
    visitor.visit(&Utf8guardFromUtf8);
    for kernel in utf8guard::Kernel::available() {
        visitor.visit(&ForcedKernel(kernel));
    }
    #[cfg(target_arch = "x86_64")]
    if utf8guard::Kernel::Avx2.is_available() {
        visitor.visit(&Avx2Shuffled);
    }
    visitor.visit(&Std);
    visitor.visit(&Simdutf8Basic);
    visitor.visit(&Simdutf8Compat);
    #[cfg(target_arch = "x86_64")]
    if Simdutf8Sse42::wanted() {
        visitor.visit(&Simdutf8Sse42);
    }
    visitor.visit(&PsSimdutf8Basic);
    visitor.visit(&PsSimdutf8Compat);
    visitor.visit(&Simdutf);
    visitor.visit(&SimdutfWithErrors);
}

fn positional(result: Result<&str, impl PositionalError>) -> Verdict {
    match result {
        Ok(_) => Verdict::Valid,
        Err(e) => Verdict::Error {
            valid_up_to: e.valid_up_to(),
            error_len: e.error_len(),
        },
    }
}

trait PositionalError {
    fn valid_up_to(&self) -> usize;
    fn error_len(&self) -> Option<usize>;
}

macro_rules! positional_error {
    ($($t:ty),*) => {$(
        impl PositionalError for $t {
            #[inline(always)]
            fn valid_up_to(&self) -> usize {
                <$t>::valid_up_to(self)
            }
            #[inline(always)]
            fn error_len(&self) -> Option<usize> {
                <$t>::error_len(self)
            }
        }
    )*};
}
positional_error!(
    core::str::Utf8Error,
    utf8guard::Utf8Error,
    simdutf8::compat::Utf8Error,
    ps_simdutf8::compat::Utf8Error
);

/// `utf8guard::validate`: the dispatched kernel, yes or no.
#[derive(Clone, Copy, Debug)]
pub struct Utf8guard;
impl Validator for Utf8guard {
    fn name(&self) -> String {
        "utf8guard".to_string()
    }
    #[inline(always)]
    fn check(&self, bytes: &[u8]) -> Verdict {
        if utf8guard::validate(bytes) {
            Verdict::Valid
        } else {
            Verdict::Invalid
        }
    }
}

/// `utf8guard::from_utf8`: the dispatched kernel, with the error located as
/// std does.
#[derive(Clone, Copy, Debug)]
pub struct Utf8guardFromUtf8;
impl Validator for Utf8guardFromUtf8 {
    fn name(&self) -> String {
        "utf8guard from_utf8".to_string()
    }
    #[inline(always)]
    fn check(&self, bytes: &[u8]) -> Verdict {
        positional(utf8guard::from_utf8(bytes))
    }
}

/// `Kernel::validate`: one kernel forced, whatever the dispatcher would
/// choose.
#[derive(Clone, Copy, Debug)]
pub struct ForcedKernel(pub utf8guard::Kernel);
impl Validator for ForcedKernel {
    fn name(&self) -> String {
        format!("utf8guard {}", self.0.name())
    }
    #[inline(always)]
    fn check(&self, bytes: &[u8]) -> Verdict {
        if self.0.validate(bytes) {
            Verdict::Valid
        } else {
            Verdict::Invalid
        }
    }
}

/// The AVX2 kernel with the look-behind bytes made by shuffles instead of
/// overlapping loads (`utf8guard::__bench::avx2_shuffled`). Visited only
/// where AVX2 is available.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx2Shuffled;
#[cfg(target_arch = "x86_64")]
impl Validator for Avx2Shuffled {
    fn name(&self) -> String {
        "utf8guard avx2-shuffled".to_string()
    }
    #[inline(always)]
    fn check(&self, bytes: &[u8]) -> Verdict {
        match utf8guard::__bench::avx2_shuffled(bytes) {
            Some(true) => Verdict::Valid,
            Some(false) => Verdict::Invalid,
            None => panic!("avx2-shuffled needs AVX2"),
        }
    }
}

/// `core::str::from_utf8`.
#[derive(Clone, Copy, Debug)]
pub struct Std;
impl Validator for Std {
    fn name(&self) -> String {
        "std".to_string()
    }
    #[inline(always)]
    fn check(&self, bytes: &[u8]) -> Verdict {
        positional(core::str::from_utf8(bytes))
    }
}

/// `simdutf8::basic::from_utf8`: yes or no.
#[derive(Clone, Copy, Debug)]
pub struct Simdutf8Basic;
impl Validator for Simdutf8Basic {
    fn name(&self) -> String {
        "simdutf8 basic".to_string()
    }
    #[inline(always)]
    fn check(&self, bytes: &[u8]) -> Verdict {
        match simdutf8::basic::from_utf8(bytes) {
            Ok(_) => Verdict::Valid,
            Err(_) => Verdict::Invalid,
        }
    }
}

/// simdutf8's SSE4.2 kernel called directly
/// (`simdutf8::basic::imp::x86::sse42`): its dispatcher, unlike simdutf's
/// (`SIMDUTF_FORCE_IMPLEMENTATION=westmere`), cannot be told to pick it.
/// Visited at the SSE4.2 level only, that is with `UTF8GUARD_KERNEL=sse42`
/// set, on a CPU with SSE4.2.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Simdutf8Sse42;
#[cfg(target_arch = "x86_64")]
impl Simdutf8Sse42 {
    fn wanted() -> bool {
        std::env::var("UTF8GUARD_KERNEL").as_deref() == Ok("sse42")
            && std::arch::is_x86_feature_detected!("sse4.2")
    }
}
#[cfg(target_arch = "x86_64")]
impl Validator for Simdutf8Sse42 {
    fn name(&self) -> String {
        "simdutf8 basic sse42".to_string()
    }
    #[inline(always)]
    fn check(&self, bytes: &[u8]) -> Verdict {
        // SAFETY: visited only where the CPU has SSE4.2 (`wanted`).
        match unsafe { simdutf8::basic::imp::x86::sse42::validate_utf8(bytes) } {
            Ok(()) => Verdict::Valid,
            Err(_) => Verdict::Invalid,
        }
    }
}

/// `simdutf8::compat::from_utf8`: errors located as std does.
#[derive(Clone, Copy, Debug)]
pub struct Simdutf8Compat;
impl Validator for Simdutf8Compat {
    fn name(&self) -> String {
        "simdutf8 compat".to_string()
    }
    #[inline(always)]
    fn check(&self, bytes: &[u8]) -> Verdict {
        positional(simdutf8::compat::from_utf8(bytes))
    }
}

/// `ps_simdutf8::basic::from_utf8`: simdutf8 with its AVX-512 kernel (the
/// `ps-simdutf8` crate), yes or no.
#[derive(Clone, Copy, Debug)]
pub struct PsSimdutf8Basic;
impl Validator for PsSimdutf8Basic {
    fn name(&self) -> String {
        "ps-simdutf8 basic".to_string()
    }
    #[inline(always)]
    fn check(&self, bytes: &[u8]) -> Verdict {
        match ps_simdutf8::basic::from_utf8(bytes) {
            Ok(_) => Verdict::Valid,
            Err(_) => Verdict::Invalid,
        }
    }
}

/// `ps_simdutf8::compat::from_utf8`: the same, errors located as std does.
#[derive(Clone, Copy, Debug)]
pub struct PsSimdutf8Compat;
impl Validator for PsSimdutf8Compat {
    fn name(&self) -> String {
        "ps-simdutf8 compat".to_string()
    }
    #[inline(always)]
    fn check(&self, bytes: &[u8]) -> Verdict {
        positional(ps_simdutf8::compat::from_utf8(bytes))
    }
}

/// `simdutf::validate_utf8`: the C++ library, yes or no.
#[derive(Clone, Copy, Debug)]
pub struct Simdutf;
impl Validator for Simdutf {
    fn name(&self) -> String {
        "simdutf".to_string()
    }
    #[inline(always)]
    fn check(&self, bytes: &[u8]) -> Verdict {
        if simdutf::validate_utf8(bytes) {
            Verdict::Valid
        } else {
            Verdict::Invalid
        }
    }
}

/// `simdutf::validate_utf8_with_errors`: the C++ library, with the position
/// of the error.
#[derive(Clone, Copy, Debug)]
pub struct SimdutfWithErrors;
impl Validator for SimdutfWithErrors {
    fn name(&self) -> String {
        "simdutf with_errors".to_string()
    }
    #[inline(always)]
    fn check(&self, bytes: &[u8]) -> Verdict {
        let result = simdutf::validate_utf8_with_errors(bytes);
        match result.error {
            simdutf::ErrorCode::Success => Verdict::Valid,
            _ => Verdict::ErrorAt {
                valid_up_to: result.count,
            },
        }
    }
}

/// Checks that `V` gives the answer std gives on `bytes`, so that nothing
/// broken is ever timed.
///
/// # Panics
/// When they disagree.
pub fn assert_agrees<V: Validator>(validator: &V, bytes: &[u8], what: &str) {
    let expected = Verdict::of_std(bytes);
    let got = validator.check(bytes);
    assert!(
        got.agrees_with(expected),
        "{} on {what} ({} bytes): {got:?}, std says {expected:?}",
        validator.name(),
        bytes.len()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs every implementation on one input and collects the verdicts.
    struct Collect<'a> {
        input: &'a [u8],
        verdicts: Vec<(String, Verdict)>,
    }
    impl Visit for Collect<'_> {
        fn visit<V: Validator + Copy + 'static>(&mut self, v: &V) {
            self.verdicts.push((v.name(), v.check(self.input)));
        }
    }

    fn verdicts(input: &[u8]) -> Vec<(String, Verdict)> {
        let mut c = Collect {
            input,
            verdicts: Vec::new(),
        };
        for_each_validator(&mut c);
        c.verdicts
    }

    #[test]
    fn every_implementation_is_visited_once() {
        let names: Vec<_> = verdicts(b"").into_iter().map(|(n, _)| n).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for peer in [
            "std",
            "simdutf8 basic",
            "simdutf8 compat",
            "ps-simdutf8 basic",
            "ps-simdutf8 compat",
            "simdutf",
            "simdutf with_errors",
        ] {
            assert!(names.contains(&peer), "{peer} missing from {names:?}");
        }
        assert!(names.contains(&"utf8guard"));
        assert!(names.contains(&"utf8guard from_utf8"));
        assert!(names.contains(&"utf8guard scalar"));
        for k in utf8guard::Kernel::available() {
            let name = format!("utf8guard {}", k.name());
            assert!(names.contains(&name.as_str()), "{name} missing");
        }
    }

    #[test]
    fn verdicts_on_a_valid_input() {
        for (name, v) in verdicts("Grüße ❤ 🌍".as_bytes()) {
            assert_eq!(v, Verdict::Valid, "{name}");
        }
    }

    #[test]
    fn verdicts_on_an_invalid_byte() {
        // 'a' 'b' 'c' then a lone continuation byte, then more text.
        let input = b"abc\x80def";
        for (name, v) in verdicts(input) {
            let expected = match name.as_str() {
                "utf8guard from_utf8" | "std" | "simdutf8 compat" | "ps-simdutf8 compat" => {
                    Verdict::Error {
                        valid_up_to: 3,
                        error_len: Some(1),
                    }
                }
                "simdutf with_errors" => Verdict::ErrorAt { valid_up_to: 3 },
                _ => Verdict::Invalid,
            };
            assert_eq!(v, expected, "{name}");
        }
    }

    #[test]
    fn verdicts_on_a_truncated_end() {
        // 100 ASCII bytes, then the first two bytes of a four-byte character.
        let mut input = vec![b'x'; 100];
        input.extend_from_slice(&[0xF0, 0x9F]);
        for (name, v) in verdicts(&input) {
            let expected = match name.as_str() {
                "utf8guard from_utf8" | "std" | "simdutf8 compat" | "ps-simdutf8 compat" => {
                    Verdict::Error {
                        valid_up_to: 100,
                        error_len: None,
                    }
                }
                "simdutf with_errors" => Verdict::ErrorAt { valid_up_to: 100 },
                _ => Verdict::Invalid,
            };
            assert_eq!(v, expected, "{name}");
        }
    }

    #[test]
    fn agreement_rules() {
        let err = Verdict::Error {
            valid_up_to: 5,
            error_len: Some(2),
        };
        assert!(Verdict::Valid.agrees_with(Verdict::Valid));
        assert!(!Verdict::Valid.agrees_with(err));
        assert!(Verdict::Invalid.agrees_with(err));
        assert!(!Verdict::Invalid.agrees_with(Verdict::Valid));
        assert!(err.agrees_with(err));
        assert!(!Verdict::Error {
            valid_up_to: 5,
            error_len: None
        }
        .agrees_with(err));
        assert!(Verdict::ErrorAt { valid_up_to: 5 }.agrees_with(err));
        assert!(!Verdict::ErrorAt { valid_up_to: 4 }.agrees_with(err));
        assert!(!Verdict::ErrorAt { valid_up_to: 0 }.agrees_with(Verdict::Valid));
    }

    #[test]
    fn quick_mode_has_fewer_sizes_within_the_full_set() {
        let full = Mode::Full.sizes();
        assert_eq!(full.len(), 14);
        assert_eq!(full.first(), Some(&1));
        assert_eq!(full.last(), Some(&(64 << 20)));
        let quick = Mode::Quick.sizes();
        assert!(quick.len() < full.len());
        assert!(quick.iter().all(|s| full.contains(s)));
    }
}

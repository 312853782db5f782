#![doc = include_str!("../README.md")]
// The guides' examples (docs/), compiled and run as doctests so that they
// stay true; they are not part of the crate documentation.
#![cfg_attr(doctest, doc = include_str!("../../../docs/LIBRARY.md"))]
#![cfg_attr(doctest, doc = include_str!("../../../docs/DIALECTS.md"))]
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

/// Entry points for the benchmarks that compare internal variants. Not part
/// of the API: no stability promise.
#[doc(hidden)]
#[path = "bench_hooks.rs"]
pub mod __bench;
mod batch;
mod chunks;
pub mod compat;
pub mod corrected;
mod cpu;
mod decode;
mod dialect;
mod dispatch;
mod encode;
mod env_override;
mod error;
#[cfg(feature = "std")]
pub mod io;
mod kernel;
#[cfg(feature = "alloc")]
mod lossy;
#[cfg(feature = "alloc")]
mod owned;
#[cfg(feature = "rayon")]
pub mod par;
#[cfg(feature = "alloc")]
mod repair;
mod small;
mod stream;
mod transcode;

pub use batch::{
    invalid_strings, validate_batch, validate_offsets, BatchError, InvalidStrings, Offset,
};
pub use chunks::{utf8_chunks, Utf8Chunk, Utf8Chunks};
pub use decode::{Decode, Decoded};
pub use dialect::{Dialect, Inspection, UnknownDialect};
pub use encode::{EncodeError, Encoded};
pub use env_override::KERNEL_ENV;
#[cfg(feature = "std")]
pub use env_override::{kernel_override, KernelOverrideError};
pub use error::{ErrorKind, Utf8Error};
#[cfg(feature = "std")]
pub use io::Utf8Reader;
pub use kernel::{Kernel, KernelNameError};
#[cfg(feature = "alloc")]
pub use lossy::from_utf8_lossy;
#[cfg(feature = "alloc")]
pub use owned::{string_from_utf8, string_from_utf8_lossy, FromUtf8Error};
#[cfg(feature = "std")]
pub use repair::RepairReader;
#[cfg(feature = "alloc")]
pub use repair::{
    escape, repair, unescape, Repairer, Replacement, UnescapeError, UnknownReplacement,
};
pub use stream::StreamValidator;
#[cfg(feature = "alloc")]
pub use transcode::{transcode, transcode_to_string, utf16_to_wtf8, wtf8_to_utf16};
pub use transcode::{utf16_to_wtf8_into, wtf8_to_utf16_into};
pub use transcode::{Cause, Policy, Progress, Status, TranscodeError, Transcoder};

/// `true` when `bytes` is well-formed UTF-8. The fastest check: use it when
/// the position of an error does not matter.
///
/// ```
/// assert!(utf8guard::validate(b"plain ASCII"));
/// assert!(utf8guard::validate("ελληνικά".as_bytes()));
/// assert!(!utf8guard::validate(b"\xED\xA0\x80")); // a surrogate
/// ```
#[inline(always)]
pub fn validate(bytes: &[u8]) -> bool {
    // Inlined into every caller: the tests of a short ASCII input and of one
    // 2-byte character, and one call (see `small`).
    if small::is_short_ascii(bytes) {
        return true;
    }
    if bytes.len() <= 2 {
        return small::non_ascii_pair_is_valid(bytes);
    }
    if bytes.len() < small::SHORT_DFA {
        return small::short_is_valid_out_of_line(bytes);
    }
    dispatch::run(bytes).is_ok()
}

/// Converts bytes to a string slice if they are well-formed UTF-8: the same
/// result as [`core::str::from_utf8`], error positions included.
///
/// ```
/// assert_eq!(utf8guard::from_utf8(b"caf\xC3\xA9"), Ok("café"));
///
/// let err = utf8guard::from_utf8(b"caf\xC3").unwrap_err();
/// assert_eq!(err.valid_up_to(), 3);
/// assert_eq!(err.error_len(), None); // ends inside a character
/// ```
#[inline(always)]
pub fn from_utf8(bytes: &[u8]) -> Result<&str, Utf8Error> {
    // The same shape as `validate`: inlined tests and one call.
    let offset = if small::is_short_ascii(bytes) {
        None
    } else if bytes.len() <= 2 {
        (!small::non_ascii_pair_is_valid(bytes)).then_some(0)
    } else if bytes.len() < small::SHORT_DFA {
        (!small::short_is_valid_out_of_line(bytes)).then_some(0)
    } else {
        dispatch::run(bytes).err()
    };
    if let Some(offset) = offset {
        kernel::locate(bytes, offset)?;
    }
    // SAFETY: `bytes` is valid UTF-8: the short paths or the active kernel
    // accepted all of it, or the kernel returned an offset and `locate`
    // returned `Ok`, which it does only when the kernels' contract (see
    // `kernel::locate`) covers the bytes before the offset's character and
    // `check_character` decoded the rest to its end.
    Ok(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// Converts a mutable byte slice to a mutable string slice if it is
/// well-formed UTF-8, like [`core::str::from_utf8_mut`].
///
/// ```
/// let mut bytes = *b"hello";
/// let s = utf8guard::from_utf8_mut(&mut bytes).unwrap();
/// s.make_ascii_uppercase();
/// assert_eq!(s, "HELLO");
/// ```
#[inline]
pub fn from_utf8_mut(bytes: &mut [u8]) -> Result<&mut str, Utf8Error> {
    from_utf8(bytes)?;
    // SAFETY: `from_utf8` just validated these bytes.
    Ok(unsafe { core::str::from_utf8_unchecked_mut(bytes) })
}

/// The kernel [`validate`] and [`from_utf8`] use on this machine: the
/// fastest available, or the one `UTF8GUARD_KERNEL` names if this CPU can
/// run it (see [`kernel_override`]).
///
/// ```
/// let kernel = utf8guard::active_kernel();
/// assert!(kernel.is_available());
/// println!("validating with {kernel}");
/// ```
pub fn active_kernel() -> Kernel {
    dispatch::active()
}

/// Makes `kernel` the one [`validate`], [`from_utf8`] and everything built
/// on them use from now on, in every thread, in place of the detected one
/// and of `UTF8GUARD_KERNEL`: for a program's own choice of kernel (a
/// `--kernel` option, a benchmark), with no environment variable to set
/// (which is `unsafe` once threads exist, and is read only once). It takes
/// effect at once, whatever ran before. Fails, changing nothing, when this
/// CPU cannot run `kernel`.
///
/// ```
/// use utf8guard::Kernel;
///
/// utf8guard::set_kernel(Kernel::Scalar).unwrap();
/// assert_eq!(utf8guard::active_kernel(), Kernel::Scalar);
/// assert!(utf8guard::validate("ok ✓".as_bytes()));
/// ```
pub fn set_kernel(kernel: Kernel) -> Result<(), KernelNameError> {
    dispatch::set(kernel)
}

/// The README's examples, compiled and run as doctests so that they stay
/// true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// The reference DFA's types stay out of the API: no conversion from its
/// `Fault` to [`ErrorKind`] is public.
///
/// ```compile_fail
/// let kind: utf8guard::ErrorKind = utf8guard_dfa::Fault::Overlong.into();
/// ```
#[cfg(doctest)]
pub struct NoFaultConversion;

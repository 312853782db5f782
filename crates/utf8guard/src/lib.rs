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
mod ascii;
mod batch;
mod bytes;
mod chunks;
pub mod compat;
#[cfg(feature = "alloc")]
mod convert;
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
mod legacy;
mod lengths;
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
mod utf32;
#[cfg(target_arch = "x86_64")]
mod utf32_simd;
mod utf8_input;
mod validate;

pub use batch::{
    invalid_strings, validate_batch, validate_offsets, BatchError, InvalidStrings, Offset,
};
pub use chunks::{utf8_chunks, Utf8Chunk, Utf8Chunks};
#[cfg(feature = "alloc")]
pub use convert::{ByteOrder, ConvertError, ConvertErrorKind, Converter, Encoding, OptionError};
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
pub use legacy::{single_byte_to_utf8, utf8_to_single_byte};
pub use legacy::{
    single_byte_to_utf8_into, utf8_len_from_single_byte, utf8_to_single_byte_into, SingleByte,
};
pub use lengths::{utf16_len_from_utf8, utf32_len_from_utf8, utf8_len_from_utf16};
#[cfg(feature = "alloc")]
pub use lossy::from_utf8_lossy;
#[cfg(feature = "alloc")]
pub use owned::{string_from_utf8, string_from_utf8_lossy, FromUtf8Error};
#[cfg(feature = "std")]
pub use repair::RepairReader;
#[cfg(feature = "alloc")]
pub use repair::{
    escape, repair, unescape, Escaper, Repairer, Replacement, UnescapeError, UnknownReplacement,
};
pub use stream::{trim_partial_utf8, StreamValidator};
#[cfg(feature = "alloc")]
pub use transcode::{transcode, transcode_to_string, utf16_to_wtf8, wtf8_to_utf16};
#[cfg(feature = "alloc")]
pub use transcode::{utf16_to_utf8, utf8_to_utf16};
pub use transcode::{utf16_to_utf8_into, utf8_to_utf16_into};
pub use transcode::{utf16_to_wtf8_into, wtf8_to_utf16_into};
pub use transcode::{Cause, Policy, Progress, Status, TranscodeError, Transcoder};
#[cfg(feature = "alloc")]
pub use utf32::{utf32_to_utf8, utf8_to_utf32};
pub use utf32::{utf32_to_utf8_into, utf8_to_utf32_into};
pub use validate::{active_kernel, from_utf8, from_utf8_mut, set_kernel, validate};

/// The README's examples, compiled and run as doctests so that they stay
/// true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

//! Encoding code points in a dialect: the other half of [`Dialect::decode`].

use core::fmt;
use core::ops::Deref;

use crate::dialect::Dialect;

/// Why a code point has no encoding in a dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EncodeError {
    /// A surrogate, U+D800..U+DFFF, in a dialect that has no lone
    /// surrogates (strict UTF-8, CESU-8, Corrected UTF-8).
    Surrogate,
    /// Above the dialect's highest code point
    /// ([`Dialect::max_code_point`]).
    TooLarge,
    /// A C1 control, U+0080..U+009F, which Corrected UTF-8 does not encode.
    C1Control,
    /// U+0000 in Corrected UTF-8, where a `00` byte is only part of the
    /// magic number.
    Nul,
    /// A character that a single-byte encoding ([`SingleByte`]) has no
    /// byte for.
    ///
    /// [`SingleByte`]: crate::SingleByte
    NotInCharset,
}

impl EncodeError {
    /// A short description in words.
    pub const fn description(self) -> &'static str {
        match self {
            EncodeError::Surrogate => "surrogate code point, which this encoding cannot hold",
            EncodeError::TooLarge => "code point above this encoding's highest",
            EncodeError::C1Control => "C1 control (U+0080..U+009F), which Corrected UTF-8 skips",
            EncodeError::Nul => "U+0000, which Corrected UTF-8 holds only in its magic number",
            EncodeError::NotInCharset => "character this encoding cannot hold",
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for EncodeError {}

/// The bytes of one code point in a dialect (1 to 6), as
/// [`Dialect::encode`] returns them; derefs to `[u8]`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Encoded {
    bytes: [u8; 6],
    len: u8,
}

impl Encoded {
    /// The encoded bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    fn one(b: u8) -> Encoded {
        Encoded {
            bytes: [b, 0, 0, 0, 0, 0],
            len: 1,
        }
    }

    /// `value` in `len` (2 to 6) bytes of RFC 2279's layout: a lead byte
    /// with `len` high bits set, then 6 bits per continuation byte.
    fn layout(value: u32, len: usize) -> Encoded {
        let mut bytes = [0u8; 6];
        bytes[0] = (0xFF00u32 >> len) as u8 | (value >> (6 * (len - 1))) as u8;
        for (k, slot) in bytes[1..len].iter_mut().enumerate() {
            *slot = 0x80 | ((value >> (6 * (len - 2 - k))) & 0x3F) as u8;
        }
        Encoded {
            bytes,
            len: len as u8,
        }
    }

    /// The shortest RFC 2279 form of `cp` (up to U+7FFFFFFF).
    fn shortest(cp: u32) -> Encoded {
        let len = match cp {
            0..=0x7F => return Encoded::one(cp as u8),
            0x80..=0x7FF => 2,
            0x800..=0xFFFF => 3,
            0x1_0000..=0x1F_FFFF => 4,
            0x20_0000..=0x3FF_FFFF => 5,
            _ => 6,
        };
        Encoded::layout(cp, len)
    }

    /// The supplementary code point `cp` as a surrogate pair of two 3-byte
    /// forms (CESU-8, modified UTF-8).
    fn pair(cp: u32) -> Encoded {
        let offset = cp - 0x1_0000;
        let lead = Encoded::shortest(0xD800 + (offset >> 10));
        let trail = Encoded::shortest(0xDC00 + (offset & 0x3FF));
        let mut bytes = [0u8; 6];
        bytes[..3].copy_from_slice(lead.as_bytes());
        bytes[3..].copy_from_slice(trail.as_bytes());
        Encoded { bytes, len: 6 }
    }
}

impl Deref for Encoded {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl AsRef<[u8]> for Encoded {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::Debug for Encoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Encoded({:02X?})", self.as_bytes())
    }
}

impl Dialect {
    /// The highest code point the dialect encodes: U+10FFFF, but
    /// U+7FFFFFFF for RFC 2279 and U+8421109F for Corrected UTF-8.
    pub const fn max_code_point(self) -> u32 {
        match self {
            Dialect::Rfc2279 => 0x7FFF_FFFF,
            Dialect::Corrected => 0x8421_109F,
            _ => 0x10_FFFF,
        }
    }

    /// The dialect's bytes for `code_point`: RFC 2279's layout in shortest
    /// form (strict UTF-8's, for every code point up to U+10FFFF), except
    /// that CESU-8 and modified UTF-8 write a supplementary code point as a
    /// surrogate pair (6 bytes), modified UTF-8 writes U+0000 as `C0 80`,
    /// and Corrected UTF-8 takes its offsets off first.
    ///
    /// Surrogates encode as their 3-byte forms where the dialect has them
    /// (Unicode 3.1, WTF-8, modified UTF-8, RFC 2279). One code point at a
    /// time knows nothing of its neighbours: a lead surrogate encoded right
    /// before a trail makes a 6-byte pair, which Unicode 3.1 and modified
    /// UTF-8 read back as one supplementary code point and WTF-8 rejects
    /// (the transcoders join such pairs first).
    ///
    /// ```
    /// use utf8guard::{Dialect, EncodeError};
    ///
    /// assert_eq!(&*Dialect::Cesu8.encode(0x1F600).unwrap(), b"\xED\xA0\xBD\xED\xB8\x80");
    /// assert_eq!(&*Dialect::Mutf8.encode(0).unwrap(), b"\xC0\x80");
    /// assert_eq!(&*Dialect::Corrected.encode(0xCF).unwrap(), b"\xC0\xAF");
    /// assert_eq!(&*Dialect::Rfc2279.encode(0x7FFF_FFFF).unwrap(), b"\xFD\xBF\xBF\xBF\xBF\xBF");
    /// assert_eq!(Dialect::Utf8.encode(0xD800), Err(EncodeError::Surrogate));
    /// assert_eq!(Dialect::Corrected.encode(0x85), Err(EncodeError::C1Control));
    /// ```
    pub fn encode(self, code_point: u32) -> Result<Encoded, EncodeError> {
        let cp = code_point;
        if cp > self.max_code_point() {
            return Err(EncodeError::TooLarge);
        }
        let surrogate = (0xD800..0xE000).contains(&cp);
        match self {
            Dialect::Utf8 | Dialect::Cesu8 | Dialect::Corrected if surrogate => {
                Err(EncodeError::Surrogate)
            }
            Dialect::Cesu8 | Dialect::Mutf8 if cp >= 0x1_0000 => Ok(Encoded::pair(cp)),
            Dialect::Mutf8 if cp == 0 => Ok(Encoded::layout(0, 2)),
            Dialect::Corrected => {
                let (value, len) = match cp {
                    0 => return Err(EncodeError::Nul),
                    0x01..=0x7F => return Ok(Encoded::one(cp as u8)),
                    0x80..=0x9F => return Err(EncodeError::C1Control),
                    0xA0..=0x89F => (cp - 0xA0, 2),
                    0x8A0..=0xD7FF => (cp - 0x8A0, 3),
                    0xE000..=0x1_109F => (cp - 0x10A0, 3),
                    0x1_10A0..=0x21_109F => (cp - 0x1_10A0, 4),
                    0x21_10A0..=0x421_109F => (cp - 0x21_10A0, 5),
                    _ => (cp - 0x421_10A0, 6),
                };
                Ok(Encoded::layout(value, len))
            }
            _ => Ok(Encoded::shortest(cp)),
        }
    }
}

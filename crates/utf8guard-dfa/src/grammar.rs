//! The grammars of the UTF-8 family: for each dialect, the table of its
//! well-formed byte sequences, written the way the specifications print
//! them, one row per line.
//!
//! A row is a list of byte ranges, one per byte of the sequence; a sequence
//! is well formed exactly when it matches one row byte by byte, and a text is
//! well formed when it is a concatenation of well-formed sequences. Three
//! dialects need a little more than rows, each said by a field of
//! [`Grammar`] rather than by code:
//!
//! * WTF-8 forbids a lead surrogate *immediately followed by* a trail
//!   surrogate (that pair must be written as its 4-byte form):
//!   [`Grammar::forbidden_pair`] names the two rows;
//! * Corrected UTF-8 reserves runs that start with `FE` or `FF` and go on
//!   over the continuation bytes after them: [`Grammar::run_row`] names the
//!   row whose last range repeats;
//! * Corrected UTF-8 also allows its magic number (which holds a `00`) at
//!   offset 0: [`Grammar::magic`].
//!
//! CESU-8's rule that surrogates come in pairs needs no field: the pair is a
//! 6-byte row of its own, and a lone surrogate matches no row.
//!
//! [`Grammar::faults`] names the cause of the ill-formed sequences that are
//! not plain structure errors (an overlong form, a surrogate, ...): patterns
//! of the bytes from the start of the sequence through the byte that made it
//! ill formed.

use crate::{ByteRange, Fault};

/// A dialect's table of well-formed sequences, with the few rules that are
/// not rows. See the [module documentation](self).
#[derive(Debug)]
pub struct Grammar {
    /// The dialect's name, as `utf8guard::Dialect::name` spells it.
    pub name: &'static str,
    /// The well-formed sequences, one row each.
    pub rows: &'static [&'static [ByteRange]],
    /// A row whose last range may repeat any number of times (zero
    /// included): the sequence is complete after its other ranges, and goes
    /// on as long as bytes of the last range follow. Corrected UTF-8's
    /// reserved `FE`/`FF` runs.
    pub run_row: Option<usize>,
    /// `(lead, trail)`: a sequence of row `trail` must not come right after
    /// one of row `lead`. WTF-8's surrogate-pair rule.
    pub forbidden_pair: Option<(usize, usize)>,
    /// A byte string that is well formed at offset 0 even where the rows
    /// would reject it, and skipped there (Corrected UTF-8's magic number).
    pub magic: Option<&'static [u8]>,
    /// Named causes: the first pattern that matches the bytes of the failed
    /// sequence (from its first byte through the offending one, same length)
    /// gives the fault. Where none matches, a continuation byte that starts
    /// a sequence is [`Fault::UnexpectedContinuation`], a `00` is
    /// [`Fault::Nul`], another byte that cannot start one is
    /// [`Fault::InvalidByte`], and a sequence interrupted later is
    /// [`Fault::TooShort`].
    pub faults: &'static [(Fault, &'static [ByteRange])],
}

const CONT: ByteRange = (0x80, 0xBF);
const ANY: ByteRange = (0x00, 0xFF);

/// Strict UTF-8: Unicode's Table 3-7, "Well-Formed UTF-8 Byte Sequences"
/// (the same set as RFC 3629's ABNF).
///
/// | Code points        | 1st    | 2nd    | 3rd    | 4th    |
/// |--------------------|--------|--------|--------|--------|
/// | U+0000..U+007F     | 00..7F |        |        |        |
/// | U+0080..U+07FF     | C2..DF | 80..BF |        |        |
/// | U+0800..U+0FFF     | E0     | A0..BF | 80..BF |        |
/// | U+1000..U+CFFF     | E1..EC | 80..BF | 80..BF |        |
/// | U+D000..U+D7FF     | ED     | 80..9F | 80..BF |        |
/// | U+E000..U+FFFF     | EE..EF | 80..BF | 80..BF |        |
/// | U+10000..U+3FFFF   | F0     | 90..BF | 80..BF | 80..BF |
/// | U+40000..U+FFFFF   | F1..F3 | 80..BF | 80..BF | 80..BF |
/// | U+100000..U+10FFFF | F4     | 80..8F | 80..BF | 80..BF |
pub const UTF8: Grammar = Grammar {
    name: "utf-8",
    rows: &crate::WELL_FORMED,
    run_row: None,
    forbidden_pair: None,
    magic: None,
    faults: &[
        (Fault::Overlong, &[(0xE0, 0xE0), (0x80, 0x9F)]),
        (Fault::Overlong, &[(0xF0, 0xF0), (0x80, 0x8F)]),
        (Fault::Surrogate, &[(0xED, 0xED), (0xA0, 0xBF)]),
        (Fault::TooLarge, &[(0xF4, 0xF4), (0x90, 0xBF)]),
    ],
};

/// Unicode 3.1: Table 3.1B of Corrigendum #1, "Legal UTF-8 Byte
/// Sequences". Strict UTF-8 but for the row `E1..EF`, which also covers
/// `ED A0..BF`: the 3-byte forms of the surrogates U+D800..U+DFFF are
/// legal, alone or two in a row (the "irregular" 6-byte form of a pair).
/// Python's `surrogatepass` decoder accepts this set.
///
/// | Code points        | 1st    | 2nd    | 3rd    | 4th    |
/// |--------------------|--------|--------|--------|--------|
/// | U+0000..U+007F     | 00..7F |        |        |        |
/// | U+0080..U+07FF     | C2..DF | 80..BF |        |        |
/// | U+0800..U+0FFF     | E0     | A0..BF | 80..BF |        |
/// | U+1000..U+FFFF     | E1..EF | 80..BF | 80..BF |        |
/// | U+10000..U+3FFFF   | F0     | 90..BF | 80..BF | 80..BF |
/// | U+40000..U+FFFFF   | F1..F3 | 80..BF | 80..BF | 80..BF |
/// | U+100000..U+10FFFF | F4     | 80..8F | 80..BF | 80..BF |
pub const UNICODE_3_1: Grammar = Grammar {
    name: "unicode-3.1",
    rows: &[
        &[(0x00, 0x7F)],
        &[(0xC2, 0xDF), CONT],
        &[(0xE0, 0xE0), (0xA0, 0xBF), CONT],
        &[(0xE1, 0xEF), CONT, CONT],
        &[(0xF0, 0xF0), (0x90, 0xBF), CONT, CONT],
        &[(0xF1, 0xF3), CONT, CONT, CONT],
        &[(0xF4, 0xF4), (0x80, 0x8F), CONT, CONT],
    ],
    run_row: None,
    forbidden_pair: None,
    magic: None,
    faults: &[
        (Fault::Overlong, &[(0xE0, 0xE0), (0x80, 0x9F)]),
        (Fault::Overlong, &[(0xF0, 0xF0), (0x80, 0x8F)]),
        (Fault::TooLarge, &[(0xF4, 0xF4), (0x90, 0xBF)]),
    ],
};

/// WTF-8 (Simon Sapin's "wobbly" UTF-8): Unicode 3.1's set, with the
/// surrogate rows split into lead (`ED A0..AF`) and trail (`ED B0..BF`),
/// and one rule: a lead surrogate immediately followed by a trail surrogate
/// is ill formed (that pair must be the 4-byte form of its supplementary
/// code point). Lone surrogates, and a trail followed by a lead, are well
/// formed.
///
/// | Code points         | 1st    | 2nd    | 3rd    | 4th    |
/// |---------------------|--------|--------|--------|--------|
/// | U+0000..U+007F      | 00..7F |        |        |        |
/// | U+0080..U+07FF      | C2..DF | 80..BF |        |        |
/// | U+0800..U+0FFF      | E0     | A0..BF | 80..BF |        |
/// | U+1000..U+CFFF      | E1..EC | 80..BF | 80..BF |        |
/// | U+D000..U+D7FF      | ED     | 80..9F | 80..BF |        |
/// | U+D800..U+DBFF lead | ED     | A0..AF | 80..BF |        |
/// | U+DC00..U+DFFF trail| ED     | B0..BF | 80..BF |        |
/// | U+E000..U+FFFF      | EE..EF | 80..BF | 80..BF |        |
/// | U+10000..U+3FFFF    | F0     | 90..BF | 80..BF | 80..BF |
/// | U+40000..U+FFFFF    | F1..F3 | 80..BF | 80..BF | 80..BF |
/// | U+100000..U+10FFFF  | F4     | 80..8F | 80..BF | 80..BF |
///
/// Forbidden pair: the trail row right after the lead row.
pub const WTF8: Grammar = Grammar {
    name: "wtf-8",
    rows: &[
        &[(0x00, 0x7F)],
        &[(0xC2, 0xDF), CONT],
        &[(0xE0, 0xE0), (0xA0, 0xBF), CONT],
        &[(0xE1, 0xEC), CONT, CONT],
        &[(0xED, 0xED), (0x80, 0x9F), CONT],
        &[(0xED, 0xED), (0xA0, 0xAF), CONT],
        &[(0xED, 0xED), (0xB0, 0xBF), CONT],
        &[(0xEE, 0xEF), CONT, CONT],
        &[(0xF0, 0xF0), (0x90, 0xBF), CONT, CONT],
        &[(0xF1, 0xF3), CONT, CONT, CONT],
        &[(0xF4, 0xF4), (0x80, 0x8F), CONT, CONT],
    ],
    run_row: None,
    forbidden_pair: Some((5, 6)),
    magic: None,
    faults: &[
        (Fault::Overlong, &[(0xE0, 0xE0), (0x80, 0x9F)]),
        (Fault::Overlong, &[(0xF0, 0xF0), (0x80, 0x8F)]),
        (Fault::TooLarge, &[(0xF4, 0xF4), (0x90, 0xBF)]),
    ],
};

/// CESU-8 (Unicode Technical Report #26): the BMP as in strict UTF-8, and a
/// supplementary code point only as its UTF-16 surrogate pair, each half in
/// its 3-byte form: one 6-byte row. No 4-byte forms (`F0..FF` never
/// appear), no `C0 80`, no lone surrogate.
///
/// | Code points        | 1st    | 2nd    | 3rd    | 4th | 5th    | 6th    |
/// |--------------------|--------|--------|--------|-----|--------|--------|
/// | U+0000..U+007F     | 00..7F |        |        |     |        |        |
/// | U+0080..U+07FF     | C2..DF | 80..BF |        |     |        |        |
/// | U+0800..U+0FFF     | E0     | A0..BF | 80..BF |     |        |        |
/// | U+1000..U+CFFF     | E1..EC | 80..BF | 80..BF |     |        |        |
/// | U+D000..U+D7FF     | ED     | 80..9F | 80..BF |     |        |        |
/// | U+E000..U+FFFF     | EE..EF | 80..BF | 80..BF |     |        |        |
/// | U+10000..U+10FFFF  | ED     | A0..AF | 80..BF | ED  | B0..BF | 80..BF |
pub const CESU8: Grammar = Grammar {
    name: "cesu-8",
    rows: &[
        &[(0x00, 0x7F)],
        &[(0xC2, 0xDF), CONT],
        &[(0xE0, 0xE0), (0xA0, 0xBF), CONT],
        &[(0xE1, 0xEC), CONT, CONT],
        &[(0xED, 0xED), (0x80, 0x9F), CONT],
        &[(0xEE, 0xEF), CONT, CONT],
        &[
            (0xED, 0xED),
            (0xA0, 0xAF),
            CONT,
            (0xED, 0xED),
            (0xB0, 0xBF),
            CONT,
        ],
    ],
    run_row: None,
    forbidden_pair: None,
    magic: None,
    faults: CESU8_FAULTS,
};

/// The causes CESU-8 and modified UTF-8 share.
const CESU8_FAULTS: &[(Fault, &[ByteRange])] = &[
    (Fault::FourByteForm, &[(0xF0, 0xF4)]),
    (Fault::Overlong, &[(0xE0, 0xE0), (0x80, 0x9F)]),
    // A trail surrogate with no lead before it.
    (Fault::LoneSurrogate, &[(0xED, 0xED), (0xB0, 0xBF)]),
    // A lead surrogate not followed by a trail: by something other than
    // `ED`, or by `ED` and then something other than `B0..BF`.
    (
        Fault::LoneSurrogate,
        &[(0xED, 0xED), (0xA0, 0xAF), CONT, ANY],
    ),
    (
        Fault::LoneSurrogate,
        &[(0xED, 0xED), (0xA0, 0xAF), CONT, (0xED, 0xED), ANY],
    ),
];

/// Java's modified UTF-8 (the JVM specification, 4.4.7): CESU-8's
/// sequences, except that the byte `00` never appears, `C0 80` encodes
/// U+0000 (no other overlong form is allowed), and lone surrogates are well
/// formed (Java strings hold them), so the surrogates need no pair row: a
/// pair is two 3-byte sequences.
///
/// | Code points        | 1st    | 2nd    | 3rd    |
/// |--------------------|--------|--------|--------|
/// | U+0001..U+007F     | 01..7F |        |        |
/// | U+0000             | C0     | 80     |        |
/// | U+0080..U+07FF     | C2..DF | 80..BF |        |
/// | U+0800..U+0FFF     | E0     | A0..BF | 80..BF |
/// | U+1000..U+FFFF     | E1..EF | 80..BF | 80..BF |
pub const MUTF8: Grammar = Grammar {
    name: "mutf-8",
    rows: &[
        &[(0x01, 0x7F)],
        &[(0xC0, 0xC0), (0x80, 0x80)],
        &[(0xC2, 0xDF), CONT],
        &[(0xE0, 0xE0), (0xA0, 0xBF), CONT],
        &[(0xE1, 0xEF), CONT, CONT],
    ],
    run_row: None,
    forbidden_pair: None,
    magic: None,
    faults: &[
        (Fault::FourByteForm, &[(0xF0, 0xF4)]),
        // `C0 81..BF`: an overlong 2-byte form of U+0001..U+003F.
        (Fault::Overlong, &[(0xC0, 0xC0), (0x81, 0xBF)]),
        (Fault::Overlong, &[(0xE0, 0xE0), (0x80, 0x9F)]),
    ],
};

/// RFC 2279's UTF-8 in shortest form: 1 to 6 bytes, up to U+7FFFFFFF.
/// Strict UTF-8's rows with the surrogates (`ED A0..BF`) and everything
/// above U+10FFFF allowed: the rows from `F0` on follow the bit pattern of
/// RFC 2279's table, with the second byte narrowed where a shorter form
/// exists. `C0`, `C1`, `FE` and `FF` never appear.
///
/// | Code points             | 1st    | 2nd    | 3rd..6th          |
/// |-------------------------|--------|--------|-------------------|
/// | U+0000..U+007F          | 00..7F |        |                   |
/// | U+0080..U+07FF          | C2..DF | 80..BF |                   |
/// | U+0800..U+0FFF          | E0     | A0..BF | 80..BF            |
/// | U+1000..U+FFFF          | E1..EF | 80..BF | 80..BF            |
/// | U+10000..U+3FFFF        | F0     | 90..BF | 80..BF x2         |
/// | U+40000..U+1FFFFF       | F1..F7 | 80..BF | 80..BF x2         |
/// | U+200000..U+FFFFFF      | F8     | 88..BF | 80..BF x3         |
/// | U+1000000..U+3FFFFFF    | F9..FB | 80..BF | 80..BF x3         |
/// | U+4000000..U+3FFFFFFF   | FC     | 84..BF | 80..BF x4         |
/// | U+40000000..U+7FFFFFFF  | FD     | 80..BF | 80..BF x4         |
pub const RFC2279: Grammar = Grammar {
    name: "rfc2279",
    rows: &[
        &[(0x00, 0x7F)],
        &[(0xC2, 0xDF), CONT],
        &[(0xE0, 0xE0), (0xA0, 0xBF), CONT],
        &[(0xE1, 0xEF), CONT, CONT],
        &[(0xF0, 0xF0), (0x90, 0xBF), CONT, CONT],
        &[(0xF1, 0xF7), CONT, CONT, CONT],
        &[(0xF8, 0xF8), (0x88, 0xBF), CONT, CONT, CONT],
        &[(0xF9, 0xFB), CONT, CONT, CONT, CONT],
        &[(0xFC, 0xFC), (0x84, 0xBF), CONT, CONT, CONT, CONT],
        &[(0xFD, 0xFD), CONT, CONT, CONT, CONT, CONT],
    ],
    run_row: None,
    forbidden_pair: None,
    magic: None,
    faults: &[
        (Fault::Overlong, &[(0xE0, 0xE0), (0x80, 0x9F)]),
        (Fault::Overlong, &[(0xF0, 0xF0), (0x80, 0x8F)]),
        (Fault::Overlong, &[(0xF8, 0xF8), (0x80, 0x87)]),
        (Fault::Overlong, &[(0xFC, 0xFC), (0x80, 0x83)]),
    ],
};

/// Corrected UTF-8's magic number: `EF B7 9D ED B2 AE 00 0A`, the Corrected
/// encoding of U+10E7D U+ED4E U+0000 U+000A.
pub const CORRECTED_MAGIC: [u8; 8] = [0xEF, 0xB7, 0x9D, 0xED, 0xB2, 0xAE, 0x00, 0x0A];

/// Corrected UTF-8: structure only. Every sequence of the right shape is the
/// unique encoding of one code point (an offset per length makes overlong
/// forms impossible), so no row narrows a range. `00` is ill formed, except
/// inside the magic number at offset 0; a run that starts with `FE` or `FF`
/// and goes on over the continuation bytes after it is reserved for future
/// use, which a decoder must not treat as invalid: it is well formed here.
///
/// | Length | 1st    | 2nd..6th             |
/// |--------|--------|----------------------|
/// | 1      | 01..7F |                      |
/// | 2      | C0..DF | 80..BF               |
/// | 3      | E0..EF | 80..BF x2            |
/// | 4      | F0..F7 | 80..BF x3            |
/// | 5      | F8..FB | 80..BF x4            |
/// | 6      | FC..FD | 80..BF x5            |
/// | run    | FE..FF | 80..BF, any number   |
pub const CORRECTED: Grammar = Grammar {
    name: "corrected-utf-8",
    rows: &[
        &[(0x01, 0x7F)],
        &[(0xC0, 0xDF), CONT],
        &[(0xE0, 0xEF), CONT, CONT],
        &[(0xF0, 0xF7), CONT, CONT, CONT],
        &[(0xF8, 0xFB), CONT, CONT, CONT, CONT],
        &[(0xFC, 0xFD), CONT, CONT, CONT, CONT, CONT],
        &[(0xFE, 0xFF), CONT],
    ],
    run_row: Some(6),
    forbidden_pair: None,
    magic: Some(&CORRECTED_MAGIC),
    faults: &[],
};

/// Every grammar, in the order of `utf8guard::Dialect::ALL`.
pub const ALL: [&Grammar; 7] = [
    &UTF8,
    &UNICODE_3_1,
    &WTF8,
    &CESU8,
    &MUTF8,
    &RFC2279,
    &CORRECTED,
];

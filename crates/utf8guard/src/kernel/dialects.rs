//! The dialects as data for the one SIMD algorithm ([`super::lookup`]).
//!
//! Each dialect of the UTF-8 family is a [`Spec`]: its nibble tables, the
//! length of its longest sequence, and a few flags for the checks that are
//! not pairs of bytes. [`super::lookup::validate`] is generic over the
//! spec, so each (instruction set, dialect) pair is compiled on its own and
//! a check a dialect does not need costs nothing: strict UTF-8 compiles to
//! the code it had before dialects existed.
//!
//! # From a grammar to a spec
//!
//! The algorithm sees every byte with the bytes before it. What it checks,
//! for a dialect whose table is `grammar::X` in `utf8guard-dfa`:
//!
//! 1. **Pairs** `(prev1, byte)`. Every ill-formed pair of adjacent bytes is
//!    in some *family*: a set of high nibbles of `prev1`, a set of its low
//!    nibbles, a set of high nibbles of `byte` (and, where a family needs
//!    it, a set of low nibbles of `byte`). A family is given one of the 8
//!    bits of the tables; [`tables`] builds the tables from the list of
//!    families, each entry the union of the bits of the families that
//!    contain its nibble. A pair is an error when some bit survives the
//!    `AND` of its three (or four) lookups. Two families may share a bit
//!    when the product of their nibble sets makes no pair that is well
//!    formed (strict UTF-8's `TOO_LARGE_1000` and `OVERLONG_4`: both
//!    `F_ 8_`, told apart by the low nibble of `prev1`).
//!    Every dialect has three families that say "a lead byte must be
//!    followed by a continuation byte" ([`TOO_SHORT`]), "ASCII must not be"
//!    ([`TOO_LONG`]) and "a continuation byte follows a continuation byte"
//!    ([`TWO_CONTS`], always the top bit); the others are the rows' narrowed
//!    second ranges, read off the table: a row `E0 A0..BF` makes the family
//!    `E0 80..9F` (overlong), a lead byte that no row has makes
//!    `lead 80..BF`.
//! 2. **Sequence length**: a continuation byte is required exactly when a
//!    lead byte 2, 3, ... `MAX_LEN - 1` bytes back needs that many bytes
//!    after it (`prev2 >= E0`, `prev3 >= F0`, `prev4 >= F8`, `prev5 >=
//!    FC`); [`TWO_CONTS`] xor "required" is an error either way. The
//!    dialect's longest sequence ([`Spec::MAX_LEN`]: 3, 4 or 6) says how far
//!    back to look, how many bytes of look-behind the kernel keeps, and how
//!    many bytes at the end of the input may hold an unfinished sequence.
//! 3. **The rest**, one flag each:
//!    - [`Spec::NO_NUL`]: the byte `00` is ill formed (modified UTF-8,
//!      Corrected UTF-8). The high nibble of a byte can't tell `00` from
//!      `01..0F`, but both nibbles of `prev1` can: a family flags `00`
//!      followed by anything. That leaves the last byte before an ASCII
//!      block (taken in by that block's minimum, with which an ASCII block
//!      is checked for `00`) and the input's last byte; and the bytes that
//!      stand for what comes before the input are spaces, not zeros;
//!    - [`Spec::NO_FE_FF`]: `FE` and `FF` are ill formed anywhere (RFC
//!      2279; its 8 bits are taken by its overlong families). The error
//!      is raised on the byte after (`prev1 >= FE`), where the screen
//!      flags the lead (below); an `FE`/`FF` that ends the input is a lead
//!      left unfinished;
//!    - [`Spec::PAIRS`]: a surrogate-pair rule. The families mark the
//!      second byte of a trail surrogate (`ED B0..BF`) with a bit that is
//!      not an error in itself. A lead surrogate's second byte 3 bytes back
//!      is found by two compares, `ED` in `prev4` and `A0..AF` in `prev3`.
//!      CESU-8 requires a trail exactly there: a trail without a lead, or a
//!      lead without a trail, is an error. Its mark is [`PAIR_MARK`], the
//!      value 1 (bit 0, its "lead not followed by a continuation byte"
//!      family moving to bit 3), and one is subtracted in the lanes where a
//!      lead stands back ([`sub_one_where_eq2`](super::simd::SimdU8::sub_one_where_eq2):
//!      adding the compares' `FF`, or AVX-512's one masked subtraction):
//!      a lane with the mark and nothing else becomes zero, a lane with
//!      neither becomes `FF`, and any other error stays non-zero. WTF-8
//!      forbids a trail there: its mark is [`SURROGATE_MARK`] (`0x10`),
//!      cleared where no lead stands back ([`select_eq2`](super::simd::SimdU8::select_eq2)).
//!      On an ASCII block, CESU-8 checks only the lead-back of its first
//!      lanes: a trail is needed and none is there;
//!    - [`Spec::DFA_DECIDES`]: a flagged block may be well formed after all
//!      (Corrected UTF-8's reserved `FE`/`FF` runs, whose length has no
//!      bound). Its families flag every `FE`/`FF`; the caller runs the
//!      dialect's automaton over the flagged block and goes on with the
//!      kernel after it.
//!
//! 4. **A screen** ([`Spec::Screen`]): most text of a dialect never uses
//!    what makes it differ from UTF-8 (a surrogate, a 5-byte sequence,
//!    `C0 80`), and the checks for those features cost a fifth to a third of
//!    the kernel's speed. So a dialect may name a cheaper spec that passes
//!    every block of its common text and flags any block that holds one of
//!    the rarer forms (or an error): WTF-8's is strict UTF-8 itself,
//!    CESU-8's flags every surrogate, modified UTF-8's every `C0`, RFC 2279's
//!    and Corrected UTF-8's every lead byte from `F8` on, with the
//!    continuation bytes required only up to 4-byte sequences. A flagged
//!    block is checked again with the dialect's own spec, and so are the
//!    next few blocks (text that has one surrogate tends to have more), and
//!    only a block that fails both is an error. In CESU-8 those runs are
//!    long in text of emoji (every supplementary character a pair), and
//!    their steps skip the test for a step of ASCII. The screen flags each such form where it starts (at its lead
//!    or the byte after), while the dialect's own checks of it may reach
//!    up to 5 bytes further (a lead surrogate's trail, a 6-byte sequence's
//!    last bytes): the block after a block of the dialect's own checks
//!    goes back to the screen only when nothing from the bytes before it
//!    is still open. The screen's tables
//!    and flags are derived the same way; its longest sequence stays the
//!    dialect's, so what it says about a block's end is exact.
//!
//!    Before that loop, the vector kernels run the screen alone over the
//!    whole input ([`Spec::SCREEN_FIRST`]; or strict UTF-8's check,
//!    [`Spec::UTF8_FIRST`]), and the screened loop only from where it
//!    flagged something ([`dialect_first`]): text without the rarer forms
//!    is then checked at the screen's own speed.
//!
//! To add a dialect: write its grammar in `utf8guard-dfa`, list its ill-formed
//! pair families here (each found by reading the grammar's rows as above),
//! set the flags, and add it to `Dialect` and to [`for_each_spec!`]. The
//! kernel tests then check it on every kernel against its automaton.

/// The three (or four) nibble tables: everything that makes the pairs of
/// one dialect ill formed rather than another's (see
/// [`tables`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rules {
    /// Indexed by the high nibble of the previous byte.
    pub(crate) byte_1_high: [u8; 16],
    /// Indexed by the low nibble of the previous byte.
    pub(crate) byte_1_low: [u8; 16],
    /// Indexed by the high nibble of the current byte.
    pub(crate) byte_2_high: [u8; 16],
    /// Indexed by the low nibble of the current byte, for the dialects that
    /// have a family needing it.
    pub(crate) byte_2_low: Option<[u8; 16]>,
}

/// How a dialect treats surrogate pairs written as two 3-byte sequences.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Pairs {
    /// No rule: each 3-byte sequence stands alone.
    Free,
    /// A lead surrogate must be followed by a trail, and a trail preceded by
    /// a lead (CESU-8).
    Required,
    /// A lead surrogate must not be followed by a trail (WTF-8).
    Forbidden,
}

/// A dialect, as the SIMD algorithm sees it.
pub(crate) trait Spec {
    /// The dialect's automaton (the scalar kernel, and the reference that
    /// pins an error down).
    const AUTOMATON: &'static utf8guard_dfa::Automaton;
    /// The nibble tables.
    const RULES: Rules;
    /// The longest sequence, in bytes: 3, 4 or 6.
    const MAX_LEN: usize;
    /// The longest sequence whose continuation bytes the check requires
    /// (`prev2`.. up to `prev{MUST_LEN - 1}`): `MAX_LEN`, except in a
    /// screen, which leaves longer sequences to be flagged.
    const MUST_LEN: usize = Self::MAX_LEN;
    /// A cheaper check that every block is tried with first ([`Self::SCREENED`]).
    type Screen: Spec;
    /// Blocks go through [`Self::Screen`] first: a block it passes is well
    /// formed in this dialect, and only one it flags is checked with this
    /// dialect's own rules.
    const SCREENED: bool = false;
    /// `00` is ill formed.
    const NO_NUL: bool = false;
    /// `FE` and `FF` are ill formed.
    const NO_FE_FF: bool = false;
    /// The surrogate-pair rule.
    const PAIRS: Pairs = Pairs::Free;
    /// A block the kernel flags may be well formed: the automaton decides.
    const DFA_DECIDES: bool = false;
    /// On a CPU with AVX-512VBMI, the AVX-512 kernel checks this dialect
    /// with `vpermb` for the nibble lookups (`avx512::vbmi`): faster for
    /// most dialects, slower for WTF-8 and RFC 2279, which keep `vpshufb`
    /// (docs/TUNING.md, "vpermb for the dialects"). Read on x86_64 only.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    const VPERMB: bool = true;
    /// Every well-formed UTF-8 input is well formed in this dialect, cut
    /// into the same sequences, and a well-formed UTF-8 prefix leaves
    /// nothing open for what follows (no pair rule reaches back over it):
    /// the vector kernels check the input as strict UTF-8 first, and this
    /// dialect's own check takes over only from the character where strict
    /// UTF-8 found an error ([`dialect_first`]). With AVX-512VBMI,
    /// strict UTF-8's check is the one with `vpermb`, and the dialect's own
    /// the one with `vpshufb`: for the dialects whose checks measured
    /// slower with `vpermb` ([`super::avx512::vbmi::validate_dialect_utf8_first`]).
    /// On text that is well-formed UTF-8 this runs at about strict UTF-8's
    /// speed (docs/TUNING.md, "Strict UTF-8 first").
    const UTF8_FIRST: bool = false;
    /// The vector kernels run this dialect's screen over the whole input
    /// first, as a dialect of its own (without the screened loop's
    /// bookkeeping), and the dialect's screened check only from the
    /// sequence where the screen flagged something ([`dialect_first`]).
    /// For a dialect with a screen ([`Self::SCREENED`]) that passes the text
    /// it mostly meets: the screen alone is cheaper than the screened
    /// loop's bookkeeping (docs/TUNING.md, "Screen first"). On text whose
    /// every block the screen flags (CESU-8 with emoji) it gains nothing.
    const SCREEN_FIRST: bool = false;
}

/// Validation of dialect `D` in two passes, for a dialect with
/// [`Spec::SCREEN_FIRST`] or [`Spec::UTF8_FIRST`]:
/// `first` is the outcome of a cheaper check over the whole input (the
/// dialect's screen, run as a dialect of its own without the screened
/// loop's bookkeeping, or strict UTF-8's check), which passes only input
/// that is well formed in `D`; `own` is `D`'s own check, run from the
/// sequence where `first` flagged something.
///
/// The bytes before that offset are well formed for the first check, so in
/// `D`, but for a sequence of up to 4 bytes that the offset may cut (the
/// screens flag every lead of a longer one), and, in a dialect without
/// `00`, a `00` right before it: `own` starts before both, at the start of
/// a sequence, with nothing open before it (the screens flag what a pair
/// rule would carry over, and strict UTF-8 ends every character it passes).
#[inline(always)]
pub(crate) fn dialect_first<D: Spec>(
    bytes: &[u8],
    first: Result<(), usize>,
    own: impl FnOnce(&[u8]) -> Result<(), usize>,
) -> Result<(), usize> {
    debug_assert!(D::SCREEN_FIRST && D::SCREENED || D::UTF8_FIRST);
    let Err(offset) = first else {
        return Ok(());
    };
    let mut start = super::character_start(bytes, offset);
    if D::NO_NUL && start > 0 && bytes[start - 1] == 0 {
        start -= 1;
    }
    own(&bytes[start..]).map_err(|e| start + e)
}

// The bits. Each dialect gives them its own meanings below; these names are
// the ones every dialect shares.

/// A lead byte followed by something that is not a continuation byte.
pub(crate) const TOO_SHORT: u8 = 1 << 0;
/// An ASCII byte followed by a continuation byte.
pub(crate) const TOO_LONG: u8 = 1 << 1;
/// A continuation byte after a continuation byte: an error unless a lead
/// byte further back requires it (resolved with the sequence length).
pub(crate) const TWO_CONTS: u8 = 1 << 7;
/// WTF-8's mark of a trail surrogate's second byte, `ED B0..BF`.
pub(crate) const SURROGATE_MARK: u8 = 1 << 4;
/// CESU-8's mark of a trail surrogate's second byte: the value 1, so that
/// subtracting one where a lead stands 3 bytes back cancels it (and makes
/// a lane without it non-zero). Bit 0 is [`TOO_SHORT`] elsewhere; CESU-8
/// moves that family to bit 3.
pub(crate) const PAIR_MARK: u8 = 1 << 0;

/// A set of nibble values, bit `n` for nibble `n`.
type Nibbles = u16;

/// The nibbles `lo..=hi`.
const fn span(lo: u8, hi: u8) -> Nibbles {
    let mut set = 0;
    let mut n = lo;
    while n <= hi {
        set |= 1 << n;
        n += 1;
    }
    set
}

/// One nibble.
const fn one(n: u8) -> Nibbles {
    1 << n
}

/// Every nibble.
const ALL: Nibbles = 0xFFFF;
/// High nibbles of ASCII bytes.
const ASCII: Nibbles = span(0x0, 0x7);
/// High nibbles of continuation bytes.
const CONT: Nibbles = span(0x8, 0xB);
/// High nibbles of lead bytes (and of the bytes that never appear).
const LEAD: Nibbles = span(0xC, 0xF);

/// A family of ill-formed pairs `(prev1, byte)`: those whose nibbles are in
/// all four sets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Family {
    bit: u8,
    prev_high: Nibbles,
    prev_low: Nibbles,
    byte_high: Nibbles,
    byte_low: Nibbles,
}

/// A family that does not look at the low nibble of `byte`.
const fn family(bit: u8, prev_high: Nibbles, prev_low: Nibbles, byte_high: Nibbles) -> Family {
    Family {
        bit,
        prev_high,
        prev_low,
        byte_high,
        byte_low: ALL,
    }
}

/// `00` followed by any byte: how the dialects without `00` find it in a
/// block of text (the last byte of a block, and ASCII blocks, are checked
/// apart: see [`super::lookup`]). Its bit is the caller's choice.
const fn nul_before(bit: u8) -> Family {
    family(bit, one(0x0), one(0x0), ALL)
}

/// The three families every dialect has.
const STRUCTURE: [Family; 3] = [
    family(TOO_SHORT, LEAD, ALL, span(0x0, 0x7) | LEAD),
    family(TOO_LONG, ASCII, ALL, CONT),
    family(TWO_CONTS, CONT, ALL, CONT),
];

/// The nibble tables of a list of families. The fourth table (on the low
/// nibble of `byte`) is made only when some family needs it.
pub(crate) const fn tables(families: &[Family]) -> Rules {
    let mut rules = Rules {
        byte_1_high: [0; 16],
        byte_1_low: [0; 16],
        byte_2_high: [0; 16],
        byte_2_low: None,
    };
    let mut low = [0u8; 16];
    let mut needs_low = false;
    let mut i = 0;
    while i < families.len() {
        let f = families[i];
        needs_low |= f.byte_low != ALL;
        let mut n = 0;
        while n < 16 {
            if f.prev_high & (1 << n) != 0 {
                rules.byte_1_high[n] |= f.bit;
            }
            if f.prev_low & (1 << n) != 0 {
                rules.byte_1_low[n] |= f.bit;
            }
            if f.byte_high & (1 << n) != 0 {
                rules.byte_2_high[n] |= f.bit;
            }
            if f.byte_low & (1 << n) != 0 {
                low[n] |= f.bit;
            }
            n += 1;
        }
        i += 1;
    }
    if needs_low {
        rules.byte_2_low = Some(low);
    }
    rules
}

/// `a` followed by `b`, as one list.
const fn join<const A: usize, const B: usize, const N: usize>(
    a: [Family; A],
    b: [Family; B],
) -> [Family; N] {
    assert!(A + B == N);
    let mut out = [a[0]; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < A { a[i] } else { b[i - A] };
        i += 1;
    }
    out
}

/// Strict UTF-8's families (the bits keep the names they have always had in
/// the lookup algorithm).
mod utf8 {
    use super::*;
    /// `E0 80..9F`: a 3-byte form of a code point below U+0800.
    pub(super) const OVERLONG_3: u8 = 1 << 2;
    /// `F4 90..BF`, or `F5..FF` followed by `90..BF`: above U+10FFFF.
    pub(super) const TOO_LARGE: u8 = 1 << 3;
    /// `ED A0..BF`: a UTF-16 surrogate.
    pub(super) const SURROGATE: u8 = 1 << 4;
    /// `C0..C1 80..BF`: a 2-byte form of an ASCII code point.
    pub(super) const OVERLONG_2: u8 = 1 << 5;
    /// `F5..FF 80..8F`: above U+10FFFF (shares its bit with `OVERLONG_4`:
    /// the low nibbles of `prev1` keep them apart).
    pub(super) const TOO_LARGE_1000: u8 = 1 << 6;
    /// `F0 80..8F`: a 4-byte form of a code point below U+10000.
    pub(super) const OVERLONG_4: u8 = 1 << 6;

    /// Table 3-7, read as pairs. The lead bytes `C0`, `C1` and `F5..FF`
    /// match no row: followed by a continuation byte they are caught by
    /// `OVERLONG_2` and the two `TOO_LARGE` families.
    pub(super) const FAMILIES_BUT_SURROGATE: [Family; 8] = join(
        STRUCTURE,
        [
            family(OVERLONG_3, one(0xE), one(0x0), span(0x8, 0x9)),
            family(TOO_LARGE, one(0xF), span(0x4, 0xF), span(0x9, 0xB)),
            family(OVERLONG_2, one(0xC), span(0x0, 0x1), CONT),
            family(TOO_LARGE_1000, one(0xF), span(0x5, 0xF), one(0x8)),
            family(OVERLONG_4, one(0xF), one(0x0), one(0x8)),
        ],
    );
    /// `ED A0..BF`, the surrogates.
    pub(super) const SURROGATES: [Family; 1] =
        [family(SURROGATE, one(0xE), one(0xD), span(0xA, 0xB))];
}

/// Strict UTF-8 (Unicode Table 3-7).
pub(crate) struct Utf8;
impl Spec for Utf8 {
    type Screen = Self;
    const AUTOMATON: &'static utf8guard_dfa::Automaton = &utf8guard_dfa::UTF8;
    const RULES: Rules = tables(&join::<8, 1, 9>(
        utf8::FAMILIES_BUT_SURROGATE,
        utf8::SURROGATES,
    ));
    const MAX_LEN: usize = 4;
}

/// Unicode 3.1 (Corrigendum #1, Table 3.1B): strict UTF-8 without the
/// surrogate family.
pub(crate) struct Unicode31;
impl Spec for Unicode31 {
    type Screen = Self;
    const AUTOMATON: &'static utf8guard_dfa::Automaton = &utf8guard_dfa::UNICODE_3_1;
    const RULES: Rules = tables(&utf8::FAMILIES_BUT_SURROGATE);
    const MAX_LEN: usize = 4;
}

/// WTF-8: Unicode 3.1, with the trail surrogates marked for the pair rule.
/// Screened by strict UTF-8, whose well-formed blocks are well-formed
/// WTF-8: only a block with a surrogate (or an error) meets the pair rule.
pub(crate) struct Wtf8;
impl Spec for Wtf8 {
    type Screen = Utf8;
    const SCREENED: bool = true;
    const AUTOMATON: &'static utf8guard_dfa::Automaton = &utf8guard_dfa::WTF8;
    const RULES: Rules = tables(&join::<8, 1, 9>(
        utf8::FAMILIES_BUT_SURROGATE,
        [family(SURROGATE_MARK, one(0xE), one(0xD), one(0xB))],
    ));
    const MAX_LEN: usize = 4;
    const PAIRS: Pairs = Pairs::Forbidden;
    const VPERMB: bool = false;
    const UTF8_FIRST: bool = true;
}

/// The families CESU-8 and modified UTF-8 share: no lead byte from `F0` on
/// (`F_` followed by a continuation byte is in `TOO_LONG`'s family), and
/// `E0 80..9F` overlong.
mod three {
    use super::*;
    /// `E0 80..9F`.
    pub(super) const OVERLONG_3: u8 = 1 << 2;
    pub(super) const FAMILIES: [Family; 4] = with_too_short(TOO_SHORT);
    /// The families, with "a lead byte followed by something that is not a
    /// continuation byte" on bit `too_short`.
    pub(super) const fn with_too_short(too_short: u8) -> [Family; 4] {
        [
            family(too_short, LEAD, ALL, span(0x0, 0x7) | LEAD),
            family(TOO_LONG, ASCII | one(0xF), ALL, CONT),
            family(TWO_CONTS, CONT, ALL, CONT),
            family(OVERLONG_3, one(0xE), one(0x0), span(0x8, 0x9)),
        ]
    }
}

/// CESU-8: three-byte sequences at most, surrogates in pairs (the trail's
/// second byte marked for the rule).
pub(crate) struct Cesu8;
impl Spec for Cesu8 {
    type Screen = Cesu8Screen;
    const SCREENED: bool = true;
    const SCREEN_FIRST: bool = true;
    const AUTOMATON: &'static utf8guard_dfa::Automaton = &utf8guard_dfa::CESU8;
    const RULES: Rules = tables(&join::<4, 2, 6>(
        // Bit 0 is the pair rule's mark ([`PAIR_MARK`]).
        three::with_too_short(1 << 3),
        [
            // `C0`, `C1`: no row.
            family(1 << 5, one(0xC), span(0x0, 0x1), CONT),
            family(PAIR_MARK, one(0xE), one(0xD), one(0xB)),
        ],
    ));
    const MAX_LEN: usize = 3;
    const PAIRS: Pairs = Pairs::Required;
}

/// The families of UTF-8 text of the BMP: CESU-8's, with every surrogate
/// flagged.
const BMP: [Family; 6] = join::<4, 2, 6>(
    three::FAMILIES,
    [
        family(1 << 5, one(0xC), span(0x0, 0x1), CONT),
        // `ED A0..BF`.
        family(1 << 4, one(0xE), one(0xD), span(0xA, 0xB)),
    ],
);

/// CESU-8's screen: its families, with every surrogate flagged (text of
/// the BMP passes it).
pub(crate) struct Cesu8Screen;
impl Spec for Cesu8Screen {
    type Screen = Self;
    const AUTOMATON: &'static utf8guard_dfa::Automaton = &utf8guard_dfa::CESU8;
    const RULES: Rules = tables(&BMP);
    const MAX_LEN: usize = 3;
}

/// UTF-8 text of the BMP without `00`: what goes into (or out of)
/// modified UTF-8 unchanged (see [`super::bmp_utf8_fn`]). Not a dialect:
/// only the vector kernels run it, with no automaton behind them (the
/// one here, modified UTF-8's, is never asked: the caller finds the
/// exact end of what passes another way).
pub(crate) struct BmpWithoutNul;
impl Spec for BmpWithoutNul {
    type Screen = Self;
    const AUTOMATON: &'static utf8guard_dfa::Automaton = &utf8guard_dfa::MUTF8;
    const RULES: Rules = tables(&join::<6, 1, 7>(BMP, [nul_before(1 << 6)]));
    const MAX_LEN: usize = 3;
    const NO_NUL: bool = true;
}

/// Java's modified UTF-8: like CESU-8 without the pair rule, no `00`, and
/// `C0 80` the only sequence led by `C0`.
pub(crate) struct Mutf8;
impl Spec for Mutf8 {
    type Screen = Mutf8Screen;
    const SCREENED: bool = true;
    const SCREEN_FIRST: bool = true;
    const AUTOMATON: &'static utf8guard_dfa::Automaton = &utf8guard_dfa::MUTF8;
    const RULES: Rules = tables(&join::<4, 4, 8>(
        three::FAMILIES,
        [
            nul_before(1 << 4),
            // `C1`: no row.
            family(1 << 3, one(0xC), one(0x1), CONT),
            // `C0 90..BF`.
            family(1 << 5, one(0xC), one(0x0), span(0x9, 0xB)),
            // `C0 81..8F`: the one family that needs the low nibble of the
            // second byte.
            Family {
                bit: 1 << 6,
                prev_high: one(0xC),
                prev_low: one(0x0),
                byte_high: one(0x8),
                byte_low: span(0x1, 0xF),
            },
        ],
    ));
    const MAX_LEN: usize = 3;
    const NO_NUL: bool = true;
}

/// Modified UTF-8's screen: without the fourth table, `C0` followed by any
/// continuation byte is flagged (text without U+0000 passes it).
pub(crate) struct Mutf8Screen;
impl Spec for Mutf8Screen {
    type Screen = Self;
    const AUTOMATON: &'static utf8guard_dfa::Automaton = &utf8guard_dfa::MUTF8;
    const RULES: Rules = tables(&join::<4, 2, 6>(
        three::FAMILIES,
        [
            nul_before(1 << 4),
            family(1 << 3, one(0xC), span(0x0, 0x1), CONT),
        ],
    ));
    const MAX_LEN: usize = 3;
    const NO_NUL: bool = true;
}

/// A lead byte from `F8` on (or `FE`, `FF`), whatever follows it: the 5-
/// and 6-byte sequences that the screens of RFC 2279 and Corrected UTF-8
/// leave to their dialects' own checks.
const LONG_LEAD: u8 = 1 << 3;

/// RFC 2279: six-byte sequences, overlong forms of every length, no `C0`,
/// `C1`, `FE`, `FF`.
pub(crate) struct Rfc2279;
impl Spec for Rfc2279 {
    type Screen = Rfc2279Screen;
    const SCREENED: bool = true;
    const AUTOMATON: &'static utf8guard_dfa::Automaton = &utf8guard_dfa::RFC2279;
    const RULES: Rules = tables(&join::<3, 5, 8>(
        STRUCTURE,
        [
            // `C0`, `C1`: no row.
            family(1 << 5, one(0xC), span(0x0, 0x1), CONT),
            // `E0 80..9F`.
            family(1 << 2, one(0xE), one(0x0), span(0x8, 0x9)),
            // `F0 80..8F`.
            family(1 << 4, one(0xF), one(0x0), one(0x8)),
            // `F8 80..87`.
            Family {
                bit: 1 << 3,
                prev_high: one(0xF),
                prev_low: one(0x8),
                byte_high: one(0x8),
                byte_low: span(0x0, 0x7),
            },
            // `FC 80..83`.
            Family {
                bit: 1 << 6,
                prev_high: one(0xF),
                prev_low: one(0xC),
                byte_high: one(0x8),
                byte_low: span(0x0, 0x3),
            },
        ],
    ));
    const MAX_LEN: usize = 6;
    const NO_FE_FF: bool = true;
    const VPERMB: bool = false;
    const UTF8_FIRST: bool = true;
}

/// RFC 2279's screen: its families of sequences of up to 4 bytes, with
/// every lead byte from `F8` on flagged (text up to U+1FFFFF passes it).
pub(crate) struct Rfc2279Screen;
impl Spec for Rfc2279Screen {
    type Screen = Self;
    const AUTOMATON: &'static utf8guard_dfa::Automaton = &utf8guard_dfa::RFC2279;
    const RULES: Rules = tables(&join::<3, 4, 7>(
        STRUCTURE,
        [
            family(1 << 5, one(0xC), span(0x0, 0x1), CONT),
            family(1 << 2, one(0xE), one(0x0), span(0x8, 0x9)),
            family(1 << 4, one(0xF), one(0x0), one(0x8)),
            family(LONG_LEAD, one(0xF), span(0x8, 0xF), ALL),
        ],
    ));
    const MAX_LEN: usize = 6;
    const MUST_LEN: usize = 4;
}

/// Corrected UTF-8: structure only, six-byte sequences, no `00`, and every
/// `FE`/`FF` flagged for the automaton (a reserved run may follow it).
pub(crate) struct Corrected;
impl Spec for Corrected {
    type Screen = CorrectedScreen;
    const SCREENED: bool = true;
    const AUTOMATON: &'static utf8guard_dfa::Automaton = &utf8guard_dfa::CORRECTED;
    const RULES: Rules = tables(&join::<3, 2, 5>(
        STRUCTURE,
        [
            nul_before(1 << 2),
            family(1 << 3, one(0xF), span(0xE, 0xF), CONT),
        ],
    ));
    const MAX_LEN: usize = 6;
    const NO_NUL: bool = true;
    const DFA_DECIDES: bool = true;
    const SCREEN_FIRST: bool = true;
}

/// Corrected UTF-8's screen: sequences of up to 4 bytes, every lead byte
/// from `F8` on flagged (the 5- and 6-byte sequences and the reserved
/// runs).
pub(crate) struct CorrectedScreen;
impl Spec for CorrectedScreen {
    type Screen = Self;
    const AUTOMATON: &'static utf8guard_dfa::Automaton = &utf8guard_dfa::CORRECTED;
    const RULES: Rules = tables(&join::<3, 2, 5>(
        STRUCTURE,
        [
            nul_before(1 << 2),
            family(LONG_LEAD, one(0xF), span(0x8, 0xF), ALL),
        ],
    ));
    const MAX_LEN: usize = 6;
    const MUST_LEN: usize = 4;
    const NO_NUL: bool = true;
}

/// Expands `$body` once per dialect with `$spec` bound to its spec type and
/// `$dialect` to its `Dialect`: how the per-dialect kernels are listed.
macro_rules! for_each_spec {
    ($dialect_value:expr, |$spec:ident| $body:expr) => {
        match $dialect_value {
            crate::dialect::Dialect::Utf8 => {
                type $spec = crate::kernel::dialects::Utf8;
                $body
            }
            crate::dialect::Dialect::Unicode31 => {
                type $spec = crate::kernel::dialects::Unicode31;
                $body
            }
            crate::dialect::Dialect::Wtf8 => {
                type $spec = crate::kernel::dialects::Wtf8;
                $body
            }
            crate::dialect::Dialect::Cesu8 => {
                type $spec = crate::kernel::dialects::Cesu8;
                $body
            }
            crate::dialect::Dialect::Mutf8 => {
                type $spec = crate::kernel::dialects::Mutf8;
                $body
            }
            crate::dialect::Dialect::Rfc2279 => {
                type $spec = crate::kernel::dialects::Rfc2279;
                $body
            }
            crate::dialect::Dialect::Corrected => {
                type $spec = crate::kernel::dialects::Corrected;
                $body
            }
        }
    };
}
pub(crate) use for_each_spec;

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated strict UTF-8 tables are the ones the lookup algorithm
    /// has always used, entry for entry, so strict UTF-8 is compiled to the
    /// same code.
    #[test]
    fn strict_tables_are_unchanged() {
        use utf8::*;
        const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;
        let expected = Rules {
            byte_1_high: [
                TOO_LONG,
                TOO_LONG,
                TOO_LONG,
                TOO_LONG,
                TOO_LONG,
                TOO_LONG,
                TOO_LONG,
                TOO_LONG,
                TWO_CONTS,
                TWO_CONTS,
                TWO_CONTS,
                TWO_CONTS,
                TOO_SHORT | OVERLONG_2,
                TOO_SHORT,
                TOO_SHORT | OVERLONG_3 | SURROGATE,
                TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
            ],
            byte_1_low: [
                CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
                CARRY | OVERLONG_2,
                CARRY,
                CARRY,
                CARRY | TOO_LARGE,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
            ],
            byte_2_high: [
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
                TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
                TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
                TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
            ],
            byte_2_low: None,
        };
        assert_eq!(Utf8::RULES, expected);
    }

    /// Only the dialects with a family on the second byte's low nibble get
    /// the fourth table.
    #[test]
    fn fourth_table_only_where_needed() {
        assert!(Utf8::RULES.byte_2_low.is_none());
        assert!(Cesu8::RULES.byte_2_low.is_none());
        assert!(Corrected::RULES.byte_2_low.is_none());
        assert_eq!(Mutf8::RULES.byte_2_low.map(|t| t[0] & (1 << 6)), Some(0));
        assert_eq!(Rfc2279::RULES.byte_2_low.map(|t| t[8] & (1 << 3)), Some(0));
        assert_eq!(
            Rfc2279::RULES.byte_2_low.map(|t| t[3] & (1 << 6)),
            Some(1 << 6)
        );
    }
}

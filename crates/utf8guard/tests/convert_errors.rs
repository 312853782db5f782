//! The extent of a `Converter`'s errors (`ConvertError::error_len`), the
//! order of reading and writing errors
//! (`Converter::with_reading_errors_first`) and the byte order read from
//! a byte order mark (`Converter::input_byte_order`): exact values, as
//! CPython's codecs report them where CPython has the codec.

use utf8guard::{
    ByteOrder, ConvertError, ConvertErrorKind, Converter, Dialect, EncodeError, Encoding,
    ErrorKind, Policy, SingleByte,
};

const UTF8: Encoding = Encoding::Family(Dialect::Utf8);
const WTF8: Encoding = Encoding::Family(Dialect::Wtf8);
const CESU8: Encoding = Encoding::Family(Dialect::Cesu8);
const UTF16LE: Encoding = Encoding::Utf16(ByteOrder::Little);
const UTF16BE: Encoding = Encoding::Utf16(ByteOrder::Big);
const UTF32LE: Encoding = Encoding::Utf32(ByteOrder::Little);
const LATIN1: Encoding = Encoding::Single(SingleByte::Latin1);
const CP1252: Encoding = Encoding::Single(SingleByte::Windows1252);

/// The error of converting `input` whole, strictly.
fn error(from: Encoding, to: Encoding, input: &[u8], reading_first: bool) -> ConvertError {
    let mut c = Converter::new(from, to, Policy::Strict).with_reading_errors_first(reading_first);
    c.convert_to_vec(input, &mut Vec::new(), true)
        .expect_err("an error")
}

/// Offset, kind and length of that error.
fn fields(
    from: Encoding,
    to: Encoding,
    input: &[u8],
    reading_first: bool,
) -> (usize, ConvertErrorKind, Option<usize>) {
    let e = error(from, to, input, reading_first);
    (e.offset(), e.kind(), e.error_len())
}

fn convert(
    from: Encoding,
    to: Encoding,
    policy: Policy,
    input: &[u8],
    reading_first: bool,
) -> Vec<u8> {
    let mut c = Converter::new(from, to, policy).with_reading_errors_first(reading_first);
    let mut out = Vec::new();
    c.convert_to_vec(input, &mut out, true).expect("no error");
    out
}

fn utf16le(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

#[test]
fn ill_formed_sequences_cover_their_maximal_subpart_or_run_to_the_end() {
    use ConvertErrorKind::Malformed;
    let err = |input: &[u8]| fields(UTF8, UTF16LE, input, false);
    assert_eq!(
        err(b"a\xFFb"),
        (1, Malformed(ErrorKind::InvalidByte), Some(1))
    );
    assert_eq!(
        err(b"a\xE2\x82b"),
        (1, Malformed(ErrorKind::TooShort), Some(2))
    );
    // Cut short by the end of the input: to its end.
    assert_eq!(
        err(b"ab\xE2\x82"),
        (2, Malformed(ErrorKind::Incomplete), None)
    );
    // Through the chain (to Latin-1) and within the family.
    assert_eq!(fields(UTF8, LATIN1, b"ab\xF0\x9F", false).2, None);
    assert_eq!(fields(UTF8, CESU8, b"a\xE2\x82b", false).2, Some(2));
}

#[test]
fn code_units_cover_their_bytes_and_pairs_cut_short_run_to_the_end() {
    let surrogate = ConvertErrorKind::Unencodable(EncodeError::Surrogate);
    let err = |input: &[u8]| fields(UTF16LE, UTF8, input, false);
    // A lone trail surrogate; a lead followed by no trail.
    assert_eq!(err(b"a\x00\x00\xDCb\x00"), (2, surrogate, Some(2)));
    assert_eq!(err(b"\x00\xD8a\x00"), (0, surrogate, Some(2)));
    // A lead that ends the input, with or without an odd byte after it:
    // a pair cut short.
    assert_eq!(err(b"a\x00\x00\xD8"), (2, surrogate, None));
    assert_eq!(err(b"\x00\xD8a"), (0, surrogate, None));
    // An odd byte alone.
    assert_eq!(
        err(b"a\x00b"),
        (2, ConvertErrorKind::TruncatedUnit(2), None)
    );
    // UTF-32: a unit that is no character is 4 bytes; a cut one runs to
    // the end.
    let err = |input: &[u8]| fields(UTF32LE, UTF8, input, false);
    assert_eq!(
        err(b"a\0\0\0\x00\xD8\x00\x00"),
        (4, ConvertErrorKind::NotACharacter(0xD800), Some(4))
    );
    assert_eq!(
        err(b"a\0\0\0b\0"),
        (4, ConvertErrorKind::TruncatedUnit(4), None)
    );
    // A lone surrogate of WTF-8 into UTF-8: its 3 bytes.
    assert_eq!(
        fields(WTF8, UTF8, b"ab\xED\xA0\x80", false),
        (2, surrogate, Some(3))
    );
}

#[test]
fn into_single_byte_encodings_an_error_covers_the_run_the_target_lacks() {
    let not = ConvertErrorKind::Unencodable(EncodeError::NotInCharset);
    // `€` (3 bytes) and `😀` (4): one run, up to `b`, as CPython's
    // UnicodeEncodeError has it.
    assert_eq!(
        fields(UTF8, LATIN1, "a€😀b".as_bytes(), false),
        (1, not, Some(7))
    );
    assert_eq!(
        fields(UTF8, LATIN1, "aĀb€".as_bytes(), false),
        (1, not, Some(2))
    );
    // Windows-1252 has `€`: the run is `Ā` alone.
    assert_eq!(
        fields(UTF8, CP1252, "a€Āb".as_bytes(), false),
        (4, not, Some(2))
    );
    // In bytes of the input: UTF-16 (a pair is 4 bytes) and CESU-8 (a
    // pair is 6 bytes).
    assert_eq!(
        fields(UTF16LE, LATIN1, &utf16le("a€😀b"), false),
        (2, not, Some(6))
    );
    let cesu8 = b"a\xED\xA0\xBD\xED\xB8\x80\xC3\xA9";
    assert_eq!(fields(CESU8, LATIN1, cesu8, false), (1, not, Some(6)));
}

#[test]
fn errors_compare_by_offset_and_kind() {
    // Cut after the `€`, the run is that piece's part of it; the error is
    // the same one.
    let input = "a€😀b".as_bytes();
    let mut c = Converter::new(UTF8, LATIN1, Policy::Strict);
    let mut out = Vec::new();
    let read = c.convert_to_vec(&input[..4], &mut out, false);
    let cut = read.map_or_else(Some, |read| {
        c.convert_to_vec(&input[read..], &mut out, true).err()
    });
    let cut = cut.expect("an error");
    let whole = error(UTF8, LATIN1, input, false);
    assert_eq!((cut.error_len(), whole.error_len()), (Some(3), Some(7)));
    assert_eq!(cut, whole);
}

#[test]
fn reading_errors_first_as_cpython_decodes_then_encodes() {
    let not = ConvertErrorKind::Unencodable(EncodeError::NotInCharset);
    let surrogate = ConvertErrorKind::Unencodable(EncodeError::Surrogate);
    let bad = ConvertErrorKind::Malformed(ErrorKind::InvalidByte);
    // UTF-8: `€` is not Latin-1, but the `FF` after it is ill formed.
    let input = b"\xE2\x82\xAC\xFF";
    assert_eq!(fields(UTF8, LATIN1, input, false), (0, not, Some(3)));
    assert_eq!(fields(UTF8, LATIN1, input, true), (3, bad, Some(1)));
    // Without a reading error, the writing error stands.
    assert_eq!(
        fields(UTF8, LATIN1, b"\xE2\x82\xACa", true),
        (0, not, Some(3))
    );
    // Through the chain: UTF-16 (the lone surrogate is a reading error)
    // and a member of the family (the ill-formed byte after a lone
    // surrogate, which UTF-32 cannot hold, is).
    let input = b"\xAC\x20\x00\xDC";
    assert_eq!(fields(UTF16LE, LATIN1, input, false), (0, not, Some(2)));
    assert_eq!(
        fields(UTF16LE, LATIN1, input, true),
        (2, surrogate, Some(2))
    );
    let input = b"a\xED\xA0\x80b\xFF";
    assert_eq!(fields(WTF8, UTF32LE, input, false), (1, surrogate, Some(3)));
    assert_eq!(fields(WTF8, UTF32LE, input, true), (5, bad, Some(1)));
}

#[test]
fn reading_errors_first_makes_lone_surrogates_of_utf16_errors_into_utf16() {
    let input = b"a\x00\x00\xD8b\x00";
    // Kept, as the target holds them.
    assert_eq!(
        convert(UTF16LE, UTF16BE, Policy::Strict, input, false),
        b"\x00a\xD8\x00\x00b"
    );
    // As CPython's UTF-16 decoder: an error, or U+FFFD.
    let surrogate = ConvertErrorKind::Unencodable(EncodeError::Surrogate);
    assert_eq!(
        fields(UTF16LE, UTF16BE, input, true),
        (2, surrogate, Some(2))
    );
    assert_eq!(
        convert(UTF16LE, UTF16BE, Policy::Replace, input, true),
        b"\x00a\xFF\xFD\x00b"
    );
    // The family's members that hold them keep them still.
    assert_eq!(
        convert(UTF16LE, WTF8, Policy::Strict, input, true),
        b"a\xED\xA0\x80b"
    );
}

#[test]
fn the_byte_order_of_the_input_once_read() {
    let order = |from: Encoding, input: &[u8]| {
        let mut c = Converter::new(from, UTF8, Policy::Strict);
        let before = c.input_byte_order();
        c.convert_to_vec(input, &mut Vec::new(), true)
            .expect("no error");
        (before, c.input_byte_order())
    };
    let utf16 = Encoding::Utf16(ByteOrder::Mark);
    let utf32 = Encoding::Utf32(ByteOrder::Mark);
    assert_eq!(order(utf16, b"\xFE\xFF\x00a"), (None, Some(ByteOrder::Big)));
    assert_eq!(
        order(utf16, b"\xFF\xFEa\x00"),
        (None, Some(ByteOrder::Little))
    );
    // No mark: little-endian, as CPython's `utf-16` and `utf-32`.
    assert_eq!(order(utf16, b"\x00a"), (None, Some(ByteOrder::Little)));
    assert_eq!(
        order(utf32, b"\x00\x00\xFE\xFF\x00\x00\x00a"),
        (None, Some(ByteOrder::Big))
    );
    assert_eq!(order(UTF16BE, b"\x00a"), (None, Some(ByteOrder::Big)));
    assert_eq!(order(LATIN1, b"a"), (None, None));
}

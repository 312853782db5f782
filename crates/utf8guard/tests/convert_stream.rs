//! The streaming [`Converter`] on every pair of encodings and both
//! policies: on well-formed text against a reference written from the
//! encodings' definitions (code points encoded one at a time), on
//! ill-formed input against the crate's one-shot conversions and the
//! standard library's lossy decoders, with exact bytes, error offsets and
//! replacement counts; fed whole, cut at every position, and cut at random.

use utf8guard::{
    single_byte_to_utf8, transcode, utf8_to_single_byte, ByteOrder, ConvertError, ConvertErrorKind,
    Converter, Dialect, EncodeError, Encoding, OptionError, Policy, SingleByte, Transcoder,
};

const POLICIES: [Policy; 2] = [Policy::Strict, Policy::Replace];

/// Every encoding the converter reads and writes.
fn encodings() -> Vec<Encoding> {
    let mut all: Vec<Encoding> = Dialect::ALL.iter().map(|&d| Encoding::Family(d)).collect();
    for order in [ByteOrder::Little, ByteOrder::Big, ByteOrder::Mark] {
        all.push(Encoding::Utf16(order));
        all.push(Encoding::Utf32(order));
    }
    all.push(Encoding::Single(SingleByte::Latin1));
    all.push(Encoding::Single(SingleByte::Windows1252));
    all
}

/// How a conversion ended: its output (before the error, if any), the
/// error, and what was replaced.
#[derive(Debug, PartialEq)]
struct Run {
    out: Vec<u8>,
    error: Option<ConvertError>,
    replacements: u64,
    first_replacement: Option<usize>,
}

/// `input` converted in pieces that end at `cuts` (ascending), each
/// unread tail given again with the next piece, as a reader of a stream
/// does.
fn run(from: Encoding, to: Encoding, policy: Policy, input: &[u8], cuts: &[usize]) -> Run {
    let mut c = Converter::new(from, to, policy);
    let mut out = Vec::new();
    let mut pending = Vec::new();
    let mut error = None;
    let mut start = 0;
    for (i, &end) in cuts.iter().chain([&input.len()]).enumerate() {
        pending.extend_from_slice(&input[start..end]);
        start = end;
        let last = i == cuts.len();
        match c.convert_to_vec(&pending, &mut out, last) {
            Ok(read) => {
                if last {
                    assert_eq!(read, pending.len(), "all read at the end");
                }
                pending.drain(..read);
            }
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    Run {
        out,
        error,
        replacements: c.replacements(),
        first_replacement: c.first_replacement(),
    }
}

/// `input` whole, then cut once at every position, then cut at random
/// places: the same run each time, which is returned.
fn same_in_any_pieces(
    from: Encoding,
    to: Encoding,
    policy: Policy,
    input: &[u8],
    rng: &mut Rng,
) -> Run {
    let whole = run(from, to, policy, input, &[]);
    let what = || format!("{} -> {} {policy:?} {input:02X?}", from.name(), to.name());
    for cut in 0..=input.len() {
        let split = run(from, to, policy, input, &[cut]);
        assert_eq!(split, whole, "cut at {cut}: {}", what());
    }
    for _ in 0..4 {
        let mut cuts: Vec<usize> = (0..1 + rng.below(6))
            .map(|_| rng.below(input.len() + 1))
            .collect();
        cuts.sort_unstable();
        assert_eq!(
            run(from, to, policy, input, &cuts),
            whole,
            "cuts {cuts:?}: {}",
            what()
        );
    }
    whole
}

/// A small xorshift generator: the same inputs on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Code points in `encoding`, one at a time from its definition; `None`
/// when it cannot hold one of them. UTF-16 and UTF-32 in the byte order
/// given (little-endian for `Mark`).
fn encode(encoding: Encoding, text: &[u32]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for &c in text {
        match encoding {
            Encoding::Family(d) => out.extend_from_slice(d.encode(c).ok()?.as_bytes()),
            Encoding::Utf16(order) => {
                let units = if c < 0x1_0000 {
                    vec![c as u16]
                } else {
                    let c = c - 0x1_0000;
                    vec![0xD800 | (c >> 10) as u16, 0xDC00 | (c & 0x3FF) as u16]
                };
                for u in units {
                    out.extend(if order == ByteOrder::Big {
                        u.to_be_bytes()
                    } else {
                        u.to_le_bytes()
                    });
                }
            }
            Encoding::Utf32(order) => {
                char::from_u32(c)?;
                out.extend(if order == ByteOrder::Big {
                    c.to_be_bytes()
                } else {
                    c.to_le_bytes()
                });
            }
            Encoding::Single(single) => out.push(single.encode(char::from_u32(c)?)?),
        }
    }
    Some(out)
}

/// The byte order mark written first: `utf-16` and `utf-32`'s.
fn mark(to: Encoding) -> &'static [u8] {
    match to {
        Encoding::Utf16(ByteOrder::Mark) => b"\xFF\xFE",
        Encoding::Utf32(ByteOrder::Mark) => b"\xFF\xFE\x00\x00",
        _ => b"",
    }
}

/// Texts of every width: ASCII, 2-, 3- and 4-byte characters (surrogate
/// pairs in UTF-16), lone surrogates (apart, so that none pairs), the
/// characters of Latin-1 and of Windows-1252; and nothing at all.
fn texts() -> Vec<Vec<u32>> {
    let lipsum = "Lorem ipsum dolor sit amet, consectetur adipiscing elit.";
    let wide = "Gr\u{FC}\u{DF}e, \u{3A9}\u{3BC}\u{3AD}\u{3B3}\u{3B1} \u{20AC}5 \
                \u{65E5}\u{672C}\u{8A9E} \u{1F600}\u{1D11E}\u{10FFFF}!";
    let latin = "Jos\u{E9} M\u{FC}ller, K\u{F6}ln \u{A0}\u{BF}\u{FF}";
    let cp1252 = "\u{20AC} \u{201C}quoted\u{201D} \u{2013} \u{153}uvre \u{2122}";
    let mut texts: Vec<Vec<u32>> = [lipsum, wide, latin, cp1252, ""]
        .iter()
        .map(|t| t.chars().map(u32::from).collect())
        .collect();
    texts.push(vec![0x61, 0xD800, 0x62, 0xDFFF, 0x1F600, 0xDBFF, 0x20AC]);
    texts
}

#[test]
fn well_formed_text_every_pair_in_any_pieces() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut pairs = 0;
    for from in encodings() {
        for to in encodings() {
            for text in texts() {
                let (Some(body), Some(expected)) = (encode(from, &text), encode(to, &text)) else {
                    continue;
                };
                let expected = [mark(to), &expected[..]].concat();
                // `utf-16` and `utf-32` read: without a mark (little-endian),
                // or with either.
                let mut inputs = vec![body];
                if let Encoding::Utf16(ByteOrder::Mark) | Encoding::Utf32(ByteOrder::Mark) = from {
                    let big = match from {
                        Encoding::Utf16(_) => Encoding::Utf16(ByteOrder::Big),
                        _ => Encoding::Utf32(ByteOrder::Big),
                    };
                    let le = [mark(from), &inputs[0][..]].concat();
                    let mut be_mark = mark(from).to_vec();
                    be_mark.reverse();
                    let be = [be_mark, encode(big, &text).unwrap()].concat();
                    inputs.extend([le, be]);
                }
                for input in &inputs {
                    for policy in POLICIES {
                        let got = same_in_any_pieces(from, to, policy, input, &mut rng);
                        let ok = Run {
                            out: expected.clone(),
                            error: None,
                            replacements: 0,
                            first_replacement: None,
                        };
                        assert_eq!(got, ok, "{} -> {} {input:02X?}", from.name(), to.name());
                    }
                }
                pairs += 1;
            }
        }
    }
    assert!(pairs > 15 * 15, "{pairs}");
}

/// Inputs made of the fragments where conversions differ: pairs and lone
/// surrogates in the family's forms and in UTF-16's, `C0 80`, 4-byte
/// forms, Corrected UTF-8's reserved runs and magic number, stray and cut
/// bytes, UTF-32 units above U+10FFFF, characters the single-byte
/// encodings lack.
fn soup(rng: &mut Rng, count: usize) -> Vec<Vec<u8>> {
    const BITS: [&[u8]; 20] = [
        b"a",
        b"\n",
        b"\x00",
        b"\xC3\xA9",
        b"\xE2\x82\xAC",
        b"\xF0\x9F\x98\x80",
        b"\xED\xA0\xBD",
        b"\xED\xB8\x80",
        b"\xC0\x80",
        b"\xC0\xAF",
        b"\xFE\x80\x80",
        b"\x80",
        b"\xF0\x9F",
        b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A",
        b"\x00\xD8",
        b"\x00\xDC",
        b"\x3D\xD8\x00\xDE",
        b"\x00\x00\x11\x00",
        b"\x00\xD8\x00\x00",
        b"\xFF\xFE",
    ];
    (0..count)
        .map(|_| {
            let len = rng.below(14);
            (0..len)
                .flat_map(|_| BITS[rng.below(BITS.len())].iter().copied())
                .collect()
        })
        .collect()
}

#[test]
fn ill_formed_input_every_pair_in_any_pieces() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let inputs = soup(&mut rng, 64);
    for input in &inputs {
        for from in encodings() {
            for to in encodings() {
                for policy in POLICIES {
                    let got = same_in_any_pieces(from, to, policy, input, &mut rng);
                    // A strict conversion replaces nothing; a replacing one
                    // stops at nothing.
                    match policy {
                        Policy::Strict => assert_eq!(got.replacements, 0),
                        _ => assert_eq!(got.error, None),
                    }
                    assert_eq!(got.replacements > 0, got.first_replacement.is_some());
                }
            }
        }
    }
}

#[test]
fn within_the_family_as_the_one_shot_transcoder() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for input in soup(&mut rng, 300) {
        for &from in Dialect::ALL {
            for &to in Dialect::ALL {
                for policy in POLICIES {
                    let (f, t) = (Encoding::Family(from), Encoding::Family(to));
                    let got = run(f, t, policy, &input, &[input.len() / 2]);
                    match transcode(from, to, &input, policy) {
                        Ok(whole) => assert_eq!(got.out, whole, "{from}->{to} {input:02X?}"),
                        Err(e) => assert_eq!(got.error, Some(e.into()), "{from}->{to}"),
                    }
                    let mut t = Transcoder::new(from, to, policy);
                    let _ = t.transcode_to_vec(&input, &mut Vec::new(), true);
                    let counts = (t.replacements(), t.first_replacement());
                    assert_eq!((got.replacements, got.first_replacement), counts);
                }
            }
        }
    }
}

/// UTF-16 units (little-endian) as bytes.
fn utf16le(units: &[u16]) -> Vec<u8> {
    units.iter().flat_map(|u| u.to_le_bytes()).collect()
}

#[test]
fn utf8_to_utf16_and_utf32_as_the_standard_library() {
    let mut rng = Rng(0x5851_F42D_4C95_7F2D);
    let (utf8, utf16, utf32) = (
        Encoding::Family(Dialect::Utf8),
        Encoding::Utf16(ByteOrder::Little),
        Encoding::Utf32(ByteOrder::Little),
    );
    for input in soup(&mut rng, 300) {
        let lossy = String::from_utf8_lossy(&input);
        let replaced = lossy.matches('\u{FFFD}').count() as u64;
        let first_error = std::str::from_utf8(&input).err();
        let first = first_error.map(|e| e.valid_up_to());
        let wide = [
            (utf16, utf16le(&lossy.encode_utf16().collect::<Vec<_>>())),
            (
                utf32,
                lossy
                    .chars()
                    .flat_map(|c| u32::from(c).to_le_bytes())
                    .collect(),
            ),
        ];
        for (to, expected) in wide {
            let got = run(utf8, to, Policy::Replace, &input, &[input.len() / 3]);
            assert_eq!(got.out, expected, "{input:02X?}");
            assert_eq!((got.replacements, got.first_replacement), (replaced, first));
            let got = run(utf8, to, Policy::Strict, &input, &[]);
            assert_eq!(got.error.map(|e| e.offset()), first, "{input:02X?}");
            if let Some(e) = got.error {
                assert!(matches!(e.kind(), ConvertErrorKind::Malformed(_)));
            }
        }
    }
}

#[test]
fn utf16_and_utf32_to_utf8_as_the_standard_library() {
    let mut rng = Rng(0x2127_599B_F432_5C37);
    let utf8 = Encoding::Family(Dialect::Utf8);
    for input in soup(&mut rng, 300) {
        // UTF-16: one U+FFFD per lone surrogate, the odd byte one more (or
        // one with a lead surrogate just before it).
        let units: Vec<u16> = input
            .chunks_exact(2)
            .map(|p| u16::from_le_bytes([p[0], p[1]]))
            .collect();
        let mut expected = String::from_utf16_lossy(&units);
        let mut first = char::decode_utf16(units.iter().copied())
            .scan(0, |at, c| {
                let here = *at;
                *at += 2 * c.as_ref().map_or(1, |c| c.len_utf16());
                Some((here, c.is_err()))
            })
            .find(|&(_, bad)| bad)
            .map(|(at, _)| at);
        let mut count = expected.matches('\u{FFFD}').count() as u64;
        let mut error = first.map(|at| (at, ConvertErrorKind::Unencodable(EncodeError::Surrogate)));
        if input.len() % 2 == 1 {
            let lead_last = units.last().is_some_and(|u| (0xD800..0xDC00).contains(u));
            if !lead_last {
                expected.push('\u{FFFD}');
                count += 1;
                let at = input.len() - 1;
                first.get_or_insert(at);
                error.get_or_insert((at, ConvertErrorKind::TruncatedUnit(2)));
            }
        }
        let from = Encoding::Utf16(ByteOrder::Little);
        let got = run(from, utf8, Policy::Replace, &input, &[input.len() / 2]);
        assert_eq!(got.out, expected.as_bytes(), "{input:02X?}");
        assert_eq!((got.replacements, got.first_replacement), (count, first));
        let got = run(from, utf8, Policy::Strict, &input, &[]);
        assert_eq!(got.error.map(|e| (e.offset(), e.kind())), error);

        // UTF-32: one U+FFFD per unit that is no character, and for 1 to
        // 3 bytes at the end.
        let mut expected = String::new();
        let mut bad = Vec::new();
        for (i, q) in input.chunks_exact(4).enumerate() {
            let unit = u32::from_le_bytes([q[0], q[1], q[2], q[3]]);
            expected.push(char::from_u32(unit).unwrap_or_else(|| {
                bad.push((4 * i, ConvertErrorKind::NotACharacter(unit)));
                '\u{FFFD}'
            }));
        }
        if input.len() % 4 != 0 {
            expected.push('\u{FFFD}');
            bad.push((input.len() / 4 * 4, ConvertErrorKind::TruncatedUnit(4)));
        }
        let from = Encoding::Utf32(ByteOrder::Little);
        let got = run(from, utf8, Policy::Replace, &input, &[input.len() / 2]);
        assert_eq!(got.out, expected.as_bytes(), "{input:02X?}");
        let first = bad.first().map(|&(at, _)| at);
        assert_eq!(
            (got.replacements, got.first_replacement),
            (bad.len() as u64, first)
        );
        let got = run(from, utf8, Policy::Strict, &input, &[]);
        assert_eq!(
            got.error.map(|e| (e.offset(), e.kind())),
            bad.first().copied()
        );
    }
}

#[test]
fn single_byte_encodings_as_the_one_shot_conversions() {
    let mut rng = Rng(0x94D0_49BB_1331_11EB);
    let utf8 = Encoding::Family(Dialect::Utf8);
    let every_byte: Vec<u8> = (0..=255).collect();
    for single in [SingleByte::Latin1, SingleByte::Windows1252] {
        let enc = Encoding::Single(single);
        let mut expected = Vec::new();
        single_byte_to_utf8(single, &every_byte, &mut expected);
        let got = same_in_any_pieces(enc, utf8, Policy::Strict, &every_byte, &mut rng);
        assert_eq!(got.out, expected);
        for input in soup(&mut rng, 200) {
            for policy in POLICIES {
                let got = run(utf8, enc, policy, &input, &[input.len() / 2]);
                let mut expected = Vec::new();
                match utf8_to_single_byte(single, &input, policy, &mut expected) {
                    Ok(()) => assert_eq!(got.out, expected, "{input:02X?}"),
                    Err(e) => assert_eq!(got.error, Some(e.into()), "{input:02X?}"),
                }
            }
        }
    }
}

#[test]
fn errors_in_a_chain_are_at_their_offset_in_the_input() {
    let latin1 = Encoding::Single(SingleByte::Latin1);
    let cases: [(Encoding, &[u8], usize, ConvertErrorKind); 5] = [
        // After a byte order mark: offsets count it.
        (
            Encoding::Utf16(ByteOrder::Mark),
            b"\xFE\xFF\x00a\x20\xAC",
            4,
            ConvertErrorKind::Unencodable(EncodeError::NotInCharset),
        ),
        (
            Encoding::Utf32(ByteOrder::Mark),
            b"\xFF\xFE\x00\x00a\x00\x00\x00\x00\xD8\x00\x00",
            8,
            ConvertErrorKind::NotACharacter(0xD800),
        ),
        // A supplementary character: CESU-8's 6 bytes, after a 2-byte one.
        (
            Encoding::Family(Dialect::Cesu8),
            b"\xC3\xA9\xED\xA0\xBD\xED\xB8\x80",
            2,
            ConvertErrorKind::Unencodable(EncodeError::NotInCharset),
        ),
        (
            Encoding::Utf16(ByteOrder::Little),
            b"a\x00\x00\xDCb\x00",
            2,
            ConvertErrorKind::Unencodable(EncodeError::Surrogate),
        ),
        (
            Encoding::Family(Dialect::Mutf8),
            b"\xC0\x80\xFFx",
            2,
            ConvertErrorKind::Malformed(utf8guard::ErrorKind::InvalidByte),
        ),
    ];
    for (from, input, at, kind) in cases {
        let got = run(from, latin1, Policy::Strict, input, &[]);
        let error = got.error.map(|e| (e.offset(), e.kind()));
        assert_eq!(error, Some((at, kind)), "{}", from.name());
        let got = run(from, latin1, Policy::Replace, input, &[]);
        assert_eq!(got.first_replacement, Some(at), "{}", from.name());
    }
}

#[test]
fn byte_order_marks_and_the_magic_number() {
    let utf8 = Encoding::Family(Dialect::Utf8);
    let corrected = Encoding::Family(Dialect::Corrected);
    let convert = |c: Converter, input: &[u8]| {
        let mut c = c;
        let mut out = Vec::new();
        c.convert_to_vec(input, &mut out, true).unwrap();
        out
    };
    let with_bom = |to| {
        Converter::new(utf8, to, Policy::Strict)
            .with_byte_order_mark(true)
            .unwrap()
    };
    assert_eq!(convert(with_bom(utf8), b"a"), b"\xEF\xBB\xBFa");
    let utf16be = Encoding::Utf16(ByteOrder::Big);
    assert_eq!(convert(with_bom(utf16be), b"a"), b"\xFE\xFF\x00a");
    // Written once, even for an empty input.
    let utf32 = Encoding::Utf32(ByteOrder::Mark);
    assert_eq!(convert(with_bom(utf32), b""), b"\xFF\xFE\x00\x00");
    // Read and dropped once; a second U+FEFF is text.
    let from = Encoding::Utf16(ByteOrder::Mark);
    let c = Converter::new(from, utf8, Policy::Strict);
    assert_eq!(convert(c, b"\xFE\xFF\xFE\xFF\x00a"), "\u{FEFF}a".as_bytes());
    // The magic number, out of UTF-16 and within the family.
    let magic = b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A";
    for from in [Encoding::Utf16(ByteOrder::Little), utf8] {
        let c = Converter::new(from, corrected, Policy::Strict)
            .with_magic_number(true)
            .unwrap();
        let input = encode(from, &[0x61]).unwrap();
        assert_eq!(convert(c, &input), [&magic[..], b"a"].concat());
    }
    let refused = Converter::new(utf8, utf16be, Policy::Strict).with_magic_number(true);
    assert_eq!(refused.err(), Some(OptionError::NoMagicNumber));
    for to in [corrected, Encoding::Single(SingleByte::Latin1)] {
        let refused = Converter::new(utf8, to, Policy::Strict).with_byte_order_mark(true);
        assert_eq!(refused.err(), Some(OptionError::NoByteOrderMark));
    }
}

#[test]
fn names_round_trip() {
    for encoding in encodings() {
        assert_eq!(Encoding::from_name(encoding.name()), Some(encoding));
        let upper = encoding.name().to_ascii_uppercase();
        assert_eq!(Encoding::from_name(&upper), Some(encoding));
    }
    assert_eq!(
        Encoding::from_name("utf16le"),
        Some(Encoding::Utf16(ByteOrder::Little))
    );
    assert_eq!(Encoding::from_name("utf-7"), None);
}

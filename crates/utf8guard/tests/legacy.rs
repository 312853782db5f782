//! The single-byte encodings (Latin-1, Windows-1252), UTF-32 and the length
//! functions: every byte and every code point against tables built here,
//! random and broken input against CPython's codecs (skipped where
//! `python3` is absent), the `_into` forms against the one-shot forms at
//! every buffer size and every cut, and the lengths against the output of
//! the conversions.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

use utf8guard::{
    single_byte_to_utf8, single_byte_to_utf8_into, utf16_len_from_utf8, utf16_to_wtf8,
    utf32_len_from_utf8, utf32_to_utf8, utf32_to_utf8_into, utf8_len_from_single_byte,
    utf8_len_from_utf16, utf8_to_single_byte, utf8_to_single_byte_into, utf8_to_utf32,
    utf8_to_utf32_into, Cause, EncodeError, Kernel, Policy, Progress, SingleByte, Status,
};

const ENCODINGS: [SingleByte; 2] = [SingleByte::Latin1, SingleByte::Windows1252];
const POLICIES: [Policy; 2] = [Policy::Strict, Policy::Replace];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Runs `python3 -c script` with `stdin`; `None` (with a message) where
/// there is no `python3`.
fn python(script: &str, stdin: &[u8]) -> Option<Vec<u8>> {
    let child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("skipping the comparison with CPython: no python3");
        return None;
    };
    // Written from another thread: the output may fill its pipe before
    // the input is all read.
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&stdin));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "python3 failed");
    Some(out.stdout)
}

/// `single_byte_to_utf8_into` with the vector steps of `kernel` (which
/// this CPU has), whatever kernel the dispatcher chose.
fn into_utf8_with(
    kernel: Kernel,
    encoding: SingleByte,
    input: &[u8],
    output: &mut [u8],
) -> Progress {
    utf8guard::__bench::single_byte_to_utf8_into_with(kernel, encoding, input, output)
        .expect("an available kernel")
}

/// `utf8_to_single_byte_into` with the vector steps of `kernel`, as
/// [`into_utf8_with`].
fn from_utf8_with(
    kernel: Kernel,
    encoding: SingleByte,
    input: &[u8],
    policy: Policy,
    output: &mut [u8],
    last: bool,
) -> Progress {
    utf8guard::__bench::utf8_to_single_byte_into_with(kernel, encoding, input, policy, output, last)
        .expect("an available kernel")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The five bytes Microsoft's Windows-1252 leaves unassigned, which the
/// WHATWG index maps to the C1 controls of their value.
const UNASSIGNED: [u8; 5] = [0x81, 0x8D, 0x8F, 0x90, 0x9D];

/// CPython's `cp1252` with the five unassigned bytes as the WHATWG index
/// has them: error handlers for decoding and encoding, registered as `c1`
/// and `c1replace` (the latter writes `?` for the characters it lacks).
const PY_C1: &str = r#"
import codecs, sys
C1 = {0x81, 0x8D, 0x8F, 0x90, 0x9D}
def c1(e):
    if isinstance(e, UnicodeDecodeError):
        b = e.object[e.start]
        if b in C1:
            return (chr(b), e.start + 1)
        raise e
    c = e.object[e.start]
    if ord(c) in C1:
        return (bytes([ord(c)]), e.start + 1)
    raise e
def c1replace(e):
    out = b''.join(bytes([ord(c)]) if ord(c) in C1 else b'?' for c in e.object[e.start:e.end])
    return (out, e.end)
codecs.register_error('c1', c1)
codecs.register_error('c1replace', c1replace)
"#;

/// The characters of the 256 bytes of `encoding`, from the crate's table.
fn table(encoding: SingleByte) -> Vec<char> {
    (0..=255u8).map(|b| encoding.decode(b)).collect()
}

#[test]
fn every_byte_decodes_to_its_character() {
    for encoding in ENCODINGS {
        let bytes: Vec<u8> = (0..=255).collect();
        let mut out = Vec::new();
        single_byte_to_utf8(encoding, &bytes, &mut out);
        let expected: String = table(encoding).into_iter().collect();
        assert_eq!(String::from_utf8(out).unwrap(), expected, "{encoding:?}");
        assert_eq!(utf8_len_from_single_byte(encoding, &bytes), expected.len());
        for b in 0..=255u8 {
            let mut one = Vec::new();
            single_byte_to_utf8(encoding, &[b], &mut one);
            assert_eq!(one, encoding.decode(b).to_string().as_bytes());
            assert_eq!(utf8_len_from_single_byte(encoding, &[b]), one.len());
        }
    }
    // Latin-1: byte b is U+00b.
    for b in 0..=255u8 {
        assert_eq!(u32::from(SingleByte::Latin1.decode(b)), u32::from(b));
    }
    // Windows-1252: Latin-1 outside 80..9F, and the five unassigned bytes.
    for b in (0..=255u8).filter(|b| !(0x80..0xA0).contains(b) || UNASSIGNED.contains(b)) {
        assert_eq!(u32::from(SingleByte::Windows1252.decode(b)), u32::from(b));
    }
    assert_eq!(SingleByte::Windows1252.decode(0x80), '€');
}

/// Text of every density of bytes above `7F` (none, a few, half, all),
/// Windows-1252's `80`..`9F` among them or not, at every length up to 80:
/// the conversion (whose blocks of 16 may be expanded at once) is each
/// byte's character, one after the other.
#[test]
fn blocks_of_every_density_decode_byte_by_byte() {
    let mut rng = Rng(0x5EED_1252);
    for encoding in ENCODINGS {
        let table = table(encoding);
        for density in [0, 2, 8, 15, 16] {
            for c1 in [false, true] {
                for len in 0..80 {
                    let input: Vec<u8> = (0..len)
                        .map(|_| {
                            if rng.below(16) < density {
                                let low = if c1 { 0x80 } else { 0xA0 };
                                (low + rng.below(0x100 - low)) as u8
                            } else {
                                b'a' + rng.below(26) as u8
                            }
                        })
                        .collect();
                    let want: String = input.iter().map(|&b| table[usize::from(b)]).collect();
                    let mut got = Vec::new();
                    single_byte_to_utf8(encoding, &input, &mut got);
                    assert_eq!(got, want.as_bytes(), "{encoding:?} on {input:02X?}");
                }
            }
        }
    }
}

#[test]
fn windows_1252_is_cpython_cp1252_with_the_c1_controls() {
    let script = format!(
        "{PY_C1}\nsys.stdout.buffer.write(bytes(range(256)).decode('cp1252', errors='c1').encode('utf-8'))"
    );
    let Some(expected) = python(&script, b"") else {
        return;
    };
    let expected = String::from_utf8(expected).unwrap();
    let ours: String = table(SingleByte::Windows1252).into_iter().collect();
    assert_eq!(ours, expected);
    let mut out = Vec::new();
    single_byte_to_utf8(
        SingleByte::Windows1252,
        &(0..=255).collect::<Vec<u8>>(),
        &mut out,
    );
    assert_eq!(out, expected.as_bytes());
}

#[test]
fn names() {
    for (name, encoding) in [
        ("latin-1", SingleByte::Latin1),
        ("LATIN1", SingleByte::Latin1),
        ("iso-8859-1", SingleByte::Latin1),
        ("ISO8859-1", SingleByte::Latin1),
        ("windows-1252", SingleByte::Windows1252),
        ("Windows-1252", SingleByte::Windows1252),
        ("cp1252", SingleByte::Windows1252),
        ("CP1252", SingleByte::Windows1252),
    ] {
        assert_eq!(SingleByte::from_name(name), Some(encoding), "{name}");
    }
    for name in ["latin-2", "utf-8", "", "cp-1252", "windows1252x"] {
        assert_eq!(SingleByte::from_name(name), None, "{name}");
    }
    for encoding in ENCODINGS {
        assert_eq!(SingleByte::from_name(encoding.name()), Some(encoding));
    }
}

/// Every code point but the surrogates, one at a time in UTF-8 and all in
/// one text, into both encodings with both policies: against the inverse
/// of the decoding table.
#[test]
fn every_code_point_into_single_byte() {
    // Under emulation (scripts/test.sh sets `UTF8GUARD_TEST_EMULATED` for
    // the qemu runs), a sample of the code points: the code is the same on
    // every target, and all of them take minutes there.
    let stride = if std::env::var_os("UTF8GUARD_TEST_EMULATED").is_some() {
        61
    } else {
        1
    };
    for encoding in ENCODINGS {
        let pairs: HashMap<char, u8> = (0..=255u8).map(|b| (encoding.decode(b), b)).collect();
        assert_eq!(pairs.len(), 256, "{encoding:?} decodes two bytes alike");
        // By code point: faster to look up than the map, a million times.
        let mut by_code_point = vec![None; 0x11_0000];
        for (&c, &b) in &pairs {
            by_code_point[c as usize] = Some(b);
        }
        let inverse = |c: &char| by_code_point[*c as usize].as_ref();
        let mut all = Vec::new();
        let mut all_replaced = Vec::new();
        let mut out = Vec::new();
        let sample = (0..0x100).chain((0x100..=0x10_FFFF).step_by(stride));
        for c in sample.filter_map(char::from_u32) {
            let mut buf = [0u8; 4];
            let utf8 = c.encode_utf8(&mut buf).as_bytes();
            all.extend_from_slice(utf8);
            all_replaced.push(inverse(&c).copied().unwrap_or(b'?'));
            assert_eq!(encoding.encode(c), inverse(&c).copied());
            out.clear();
            let result = utf8_to_single_byte(encoding, utf8, Policy::Strict, &mut out);
            match inverse(&c) {
                Some(&b) => assert_eq!((result, &out[..]), (Ok(()), &[b][..])),
                None => {
                    let e = result.unwrap_err();
                    assert_eq!(
                        (e.offset(), e.error_len(), e.cause()),
                        (
                            0,
                            Some(utf8.len()),
                            Cause::Unencodable(EncodeError::NotInCharset)
                        ),
                        "{c:?}"
                    );
                    assert!(out.is_empty());
                }
            }
            out.clear();
            utf8_to_single_byte(encoding, utf8, Policy::Replace, &mut out).unwrap();
            assert_eq!(out, [inverse(&c).copied().unwrap_or(b'?')], "{c:?}");
        }
        out.clear();
        utf8_to_single_byte(encoding, &all, Policy::Replace, &mut out).unwrap();
        assert!(
            out == all_replaced,
            "{encoding:?}: all code points, replaced"
        );
        // Strict on the whole text: the first character it lacks is U+0080
        // (Windows-1252) or U+0100 (Latin-1).
        out.clear();
        let e = utf8_to_single_byte(encoding, &all, Policy::Strict, &mut out).unwrap_err();
        let first = match encoding {
            SingleByte::Latin1 => 0x100,
            SingleByte::Windows1252 => 0x80,
        };
        assert_eq!(e.offset(), "\u{0}".repeat(0x80).len() + 2 * (first - 0x80));
        assert_eq!(out, all_replaced[..first]);
    }
}

/// A random input for the comparisons: characters of every length and of
/// both encodings, and the ill-formed sequences of every kind.
fn random_utf8(rng: &mut Rng, len: usize) -> Vec<u8> {
    const PIECES: &[&[u8]] = &[
        b"a",
        b"Z ",
        "é".as_bytes(),
        "ß".as_bytes(),
        "ÿ".as_bytes(),
        "\u{80}".as_bytes(),
        "\u{81}".as_bytes(),
        "\u{9D}".as_bytes(),
        "\u{9F}".as_bytes(),
        "€".as_bytes(),
        "“”".as_bytes(),
        "Ÿ".as_bytes(),
        "ƒ".as_bytes(),
        "Ā".as_bytes(),
        "字".as_bytes(),
        "😀".as_bytes(),
        "\u{10FFFF}".as_bytes(),
        b"\xED\xA0\x80",
        b"\xED\xBF\xBF",
        b"\xC0\xAF",
        b"\xC1\xBF",
        b"\xE0\x80\xAF",
        b"\xF0\x80\x80\x80",
        b"\xF4\x90\x80\x80",
        b"\xE2\x82",
        b"\xF0\x9F\x98",
        b"\xF0\x9F",
        b"\xC3",
        b"\x80",
        b"\xBF",
        b"\xF5",
        b"\xF8\x88\x80\x80\x80",
        b"\xFE",
        b"\xFF",
    ];
    let mut out = Vec::new();
    while out.len() < len {
        // Mostly valid text, now and then a broken piece.
        let piece = if rng.below(4) == 0 {
            PIECES[rng.below(PIECES.len())]
        } else {
            PIECES[rng.below(17)]
        };
        out.extend_from_slice(piece);
    }
    // And a mutation: a byte overwritten, or the end cut.
    match rng.below(3) {
        0 if !out.is_empty() => {
            let at = rng.below(out.len());
            out[at] = rng.next() as u8;
        }
        1 if !out.is_empty() => out.truncate(rng.below(out.len())),
        _ => {}
    }
    out
}

fn random_inputs(count: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..count)
        .map(|k| {
            let len = rng.below(if k % 10 == 0 { 300 } else { 24 });
            random_utf8(&mut rng, len)
        })
        .collect()
}

/// What a strict conversion gives, as CPython's script prints it: the
/// output, or where the first error is and how long.
fn strict_line<T>(
    result: Result<(), utf8guard::TranscodeError>,
    out: &[T],
    show: impl Fn(&[T]) -> String,
) -> String {
    match result {
        Ok(()) => format!("O {}", show(out)),
        Err(e) => match e.cause() {
            Cause::Malformed(_) => format!("D {}", e.offset()),
            Cause::Unencodable(_) => format!("E {} {}", e.offset(), e.error_len().unwrap()),
            cause => panic!("{cause:?}"),
        },
    }
}

/// UTF-8 into both encodings and into UTF-32 against CPython: the first
/// error (a decoding error's `start`, or an encoding error's, as a byte
/// offset, whichever comes first) in strict mode, and the bytes with
/// replacement (`decode('utf-8', 'replace')`, then `encode(..., 'replace')`,
/// which writes `?` for U+FFFD too).
#[test]
fn utf8_into_single_byte_and_utf32_against_cpython() {
    let inputs = random_inputs(3000);
    let script = format!(
        r#"{PY_C1}
def strict(b, enc, errors):
    try:
        b.decode('utf-8')
        end = len(b)
        decode_error = None
    except UnicodeDecodeError as e:
        end = e.start
        decode_error = e.start
    text = b[:end].decode('utf-8')
    try:
        out = text.encode(enc, errors)
    except UnicodeEncodeError as e:
        return 'E %d %d' % (len(text[:e.start].encode('utf-8')), len(text[e.start].encode('utf-8')))
    if decode_error is not None:
        return 'D %d' % decode_error
    return 'O ' + out.hex()
for line in sys.stdin:
    b = bytes.fromhex(line.strip())
    text = b.decode('utf-8', 'replace')
    print(strict(b, 'latin-1', 'strict'))
    print(text.encode('latin-1', 'replace').hex())
    print(strict(b, 'cp1252', 'c1'))
    print(text.encode('cp1252', 'c1replace').hex())
    print(strict(b, 'utf-32-le', 'strict'))
    print(text.encode('utf-32-le').hex())
"#
    );
    let stdin: String = inputs.iter().map(|b| hex(b) + "\n").collect();
    let Some(expected) = python(&script, stdin.as_bytes()) else {
        return;
    };
    let expected = String::from_utf8(expected).unwrap();
    let mut lines = expected.lines();
    let le32 = |units: &[u32]| {
        hex(&units
            .iter()
            .flat_map(|u| u.to_le_bytes())
            .collect::<Vec<u8>>())
    };
    for input in &inputs {
        for encoding in ENCODINGS {
            let mut out = Vec::new();
            let result = utf8_to_single_byte(encoding, input, Policy::Strict, &mut out);
            let ours = strict_line(result, &out, hex);
            let strict = lines.next().unwrap();
            assert_eq!(ours, strict, "{encoding:?} strict, {input:02X?}");
            out.clear();
            utf8_to_single_byte(encoding, input, Policy::Replace, &mut out).unwrap();
            let replaced = lines.next().unwrap();
            assert_eq!(hex(&out), replaced, "{encoding:?} replace, {input:02X?}");
            // Every kernel's vector steps, in this one process.
            for kernel in Kernel::available() {
                let mut buf = vec![0u8; input.len()];
                let p = from_utf8_with(kernel, encoding, input, Policy::Strict, &mut buf, true);
                let ours = strict_line(p.result.map(drop), &buf[..p.written], hex);
                assert_eq!(ours, strict, "{kernel}: {encoding:?} strict, {input:02X?}");
                let p = from_utf8_with(kernel, encoding, input, Policy::Replace, &mut buf, true);
                assert_eq!(p.result, Ok(Status::InputEmpty));
                assert_eq!(
                    hex(&buf[..p.written]),
                    replaced,
                    "{kernel}: {encoding:?} replace, {input:02X?}"
                );
            }
        }
        let mut units = Vec::new();
        let result = utf8_to_utf32(input, Policy::Strict, &mut units);
        let ours = strict_line(result, &units, le32);
        assert_eq!(ours, lines.next().unwrap(), "UTF-32 strict, {input:02X?}");
        units.clear();
        utf8_to_utf32(input, Policy::Replace, &mut units).unwrap();
        assert_eq!(
            le32(&units),
            lines.next().unwrap(),
            "UTF-32 replace, {input:02X?}"
        );
        // And the errors are std's.
        if let Err(e) = std::str::from_utf8(input) {
            let mut out = Vec::new();
            let ours = utf8_to_utf32(input, Policy::Strict, &mut units).unwrap_err();
            assert_eq!(
                (ours.offset(), ours.error_len()),
                (e.valid_up_to(), e.error_len())
            );
            let ours =
                utf8_to_single_byte(SingleByte::Windows1252, input, Policy::Strict, &mut out);
            if let Err(ours) = ours {
                if let Cause::Malformed(_) = ours.cause() {
                    assert_eq!(
                        (ours.offset(), ours.error_len()),
                        (e.valid_up_to(), e.error_len())
                    );
                }
            }
        }
    }
    assert_eq!(lines.next(), None);
}

/// Random UTF-32 units (scalar values, surrogates, values above U+10FFFF
/// up to `FFFFFFFF`).
fn random_units(rng: &mut Rng, len: usize) -> Vec<u32> {
    (0..len)
        .map(|_| match rng.below(8) {
            0..=2 => rng.below(0x80) as u32,
            3 => rng.below(0x800) as u32,
            4 => rng.below(0x1_0000) as u32,
            5 => 0xD800 + rng.below(0x800) as u32,
            6 => rng.below(0x11_0000) as u32,
            _ => match rng.below(3) {
                0 => 0x11_0000,
                1 => 0x11_0000 + rng.below(1 << 20) as u32,
                _ => rng.next() as u32,
            },
        })
        .collect()
}

/// UTF-32 into UTF-8 against CPython's `utf-32-le` decoder, which rejects
/// surrogates and values above U+10FFFF one unit at a time as the Unicode
/// standard does (one U+FFFD each with `replace`; the error's `start` is
/// the unit's byte offset): exact equality, no divergence.
#[test]
fn utf32_into_utf8_against_cpython() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let inputs: Vec<Vec<u32>> = (0..3000)
        .map(|k| {
            let len = rng.below(if k % 10 == 0 { 200 } else { 12 });
            random_units(&mut rng, len)
        })
        .collect();
    let script = r#"
import sys
for line in sys.stdin:
    b = bytes.fromhex(line.strip())
    try:
        print('O ' + b.decode('utf-32-le').encode('utf-8').hex())
    except UnicodeDecodeError as e:
        print('E %d %d' % (e.start // 4, (e.end - e.start) // 4))
    print(b.decode('utf-32-le', 'replace').encode('utf-8').hex())
"#;
    let stdin: String = inputs
        .iter()
        .map(|units| {
            hex(&units
                .iter()
                .flat_map(|u| u.to_le_bytes())
                .collect::<Vec<u8>>())
                + "\n"
        })
        .collect();
    let Some(expected) = python(script, stdin.as_bytes()) else {
        return;
    };
    let expected = String::from_utf8(expected).unwrap();
    let mut lines = expected.lines();
    for input in &inputs {
        let mut out = Vec::new();
        let result = utf32_to_utf8(input, Policy::Strict, &mut out);
        let ours = strict_line(result, &out, hex);
        assert_eq!(ours, lines.next().unwrap(), "strict, {input:X?}");
        if let Err(e) = result {
            let why = if input[e.offset()] > 0x10_FFFF {
                EncodeError::TooLarge
            } else {
                EncodeError::Surrogate
            };
            assert_eq!(e.cause(), Cause::Unencodable(why));
        }
        out.clear();
        utf32_to_utf8(input, Policy::Replace, &mut out).unwrap();
        assert_eq!(hex(&out), lines.next().unwrap(), "replace, {input:X?}");
        // The expected bytes of both policies, from std.
        let replaced: String = input
            .iter()
            .map(|&u| char::from_u32(u).unwrap_or('\u{FFFD}'))
            .collect();
        assert_eq!(out, replaced.as_bytes());
    }
    assert_eq!(lines.next(), None);
}

/// Every code point through UTF-32 and back.
#[test]
fn every_code_point_through_utf32() {
    let text: String = (0..=0x10_FFFF).filter_map(char::from_u32).collect();
    let mut units = Vec::new();
    utf8_to_utf32(text.as_bytes(), Policy::Strict, &mut units).unwrap();
    assert!(units.iter().copied().eq(text.chars().map(u32::from)));
    assert_eq!(utf32_len_from_utf8(text.as_bytes()), units.len());
    let mut back = Vec::new();
    utf32_to_utf8(&units, Policy::Strict, &mut back).unwrap();
    assert!(back == text.as_bytes());
}

/// Every scalar value of the Basic Multilingual Plane, and some beyond it,
/// into UTF-8 at every lane of the vector steps (shifted by 0 to 15 units),
/// in an order that mixes their lengths, against std's encoding.
#[test]
fn every_bmp_value_at_every_lane_into_utf8() {
    let scalars: Vec<char> = (0..=0x1_0FFF).filter_map(char::from_u32).collect();
    // A stride coprime to the count visits each once, lengths mixed.
    let n = scalars.len();
    let mixed: Vec<char> = (0..n).map(|k| scalars[k * 7919 % n]).collect();
    let mut sorted = mixed.clone();
    sorted.sort_unstable();
    assert!(sorted == scalars, "the stride visits every value once");
    let text: String = mixed.iter().collect();
    for shift in 0..16 {
        let mut units = vec![u32::from(b'a'); shift];
        units.extend(mixed.iter().map(|&c| u32::from(c)));
        let mut got = Vec::new();
        utf32_to_utf8(&units, Policy::Strict, &mut got).unwrap();
        assert_eq!(&got[..shift], "a".repeat(shift).as_bytes());
        assert!(got[shift..] == *text.as_bytes(), "shift {shift}");
    }
}

/// An error as the drivers compare it: offset from the start of the whole
/// input, length, cause.
type Failure = (usize, Option<usize>, Cause);

/// Runs a `_into` conversion over `input` cut at `cuts` (each piece but
/// the last passed with `last` false, with what the call before left
/// unread), into a buffer of `room` units at a time. `None` when the
/// buffer is too small for a character (no progress).
fn drive<U: Copy + Default>(
    len: usize,
    cuts: &[usize],
    room: usize,
    mut step: impl FnMut(usize, usize, &mut [U], bool) -> Progress,
) -> Option<(Vec<U>, Option<Failure>)> {
    let mut buf = vec![U::default(); room];
    let mut out = Vec::new();
    let mut at = 0;
    for end in cuts.iter().copied().chain([len]) {
        let last = end == len;
        loop {
            let p = step(at, end, &mut buf, last);
            out.extend_from_slice(&buf[..p.written]);
            let start = at;
            at += p.read;
            match p.result {
                Err(e) => return Some((out, Some((start + e.offset(), e.error_len(), e.cause())))),
                Ok(Status::InputEmpty) => {
                    assert!(last || end - at <= 3, "unread {} bytes", end - at);
                    assert!(!last || at == len);
                    break;
                }
                Ok(Status::OutputFull) => {
                    if p.read == 0 && p.written == 0 {
                        return None;
                    }
                }
            }
        }
    }
    Some((out, None))
}

fn failure(e: utf8guard::TranscodeError) -> Failure {
    (e.offset(), e.error_len(), e.cause())
}

/// Short inputs for the `_into` forms: every kind of item, valid and not.
fn short_inputs() -> Vec<Vec<u8>> {
    let mut inputs: Vec<Vec<u8>> = [
        &b""[..],
        b"abc",
        "café€ “x” Ā字😀".as_bytes(),
        "éé\u{81}\u{9D}ÿ".as_bytes(),
        b"a\xED\xA0\x80b\xC0\xAFc\xE2\x82",
        b"\xF0\x9F\x98\x80\xF0\x9F\x98",
        b"\xE2\x82\xACabcdefghijklmnopqrstuvwxyz0123456789\xC3\xA9",
        b"\xFF\xFE\x80\xC3\xA9\xF4\x90\x80\x80",
    ]
    .iter()
    .map(|s| s.to_vec())
    .collect();
    let mut rng = Rng(77);
    inputs.extend((0..40).map(|_| {
        let len = rng.below(40);
        random_utf8(&mut rng, len)
    }));
    inputs
}

/// The buffer sizes the drivers try: every one up to 12, and some longer.
const ROOMS: [usize; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 33, 64, 1000];

/// Checks a driven conversion against the one-shot one, at every buffer
/// size and at every single cut; `min_room` is the longest item.
fn check_into<U: Copy + Default + PartialEq + std::fmt::Debug>(
    what: &str,
    len: usize,
    min_room: usize,
    expected: &(Vec<U>, Option<Failure>),
    step: &mut impl FnMut(usize, usize, &mut [U], bool) -> Progress,
) {
    for room in ROOMS {
        match drive(len, &[], room, &mut *step) {
            Some(got) => assert_eq!(&got, expected, "{what}, room {room}"),
            None => assert!(room < min_room, "{what}: no progress with room {room}"),
        }
    }
    for cut in 0..=len {
        for room in [min_room, 1000] {
            let got = drive(len, &[cut], room, &mut *step).unwrap();
            assert_eq!(&got, expected, "{what}, cut at {cut}, room {room}");
        }
    }
}

#[test]
fn into_forms_equal_the_one_shot_forms() {
    for input in short_inputs() {
        let len = input.len();
        for encoding in ENCODINGS {
            for policy in POLICIES {
                let mut out = Vec::new();
                let result = utf8_to_single_byte(encoding, &input, policy, &mut out);
                let expected = (out, result.err().map(failure));
                let mut step = |at: usize, end: usize, buf: &mut [u8], last| {
                    utf8_to_single_byte_into(encoding, &input[at..end], policy, buf, last)
                };
                let what = format!("{encoding:?} {policy:?} {input:02X?}");
                check_into(&what, len, 1, &expected, &mut step);
            }
            // From the encoding, every input is valid.
            let mut out = Vec::new();
            single_byte_to_utf8(encoding, &input, &mut out);
            assert_eq!(out.len(), utf8_len_from_single_byte(encoding, &input));
            let mut step = |at: usize, end: usize, buf: &mut [u8], _| {
                single_byte_to_utf8_into(encoding, &input[at..end], buf)
            };
            check_into(
                &format!("from {encoding:?}"),
                len,
                3,
                &(out, None),
                &mut step,
            );
        }
        for policy in POLICIES {
            let mut units = Vec::new();
            let result = utf8_to_utf32(&input, policy, &mut units);
            let expected = (units, result.err().map(failure));
            let mut step = |at: usize, end: usize, buf: &mut [u32], last| {
                utf8_to_utf32_into(&input[at..end], policy, buf, last)
            };
            check_into(
                &format!("UTF-32 {policy:?} {input:02X?}"),
                len,
                1,
                &expected,
                &mut step,
            );
        }
    }
    let mut rng = Rng(5);
    // Runs of ASCII long enough for the blocks, broken by every kind of
    // unit, and random units.
    let mut all_units: Vec<Vec<u32>> = [0x41, 0xE9, 0x20AC, 0x1F600, 0xDC00, 0x11_0000]
        .iter()
        .map(|&u| {
            let mut units: Vec<u32> = (0..40).map(|k| 0x61 + k % 26).collect();
            units.insert(17, u);
            units.insert(35, u);
            units
        })
        .collect();
    all_units.extend((0..60).map(|k| random_units(&mut rng, k % 20)));
    for units in all_units {
        for policy in POLICIES {
            let mut out = Vec::new();
            let result = utf32_to_utf8(&units, policy, &mut out);
            let expected = (out, result.err().map(failure));
            let mut step = |at: usize, end: usize, buf: &mut [u8], _| {
                utf32_to_utf8_into(&units[at..end], policy, buf)
            };
            check_into(
                &format!("from UTF-32 {policy:?} {units:X?}"),
                units.len(),
                4,
                &expected,
                &mut step,
            );
        }
    }
}

/// The lipsum files, where the corpus is present.
fn lipsum() -> Vec<(String, String)> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/lipsum");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipping the lipsum files: {} is absent", dir.display());
        return Vec::new();
    };
    let mut files: Vec<(String, String)> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(".utf8.txt"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// Lipsum-like texts: the files, text built from every encoding's letters,
/// and random valid text.
fn texts() -> Vec<(String, String)> {
    let mut texts = lipsum();
    texts.push((
        "french".into(),
        "Le cœur déçu mais l'âme plutôt naïve, Louÿs rêva de crapaüter en canoë au delà des îles, près du mälström où brûlent les novæ. "
            .repeat(40),
    ));
    let mut rng = Rng(99);
    for len in [0, 1, 31, 32, 33, 1000, 70_000] {
        let text: String = (0..len)
            .map(|_| {
                let c = match rng.below(5) {
                    0 => rng.below(0x80),
                    1 => rng.below(0x800),
                    2 => rng.below(0x1_0000),
                    3 => rng.below(0x11_0000),
                    _ => 0x61,
                };
                char::from_u32(c as u32).unwrap_or('\u{FFFD}')
            })
            .collect();
        texts.push((format!("random {len}"), text));
    }
    texts
}

#[test]
fn lengths_equal_the_conversions() {
    for (name, text) in texts() {
        let bytes = text.as_bytes();
        assert_eq!(
            utf16_len_from_utf8(bytes),
            text.encode_utf16().count(),
            "{name}"
        );
        assert_eq!(utf32_len_from_utf8(bytes), text.chars().count(), "{name}");
        let mut units = Vec::new();
        utf8_to_utf32(bytes, Policy::Strict, &mut units).unwrap();
        assert_eq!(utf32_len_from_utf8(bytes), units.len(), "{name}");
        let utf16: Vec<u16> = text.encode_utf16().collect();
        assert_eq!(utf8_len_from_utf16(&utf16), bytes.len(), "{name}");
        // Through UTF-32 and back.
        let mut back = Vec::new();
        utf32_to_utf8(&units, Policy::Strict, &mut back).unwrap();
        assert!(back == bytes, "{name}");
        // Into each encoding (with `?`) and back, where nothing is lost.
        for encoding in ENCODINGS {
            let mut single = Vec::new();
            utf8_to_single_byte(encoding, bytes, Policy::Replace, &mut single).unwrap();
            assert_eq!(single.len(), units.len(), "{name}");
            let mut utf8 = Vec::new();
            single_byte_to_utf8(encoding, &single, &mut utf8);
            assert_eq!(utf8.len(), utf8_len_from_single_byte(encoding, &single));
            if text.chars().all(|c| encoding.encode(c).is_some()) {
                assert!(utf8 == bytes, "{name} through {encoding:?}");
            }
        }
    }
    // Lone surrogates and pairs in UTF-16, against the WTF-8 conversion.
    let mut rng = Rng(3);
    for len in (0..100).chain([4095, 4096, 4097, 10_000]) {
        let units: Vec<u16> = (0..len)
            .map(|_| match rng.below(6) {
                0 => 0xD800 + rng.below(0x400) as u16,
                1 => 0xDC00 + rng.below(0x400) as u16,
                2 => rng.below(0x80) as u16,
                3 => rng.below(0x800) as u16,
                _ => rng.next() as u16,
            })
            .collect();
        let mut wtf8 = Vec::new();
        utf16_to_wtf8(&units, &mut wtf8);
        assert_eq!(utf8_len_from_utf16(&units), wtf8.len(), "{units:X?}");
    }
    // Every byte value, in every position of the counting chunks.
    for len in [126, 127, 128, 254, 255, 256, 1000] {
        for b in 0..=255u8 {
            let bytes = vec![b; len];
            let starts = if (0x80..0xC0).contains(&b) { 0 } else { len };
            assert_eq!(utf32_len_from_utf8(&bytes), starts);
            assert_eq!(
                utf16_len_from_utf8(&bytes),
                starts * if b >= 0xF0 { 2 } else { 1 }
            );
            for encoding in ENCODINGS {
                let width = encoding.decode(b).len_utf8();
                assert_eq!(utf8_len_from_single_byte(encoding, &bytes), width * len);
            }
        }
    }
}

/// The UTF-8 of `input` in `encoding`, a byte at a time from the crate's
/// table of characters.
fn decoded_bytewise(encoding: SingleByte, input: &[u8]) -> Vec<u8> {
    input
        .iter()
        .map(|&b| encoding.decode(b))
        .collect::<String>()
        .into_bytes()
}

/// Blocks around the vectors' 32 bytes, at several alignments, with a
/// byte above `7F` at every position (and two of them, and all of them),
/// into a vector and into buffers of the exact room and one byte less:
/// byte for byte what the table says.
#[test]
fn blocks_into_utf8_with_high_bytes_at_every_position() {
    let base: Vec<u8> = (0..300u32).map(|i| b'A' + (i % 26) as u8).collect();
    for encoding in ENCODINGS {
        for len in [7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 96, 130] {
            for offset in [0, 1, 5, 16, 31] {
                for pos in 0..len {
                    for b in [0x80, 0x81, 0x85, 0x8D, 0x9F, 0xA0, 0xC3, 0xFF] {
                        let mut buf = base.clone();
                        buf[offset + pos] = b;
                        buf[offset + (pos * 7 + 3) % len] ^= 0x80;
                        let input = &buf[offset..offset + len];
                        check_into_utf8(encoding, input);
                    }
                }
                let all: Vec<u8> = (0..len).map(|i| 0x80 + (i * 37 % 128) as u8).collect();
                check_into_utf8(encoding, &all);
            }
        }
    }
}

fn check_into_utf8(encoding: SingleByte, input: &[u8]) {
    let want = decoded_bytewise(encoding, input);
    let mut out = b"x".to_vec();
    single_byte_to_utf8(encoding, input, &mut out);
    assert_eq!(&out[1..], &want[..], "{encoding:?} {}", hex(input));
    assert_eq!(utf8_len_from_single_byte(encoding, input), want.len());
    let mut buf = vec![0u8; want.len()];
    let p = single_byte_to_utf8_into(encoding, input, &mut buf);
    assert_eq!(
        (p.read, p.written, p.result),
        (input.len(), want.len(), Ok(Status::InputEmpty))
    );
    assert_eq!(buf, want);
    if let Some(room) = want.len().checked_sub(1) {
        let mut buf = vec![0u8; room];
        let p = single_byte_to_utf8_into(encoding, input, &mut buf);
        assert_eq!(p.result, Ok(Status::OutputFull), "{}", hex(input));
        assert_eq!(p.read, input.len() - 1);
        assert_eq!(buf[..p.written], want[..p.written]);
    }
    // Every kernel's vector steps, into the exact room and one byte less.
    for kernel in Kernel::available() {
        let what = format!("{kernel}: {encoding:?} {}", hex(input));
        let mut buf = vec![0u8; want.len()];
        let p = into_utf8_with(kernel, encoding, input, &mut buf);
        assert_eq!(
            (p.read, p.written, p.result),
            (input.len(), want.len(), Ok(Status::InputEmpty)),
            "{what}"
        );
        assert_eq!(buf, want, "{what}");
        if let Some(room) = want.len().checked_sub(1) {
            let mut buf = vec![0u8; room];
            let p = into_utf8_with(kernel, encoding, input, &mut buf);
            assert_eq!(p.result, Ok(Status::OutputFull), "{what}");
            assert_eq!(p.read, input.len() - 1, "{what}");
            assert_eq!(buf[..p.written], want[..p.written], "{what}");
        }
    }
}

/// A strict conversion's error: offset, length, whether the character is
/// unencodable (rather than ill formed).
type FirstError = (usize, Option<usize>, bool);

/// What converting UTF-8 into `encoding` gives, from std's chunks of valid
/// and ill-formed input and the crate's one-character `encode`: the bytes,
/// and under `Policy::Strict` the first error's offset, length and whether
/// it is an unencodable character.
fn encoded_by_chunks(
    encoding: SingleByte,
    input: &[u8],
    policy: Policy,
) -> (Vec<u8>, Option<FirstError>) {
    let mut out = Vec::new();
    let mut at = 0;
    for chunk in input.utf8_chunks() {
        for c in chunk.valid().chars() {
            match (encoding.encode(c), policy) {
                (Some(b), _) => out.push(b),
                (None, Policy::Strict) => return (out, Some((at, Some(c.len_utf8()), true))),
                (None, _) => out.push(b'?'),
            }
            at += c.len_utf8();
        }
        let bad = chunk.invalid().len();
        if bad == 0 {
            continue;
        }
        if policy == Policy::Strict {
            // Cut short by the end of the input: no length.
            let len = std::str::from_utf8(&input[at..]).unwrap_err().error_len();
            return (out, Some((at, len, false)));
        }
        out.push(b'?');
        at += bad;
    }
    (out, None)
}

/// Text of ASCII and Latin-1 letters, at several alignments and lengths
/// around the vectors' 32 bytes, with a character (in each encoding or
/// not) or an ill-formed sequence at every position: under both policies,
/// what std's chunks and the crate's `encode` say.
#[test]
fn blocks_from_utf8_with_a_character_or_error_at_every_position() {
    let text = "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich, à côté. "
        .repeat(6)
        .into_bytes();
    let pieces: [&[u8]; 14] = [
        b"\xC2\x80",
        b"\xC2\x8D",
        b"\xC2\x9F",
        b"\xC2\xA0",
        b"\xC3\xBF",
        b"\xC4\x80",
        b"\xC5\x93",
        b"\xE2\x80\x9C",
        b"\xE2\x82\xAC",
        b"\xF0\x9F\x98\x80",
        b"\xC3",
        b"\x80",
        b"\xE2\x82",
        b"\xF5",
    ];
    for encoding in ENCODINGS {
        for len in [8, 16, 31, 32, 33, 40, 64, 65, 100] {
            for offset in [0, 1, 3, 17] {
                let start = (offset..).find(|&i| text[i] & 0xC0 != 0x80).unwrap();
                let end = (start + len..).find(|&i| text[i] & 0xC0 != 0x80).unwrap();
                let clean = &text[start..end];
                let cuts =
                    (0..=clean.len()).filter(|&p| clean.get(p).is_none_or(|&b| b & 0xC0 != 0x80));
                for pos in cuts {
                    for piece in pieces {
                        let input = [&clean[..pos], piece, &clean[pos..]].concat();
                        for policy in POLICIES {
                            check_from_utf8(encoding, &input, policy);
                        }
                    }
                }
            }
        }
    }
}

fn check_from_utf8(encoding: SingleByte, input: &[u8], policy: Policy) {
    let (want, error) = encoded_by_chunks(encoding, input, policy);
    let what = format!("{encoding:?} {policy:?} {}", hex(input));
    let mut out = b"x".to_vec();
    let result = utf8_to_single_byte(encoding, input, policy, &mut out);
    assert_eq!(&out[1..], &want[..], "{what}");
    let mut buf = vec![0u8; input.len()];
    let p = utf8_to_single_byte_into(encoding, input, policy, &mut buf, true);
    assert_eq!(buf[..p.written], want[..], "{what}");
    let mut results = vec![result.err(), p.result.err()];
    // Every kernel's vector steps.
    for kernel in Kernel::available() {
        let p = from_utf8_with(kernel, encoding, input, policy, &mut buf, true);
        assert_eq!(buf[..p.written], want[..], "{kernel}: {what}");
        results.push(p.result.err());
    }
    for e in results {
        let got = e.map(|e| {
            let unencodable = match e.cause() {
                Cause::Unencodable(EncodeError::NotInCharset) => true,
                Cause::Malformed(_) => false,
                other => panic!("{other:?}: {what}"),
            };
            (e.offset(), e.error_len(), unencodable)
        });
        assert_eq!(got, error, "{what}");
    }
}

/// Every length up to 200 bytes at every alignment up to 16, around the
/// vectors of every width (16, 32 and 64 bytes) and the runs of ASCII the
/// steps copy (128 bytes), text of each kind both ways: each kernel's
/// vector steps give what the scalar loops give, into outputs of exactly
/// the room (no store may land past it: the buffer is the slice).
#[test]
fn every_length_and_alignment_on_every_kernel() {
    let emulated = std::env::var_os("UTF8GUARD_TEST_EMULATED").is_some();
    let mut rng = Rng(0x00A1_1CE5);
    // ASCII, Latin-1 letters now and then, Windows-1252's 80..9F too, and
    // all high bytes.
    let kinds: [&dyn Fn(&mut Rng) -> u8; 4] = [
        &|r| b' ' + r.below(95) as u8,
        &|r| {
            if r.below(8) == 0 {
                0xA0 + r.below(96) as u8
            } else {
                b'a' + r.below(26) as u8
            }
        },
        &|r| {
            if r.below(4) == 0 {
                0x80 + r.below(128) as u8
            } else {
                b'a' + r.below(26) as u8
            }
        },
        &|r| 0x80 + r.below(128) as u8,
    ];
    let step = if emulated { 7 } else { 1 };
    for encoding in ENCODINGS {
        for (k, kind) in kinds.iter().enumerate() {
            let pool: Vec<u8> = (0..216).map(|_| kind(&mut rng)).collect();
            let text: String = pool.iter().map(|&b| encoding.decode(b)).collect();
            let utf8 = text.as_bytes();
            for offset in (0..=16).step_by(if emulated { 5 } else { 1 }) {
                for len in (0..=200).step_by(step) {
                    let input = &pool[offset..offset + len];
                    let want = decoded_bytewise(encoding, input);
                    // Out of UTF-8: the same characters, cut between them.
                    let from = text.ceil_char_boundary(offset * 2);
                    let to = text.floor_char_boundary((from + len * 3 / 2).min(utf8.len()));
                    let source = &utf8[from..to.max(from)];
                    let back: Option<Vec<u8>> = std::str::from_utf8(source)
                        .unwrap()
                        .chars()
                        .map(|c| encoding.encode(c))
                        .collect();
                    for kernel in Kernel::available() {
                        let what = format!("{kernel}: {encoding:?} kind {k} at {offset}, {len} B");
                        let mut out = vec![0u8; want.len()];
                        let p = into_utf8_with(kernel, encoding, input, &mut out);
                        assert_eq!((p.read, p.written), (len, want.len()), "{what}");
                        assert_eq!(out, want, "{what}");
                        let mut out = vec![0u8; source.len()];
                        let p = from_utf8_with(
                            kernel,
                            encoding,
                            source,
                            Policy::Replace,
                            &mut out,
                            true,
                        );
                        assert_eq!(p.read, source.len(), "{what}");
                        if let Some(back) = &back {
                            assert_eq!(&out[..p.written], &back[..], "{what}");
                        }
                        let reference = from_utf8_with(
                            Kernel::Scalar,
                            encoding,
                            source,
                            Policy::Strict,
                            &mut vec![0u8; source.len()],
                            true,
                        );
                        let p = from_utf8_with(
                            kernel,
                            encoding,
                            source,
                            Policy::Strict,
                            &mut out,
                            true,
                        );
                        assert_eq!(
                            (p.read, p.written, p.result),
                            (reference.read, reference.written, reference.result),
                            "{what}"
                        );
                    }
                }
            }
        }
    }
}

/// The `Vec` forms write into spare capacity after what `out` holds: kept,
/// and the rest exactly the slice form's, also where Windows-1252's
/// 3-byte forms outgrow the first room and where an error stops the
/// conversion.
#[test]
fn vec_forms_append_after_what_out_holds() {
    let head = b"kept: ".to_vec();
    for encoding in [SingleByte::Latin1, SingleByte::Windows1252] {
        for len in [0, 1, 15, 16, 17, 64, 200, 5000] {
            // `80` is `€` (3 bytes) in Windows-1252, U+0080 (2) in Latin-1.
            let input: Vec<u8> = (0..len).map(|i| [b'a', 0x80, 0xE9][i % 3]).collect();
            let mut expected = vec![0u8; 3 * len];
            let p = utf8guard::single_byte_to_utf8_into(encoding, &input, &mut expected);
            assert_eq!(p.read, len);
            let mut out = head.clone();
            single_byte_to_utf8(encoding, &input, &mut out);
            assert_eq!(out[..head.len()], head[..]);
            assert_eq!(
                out[head.len()..],
                expected[..p.written],
                "{encoding:?} {len}"
            );

            // Back, then with a character neither has after it.
            let utf8 = out[head.len()..].to_vec();
            let mut back = head.clone();
            utf8_to_single_byte(encoding, &utf8, Policy::Strict, &mut back).unwrap();
            assert_eq!(back[head.len()..], input[..], "{encoding:?} {len}");
            let mut bad = utf8.clone();
            bad.extend_from_slice("中 after".as_bytes());
            let mut back = head.clone();
            let e = utf8_to_single_byte(encoding, &bad, Policy::Strict, &mut back).unwrap_err();
            assert_eq!((e.offset(), e.error_len()), (utf8.len(), Some(3)));
            assert_eq!(back[head.len()..], input[..], "{encoding:?} {len}");
        }
    }
}

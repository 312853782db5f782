//! The repair policies and the surrogate escape: exact outputs, `std` for
//! `maximal-subpart`, CPython's codecs for every policy but `jvm` (with
//! error handlers written for the per-byte, Windows-1252 and Latin-1
//! rules) and the JDK for `jvm`, on every input of 1 and 2 bytes, on 3- and
//! 4-byte inputs led by the bytes where the rules change, and on mutated
//! text, with every kernel.

use std::borrow::Cow;
#[cfg(target_arch = "x86_64")]
use std::io::Write;
#[cfg(target_arch = "x86_64")]
use std::process::{Command, Stdio};

#[cfg(target_arch = "x86_64")]
use utf8guard::Kernel;
use utf8guard::{escape, repair, unescape, Escaper, RepairReader, Repairer, Replacement};

#[test]
fn documented_cases() {
    use Replacement::*;
    // (input, maximal-subpart, per-byte, windows-1252, latin-1, backslash, drop)
    let cases: &[(&[u8], [&str; 6])] = &[
        (b"", ["", "", "", "", "", ""]),
        (
            b"plain \xC3\xA9",
            [
                "plain é", "plain é", "plain é", "plain é", "plain é", "plain é",
            ],
        ),
        (
            b"caf\xE9!",
            [
                "caf\u{FFFD}!",
                "caf\u{FFFD}!",
                "café!",
                "café!",
                "caf\\xe9!",
                "caf!",
            ],
        ),
        // One maximal subpart of three bytes.
        (
            b"a\xF0\x9F\x98b",
            [
                "a\u{FFFD}b",
                "a\u{FFFD}\u{FFFD}\u{FFFD}b",
                "að\u{178}\u{2DC}b",
                "a\u{F0}\u{9F}\u{98}b",
                "a\\xf0\\x9f\\x98b",
                "ab",
            ],
        ),
        // Two subparts: C0 can start nothing.
        (
            b"\xC0\xAF",
            [
                "\u{FFFD}\u{FFFD}",
                "\u{FFFD}\u{FFFD}",
                "À¯",
                "À¯",
                "\\xc0\\xaf",
                "",
            ],
        ),
        // A surrogate: three subparts.
        (
            b"\xED\xA0\x80",
            [
                "\u{FFFD}\u{FFFD}\u{FFFD}",
                "\u{FFFD}\u{FFFD}\u{FFFD}",
                "í\u{A0}€",
                "í\u{A0}\u{80}",
                "\\xed\\xa0\\x80",
                "",
            ],
        ),
        // Windows-1252's five unassigned bytes, and its ends.
        (
            b"\x80\x81\x8D\x8F\x90\x9D\x9F\xA0\xFF",
            [
                "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}",
                "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}",
                "€\u{81}\u{8D}\u{8F}\u{90}\u{9D}Ÿ\u{A0}ÿ",
                "\u{80}\u{81}\u{8D}\u{8F}\u{90}\u{9D}\u{9F}\u{A0}ÿ",
                "\\x80\\x81\\x8d\\x8f\\x90\\x9d\\x9f\\xa0\\xff",
                "",
            ],
        ),
        // An unfinished character at the end is one subpart.
        (
            b"end\xE2\x82",
            [
                "end\u{FFFD}",
                "end\u{FFFD}\u{FFFD}",
                "endâ‚",
                "endâ\u{82}",
                "end\\xe2\\x82",
                "end",
            ],
        ),
    ];
    let policies = [
        MaximalSubpart,
        PerByte,
        Windows1252,
        Latin1,
        Backslash,
        Drop,
    ];
    for (input, outputs) in cases {
        for (policy, want) in policies.iter().zip(outputs) {
            assert_eq!(repair(input, *policy), *want, "{policy} on {input:02X?}");
        }
    }
}

/// The JDK's units: a surrogate's 3-byte form, whole or cut short, is one;
/// everything else is as `maximal-subpart` (each answer is the JDK 17's).
#[test]
fn jvm_cases() {
    let ff = '\u{FFFD}';
    let cases: &[(&[u8], String)] = &[
        (b"\xED\xA0\x80", format!("{ff}")),
        (b"\xED\xA0", format!("{ff}")),
        (b"\xED\xA0A", format!("{ff}A")),
        (b"\xED\xBF\xBF", format!("{ff}")),
        (b"\xED\xA0\xC0", format!("{ff}{ff}")),
        (b"\xED\xA0\x80\x80", format!("{ff}{ff}")),
        (b"\xED\xA0\xBD\xED\xB8\x80", format!("{ff}{ff}")),
        (b"\xED\x9F\xBF", "\u{D7FF}".to_owned()),
        (b"\xED\xC0", format!("{ff}{ff}")),
        (b"\xE0\x80\x80", format!("{ff}{ff}{ff}")),
        (b"\xF0\x90\x80A", format!("{ff}A")),
        (b"\xF4\x90\x80\x80", format!("{ff}{ff}{ff}{ff}")),
        (b"\xF0\x90\x80\x80\x80", format!("\u{10000}{ff}")),
        (b"a\xED\xA0", format!("a{ff}")),
    ];
    for (input, want) in cases {
        assert_eq!(repair(input, Replacement::Jvm), *want, "{input:02X?}");
    }
}

#[test]
fn valid_input_is_borrowed() {
    for policy in Replacement::ALL {
        assert!(matches!(
            repair("é€😀".as_bytes(), policy),
            Cow::Borrowed("é€😀")
        ));
    }
    assert!(matches!(escape(b"text"), Cow::Borrowed(b"text")));
    assert!(matches!(unescape(b"text"), Ok(Cow::Borrowed(b"text"))));
}

#[test]
fn names_and_aliases() {
    for policy in Replacement::ALL {
        assert_eq!(Replacement::from_name(policy.name()), Some(policy));
        assert_eq!(policy.name().parse::<Replacement>(), Ok(policy));
        assert_eq!(policy.to_string(), policy.name());
    }
    for (alias, policy) in [
        ("java", Replacement::Jvm),
        ("std", Replacement::MaximalSubpart),
        ("whatwg", Replacement::MaximalSubpart),
        ("go", Replacement::PerByte),
        ("cp1252", Replacement::Windows1252),
        ("iso-8859-1", Replacement::Latin1),
        ("ignore", Replacement::Drop),
    ] {
        assert_eq!(Replacement::from_name(alias), Some(policy), "{alias}");
    }
    // In any case, as encoding names.
    for (name, policy) in [
        ("Windows-1252", Replacement::Windows1252),
        ("MAXIMAL-SUBPART", Replacement::MaximalSubpart),
        ("CP1252", Replacement::Windows1252),
        ("Latin-1", Replacement::Latin1),
        ("JVM", Replacement::Jvm),
        ("Ignore", Replacement::Drop),
    ] {
        assert_eq!(Replacement::from_name(name), Some(policy), "{name}");
        assert_eq!(name.parse::<Replacement>(), Ok(policy), "{name}");
    }
    // `_` for `-`, and the names of CPython's handlers and of the
    // single-byte encodings, which the Python package and SQL take too.
    for (name, policy) in [
        ("maximal_subpart", Replacement::MaximalSubpart),
        ("per_byte", Replacement::PerByte),
        ("replace", Replacement::MaximalSubpart),
        ("BackslashReplace", Replacement::Backslash),
        ("latin1", Replacement::Latin1),
        ("ISO8859-1", Replacement::Latin1),
        ("windows_1252", Replacement::Windows1252),
    ] {
        assert_eq!(Replacement::from_name(name), Some(policy), "{name}");
    }
    for unknown in [
        "maximal subpart",
        "latin",
        "replace-",
        "",
        "surrogateescape",
    ] {
        assert_eq!(Replacement::from_name(unknown), None, "{unknown}");
    }
    assert_eq!(Replacement::default(), Replacement::MaximalSubpart);
    let unknown = "bogus".parse::<Replacement>().unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "unknown replacement policy; known: maximal-subpart, jvm, per-byte, windows-1252, \
         latin-1, backslash, drop"
    );
}

#[test]
fn unescape_refuses_what_escape_never_writes() {
    // A high surrogate, an escaped ASCII byte (U+DC41), bytes not UTF-8.
    for (input, at) in [
        (&b"ab\xED\xA0\x80"[..], 2),
        (b"\xED\xB2\x80x\xED\xB1\x81", 4),
        (b"ok\xFF", 2),
        (b"\xED\xB3", 0),
    ] {
        let e = unescape(input).unwrap_err();
        assert_eq!(e.valid_up_to(), at, "{input:02X?}");
    }
    assert_eq!(
        unescape(b"\xFF").unwrap_err().to_string(),
        "the sequence at byte 0 is neither UTF-8 nor an escaped byte (U+DC80..U+DCFF)"
    );
}

/// A small deterministic generator.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Text in several scripts with bytes changed, cut and inserted.
fn mutated_texts() -> Vec<Vec<u8>> {
    let text = "ASCII text, déjà vu, Ελληνικά, русский, 日本語のテキスト, 😀🎉, \
                עברית, हिन्दी, and more ASCII to end a block.\n"
        .repeat(4);
    let text = text.as_bytes();
    let mut state = 0x9E37_79B9_7F4A_7C15;
    let mut out = Vec::new();
    for _ in 0..3000 {
        let mut t = text.to_vec();
        for _ in 0..1 + next(&mut state) % 6 {
            let at = (next(&mut state) % t.len() as u64) as usize;
            match next(&mut state) % 4 {
                0 => t[at] = next(&mut state) as u8,
                1 => t[at] ^= 0x40,
                2 => t.insert(at, 0x80 | (next(&mut state) as u8 & 0x7F)),
                _ => t.truncate(at),
            }
            if t.is_empty() {
                break;
            }
        }
        out.push(t);
    }
    out
}

#[test]
fn escape_round_trips_and_maximal_subpart_is_std() {
    let mut state = 7;
    let mut inputs = mutated_texts();
    for len in 0..300 {
        inputs.push((0..len).map(|_| next(&mut state) as u8).collect());
    }
    for input in &inputs {
        assert_eq!(
            unescape(&escape(input)).unwrap(),
            &input[..],
            "{input:02X?}"
        );
        assert_eq!(
            repair(input, Replacement::MaximalSubpart),
            String::from_utf8_lossy(input),
            "{input:02X?}"
        );
    }
}

/// The policies CPython is the reference for, in the order of its answers.
#[cfg(target_arch = "x86_64")]
const CPYTHON_POLICIES: [Replacement; 6] = [
    Replacement::MaximalSubpart,
    Replacement::PerByte,
    Replacement::Windows1252,
    Replacement::Latin1,
    Replacement::Backslash,
    Replacement::Drop,
];

/// A missing reference implementation: an error in CI, a notice elsewhere.
#[cfg(target_arch = "x86_64")]
fn missing(message: String) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{message} (CI=true requires it; scripts/test.sh installs it)");
    }
    eprintln!("{message}");
}

/// Runs `program` with `args`, `input` on its standard input; its output,
/// or `None` when it cannot be run.
#[cfg(target_arch = "x86_64")]
fn run_with_input(program: &str, args: &[&str], input: &[u8]) -> Option<Vec<u8>> {
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => {
            missing(format!(
                "{program} not found ({e}): its comparison is skipped"
            ));
            return None;
        }
    };
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "{program} failed");
    Some(out.stdout)
}

/// Each policy's answer from CPython's codecs for `blob`, in the order of
/// `CPYTHON_POLICIES`, then the surrogate escape's; `None` when Python 3
/// is missing (outside CI).
#[cfg(target_arch = "x86_64")]
fn cpython(blob: &[u8]) -> Option<Vec<Vec<u8>>> {
    const SCRIPT: &str = r#"
import codecs, sys
def windows_1252(b):
    # The WHATWG index: the five bytes Python's codec leaves undefined are
    # the C1 controls of their value.
    return chr(b) if b in (0x81, 0x8D, 0x8F, 0x90, 0x9D) else bytes([b]).decode("cp1252")
codecs.register_error("t-per-byte", lambda e: ("\ufffd" * (e.end - e.start), e.end))
codecs.register_error("t-windows-1252",
    lambda e: ("".join(windows_1252(b) for b in e.object[e.start:e.end]), e.end))
codecs.register_error("t-latin-1", lambda e: (e.object[e.start:e.end].decode("latin-1"), e.end))
blob = sys.stdin.buffer.read()
out = [blob.decode("utf-8", h).encode("utf-8") for h in
       ("replace", "t-per-byte", "t-windows-1252", "t-latin-1", "backslashreplace", "ignore")]
out.append(blob.decode("utf-8", "surrogateescape").encode("utf-8", "surrogatepass"))
for o in out:
    sys.stdout.buffer.write(len(o).to_bytes(8, "little") + o)
"#;
    let stdout = run_with_input("python3", &["-c", SCRIPT], blob)?;
    let mut rest = &stdout[..];
    let mut answers = Vec::new();
    while !rest.is_empty() {
        let len = u64::from_le_bytes(rest[..8].try_into().unwrap()) as usize;
        answers.push(rest[8..8 + len].to_vec());
        rest = &rest[8 + len..];
    }
    assert_eq!(answers.len(), CPYTHON_POLICIES.len() + 1);
    Some(answers)
}

/// The JDK's `new String(blob, UTF_8)`, written back as UTF-8; `None` when
/// Java is missing (outside CI). Java 11's launcher runs the source file.
#[cfg(target_arch = "x86_64")]
fn jdk(blob: &[u8]) -> Option<Vec<u8>> {
    const SOURCE: &str = "\
public class Repair {
    public static void main(String[] args) throws Exception {
        byte[] in = System.in.readAllBytes();
        String s = new String(in, java.nio.charset.StandardCharsets.UTF_8);
        System.out.write(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        System.out.flush();
    }
}
";
    let dir = std::env::temp_dir().join(format!("utf8guard-repair-jdk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("Repair.java");
    std::fs::write(&source, SOURCE).unwrap();
    let out = run_with_input("java", &[source.to_str().unwrap()], blob);
    std::fs::remove_dir_all(&dir).unwrap();
    out
}

/// The first line where two outputs differ, for the message.
fn first_difference(got: &[u8], want: &[u8]) -> String {
    let got: Vec<&[u8]> = got.split(|&b| b == b'\n').collect();
    let want: Vec<&[u8]> = want.split(|&b| b == b'\n').collect();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if g != w {
            return format!("line {i}: got {g:02X?}, CPython {w:02X?}");
        }
    }
    format!("{} lines against CPython's {}", got.len(), want.len())
}

/// The inputs of the comparisons, one per line: every input of 1 and 2
/// bytes, 3-byte inputs led by the bytes where the rules change, 4-byte
/// ones led by F0..F4 (the other bytes from each range the rules tell
/// apart, and every last byte), and mutated text. A line feed ends every
/// ill-formed sequence, so a blob's repair is its lines' repairs, joined.
#[cfg(target_arch = "x86_64")]
fn blob() -> Vec<u8> {
    let ranges: &[u8] = &[
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
        0xED, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xFF,
    ];
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for a in 0..=255u8 {
        lines.push(vec![a]);
        for b in 0..=255u8 {
            lines.push(vec![a, b]);
        }
    }
    for &a in &[
        0x80, 0xC0, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEE, 0xEF, 0xF0, 0xF4, 0xF5,
    ] {
        for b in 0..=255u8 {
            for c in 0..=255u8 {
                lines.push(vec![a, b, c]);
            }
        }
    }
    for a in 0xF0..=0xF4u8 {
        for &b in ranges {
            for &c in ranges {
                for d in 0..=255u8 {
                    lines.push(vec![a, b, c, d]);
                }
            }
        }
    }
    lines.extend(mutated_texts().into_iter().map(|mut t| {
        t.retain(|&b| b != b'\n');
        t
    }));
    lines.join(&b'\n')
}

/// What a policy that replaces byte by byte (or subpart by subpart) writes,
/// from std's `utf8_chunks`: the reference for the tests below that need
/// neither CPython nor the JDK.
fn chunk_reference(input: &[u8], policy: Replacement) -> Vec<u8> {
    let mut out = String::new();
    for chunk in input.utf8_chunks() {
        out.push_str(chunk.valid());
        let bad = chunk.invalid();
        match policy {
            Replacement::MaximalSubpart if !bad.is_empty() => out.push('\u{FFFD}'),
            Replacement::PerByte => bad.iter().for_each(|_| out.push('\u{FFFD}')),
            Replacement::Latin1 => bad.iter().for_each(|&b| out.push(char::from(b))),
            Replacement::Windows1252 => bad.iter().for_each(|&b| out.push(windows_1252(b))),
            Replacement::Backslash => bad
                .iter()
                .for_each(|b| out.push_str(&format!("\\x{b:02x}"))),
            _ => {}
        }
    }
    out.into_bytes()
}

/// The surrogate escape from std's chunks: each bad byte `c` as U+DC00+`c`
/// in WTF-8.
fn escape_reference(input: &[u8]) -> Vec<u8> {
    let mut want = Vec::new();
    for chunk in input.utf8_chunks() {
        want.extend_from_slice(chunk.valid().as_bytes());
        for &c in chunk.invalid() {
            want.extend_from_slice(&[0xED, 0xB0 | (c >> 6), 0x80 | (c & 0x3F)]);
        }
    }
    want
}

/// ASCII with one to three bytes above 7F placed at every position of the
/// first 40 (the decoding loop's blocks are 16 bytes and look 16 ahead):
/// lone bytes, and pairs that start characters, well formed or not, next
/// to them. Every policy that `chunk_reference` knows, and the escape.
#[test]
fn high_bytes_at_every_position_of_a_block() {
    let highs = [0x80, 0xA9, 0xBF, 0xC3, 0xE9, 0xED, 0xF0, 0xFF];
    let policies = [
        Replacement::MaximalSubpart,
        Replacement::PerByte,
        Replacement::Latin1,
        Replacement::Backslash,
        Replacement::Drop,
    ];
    let mut input = [b'x'; 56];
    for p in 0..40 {
        for q in p + 1..42 {
            for &a in &highs {
                for &b in &[0x41, 0xA9, 0xE9] {
                    input.fill(b'x');
                    input[p] = a;
                    input[q] = b;
                    // A third byte right after the second: a pair.
                    input[q + 1] = if q % 3 == 0 { 0x80 } else { b'y' };
                    for policy in policies {
                        let got = repair(&input, policy);
                        assert!(
                            got.as_bytes() == chunk_reference(&input, policy),
                            "{policy} on {input:02X?}"
                        );
                    }
                    let want = escape_reference(&input);
                    assert_eq!(escape(&input)[..], want[..], "escape on {input:02X?}");
                }
            }
        }
    }
}

/// Windows-1252 per the WHATWG index, written out: `80`..`9F` from the
/// table, the five bytes it leaves unassigned as U+0081..U+009D, the rest
/// Latin-1.
fn windows_1252(b: u8) -> char {
    const C1: [u16; 32] = [
        0x20AC, 0x81, 0x201A, 0x192, 0x201E, 0x2026, 0x2020, 0x2021, 0x2C6, 0x2030, 0x160, 0x2039,
        0x152, 0x8D, 0x17D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x2DC, 0x2122, 0x161, 0x203A, 0x153, 0x9D, 0x17E, 0x178,
    ];
    match b {
        0x80..=0x9F => char::from_u32(u32::from(C1[usize::from(b - 0x80)])).expect("a character"),
        _ => char::from(b),
    }
}

/// Blocks dense with bytes above 7F (a quarter, half, most or all of them),
/// lone ones and ones that start characters, well formed or cut, at random
/// places in 80 bytes: every policy that `chunk_reference` knows, and the
/// escape. (The decoding loop replaces a block of 16 by shuffles when none
/// of its lead bytes is followed by a continuation byte, however many are
/// flagged, and otherwise byte by byte.)
#[test]
fn blocks_dense_with_high_bytes() {
    let highs = [
        0x80, 0x85, 0x9D, 0xA0, 0xA9, 0xBF, 0xC0, 0xC3, 0xDF, 0xE2, 0xE9, 0xED, 0xF0, 0xF4, 0xF5,
        0xFF,
    ];
    let policies = [
        Replacement::MaximalSubpart,
        Replacement::PerByte,
        Replacement::Latin1,
        Replacement::Windows1252,
        Replacement::Backslash,
        Replacement::Drop,
    ];
    let mut state = 0x2545_F491_4F6C_DD1D;
    for density in [4, 8, 13, 16] {
        for _ in 0..3000 {
            let input: Vec<u8> = (0..80)
                .map(|_| {
                    let r = next(&mut state);
                    if r % 16 < density {
                        highs[(r >> 8) as usize % highs.len()]
                    } else {
                        b'a' + (r >> 8) as u8 % 26
                    }
                })
                .collect();
            for policy in policies {
                let got = repair(&input, policy);
                assert!(
                    got.as_bytes() == chunk_reference(&input, policy),
                    "{policy} on {input:02X?}"
                );
            }
            let want = escape_reference(&input);
            assert_eq!(escape(&input)[..], want[..], "escape on {input:02X?}");
        }
    }
}

/// Every policy against its reference: CPython, and the JDK for `jvm`,
/// with every kernel (one test, since the kernel is the process's).
/// Natively only: under emulation the inputs would take minutes, and no
/// code here depends on the target.
#[cfg(target_arch = "x86_64")]
#[test]
fn every_policy_is_its_references() {
    let blob = blob();
    let answers = cpython(&blob);
    let jvm = jdk(&blob);
    let active = utf8guard::active_kernel();
    for kernel in Kernel::available() {
        utf8guard::set_kernel(kernel).unwrap();
        if let Some(answers) = &answers {
            for (policy, want) in CPYTHON_POLICIES.iter().zip(answers) {
                let got = repair(&blob, *policy);
                assert!(
                    got.as_bytes() == &want[..],
                    "{policy} with {kernel}: {}",
                    first_difference(got.as_bytes(), want)
                );
            }
            let got = escape(&blob);
            let want = &answers[CPYTHON_POLICIES.len()];
            assert!(
                got[..] == want[..],
                "escape with {kernel}: {}",
                first_difference(&got, want)
            );
            assert_eq!(unescape(&got).unwrap(), &blob[..], "unescape with {kernel}");
        }
        if let Some(want) = &jvm {
            let got = repair(&blob, Replacement::Jvm);
            assert!(
                got.as_bytes() == &want[..],
                "jvm with {kernel}: {}",
                first_difference(got.as_bytes(), want)
            );
        }
    }
    utf8guard::set_kernel(active).unwrap();
}

/// The units a policy replaces in `input`, and the offset of the first:
/// maximal subparts, found with `std`'s `utf8_chunks` (for `Jvm`, from
/// its answer: one U+FFFD per unit, where the input had none).
fn units(input: &[u8], policy: Replacement) -> (u64, Option<u64>) {
    let first = std::str::from_utf8(input)
        .err()
        .map(|e| e.valid_up_to() as u64);
    let count = if policy == Replacement::Jvm {
        let own = String::from_utf8_lossy(input).matches('\u{FFFD}').count()
            - input
                .utf8_chunks()
                .filter(|c| !c.invalid().is_empty())
                .count();
        repair(input, policy).matches('\u{FFFD}').count() - own
    } else {
        input
            .utf8_chunks()
            .filter(|c| !c.invalid().is_empty())
            .count()
    };
    (count as u64, first)
}

/// Short inputs with every kind of unit at its ends, and mutated text.
fn stream_inputs() -> Vec<Vec<u8>> {
    let mut inputs: Vec<Vec<u8>> = [
        &b""[..],
        b"plain",
        "Grüße 🌍 κόσμε".as_bytes(),
        b"\xE2\x82",
        b"a\xE2\x82\xACb\xE2\x82c\xF0\x9F\x98\x80\xF0\x9F\x98",
        b"\x80\x80\x80\xBF\xC3\x28\xED\xA0\x80\xF4\x90\x80\x80\xC0\xAF\xE0\x80\xF5\xFF",
        b"\xF0\x90\x80\xF0\x90\x80\x80\xE1\x80\xE1\x80\x80\xC2",
        b"\xED\xA0\xBD\xED\xB8\x80\xED\xA0\xED\xBF\xBF\x80\x80\x80\x80",
        b"caf\xE9 \x80\x9C\xEF\xBF\xBD\xED",
    ]
    .iter()
    .map(|b| b.to_vec())
    .collect();
    inputs.extend(mutated_texts().into_iter().step_by(100));
    inputs
}

/// The ways the stream tests split `input` into pieces: in two at every
/// point and a byte at a time (inputs of up to 64 bytes), and 20 times at
/// random.
fn splits<'a>(input: &'a [u8], state: &mut u64) -> Vec<Vec<&'a [u8]>> {
    let mut splits = Vec::new();
    if input.len() <= 64 {
        for cut in 0..=input.len() {
            splits.push(vec![&input[..cut], &input[cut..]]);
        }
        splits.push(input.chunks(1).collect());
    }
    for _ in 0..20 {
        let mut pieces = Vec::new();
        let mut rest = input;
        while !rest.is_empty() {
            let n = (next(state) % 9) as usize;
            let (piece, after) = rest.split_at(n.min(rest.len()));
            pieces.push(piece);
            rest = after;
        }
        splits.push(pieces);
    }
    splits
}

/// Pushed in pieces split anywhere, a `Repairer` writes what `repair`
/// writes, and counts the units and the first one's offset.
#[test]
fn repairer_pieces_give_the_whole() {
    let mut state = 11;
    for input in stream_inputs() {
        for policy in Replacement::ALL {
            let want = repair(&input, policy);
            let want_units = units(&input, policy);
            for pieces in splits(&input, &mut state) {
                let mut repairer = Repairer::new(policy);
                let mut got = String::new();
                for piece in &pieces {
                    repairer.push(piece, &mut got);
                }
                repairer.finish(&mut got);
                assert_eq!(got, want, "{policy} on {input:02X?} in {pieces:02X?}");
                let counted = (repairer.replacements(), repairer.first_replacement());
                assert_eq!(
                    counted, want_units,
                    "{policy} on {input:02X?} in {pieces:02X?}"
                );
            }
        }
    }
}

/// Pushed in pieces split anywhere, an `Escaper` writes what `escape`
/// writes, and counts the units (maximal subparts) and the first one's
/// offset.
#[test]
fn escaper_pieces_give_the_whole() {
    let mut state = 13;
    for input in stream_inputs() {
        let want = escape(&input);
        let want_units = units(&input, Replacement::MaximalSubpart);
        for pieces in splits(&input, &mut state) {
            let mut escaper = Escaper::new();
            let mut got = Vec::new();
            for piece in &pieces {
                escaper.push(piece, &mut got);
            }
            escaper.finish(&mut got);
            assert_eq!(got, &want[..], "{input:02X?} in {pieces:02X?}");
            let counted = (escaper.replacements(), escaper.first_replacement());
            assert_eq!(counted, want_units, "{input:02X?} in {pieces:02X?}");
        }
    }
}

/// A reader that gives at most `most` bytes per read.
struct Trickle<'a> {
    bytes: &'a [u8],
    most: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.most.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// `RepairReader` read whole (through `Read`, into buffers of several
/// sizes) and by lines (through `BufRead`) gives `repair`'s text, over
/// reads of every size up to 9 bytes and a large one.
#[test]
fn repair_reader_gives_repairs_text() {
    use std::io::{BufRead, Read};
    for input in stream_inputs() {
        for policy in Replacement::ALL {
            let want = repair(&input, policy);
            for most in (1..=9).chain([1 << 20]) {
                let mut reader = RepairReader::new(
                    Trickle {
                        bytes: &input,
                        most,
                    },
                    policy,
                );
                let mut got = Vec::new();
                let mut buf = [0u8; 5];
                loop {
                    let n = reader.read(&mut buf[..1 + most % 5]).unwrap();
                    if n == 0 {
                        break;
                    }
                    got.extend_from_slice(&buf[..n]);
                }
                assert_eq!(
                    got,
                    want.as_bytes(),
                    "{policy} on {input:02X?}, reads of {most}"
                );
                assert_eq!(reader.replacements(), units(&input, policy));
                let reader = RepairReader::new(
                    Trickle {
                        bytes: &input,
                        most,
                    },
                    policy,
                );
                let lines: Vec<String> = reader.lines().map(Result::unwrap).collect();
                let want_lines: Vec<&str> = want.lines().collect();
                assert_eq!(
                    lines, want_lines,
                    "{policy} on {input:02X?}, reads of {most}"
                );
            }
        }
    }
    let mut text = String::new();
    RepairReader::new(&b"x\xFFy"[..], Replacement::Backslash)
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "x\\xffy");
}

/// `RepairReader` read into buffers large enough to be read into directly
/// (4 KiB or more) between small ones, from an inner reader that gives a
/// few bytes at a time or all it has: the same text and counts as `repair`.
#[test]
fn repair_reader_into_large_buffers() {
    use std::io::Read;
    let mut inputs = stream_inputs();
    inputs.extend(mutated_texts());
    for input in &inputs {
        for policy in Replacement::ALL {
            let want = repair(input, policy);
            for most in [1, 2, 3, 7, 5000, 1 << 20] {
                let mut reader = RepairReader::new(Trickle { bytes: input, most }, policy);
                let mut got = Vec::new();
                let mut buf = vec![0u8; 10_000];
                for size in [4096, 1, 10_000, 5].into_iter().cycle() {
                    let n = reader.read(&mut buf[..size]).unwrap();
                    if n == 0 {
                        break;
                    }
                    got.extend_from_slice(&buf[..n]);
                }
                assert!(
                    got == want.as_bytes(),
                    "{policy}, reads of {most}: {}",
                    first_difference(&got, want.as_bytes())
                );
                assert_eq!(reader.replacements(), units(input, policy));
            }
        }
    }
}

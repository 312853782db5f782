//! The inputs every implementation of a dialect sees: short inputs
//! enumerated over alphabets chosen from the grammars, and text generated in
//! the dialect, then damaged.

use utf8guard_dfa::{grammar, Automaton};
use utf8guard_difftest::Rng;

/// Both ends of every byte range in every dialect's table and the bytes just
/// outside them, plus `41` (a letter) and the two bytes where Perl's strict
/// decoder's noncharacters start (`EF B7 90..AF` is U+FDD0..U+FDEF, `EF BF
/// BE..BF` is U+FFFE..U+FFFF). Derived from the tables, so a new row brings
/// its boundaries with it.
pub fn boundary_alphabet() -> Vec<u8> {
    let mut bytes = vec![0x41, 0xB7, 0xBE];
    for g in grammar::ALL {
        for row in g.rows {
            for &(lo, hi) in row.iter() {
                bytes.extend([lo, hi, lo.saturating_sub(1), hi.saturating_add(1)]);
            }
        }
    }
    bytes.sort_unstable();
    bytes.dedup();
    bytes
}

/// The bytes that spell every surrogate half at the ends of its range, a
/// continuation byte on either side of them, and a letter: enough for every
/// arrangement of the pair rules (a lead `ED A0..AF`, a trail `ED B0..BF`,
/// the neighbouring `ED 80..9F`) over six bytes.
const PAIR: &[u8] = &[0x41, 0x80, 0x9F, 0xA0, 0xAF, 0xB0, 0xBF, 0xED];

/// The 4-byte rows' lead bytes and second-byte boundaries, with the
/// surrogate bytes: every 4-byte form, overlong, too large or cut short.
const FOUR: &[u8] = &[
    0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC2, 0xE0, 0xED, 0xF0, 0xF4,
];

/// RFC 2279's long rows: the leads of the 4-, 5- and 6-byte rows at their
/// ends and the second-byte boundaries of their shortest forms (`F8 88`,
/// `FC 84`).
const LONG: &[u8] = &[
    0x41, 0x80, 0x83, 0x84, 0x87, 0x88, 0xBF, 0xF7, 0xF8, 0xFB, 0xFC, 0xFD,
];

/// The inputs for `dialect`'s implementations.
///
/// * every input of 0, 1 and 2 bytes (65,793);
/// * every 3-byte input over [`boundary_alphabet`];
/// * every 4-byte input over [`FOUR`];
/// * for the dialects with surrogates in their table, every 4-, 5- and
///   6-byte input over [`PAIR`];
/// * for RFC 2279, every 4- and 5-byte input over [`LONG`] and every 6-byte
///   input that starts with `FC` or `FD` and goes on over a part of it;
/// * text generated in the dialect ([`text`]), whole and damaged;
/// * the [`EXAMPLES`] that docs/DIALECTS.md quotes.
pub fn for_dialect(dialect: &Automaton) -> Vec<Vec<u8>> {
    let mut inputs: Vec<Vec<u8>> = EXAMPLES.iter().map(|e| e.to_vec()).collect();
    let all: Vec<u8> = (0..=255).collect();
    enumerate(&mut inputs, &[], &all, 0..=2);
    enumerate(&mut inputs, &[], &boundary_alphabet(), 3..=3);
    enumerate(&mut inputs, &[], FOUR, 4..=4);
    let name = dialect.grammar().name;
    if matches!(name, "unicode-3.1" | "wtf-8" | "cesu-8" | "mutf-8") {
        enumerate(&mut inputs, &[], PAIR, 4..=5);
        enumerate(&mut inputs, &[0xED], PAIR, 5..=5);
    }
    if name == "rfc2279" {
        enumerate(&mut inputs, &[], LONG, 4..=5);
        for lead in [0xFC, 0xFD] {
            enumerate(&mut inputs, &[lead], &[0x41, 0x80, 0x83, 0x84, 0xBF], 5..=5);
        }
    }
    text(dialect, &mut inputs);
    let mut seen = std::collections::HashSet::new();
    inputs.retain(|input| seen.insert(input.clone()));
    inputs
}

/// The inputs docs/DIALECTS.md gives as examples of the differences, where
/// the enumerations above do not hold them already.
const EXAMPLES: &[&[u8]] = &[
    &[0xC2, 0x80, 0x80, 0xFF],
    &[0xED, 0xA0, 0x80, 0x41],
    &[0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80],
    &[0xF0, 0x9F, 0x98, 0x80],
    &[0xFE, 0x82, 0x80, 0x80, 0x80, 0x80, 0x80],
    &[
        0xFF, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    ],
];

/// Push `prefix` followed by every string over `alphabet` of each length in
/// `lengths`.
fn enumerate(
    out: &mut Vec<Vec<u8>>,
    prefix: &[u8],
    alphabet: &[u8],
    lengths: std::ops::RangeInclusive<u32>,
) {
    for len in lengths {
        let count = alphabet.len().pow(len);
        for mut index in 0..count {
            let mut input = prefix.to_vec();
            for _ in 0..len {
                input.push(alphabet[index % alphabet.len()]);
                index /= alphabet.len();
            }
            out.push(input);
        }
    }
}

/// How many generated texts: each is pushed whole, then damaged three ways.
const TEXTS: usize = 5_000;

/// Sequences from the neighbouring dialects, spliced into text to damage it:
/// `00`, `C0 80` and overlong forms, lone and paired surrogates, 4-byte
/// forms, RFC 2279's 5- and 6-byte forms, Perl's 7- and 13-byte forms,
/// noncharacters, a byte-order mark.
const FOREIGN: &[&[u8]] = &[
    &[0x00],
    &[0xC0, 0x80],
    &[0xC0, 0xAF],
    &[0xC1, 0xBF],
    &[0xE0, 0x80, 0xAF],
    &[0xE0, 0x9F, 0xBF],
    &[0xED, 0xA0, 0x80],
    &[0xED, 0xAF, 0xBF],
    &[0xED, 0xB0, 0x80],
    &[0xED, 0xBF, 0xBF],
    &[0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80],
    &[0xF0, 0x9F, 0x98, 0x80],
    &[0xF0, 0x8F, 0xBF, 0xBF],
    &[0xF4, 0x8F, 0xBF, 0xBF],
    &[0xF4, 0x90, 0x80, 0x80],
    &[0xF7, 0xBF, 0xBF, 0xBF],
    &[0xF8, 0x88, 0x80, 0x80, 0x80],
    &[0xF8, 0x87, 0xBF, 0xBF, 0xBF],
    &[0xFC, 0x84, 0x80, 0x80, 0x80, 0x80],
    &[0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF],
    &[0xFE, 0x82, 0x80, 0x80, 0x80, 0x80, 0x80],
    &[0xFE, 0x81, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF],
    &[
        0xFF, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    ],
    &[
        0xFF, 0x80, 0x87, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF,
    ],
    &[
        0xFF, 0x80, 0x88, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    ],
    &[0xEF, 0xB7, 0x90],
    &[0xEF, 0xBF, 0xBE],
    &[0xEF, 0xBB, 0xBF],
];

/// Generated text: [`TEXTS`] texts of 1 to 40 characters drawn for the
/// dialect (see [`character`]), each checked against the oracle and pushed
/// whole, then three damaged copies: a byte replaced by one of the
/// boundary alphabet, a sequence of [`FOREIGN`] spliced in, and the text cut
/// short, each after up to two other random edits (a byte inserted or
/// removed).
fn text(dialect: &Automaton, out: &mut Vec<Vec<u8>>) {
    let name = dialect.grammar().name;
    let alphabet = boundary_alphabet();
    let mut rng = Rng::derive(0x1DE9, name.len() as u64 ^ u64::from(name.as_bytes()[0]));
    for _ in 0..TEXTS {
        let mut text = Vec::new();
        let mut after_lead = false;
        for _ in 0..rng.range(1, 40) {
            for unit in character(name, &mut rng, after_lead) {
                encode(name, unit, &mut text);
                after_lead = (0xD800..0xDC00).contains(&unit);
            }
        }
        assert_eq!(
            dialect.validate(&text),
            Ok(()),
            "generated {name}: {text:02X?}"
        );
        out.push(text.clone());

        let mut replaced = text.clone();
        edits(&mut rng, &mut replaced, &alphabet);
        if !replaced.is_empty() {
            let at = rng.below(replaced.len());
            replaced[at] = *rng.pick(&alphabet);
        }
        out.push(replaced);

        let mut spliced = text.clone();
        edits(&mut rng, &mut spliced, &alphabet);
        let at = rng.range(0, spliced.len());
        spliced.splice(at..at, rng.pick(FOREIGN).iter().copied());
        out.push(spliced);

        let mut cut = text;
        edits(&mut rng, &mut cut, &alphabet);
        cut.truncate(rng.range(0, cut.len()));
        out.push(cut);
    }
}

/// Up to two random edits: a byte of `alphabet` inserted, or a byte
/// removed.
fn edits(rng: &mut Rng, text: &mut Vec<u8>, alphabet: &[u8]) {
    for _ in 0..rng.range(0, 2) {
        if rng.one_in(2) || text.is_empty() {
            let at = rng.range(0, text.len());
            text.insert(at, *rng.pick(alphabet));
        } else {
            text.remove(rng.below(text.len()));
        }
    }
}

/// The code units of one random character of the dialect: one code point,
/// or for a supplementary character in CESU-8 and modified UTF-8 its two
/// surrogates. Boundary code points are drawn often. WTF-8 gets lone
/// surrogates, but never a trail right after a lead (`after_lead`).
fn character(dialect: &str, rng: &mut Rng, after_lead: bool) -> Vec<u32> {
    const EDGES: &[u32] = &[
        0x00, 0x01, 0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xD7FF, 0xE000, 0xFDD0, 0xFDEF,
        0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF, 0x10000, 0x1F600, 0x3FFFF, 0x40000, 0xFFFFF, 0x100000,
        0x10FFFF,
    ];
    let max = if dialect == "rfc2279" {
        0x7FFF_FFFF
    } else {
        0x10_FFFF
    };
    let code_point = match rng.below(8) {
        0..=2 => rng.range(0x20, 0x7E) as u32,
        3 => *rng.pick(EDGES),
        4 => rng.range(0x80, 0x7FF) as u32,
        5 => rng.range(0x800, 0xFFFF) as u32,
        6 => rng.range(0x1_0000, 0x10_FFFF) as u32,
        // Past the Basic Multilingual Plane at every length (RFC 2279: up
        // to U+7FFFFFFF; the others: up to U+10FFFF).
        _ => {
            let bits = rng.range(17, 31) as u32;
            (rng.next_u64() as u32 & ((1 << bits) - 1)).clamp(0x1_0000, max)
        }
    };
    let surrogates_allowed = matches!(dialect, "unicode-3.1" | "wtf-8" | "mutf-8" | "rfc2279");
    let code_point = if surrogates_allowed && rng.one_in(6) {
        rng.range(0xD800, 0xDFFF) as u32
    } else if (0xD800..0xE000).contains(&code_point) {
        0xFFFD
    } else {
        code_point
    };
    let code_point = match dialect {
        // A trail right after a lead: WTF-8 writes that pair's 4-byte form.
        "wtf-8" if after_lead && (0xDC00..0xE000).contains(&code_point) => 0x41,
        "mutf-8" | "cesu-8" | "utf-8" | "unicode-3.1" | "wtf-8" => code_point.min(0x10_FFFF),
        _ => code_point,
    };
    if matches!(dialect, "cesu-8" | "mutf-8") && code_point >= 0x1_0000 {
        let offset = code_point - 0x1_0000;
        vec![0xD800 + (offset >> 10), 0xDC00 + (offset & 0x3FF)]
    } else {
        vec![code_point]
    }
}

/// Append the dialect's encoding of one code unit: the shortest form of RFC
/// 2279's bit pattern (which is UTF-8's for every code point up to
/// U+10FFFF and every surrogate), except U+0000 in modified UTF-8 (`C0 80`).
fn encode(dialect: &str, code_point: u32, out: &mut Vec<u8>) {
    if dialect == "mutf-8" && code_point == 0 {
        out.extend([0xC0, 0x80]);
        return;
    }
    if code_point < 0x80 {
        out.push(code_point as u8);
        return;
    }
    // The number of continuation bytes, and the lead byte's marker bits.
    let (tail, marker) = match code_point {
        0..=0x7FF => (1, 0xC0),
        0x800..=0xFFFF => (2, 0xE0),
        0x1_0000..=0x1F_FFFF => (3, 0xF0),
        0x20_0000..=0x3FF_FFFF => (4, 0xF8),
        _ => (5, 0xFC),
    };
    out.push(marker | (code_point >> (6 * tail)) as u8);
    for k in (0..tail).rev() {
        out.push(0x80 | ((code_point >> (6 * k)) & 0x3F) as u8);
    }
}

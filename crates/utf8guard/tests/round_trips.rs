//! The round trips that `docs/DIALECTS.md` promises: its table of what each
//! conversion between two dialects loses is checked here, cell by cell,
//! against the transcoders themselves on every code point each dialect
//! holds (all of U+0000..U+10FFFF, and above it a sample that includes
//! every boundary of every sequence length).

mod common;

use std::collections::BTreeSet;

use utf8guard::{transcode, Dialect, Policy};

/// What a conversion can lose: a class of code points the target does
/// not hold.
fn class(cp: u32) -> &'static str {
    match cp {
        0 => "U+0000",
        0x80..=0x9F => "C1 controls",
        0xD800..=0xDFFF => "lone surrogates",
        0x11_0000..=0x7FFF_FFFF => "above U+10FFFF",
        0x8000_0000.. => "above U+7FFFFFFF",
        _ => unreachable!("every dialect holds U+{cp:04X}"),
    }
}

/// Every code point up to U+10FFFF; above it, the first and last of each
/// sequence length of RFC 2279 and Corrected UTF-8 and their neighbours
/// (up to U+FFFFFFFF), and one in every 65 537 between.
fn code_points() -> Vec<u32> {
    let mut set: BTreeSet<u32> = (0..=0x10_FFFF).collect();
    for &e in common::CODE_POINT_EDGES {
        set.extend([e.saturating_sub(1), e, e.saturating_add(1)]);
    }
    set.extend((0x11_0000..0x8421_109F).step_by(65_537));
    set.into_iter().collect()
}

/// The text of `dialect` holding each of `cps` it can hold, an `x` after
/// each (so that two surrogates are never read as a pair), and the code
/// points it holds.
fn text(dialect: Dialect, cps: &[u32]) -> (Vec<u8>, Vec<u32>) {
    let (mut bytes, mut held) = (Vec::new(), Vec::new());
    for &cp in cps {
        if let Ok(e) = dialect.encode(cp) {
            bytes.extend_from_slice(&e);
            bytes.push(b'x');
            held.push(cp);
        }
    }
    (bytes, held)
}

/// The table of `docs/DIALECTS.md` under "What a conversion loses": for
/// each (from, to), the cell as written.
fn documented() -> Vec<(Dialect, Dialect, String)> {
    let doc = include_str!("../../../docs/DIALECTS.md");
    let section = doc
        .split("## What a conversion loses")
        .nth(1)
        .expect("docs/DIALECTS.md has the section");
    let rows: Vec<Vec<String>> = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().trim_matches('`').to_string())
                .collect()
        })
        .collect();
    let targets: Vec<Dialect> = rows[0][1..]
        .iter()
        .map(|name| name.parse().expect("a dialect's name"))
        .collect();
    let mut cells = Vec::new();
    for row in &rows[2..] {
        let from: Dialect = row[0].parse().expect("a dialect's name");
        for (cell, &to) in row[1..].iter().zip(&targets) {
            cells.push((from, to, cell.clone()));
        }
    }
    cells
}

#[test]
fn the_documented_losses_are_the_transcoders_losses() {
    let cps = code_points();
    let cells = documented();
    assert_eq!(cells.len(), Dialect::ALL.len() * Dialect::ALL.len());
    for &from in Dialect::ALL {
        let (bytes, held) = text(from, &cps);
        for &to in Dialect::ALL {
            let lost: BTreeSet<&str> = held
                .iter()
                .filter(|&&cp| to.encode(cp).is_err())
                .map(|&cp| class(cp))
                .collect();
            let cell = &cells
                .iter()
                .find(|(f, t, _)| (*f, *t) == (from, to))
                .expect("a cell for every pair")
                .2;
            let written: BTreeSet<&str> = match cell.as_str() {
                "lossless" => BTreeSet::new(),
                "-" if from == to => BTreeSet::new(),
                cell => cell.split(", ").collect(),
            };
            assert_eq!(written, lost, "{from} to {to}: the table says {cell:?}");

            // The transcoders agree: lossless conversions come back to the
            // same bytes; lossy ones stop at the first lost code point.
            let there = transcode(from, to, &bytes, Policy::Strict);
            let first_lost = held.iter().position(|&cp| to.encode(cp).is_err());
            match (first_lost, there) {
                (None, Ok(there)) => {
                    let back = transcode(to, from, &there, Policy::Strict)
                        .unwrap_or_else(|e| panic!("{to} back to {from}: {e}"));
                    assert!(back == bytes, "{from} to {to} and back differs");
                }
                (Some(i), Err(e)) => {
                    let offset = text(from, &held[..i]).0.len();
                    assert_eq!(e.offset(), offset, "{from} to {to}");
                }
                (lost, there) => panic!(
                    "{from} to {to}: first lost code point {:?}, transcoding {:?}",
                    lost.map(|i| held[i]),
                    there.map(|v| v.len())
                ),
            }
        }
    }
}

//! The conversions to and from Latin-1, Windows-1252 and UTF-32 against
//! the difftest's own ([`utf8guard_difftest::convert`]): a harness of
//! their subjects alone, over the synthetic, mutation, exhaustive and
//! random categories of strict UTF-8 (the input is read as UTF-8, as the
//! single-byte encoding or as UTF-32 units, by the direction), a bounded
//! amount of work.

use utf8guard::Dialect;
use utf8guard_difftest::convert::conversion_subjects;
use utf8guard_difftest::exhaustive::FIRST_OF_LEN;
use utf8guard_difftest::{Category, Harness, Runner, Script};

const SEED: u64 = 0xC0DE;

/// Work is divided by this in debug builds.
const SCALE: usize = if cfg!(debug_assertions) { 4 } else { 1 };

fn expect_ok(result: Result<(), Box<utf8guard_difftest::Mismatch>>) {
    if let Err(m) = result {
        panic!("{m}");
    }
}

#[test]
fn conversions_agree_with_the_reference() {
    let subjects = conversion_subjects();
    let count = subjects.len();
    let mut runner = Runner::new(Harness::with_subjects(SEED, subjects), SEED, Vec::new());
    for _ in 0..2 * Script::ALL.len() / SCALE {
        expect_ok(runner.synthetic_step(64 << 10));
    }
    for &script in Script::ALL {
        for r in 0..4 / SCALE {
            expect_ok(runner.mutate(&script.generate(SEED + r as u64, 200 + 257 * r)));
        }
    }
    // Every 1-byte sequence at every placement around the blocks, and
    // every 2-byte sequence at one placement each.
    expect_ok(runner.exhaustive_all_placements(0..FIRST_OF_LEN[1]));
    expect_ok(runner.exhaustive_range(FIRST_OF_LEN[1], FIRST_OF_LEN[2]));
    expect_ok(runner.random_step(4000 / SCALE));
    let h = &runner.harness;
    for category in [
        Category::Synthetic,
        Category::Mutation,
        Category::Exhaustive,
        Category::Random,
    ] {
        assert!(
            h.lane_count(Dialect::Utf8, category).inputs > 0,
            "{category:?}"
        );
    }
    let inputs: u64 = Category::ALL
        .iter()
        .map(|&c| h.lane_count(Dialect::Utf8, c).inputs)
        .sum();
    let counts: Vec<_> = h.subject_counts().collect();
    assert_eq!(counts.len(), count);
    for (name, seen) in counts {
        assert_eq!(seen.inputs, inputs, "{name}");
    }
}

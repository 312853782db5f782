//! The harness must be able to fail: deliberately wrong subjects are caught
//! by the input makers and shrunk to minimal reproducers.

use std::time::Duration;

use utf8guard::{Dialect, ErrorKind};
use utf8guard_difftest::{
    automaton, Answer, Category, Found, Harness, Mismatch, Runner, Script, Subject,
};

/// Run the input makers until one catches the broken subject.
fn catch(subject: Subject) -> Mismatch {
    let mut harness = Harness::with_subjects(3, vec![subject]);
    harness.set_shrink_budget(Duration::from_secs(20));
    let mut runner = Runner::new(harness, 3, Vec::new());
    for _ in 0..50 {
        for &category in &[
            Category::Mutation,
            Category::Random,
            Category::Synthetic,
            Category::Exhaustive,
        ] {
            if let Err(m) = runner.step(category) {
                return *m;
            }
        }
    }
    panic!("the broken subject was never caught");
}

fn dfa_found(bytes: &[u8]) -> Result<(), Found> {
    utf8guard_dfa::validate(bytes).map_err(|e| Found {
        valid_up_to: e.valid_up_to,
        error_len: e.error_len,
        kind: Some(ErrorKind::from(e.fault)),
    })
}

#[test]
fn a_validator_that_accepts_surrogates_is_caught_with_a_two_byte_reproducer() {
    let m = catch(Subject::new("accepts-surrogates", |b, _| {
        let surrogate = b
            .windows(2)
            .any(|w| w[0] == 0xED && (0xA0..=0xBF).contains(&w[1]));
        Answer::Verdict(surrogate || utf8guard_dfa::is_valid(b))
    }));
    assert_eq!(m.subject, "accepts-surrogates");
    assert_eq!(m.shrunk.len(), 2, "{m}");
    assert_eq!(m.shrunk[0], 0xED, "{m}");
    assert!((0xA0..=0xBF).contains(&m.shrunk[1]), "{m}");
    assert_eq!(m.expected, Answer::Verdict(false));
    assert_eq!(m.got, Answer::Verdict(true));
}

#[test]
fn an_off_by_one_at_the_end_of_input_is_caught_with_a_one_byte_reproducer() {
    // Reports an input that ends inside a character one byte too late.
    let m = catch(Subject::new("late-incomplete", |b, _| {
        Answer::Exact(dfa_found(b).map_err(|mut f| {
            if f.error_len.is_none() {
                f.valid_up_to += 1;
            }
            f
        }))
    }));
    assert_eq!(m.shrunk.len(), 1, "{m}");
    assert!((0xC2..=0xF4).contains(&m.shrunk[0]), "{m}");
    let truth = Found {
        valid_up_to: 0,
        error_len: None,
        kind: Some(ErrorKind::Incomplete),
    };
    assert_eq!(m.expected, Answer::Exact(Err(truth)));
    assert_eq!(
        m.got,
        Answer::Exact(Err(Found {
            valid_up_to: 1,
            ..truth
        }))
    );
}

#[test]
fn a_kernel_that_skips_the_last_byte_is_caught() {
    let m = catch(Subject::new("skips-last-byte", |b, _| {
        Answer::Verdict(utf8guard_dfa::is_valid(&b[..b.len().saturating_sub(1)]))
    }));
    assert_eq!(m.shrunk.len(), 1, "{m}");
    assert!(m.shrunk[0] >= 0x80, "{m}");
    assert_eq!(m.expected, Answer::Verdict(false));
}

#[test]
fn a_wrong_error_kind_is_caught() {
    let m = catch(Subject::new("overlong-called-too-large", |b, _| {
        Answer::Exact(dfa_found(b).map_err(|mut f| {
            if f.kind == Some(ErrorKind::Overlong) {
                f.kind = Some(ErrorKind::TooLarge);
            }
            f
        }))
    }));
    // E0 80..9F or F0 80..8F, with nothing else.
    assert_eq!(m.shrunk.len(), 2, "{m}");
    assert!(
        matches!(m.shrunk[..], [0xE0, 0x80..=0x9F] | [0xF0, 0x80..=0x8F]),
        "{m}"
    );
}

#[test]
fn a_block_boundary_bug_is_caught() {
    // Misses an error that starts exactly at a multiple of 64.
    let m = catch(Subject::new("blind-at-64", |b, _| {
        let truth = dfa_found(b);
        let blind = matches!(truth, Err(f) if f.valid_up_to > 0 && f.valid_up_to % 64 == 0);
        Answer::Verdict(blind || truth.is_ok())
    }));
    assert_eq!(m.shrunk.len(), 65, "{m}");
    assert!(std::str::from_utf8(&m.shrunk[..64]).is_ok(), "{m}");
    assert!(m.shrunk[64] >= 0x80, "{m}");
}

#[test]
fn a_lossy_subject_is_compared_with_std() {
    let mut harness = Harness::with_subjects(
        1,
        vec![Subject::new("drops-replacements", |b, _| {
            Answer::Lossy(String::from_utf8_lossy(b).replace('\u{FFFD}', ""))
        })],
    );
    harness
        .check(
            Category::External,
            Script::Greek.generate(1, 500).as_slice(),
        )
        .expect("valid text has no replacement to drop");
    let m = harness
        .check(Category::External, b"ab\xFFcd")
        .expect_err("a dropped replacement");
    assert_eq!(m.shrunk, b"\xFF");
    assert_eq!(m.expected, Answer::Lossy("\u{FFFD}".into()));
    assert_eq!(m.got, Answer::Lossy(String::new()));
}

/// The automaton's answer in `dialect`, as a subject gives it.
fn dialect_found(dialect: Dialect, bytes: &[u8]) -> Result<(), Found> {
    automaton(dialect).validate(bytes).map_err(|e| Found {
        valid_up_to: e.valid_up_to,
        error_len: e.error_len,
        kind: Some(ErrorKind::from(e.fault)),
    })
}

#[test]
fn a_cesu8_validator_that_misses_lone_trails_is_caught_with_a_two_byte_reproducer() {
    let m = catch(
        Subject::new("cesu8-lone-trails", |b, _| {
            let truth = dialect_found(Dialect::Cesu8, b);
            let blind = matches!(truth, Err(f) if f.kind == Some(ErrorKind::LoneSurrogate)
                && b[f.valid_up_to + 1] >= 0xB0);
            Answer::Verdict(blind || truth.is_ok())
        })
        .in_dialect(Dialect::Cesu8),
    );
    assert_eq!(m.dialect, Dialect::Cesu8);
    assert!(matches!(m.shrunk[..], [0xED, 0xB0..=0xBF]), "{m}");
    assert_eq!(m.expected, Answer::Verdict(false));
}

#[test]
fn a_wtf8_pair_missed_at_a_block_boundary_is_caught() {
    // Misses a lead surrogate followed by a trail when the trail starts at
    // a multiple of 64: the pair rule across blocks.
    let m = catch(
        Subject::new("wtf8-blind-at-64", |b, _| {
            let truth = dialect_found(Dialect::Wtf8, b);
            let blind = matches!(truth, Err(f) if f.kind == Some(ErrorKind::SurrogatePair)
                && f.valid_up_to % 64 == 0);
            Answer::Verdict(blind || truth.is_ok())
        })
        .in_dialect(Dialect::Wtf8),
    );
    // The lead's three bytes before offset 64, the trail's first two at it.
    assert_eq!(m.shrunk.len(), 66, "{m}");
    assert!(
        matches!(m.shrunk[61..64], [0xED, 0xA0..=0xAF, 0x80..=0xBF]),
        "{m}"
    );
    assert!(matches!(m.shrunk[64..], [0xED, 0xB0..=0xBF]), "{m}");
}

#[test]
fn an_rfc2279_validator_that_takes_overlong_five_byte_forms_is_caught() {
    let m = catch(
        Subject::new("rfc2279-overlong-5", |b, _| {
            // `F8 80..87` read as if `F8` were `F9`.
            let mut patched = b.to_vec();
            for k in 0..patched.len().saturating_sub(1) {
                if patched[k] == 0xF8 && (0x80..=0x87).contains(&patched[k + 1]) {
                    patched[k] = 0xF9;
                }
            }
            Answer::Verdict(automaton(Dialect::Rfc2279).is_valid(&patched))
        })
        .in_dialect(Dialect::Rfc2279),
    );
    assert!(
        matches!(
            m.shrunk[..],
            [0xF8, 0x80..=0x87, 0x80..=0xBF, 0x80..=0xBF, 0x80..=0xBF]
        ),
        "{m}"
    );
    assert_eq!(m.got, Answer::Verdict(true));
}

#[test]
fn a_corrected_run_lost_at_a_block_boundary_is_caught() {
    // Forgets it is inside a reserved run when the run reaches offset 64.
    let m = catch(
        Subject::new("corrected-run-at-64", |b, _| {
            let a = automaton(Dialect::Corrected);
            let mut state = utf8guard_dfa::State::ACCEPT;
            for (i, &byte) in b.iter().enumerate() {
                state = a.next(state, byte);
                if i == 64 && a.in_run(state) && (0x80..=0xBF).contains(&byte) {
                    return Answer::Verdict(false);
                }
            }
            Answer::Verdict(a.is_valid(b))
        })
        .in_dialect(Dialect::Corrected),
    );
    assert_eq!(m.shrunk.len(), 65, "{m}");
    assert!(m.shrunk[..64].iter().any(|&b| b >= 0xFE), "{m}");
    assert!((0x80..=0xBF).contains(&m.shrunk[64]), "{m}");
    assert_eq!(m.expected, Answer::Verdict(true));
}

#[test]
fn a_wrong_inspection_is_caught() {
    // Reports no reserved run past the first 100 bytes.
    let m = catch(
        Subject::new("corrected-short-sighted-inspect", |b, _| {
            let scan = automaton(Dialect::Corrected).scan(b);
            Answer::Inspected(match dialect_found(Dialect::Corrected, b) {
                Ok(()) => Ok(utf8guard_difftest::Inspected {
                    magic_number: scan.magic,
                    first_reserved_run: scan.first_run.filter(|&at| at < 100),
                }),
                Err(f) => Err(f),
            })
        })
        .in_dialect(Dialect::Corrected),
    );
    // 100 bytes, then `FE` or `FF`.
    assert_eq!(m.shrunk.len(), 101, "{m}");
    assert!(m.shrunk[100] >= 0xFE, "{m}");
}

/// A `jvm` repair that replaces a surrogate's form byte by byte, as the
/// maximal-subpart policy does, is caught on the surrogate's bytes.
#[test]
fn a_jvm_repair_that_splits_surrogates_is_caught_on_a_surrogate() {
    use utf8guard::Replacement;
    let m = catch(Subject::new("jvm-as-std", |b, _| {
        Answer::Repaired(
            Some(Replacement::Jvm),
            utf8guard::repair(b, Replacement::MaximalSubpart)
                .into_owned()
                .into_bytes(),
        )
    }));
    assert_eq!(m.subject, "jvm-as-std");
    assert!(m.shrunk.len() >= 2 && m.shrunk.len() <= 3, "{m}");
    assert_eq!(m.shrunk[0], 0xED, "{m}");
    assert!((0xA0..=0xBF).contains(&m.shrunk[1]), "{m}");
}

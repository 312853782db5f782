//! The bounded differential run: every category, every subject, every
//! dialect, a fixed amount of work (about three minutes in release on two
//! busy cores, most of it in strict UTF-8's parallel and reader subjects,
//! which pay for a thread pool round trip or a reader's buffer on every
//! input; a quarter of the work in debug builds). Each category runs in
//! strict UTF-8 and, as a test of its own, in the six other dialects with
//! the same amount of work per dialect (their subjects are cheaper). The
//! long runs are the `difftest` binary's job.

use utf8guard::{Dialect, Kernel};
use utf8guard_difftest::corpus::{self, CorpusFile};
use utf8guard_difftest::exhaustive::{self, FIRST_OF_LEN};
use utf8guard_difftest::{seeds, Category, Harness, Rng, Runner, Script};

/// Work is divided by this in debug builds.
const SCALE: u64 = if cfg!(debug_assertions) { 4 } else { 1 };

const SEED: u64 = 0x5EED;

/// Strict UTF-8 alone.
const STRICT: &[Dialect] = &[Dialect::Utf8];

/// The dialects other than strict UTF-8.
fn others() -> &'static [Dialect] {
    &Dialect::ALL[1..]
}

fn runner(corpus: Vec<CorpusFile>, dialects: &[Dialect]) -> Runner {
    Runner::new(Harness::for_dialects(SEED, None, dialects), SEED, corpus)
}

/// Every subject saw every input of its dialect: the per-subject counts
/// equal the sum over categories of that dialect's counts; and every
/// dialect of the harness had inputs.
fn assert_all_subjects_saw_everything(runner: &Runner) {
    let h = &runner.harness;
    let lane = |d: Dialect| {
        let inputs: u64 = Category::ALL
            .iter()
            .map(|&c| h.lane_count(d, c).inputs)
            .sum();
        let bytes: u64 = Category::ALL
            .iter()
            .map(|&c| h.lane_count(d, c).bytes)
            .sum();
        (inputs, bytes)
    };
    for &d in h.dialects() {
        assert!(lane(d).0 > 0, "{d}");
    }
    for (name, count) in h.subject_counts() {
        let d = subject_dialect(name);
        assert_eq!((count.inputs, count.bytes), lane(d), "{name}");
    }
}

/// The dialect a subject's name says (strict UTF-8 if none).
fn subject_dialect(name: &str) -> Dialect {
    Dialect::ALL
        .iter()
        .copied()
        .find(|d| name.ends_with(&format!("({d})")))
        .unwrap_or(Dialect::Utf8)
}

fn expect_ok(result: Result<(), Box<utf8guard_difftest::Mismatch>>) {
    if let Err(m) = result {
        panic!("{m}");
    }
}

#[test]
fn the_registry_holds_every_available_kernel_and_the_dispatched_api() {
    let harness = Harness::for_dialects(0, None, STRICT);
    let names: Vec<&str> = harness.subject_names().collect();
    let mut expected = Vec::new();
    for k in Kernel::available() {
        expected.push(format!("{k}.validate"));
        expected.push(format!("{k}.from_utf8"));
    }
    if cfg!(target_arch = "x86_64") && Kernel::from_name("avx2").is_some_and(|k| k.is_available()) {
        expected.push("avx2-shuffled.validate".into());
    }
    if cfg!(target_arch = "x86_64") && Kernel::from_name("avx512").is_some_and(|k| k.is_available())
    {
        expected.push("avx512-without-vbmi.from_utf8".into());
    }
    for api in [
        "validate",
        "from_utf8",
        "from_utf8_mut",
        "StreamValidator",
        "from_utf8_lossy",
        "compat::from_utf8",
        "string_from_utf8",
        "utf8_chunks",
        "validate_offsets",
        "validate_batch",
        "par::validate",
        "par::from_utf8",
        "par::validate_split",
        "par::check_split",
        "Utf8Reader::read",
        "Utf8Reader::fill_buf",
        "io::validate_reader",
        "Dialect::check(utf-8)",
        "Dialect::validate(utf-8)",
        "Dialect::inspect(utf-8)",
    ] {
        expected.push(api.into());
    }
    expected.extend(repair_subject_names());
    assert_eq!(names, expected);

    let only_scalar = Harness::for_dialects(0, Some(Kernel::Scalar), STRICT);
    let names: Vec<&str> = only_scalar.subject_names().collect();
    assert_eq!(
        names,
        [
            "scalar.validate",
            "scalar.from_utf8",
            "validate",
            "from_utf8",
            "from_utf8_mut",
            "StreamValidator",
            "from_utf8_lossy",
            "compat::from_utf8",
            "string_from_utf8",
            "utf8_chunks",
            "validate_offsets",
            "validate_batch",
            "par::validate",
            "par::from_utf8",
            "par::validate_split",
            "par::check_split",
            "Utf8Reader::read",
            "Utf8Reader::fill_buf",
            "io::validate_reader",
            "Dialect::check(utf-8)",
            "Dialect::validate(utf-8)",
            "Dialect::inspect(utf-8)"
        ]
        .into_iter()
        .map(String::from)
        .chain(repair_subject_names())
        .collect::<Vec<_>>()
    );
}

/// The repair subjects' names: one per policy, then the escape.
fn repair_subject_names() -> Vec<String> {
    utf8guard::Replacement::ALL
        .into_iter()
        .map(|policy| format!("repair({policy})"))
        .chain(["escape".to_string()])
        .collect()
}

#[test]
fn the_registry_holds_every_kernel_in_every_dialect() {
    let all = Harness::new(0, None);
    assert_eq!(all.dialects(), Dialect::ALL);
    let names: Vec<&str> = all.subject_names().collect();
    let strict = Harness::for_dialects(0, None, STRICT);
    let mut expected: Vec<String> = strict.subject_names().map(String::from).collect();
    for &d in others() {
        for k in Kernel::available() {
            expected.push(format!("{k}.check_dialect({d})"));
            expected.push(format!("{k}.validate_dialect({d})"));
        }
        if cfg!(target_arch = "x86_64")
            && Kernel::from_name("avx512").is_some_and(|k| k.is_available())
        {
            expected.push(format!("avx512-without-vbmi.check_dialect({d})"));
        }
        for api in ["Dialect::check", "Dialect::validate", "Dialect::inspect"] {
            expected.push(format!("{api}({d})"));
        }
        expected.push(format!("StreamValidator::with_dialect({d})"));
    }
    assert_eq!(names, expected);

    let cesu_on_scalar = Harness::for_dialects(0, Some(Kernel::Scalar), &[Dialect::Cesu8]);
    let names: Vec<&str> = cesu_on_scalar.subject_names().collect();
    assert_eq!(
        names,
        [
            "scalar.check_dialect(cesu-8)",
            "scalar.validate_dialect(cesu-8)",
            "Dialect::check(cesu-8)",
            "Dialect::validate(cesu-8)",
            "Dialect::inspect(cesu-8)",
            "StreamValidator::with_dialect(cesu-8)"
        ]
    );
}

#[test]
fn corpus_category_covers_project_and_shared_corpora() {
    corpus_category(STRICT);
}

#[test]
fn corpus_category_in_every_other_dialect() {
    corpus_category(others());
}

fn corpus_category(dialects: &[Dialect]) {
    let mut files = corpus::load_dir(&corpus::project_corpora()).expect("project corpora");
    let project_files = files.len();
    assert!(project_files >= seeds::project_corpora().len());
    let shared = corpus::shared_corpora();
    if shared.is_dir() {
        files.extend(corpus::load_dir(&shared).expect("shared corpora"));
    } else {
        eprintln!(
            "shared corpora not found at {}: skipping them (the project corpora are still checked)",
            shared.display()
        );
    }
    let n = files.len();
    let total: u64 = files.iter().map(|f| f.bytes.len() as u64).sum();
    let mut runner = runner(files, dialects);
    // Four visits of every file: whole, 8 slices, 2 windows each time.
    for _ in 0..4 * n {
        expect_ok(runner.corpus_step(8));
    }
    for &d in dialects {
        let count = runner.harness.lane_count(d, Category::Corpus);
        assert_eq!(count.inputs, 4 * n as u64 * (1 + 8 + 2), "{d}");
        // Re-encoded, a file may be shorter (Corrected UTF-8 has no U+0000
        // nor C1 controls) or longer (CESU-8's pairs); whole, it is seen
        // four times.
        if matches!(d, Dialect::Utf8 | Dialect::Wtf8 | Dialect::Rfc2279) {
            assert!(count.bytes >= 4 * total, "{d}");
        }
    }
    assert_all_subjects_saw_everything(&runner);
}

#[test]
fn synthetic_category_covers_every_script() {
    synthetic_category(STRICT);
}

#[test]
fn synthetic_category_covers_every_script_in_every_other_dialect() {
    synthetic_category(others());
}

fn synthetic_category(dialects: &[Dialect]) {
    let mut runner = runner(Vec::new(), dialects);
    let rounds = 6 / SCALE as usize;
    for _ in 0..rounds * Script::ALL.len() {
        expect_ok(runner.synthetic_step(1 << 20));
    }
    for &d in dialects {
        let count = runner.harness.lane_count(d, Category::Synthetic);
        assert_eq!(count.inputs, (rounds * Script::ALL.len() * 4) as u64, "{d}");
        // One large text, checked whole at a size no block loop can finish
        // in its first block.
        let mut big = Vec::new();
        Script::Mixed.generate_in(d, &mut Rng::new(SEED), 8 << 20, &mut big);
        expect_ok(runner.harness.check_in(Category::Synthetic, d, &big));
    }
    assert_all_subjects_saw_everything(&runner);
}

#[test]
fn mutation_category_breaks_every_script_at_every_residue() {
    mutation_category(STRICT);
}

#[test]
fn mutation_category_breaks_every_dialect_at_every_residue() {
    mutation_category(others());
}

fn mutation_category(dialects: &[Dialect]) {
    let mut runner = runner(Vec::new(), dialects);
    let rounds = 16 / SCALE as usize;
    for &d in dialects {
        for &script in Script::ALL {
            for r in 0..rounds {
                // Lengths from 3 to 33 blocks, not multiples of 64.
                let len = 200 + 257 * r;
                let base = if d == Dialect::Utf8 {
                    script.generate(SEED + r as u64, len)
                } else {
                    let mut base = Vec::new();
                    let mut rng = Rng::derive(SEED + r as u64, script as u64);
                    script.generate_in(d, &mut rng, len, &mut base);
                    base
                };
                expect_ok(runner.mutate_in(d, &base));
            }
        }
    }
    // And bases from the random mixture of scripts and corpora.
    for _ in 0..40 / SCALE {
        expect_ok(runner.mutation_step());
    }
    for &d in dialects {
        let count = runner.harness.lane_count(d, Category::Mutation);
        // At least 64 residues x (9 malformations, and outside strict UTF-8
        // 13 foreign sequences, inserted + truncation + flip + deletion)
        // per explicit round.
        let inserted = if d == Dialect::Utf8 { 9 } else { 9 + 13 };
        let least = Script::ALL.len() * rounds * 64 * (inserted + 3);
        assert!(count.inputs >= least as u64, "{d}");
    }
    assert_all_subjects_saw_everything(&runner);
}

#[test]
fn exhaustive_category_covers_short_sequences_at_block_boundaries() {
    exhaustive_category(STRICT);
}

#[test]
fn exhaustive_category_covers_short_sequences_in_every_other_dialect() {
    exhaustive_category(others());
}

fn exhaustive_category(dialects: &[Dialect]) {
    let mut runner = runner(Vec::new(), dialects);
    let mut expected = 0;
    // Every 1-byte sequence at every placement.
    expect_ok(runner.exhaustive_all_placements(0..FIRST_OF_LEN[1]));
    expected += 256 * exhaustive::PLACEMENTS;
    // Every 2-byte sequence, at one placement each (rotating).
    expect_ok(runner.exhaustive_range(FIRST_OF_LEN[1], FIRST_OF_LEN[2]));
    expected += 1 << 16;
    // The 2-byte sequences that start with a lead byte, at about 40 more
    // placements each (10 in debug builds).
    let step = (exhaustive::PLACEMENTS / 40 * SCALE) as usize;
    for pass in (1..exhaustive::PLACEMENTS).step_by(step) {
        let base = pass * exhaustive::TOTAL;
        expect_ok(runner.exhaustive_range(base + FIRST_OF_LEN[1] + 0xC000, base + FIRST_OF_LEN[2]));
        expected += 0x4000;
    }
    // Every 3-byte sequence led by C2..F4 whose second byte is a
    // continuation byte or next to one, one placement each: the second
    // bytes 7F..C0 are where all the rules about 3 bytes differ.
    for lead in 0xC2u64..=0xF4 {
        for second in (0x7Fu64..=0xC0).step_by(SCALE as usize) {
            let first = FIRST_OF_LEN[2] + (lead << 16) + (second << 8);
            expect_ok(runner.exhaustive_range(first, first + 256));
            expected += 256;
        }
    }
    // 4-byte sequences led by F0..F4 with the second byte at the edges of
    // the ranges, every third byte, the fourth at the edges.
    for lead in 0u64..5 {
        for second in [0x7Fu64, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0] {
            for third in (0u64..256).step_by(SCALE as usize) {
                for fourth in [0x7Fu64, 0x80, 0xBF, 0xC0] {
                    let i = FIRST_OF_LEN[3] + (lead << 24) + (second << 16) + (third << 8) + fourth;
                    expect_ok(runner.exhaustive_range(i, i + 1));
                    expected += 1;
                }
            }
        }
    }
    // A strided sample of the whole 3- and 4-byte space.
    let stride = 331 * SCALE;
    let mut i = FIRST_OF_LEN[2];
    while i < exhaustive::TOTAL {
        expect_ok(runner.exhaustive_range(i, i + 1));
        expected += 1;
        i += stride;
    }
    // The first sequences in order, and random 4-byte sequences with other
    // leads (one per 16), and outside strict UTF-8 5- and 6-byte sequences
    // led by F8..FF (one per 16).
    expect_ok(runner.exhaustive_step(16_000));
    expected += 16_000 + 1_000;
    for &d in dialects {
        let count = runner.harness.lane_count(d, Category::Exhaustive);
        let long = if d == Dialect::Utf8 { 0 } else { 1_000 };
        assert_eq!(count.inputs, expected + long, "{d}");
    }
    assert_all_subjects_saw_everything(&runner);
}

#[test]
fn random_category() {
    random_category_in(STRICT);
}

#[test]
fn random_category_in_every_other_dialect() {
    random_category_in(others());
}

fn random_category_in(dialects: &[Dialect]) {
    let mut runner = runner(Vec::new(), dialects);
    expect_ok(runner.random_step(150_000 / SCALE as usize));
    for &d in dialects {
        let count = runner.harness.lane_count(d, Category::Random);
        assert_eq!(count.inputs, 150_000 / SCALE, "{d}");
    }
    assert_all_subjects_saw_everything(&runner);
}

#[test]
fn the_committed_corpora_are_what_the_generator_makes() {
    let dir = corpus::project_corpora();
    for (rel, bytes) in seeds::project_corpora() {
        let path = dir.join(&rel);
        let on_disk = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; regenerate with `difftest corpora`",
                path.display()
            )
        });
        assert!(
            on_disk == bytes,
            "{} differs from the generator's output; regenerate with `difftest corpora`",
            path.display()
        );
    }
}

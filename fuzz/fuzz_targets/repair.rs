//! Fuzz target of the repair policies: the first input byte picks one of
//! them (`utf8guard::Replacement::ALL`, then the surrogate escape), the
//! rest goes through that policy's difftest subject (the whole input at
//! once, a `Repairer` or `Escaper` fed random pieces, or a `RepairReader`
//! read with random buffer sizes), against the difftest's own repair
//! (`repair_reference.rs`). One policy an input, so each gets the whole
//! budget of the inputs that pick it, where `differential` runs them all
//! on every strict UTF-8 input.
#![no_main]

use std::cell::RefCell;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use utf8guard_difftest::subject::repair_subjects;
use utf8guard_difftest::{Category, Harness};

thread_local! {
    /// A harness per policy, each over that policy's one subject.
    static HARNESSES: RefCell<Vec<Harness>> = RefCell::new(
        repair_subjects()
            .into_iter()
            .map(|subject| {
                let mut harness = Harness::with_subjects(0, vec![subject]);
                harness.set_shrink_budget(Duration::from_secs(20));
                harness
            })
            .collect(),
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    HARNESSES.with(|harnesses| {
        let mut harnesses = harnesses.borrow_mut();
        let count = harnesses.len();
        let harness = &mut harnesses[usize::from(pick) % count];
        if let Err(mismatch) = harness.check_in(Category::External, utf8guard::Dialect::Utf8, input) {
            panic!("{mismatch}");
        }
    });
});

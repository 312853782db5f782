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

use libfuzzer_sys::fuzz_target;
use utf8guard_difftest::subject::repair_subjects;
use utf8guard_difftest::Harness;

thread_local! {
    /// A harness per policy, each over that policy's one subject.
    static HARNESSES: RefCell<Vec<Harness>> = RefCell::new(Harness::one_per_subject(repair_subjects()));
}

fuzz_target!(|data: &[u8]| {
    HARNESSES.with(|harnesses| Harness::check_picked(&mut harnesses.borrow_mut(), data));
});

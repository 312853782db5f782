//! Differential fuzz target: the first input byte picks a dialect of the
//! UTF-8 family (`utf8guard_difftest::seeds::fuzz_input`), the rest goes to
//! every subject of the difftest registry in that dialect (each kernel the
//! CPU has, the dispatched API; in strict UTF-8 the later APIs too), against
//! that dialect's reference automaton (and, in strict UTF-8,
//! `core::str::from_utf8`).
//!
//! A disagreement panics with the shrunk reproducer; libFuzzer saves the
//! original input under `fuzz/artifacts/differential/`.
#![no_main]

use std::cell::RefCell;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use utf8guard_difftest::{seeds, Category, Harness};

thread_local! {
    static HARNESS: RefCell<Harness> = RefCell::new({
        let mut harness = Harness::new(0, None);
        harness.set_shrink_budget(Duration::from_secs(20));
        harness
    });
}

fuzz_target!(|data: &[u8]| {
    let (dialect, input) = seeds::fuzz_input(data);
    HARNESS.with(|harness| {
        if let Err(mismatch) = harness
            .borrow_mut()
            .check_in(Category::External, dialect, input)
        {
            panic!("{mismatch}");
        }
    });
});

//! Differential fuzz target: every subject of the difftest registry (each
//! kernel the CPU has, the dispatched API, the later APIs) against the
//! reference DFA and `core::str::from_utf8`, on whatever libFuzzer makes.
//!
//! A disagreement panics with the shrunk reproducer; libFuzzer saves the
//! original input under `fuzz/artifacts/differential/`.
#![no_main]

use std::cell::RefCell;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use utf8guard_difftest::{Category, Harness};

thread_local! {
    static HARNESS: RefCell<Harness> = RefCell::new({
        let mut harness = Harness::new(0, None);
        harness.set_shrink_budget(Duration::from_secs(20));
        harness
    });
}

fuzz_target!(|data: &[u8]| {
    HARNESS.with(|harness| {
        if let Err(mismatch) = harness.borrow_mut().check(Category::External, data) {
            panic!("{mismatch}");
        }
    });
});

//! Fuzz target of the conversions to and from Latin-1, Windows-1252 and
//! UTF-32: the first input byte picks one of them
//! (`utf8guard_difftest::convert::conversions`), the rest goes through that
//! conversion's difftest subject (the `Vec` form, the `_into` form with
//! room for all or a little room a call, or the input in pieces), against
//! the difftest's own conversion (`convert.rs`).
#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use utf8guard_difftest::convert::conversion_subjects;
use utf8guard_difftest::Harness;

thread_local! {
    /// A harness per conversion, each over that conversion's one subject.
    static HARNESSES: RefCell<Vec<Harness>> = RefCell::new(Harness::one_per_subject(conversion_subjects()));
}

fuzz_target!(|data: &[u8]| {
    HARNESSES.with(|harnesses| Harness::check_picked(&mut harnesses.borrow_mut(), data));
});

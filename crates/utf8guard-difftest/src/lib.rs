//! Differential testing of utf8guard: every kernel and every API that
//! validates, in every dialect of the UTF-8 family, against the scalar
//! reference automata and `core::str::from_utf8`.
//!
//! # The parts
//!
//! - **Oracles** ([`dialect_oracle`]): for strict UTF-8,
//!   [`utf8guard_dfa::validate`] is the truth, and on every input
//!   `core::str::from_utf8` must agree with it, or the run stops with an
//!   oracle mismatch ([`oracle`]); for each other dialect, its automaton
//!   (`utf8guard_dfa::CESU8`, ...), with the magic number and first
//!   reserved run it finds.
//! - **Subjects** ([`subject::registry`]): in strict UTF-8, each kernel of
//!   [`Kernel::ALL`] the CPU can run (`validate` and `from_utf8`), the
//!   dispatched `validate`, `from_utf8` and `from_utf8_mut`, and the later
//!   APIs: streaming, lossy, batches, parallel (its split forced on small
//!   inputs) and the `io` readers (over random short reads, see
//!   [`ingest`]); in each other dialect, each kernel's `check_dialect` and
//!   `validate_dialect`, the dispatched `Dialect::check`, `validate` and
//!   `inspect`, and `StreamValidator::with_dialect`. A subject is a name, a
//!   dialect and a function from bytes to an [`Answer`]; adding one is one
//!   entry in the registry.
//! - **Inputs**, by [`Category`], made for each dialect: corpus files
//!   ([`corpus`], re-encoded in the dialect), synthetic text per script
//!   ([`Script`], written in the dialect with its own characters mixed in),
//!   mutations of valid text ([`mutate`]: the malformations of UTF-8 and,
//!   in the other dialects, the [`Foreign`] sequences that set the dialects
//!   apart), the exhaustive short sequences ([`exhaustive`], after text of
//!   the dialect) and random mixes ([`runner::random_input_in`]). The
//!   dialects' text comes from their code points through the encoders of
//!   [`encode`]. Everything is seeded: a seed reproduces a run.
//! - **The [`Harness`]** runs a dialect's oracle and subjects on each input
//!   of that dialect, counts inputs and bytes per subject, per dialect and
//!   per category, and on the first disagreement shrinks the input to a
//!   minimal reproducer ([`Mismatch`]).
//! - **The [`Runner`]** holds the state of every input maker and runs them
//!   in steps, each step once per dialect of the harness; the `difftest`
//!   binary interleaves the steps until its time is spent.
//!
//! ```
//! use utf8guard::Dialect;
//! use utf8guard_difftest::{Category, Harness, Runner};
//!
//! let harness = Harness::for_dialects(7, None, &[Dialect::Utf8, Dialect::Cesu8]);
//! let mut runner = Runner::new(harness, 7, Vec::new());
//! runner.random_step(100).expect("no mismatch");
//! runner.exhaustive_step(1_000).expect("no mismatch");
//! let h = &runner.harness;
//! assert_eq!(h.lane_count(Dialect::Cesu8, Category::Random).inputs, 100);
//! assert_eq!(h.category_count(Category::Random).inputs, 2 * 100);
//! // One sampled 4-byte sequence per 16, and in CESU-8 a 5- or 6-byte one.
//! assert_eq!(h.lane_count(Dialect::Utf8, Category::Exhaustive).inputs, 1_000 + 1_000 / 16);
//! assert_eq!(h.lane_count(Dialect::Cesu8, Category::Exhaustive).inputs, 1_000 + 2 * (1_000 / 16));
//! ```
//!
//! [`Kernel::ALL`]: utf8guard::Kernel::ALL

pub mod answer;
pub mod convert;
pub mod corpus;
pub mod encode;
pub mod exhaustive;
pub mod generate;
pub mod harness;
pub mod ingest;
pub mod mutate;
pub mod repair_reference;
pub mod rng;
pub mod runner;
pub mod seeds;
pub mod subject;

pub use answer::{Answer, Context, Found, Inspected, Truth};
pub use generate::Script;
pub use harness::{
    automaton, dialect_oracle, hex, oracle, shrink, Category, Count, Harness, Mismatch,
};
pub use mutate::{Foreign, Malformation, Mutation, Piece};
pub use rng::Rng;
pub use runner::Runner;
pub use subject::Subject;

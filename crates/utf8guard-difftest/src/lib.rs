//! Differential testing of utf8guard: every kernel and every API that
//! validates, against the scalar reference DFA and `core::str::from_utf8`.
//!
//! # The parts
//!
//! - **Oracles** ([`oracle`]): [`utf8guard_dfa::validate`] is the truth; on
//!   every input `core::str::from_utf8` must agree with it, or the run stops
//!   with an oracle mismatch.
//! - **Subjects** ([`subject::registry`]): each kernel of [`Kernel::ALL`]
//!   the CPU can run (`validate` and `from_utf8`), the dispatched
//!   `validate`, `from_utf8` and `from_utf8_mut`, and the later APIs:
//!   streaming, lossy, batches, parallel (its split forced on small inputs)
//!   and the `io` readers (over random short reads, see [`ingest`]). A
//!   subject is a name and a function from bytes to an [`Answer`]; adding
//!   one is one entry in the registry.
//! - **Inputs**, by [`Category`]: corpus files ([`corpus`]), synthetic text
//!   per script ([`Script`]), mutations of valid text ([`mutate`]), the
//!   exhaustive short sequences ([`exhaustive`]) and random mixes
//!   ([`runner::random_input`]). Everything is seeded: a seed reproduces a
//!   run.
//! - **The [`Harness`]** runs the oracles and every subject on each input,
//!   counts inputs and bytes per subject and per category, and on the first
//!   disagreement shrinks the input to a minimal reproducer ([`Mismatch`]).
//! - **The [`Runner`]** holds the state of every input maker and runs them
//!   in steps; the `difftest` binary interleaves the steps until its time is
//!   spent.
//!
//! ```
//! use utf8guard_difftest::{Category, Harness, Runner};
//!
//! let mut runner = Runner::new(Harness::new(7, None), 7, Vec::new());
//! runner.random_step(100).expect("no mismatch");
//! runner.exhaustive_step(1_000).expect("no mismatch");
//! assert_eq!(runner.harness.category_count(Category::Random).inputs, 100);
//! assert_eq!(runner.harness.category_count(Category::Exhaustive).inputs, 1_000 + 1_000 / 16);
//! ```
//!
//! [`Kernel::ALL`]: utf8guard::Kernel::ALL

pub mod corpus;
pub mod encode;
pub mod exhaustive;
pub mod generate;
pub mod harness;
pub mod ingest;
pub mod mutate;
pub mod rng;
pub mod runner;
pub mod seeds;
pub mod subject;

pub use generate::Script;
pub use harness::{hex, oracle, shrink, Category, Count, Harness, Mismatch};
pub use mutate::{Foreign, Malformation, Mutation, Piece};
pub use rng::Rng;
pub use runner::Runner;
pub use subject::{Answer, Context, Found, Subject};

//! File formats whose bytes are repaired as they are read, for
//! `ListingTable`s and `CREATE EXTERNAL TABLE`.

mod csv;
mod stream;

pub use csv::{RepairedCsvFormat, RepairedCsvSource};

//! Validation throughput against std, simdutf8 and simdutf.

fn main() {}

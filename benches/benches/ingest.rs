//! Streaming, parallel, batch and lossy APIs against their sequential and std counterparts.

fn main() {}

//! Differential testing (work in progress).

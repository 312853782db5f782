//! The help text of `info`, which takes no options.

pub const ABOUT: &str = "\
Show the version, the CPU features that matter to the kernels, each kernel
compiled for this target with whether this CPU can run it, and the kernel in
use: the fastest available, or the one UTF8GUARD_KERNEL names.

Exit status: 0, or 2 when UTF8GUARD_KERNEL names an unknown kernel or one
this CPU cannot run, or when the report cannot be written.";

//! A `UTF8GUARD_KERNEL` naming a kernel this CPU cannot run (here, another
//! architecture's) is ignored and reported as not available, not as
//! unknown. (Its own test binary: the choice is made once per process.)

use utf8guard::{Kernel, KernelNameError, KERNEL_ENV};

#[test]
fn a_kernel_of_another_architecture_is_not_available() {
    let foreign = if cfg!(target_arch = "x86_64") {
        "NEON"
    } else {
        "avx2"
    };
    std::env::set_var(KERNEL_ENV, foreign);
    assert!(utf8guard::validate("ok ✓".as_bytes()));
    let fastest = Kernel::available().last().unwrap();
    assert_eq!(utf8guard::active_kernel(), fastest);
    let problem = utf8guard::kernel_override().unwrap_err();
    assert_eq!(problem.reason(), KernelNameError::Unavailable);
    let available: Vec<_> = Kernel::available().map(|k| k.name()).collect();
    assert_eq!(
        problem.to_string(),
        format!(
            "UTF8GUARD_KERNEL={foreign}: not available on this CPU; available: {}",
            available.join(", ")
        )
    );
    // Called directly, a kernel the CPU lacks is a programming error and
    // still panics.
    if let Some(&missing) = Kernel::ALL.iter().find(|k| !k.is_available()) {
        let caught = std::panic::catch_unwind(|| missing.validate(b"x"));
        assert!(caught.is_err(), "{missing} ran on a CPU without it");
    }
}

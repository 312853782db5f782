//! An unknown `UTF8GUARD_KERNEL` is ignored, never a panic: the detected
//! kernel runs, and `kernel_override` says why the value was ignored. (Its
//! own test binary: the choice is made once per process.)

use utf8guard::{Kernel, KernelNameError, KERNEL_ENV};

fn names(kernels: impl Iterator<Item = Kernel>) -> String {
    kernels.map(|k| k.name()).collect::<Vec<_>>().join(", ")
}

#[test]
fn an_unknown_name_is_ignored_and_reported() {
    // Set before anything in this process has chosen the kernel.
    std::env::set_var(KERNEL_ENV, "avx1024");
    // No panic, and the right answer.
    let err = utf8guard::from_utf8(&[0xC3; 100]).unwrap_err();
    assert_eq!((err.valid_up_to(), err.error_len()), (0, Some(1)));
    // The kernel detection picks: the fastest available.
    let fastest = Kernel::available().last().unwrap();
    assert_eq!(utf8guard::active_kernel(), fastest);
    let problem = utf8guard::kernel_override().unwrap_err();
    assert_eq!(problem.value(), "avx1024");
    assert_eq!(problem.reason(), KernelNameError::Unknown);
    assert_eq!(
        problem.to_string(),
        format!(
            "UTF8GUARD_KERNEL=avx1024: unknown kernel; available: {}",
            names(Kernel::available())
        )
    );
    // Read once: a later change of the variable changes nothing.
    std::env::set_var(KERNEL_ENV, "scalar");
    assert_eq!(utf8guard::active_kernel(), fastest);
    assert_eq!(utf8guard::kernel_override().unwrap_err(), problem);
}

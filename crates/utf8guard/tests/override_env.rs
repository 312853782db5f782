//! `UTF8GUARD_KERNEL` forces the kernel, its name in any case. (Its own
//! test binary: the choice is made once per process.)

use utf8guard::{Kernel, KERNEL_ENV};

#[test]
fn the_named_kernel_is_used() {
    // Set before anything in this process has resolved the kernel.
    std::env::set_var(KERNEL_ENV, "Scalar");
    assert_eq!(utf8guard::active_kernel(), Kernel::Scalar);
    assert_eq!(utf8guard::kernel_override(), Ok(Some(Kernel::Scalar)));
    let err = utf8guard::from_utf8(
        b"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\xC0\x80",
    )
    .unwrap_err();
    assert_eq!((err.valid_up_to(), err.error_len()), (64, Some(1)));
}

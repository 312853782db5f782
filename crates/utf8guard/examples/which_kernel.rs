//! Prints the kernel `validate` uses on this CPU, then checks that it gives
//! the right answer on a valid and an invalid input, and says on stderr
//! when `UTF8GUARD_KERNEL` was ignored. The test script runs it under
//! emulated CPUs to test the dispatcher for real.

fn main() {
    let kernel = utf8guard::active_kernel();
    // A UTF8GUARD_KERNEL the CPU cannot honour is ignored, and said so.
    if let Err(e) = utf8guard::kernel_override() {
        eprintln!("ignored: {e}");
    }
    let valid = "dispatch: ✓ Ελληνικά 中文 😀 ".repeat(20);
    let mut invalid = valid.clone().into_bytes();
    invalid[300] = 0xFF;
    assert!(
        utf8guard::validate(valid.as_bytes()),
        "{kernel}: rejected valid text"
    );
    let err = utf8guard::from_utf8(&invalid).expect_err("accepted invalid text");
    let std_err = std::str::from_utf8(&invalid).expect_err("std accepts invalid text");
    assert_eq!(
        (err.valid_up_to(), err.error_len()),
        (std_err.valid_up_to(), std_err.error_len()),
        "{kernel}: wrong error position"
    );
    let available: Vec<_> = utf8guard::Kernel::available().map(|k| k.name()).collect();
    eprintln!("available: {}", available.join(", "));
    println!("{kernel}");
}

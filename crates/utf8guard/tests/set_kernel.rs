//! `set_kernel`: the process's kernel chosen by a call, at any time (its
//! own test binary, since the choice is the whole process's).

use utf8guard::{Kernel, KernelNameError};

#[test]
fn set_kernel_takes_effect_at_once_and_refuses_what_the_cpu_lacks() {
    let text = "κόσμε 😀 €".repeat(40);
    let inputs: [&[u8]; 4] = [
        b"plain ASCII, long enough to reach the vector loop of every kernel....",
        text.as_bytes(),
        b"ok\xED\xA0\x80 surrogate",
        b"\xF0\x9F\x98",
    ];
    // Something validates first: the detected kernel is chosen.
    assert!(utf8guard::validate(b"x"));
    let detected = utf8guard::active_kernel();
    for round in 0..2 {
        for &kernel in Kernel::ALL {
            let before = utf8guard::active_kernel();
            match utf8guard::set_kernel(kernel) {
                Ok(()) => {
                    assert!(kernel.is_available());
                    assert_eq!(utf8guard::active_kernel(), kernel, "round {round}");
                }
                Err(e) => {
                    assert!(!kernel.is_available());
                    assert_eq!(e, KernelNameError::Unavailable);
                    assert_eq!(utf8guard::active_kernel(), before);
                }
            }
            for input in inputs {
                let std = std::str::from_utf8(input).map_err(|e| (e.valid_up_to(), e.error_len()));
                let got = utf8guard::from_utf8(input).map_err(|e| (e.valid_up_to(), e.error_len()));
                assert_eq!(got, std, "{kernel} on {input:02X?}");
            }
        }
    }
    utf8guard::set_kernel(detected).unwrap();
    assert_eq!(utf8guard::active_kernel(), detected);
}

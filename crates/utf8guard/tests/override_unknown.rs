//! An unknown `UTF8GUARD_KERNEL` fails loudly and lists the valid names;
//! it never silently runs another kernel.

use utf8guard::KERNEL_ENV;

#[test]
#[should_panic(expected = "UTF8GUARD_KERNEL=avx1024: unknown kernel; valid names: scalar")]
fn an_unknown_name_panics_with_the_valid_names() {
    std::env::set_var(KERNEL_ENV, "avx1024");
    utf8guard::validate(&[0xC3; 100]);
}

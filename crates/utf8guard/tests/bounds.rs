//! No kernel reads a byte outside its input: every input is placed right
//! after a page that cannot be read and right before another, so that a
//! read past either end of the slice stops the test with a fault.
//! (Miri checks the same for the scalar kernel; it cannot map pages.)

#![cfg(all(unix, not(miri)))]

use utf8guard::{Dialect, Kernel};

/// Two readable pages between two that cannot be read.
struct Fenced {
    base: *mut u8,
    page: usize,
}

impl Fenced {
    fn new() -> Fenced {
        // SAFETY: sysconf has no preconditions.
        let page =
            usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).expect("the page size");
        // SAFETY: an anonymous private mapping of 4 pages, with no address
        // asked for; the result is checked below.
        let base = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                4 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap");
        let base = base.cast::<u8>();
        for fence in [0, 3] {
            // SAFETY: pages 0 and 3 are inside the mapping just made.
            let done =
                unsafe { libc::mprotect(base.add(fence * page).cast(), page, libc::PROT_NONE) };
            assert_eq!(done, 0, "mprotect");
        }
        Fenced { base, page }
    }

    /// The two readable pages.
    fn inside(&mut self) -> &mut [u8] {
        // SAFETY: pages 1 and 2 are mapped readable and writable, and only
        // borrowed through `self`.
        unsafe { core::slice::from_raw_parts_mut(self.base.add(self.page), 2 * self.page) }
    }
}

impl Drop for Fenced {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, no longer borrowed.
        unsafe { libc::munmap(self.base.cast(), 4 * self.page) };
    }
}

/// Inputs of `len` bytes of several kinds: ASCII, text of each width,
/// text that ends inside a character, and text with an error near the
/// end, surrogates (which some dialects take) and a NUL (which others
/// reject) in the middle.
fn inputs(len: usize) -> Vec<Vec<u8>> {
    let fill = |unit: &[u8]| -> Vec<u8> { unit.iter().copied().cycle().take(len).collect() };
    let mut kinds = vec![
        fill(b"a"),
        fill("é".as_bytes()),
        fill("aé中".as_bytes()),
        fill("中".as_bytes()),
        fill("😀b".as_bytes()),
        fill(b"a\xED\xA0\x80\xED\xB0\x80"),
        fill(b"abc\x00"),
    ];
    if len > 0 {
        let mut truncated = fill(b"a");
        truncated[len - 1] = 0xE4;
        kinds.push(truncated);
        let mut bad = fill("é".as_bytes());
        bad[len - 1 - (len - 1) % 2] = 0xFF;
        kinds.push(bad);
    }
    kinds
}

#[test]
fn kernels_read_nothing_outside_the_input() {
    let mut fenced = Fenced::new();
    let room = fenced.inside().len();
    let kernels: Vec<Kernel> = Kernel::available().collect();
    for len in 0..=1100.min(room) {
        for input in inputs(len) {
            let expected = core::str::from_utf8(&input).is_ok();
            for at in [0, room - len] {
                let inside = fenced.inside();
                inside[at..at + len].copy_from_slice(&input);
                let bytes = &inside[at..at + len];
                assert_eq!(utf8guard::validate(bytes), expected, "{len} at {at}");
                for &kernel in &kernels {
                    assert_eq!(kernel.validate(bytes), expected, "{kernel}, {len} at {at}");
                    for &dialect in Dialect::ALL {
                        assert_eq!(
                            kernel.validate_dialect(dialect, bytes),
                            Kernel::Scalar.validate_dialect(dialect, bytes),
                            "{kernel}, {}, {len} at {at}",
                            dialect.name()
                        );
                    }
                }
            }
        }
    }
}

//! The temporary file of a replaced OUT removed when SIGINT, SIGTERM or
//! SIGHUP ends the process (Ctrl-C, `kill`, a closed terminal), which
//! would otherwise leave a hidden copy of the output, as large as OUT,
//! beside it.
//!
//! The handler may only call async-signal-safe functions: it takes the
//! path from an atomic pointer (no lock), unlinks it, restores the default
//! action and raises the signal again, so the process still ends as the
//! signal says (status 130 for Ctrl-C in a shell).

use std::ffi::CString;
use std::path::Path;

/// Watches one temporary file for as long as it lives.
#[derive(Debug)]
pub(super) struct Watch(());

#[cfg(unix)]
mod imp {
    use std::ffi::{c_char, c_int, CString};
    use std::ptr;
    use std::sync::atomic::{AtomicPtr, Ordering};
    use std::sync::Once;

    /// The path to unlink, a `CString` given up to the handler; null when
    /// no temporary file is pending. (A run writes one OUT.)
    static PENDING: AtomicPtr<c_char> = AtomicPtr::new(ptr::null_mut());

    const SIGNALS: [c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    extern "C" fn on_signal(signal: c_int) {
        let path = PENDING.swap(ptr::null_mut(), Ordering::SeqCst);
        // SAFETY: unlink, signal and raise are async-signal-safe; `path`,
        // when not null, is a NUL-terminated string leaked by `watch` and
        // freed only by whoever swaps it out, here no one else.
        unsafe {
            if !path.is_null() {
                libc::unlink(path);
            }
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }

    fn install() {
        for signal in SIGNALS {
            // SAFETY: a zeroed sigaction is a valid value to fill in; the
            // first call only reads the current action, so a signal that
            // the caller ignores (`nohup`, `trap '' INT`) stays ignored.
            unsafe {
                let mut current: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, ptr::null(), &mut current) != 0
                    || current.sa_sigaction == libc::SIG_IGN
                {
                    continue;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, ptr::null_mut());
            }
        }
    }

    pub fn watch(path: CString) {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(install);
        let old = PENDING.swap(path.into_raw(), Ordering::SeqCst);
        free(old);
    }

    pub fn unwatch() {
        free(PENDING.swap(ptr::null_mut(), Ordering::SeqCst));
    }

    fn free(path: *mut c_char) {
        if !path.is_null() {
            // SAFETY: a non-null pointer in PENDING came from
            // `CString::into_raw`, and swapping it out made it ours alone.
            drop(unsafe { CString::from_raw(path) });
        }
    }
}

#[cfg(not(unix))]
mod imp {
    pub fn watch(_path: std::ffi::CString) {}
    pub fn unwatch() {}
}

impl Watch {
    /// Starts watching `temp`, the temporary file of a pending OUT.
    pub(super) fn new(temp: &Path) -> Watch {
        if let Ok(path) = CString::new(temp.as_os_str().as_encoded_bytes()) {
            imp::watch(path);
        }
        Watch(())
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        imp::unwatch();
    }
}

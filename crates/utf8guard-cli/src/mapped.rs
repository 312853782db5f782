//! Memory-mapped input that survives its file being truncated.
//!
//! A page of a mapping that lies past the end of its file cannot be read:
//! the kernel sends SIGBUS, whose default action ends the process. A file
//! that another process truncates while it is checked (as `logrotate`'s
//! `copytruncate` does) would then kill the command with nothing said,
//! and the reports of the other inputs would be lost.
//!
//! So every mapping is registered here while it is read, and a SIGBUS
//! handler that finds the faulting address inside a registered mapping
//! maps zero-filled anonymous memory over the rest of it and returns: the
//! faulting load is retried and reads zeros, the scan runs to its end at
//! no cost to the pages that were there, and the mapping is marked
//! [`Mapping::truncated`] so that its report says the file changed instead
//! of describing the zeros. A SIGBUS at any other address is not ours: the
//! handler puts back the default action and returns, and the fault, raised
//! again, ends the process as it would have.
//!
//! Reading large files with `read` into a buffer instead would need no
//! handler, but copies every byte once more; mapping costs nothing on the
//! bytes themselves (see docs/TUNING.md, "Mapping large files").

use std::fs::File;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Once;

use memmap2::{Mmap, MmapOptions};

/// Files at least this large are memory-mapped; smaller ones are read,
/// which costs less than setting up and tearing down a mapping.
pub const MMAP_MIN: u64 = 1 << 20;

/// The report on a mapped file that was truncated while it was read, and
/// what was not done: `check`'s, `repair`'s, `convert`'s.
macro_rules! changed {
    ($what:literal) => {
        concat!(
            "the file changed while it was read (it was truncated): ",
            $what
        )
    };
}
pub const CHANGED: &str = changed!("not checked");
pub const CHANGED_REPAIR: &str = changed!("not repaired");
pub const CHANGED_CONVERT: &str = changed!("not converted");

/// Mappings that may be read at the same time: one per thread of the pool
/// at most in practice. When all are taken, [`Mapping::new`] fails and the
/// caller reads the file instead.
const SLOTS: usize = 64;

/// A registered mapping: its first byte's address (0 when the slot is
/// free) and its length. Written by the owning thread, read by the handler
/// on whichever thread faults; atomics are what a handler may touch.
struct Slot {
    taken: AtomicBool,
    start: AtomicUsize,
    len: AtomicUsize,
    truncated: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const FREE: Slot = Slot {
    taken: AtomicBool::new(false),
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    truncated: AtomicBool::new(false),
};

static REGISTRY: [Slot; SLOTS] = [FREE; SLOTS];

/// The page size, read once before the handler is installed.
static PAGE: AtomicUsize = AtomicUsize::new(0);

/// A read-only mapping of part of a file, registered with the SIGBUS
/// handler for as long as it lives.
pub struct Mapping {
    map: Mmap,
    slot: usize,
}

impl std::fmt::Debug for Mapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mapping")
            .field("len", &self.map.len())
            .field("truncated", &self.truncated())
            .finish()
    }
}

impl Mapping {
    /// Maps `len` bytes of `file` from `offset`; `populate` faults every
    /// page in up front. Fails where mapping does (and when every slot is
    /// taken), in which case the caller reads the file.
    pub fn new(file: &File, offset: u64, len: usize, populate: bool) -> std::io::Result<Mapping> {
        install_handler();
        let slot = claim().ok_or_else(|| std::io::Error::other("too many mappings"))?;
        let mut options = MmapOptions::new();
        options.offset(offset).len(len);
        if populate {
            options.populate();
        }
        // SAFETY: the mapping is only ever read, through the `&[u8]` it
        // derefs to. `memmap2` leaves one condition to the caller: that the
        // file does not change while mapped. A file other processes may
        // write cannot be held to that. If one rewrites it, the bytes seen
        // may change under the scan and the report describes some mix of
        // old and new contents; if one truncates it, the pages past its new
        // end would raise SIGBUS, which the handler below turns into zeros
        // and the `truncated` mark.
        let mapped = unsafe { map_and_register(slot, &options, file) };
        match mapped {
            Ok(map) => Ok(Mapping { map, slot }),
            Err(e) => {
                release(slot);
                Err(e)
            }
        }
    }

    /// Some page of the mapping lay past the end of the file when it was
    /// read (the file was truncated while mapped): zeros were read in its
    /// place.
    pub fn truncated(&self) -> bool {
        REGISTRY[self.slot].truncated.load(Ordering::Acquire)
    }
}

/// Maps `file` as `options` say, and registers the mapping in `slot`
/// before anything reads it.
///
/// # Safety
///
/// The caller upholds `memmap2::MmapOptions::map`'s contract.
unsafe fn map_and_register(
    slot: usize,
    options: &MmapOptions,
    file: &File,
) -> std::io::Result<Mmap> {
    // With `populate` the kernel faults the pages in while mapping, before
    // the address is known here; a page past the end is then left out with
    // no signal (MAP_POPULATE raises none), and the first read of it faults
    // later, once the slot below holds the address.
    // SAFETY: as the caller promised.
    let map = unsafe { options.map(file) }?;
    let entry = &REGISTRY[slot];
    entry.len.store(map.len(), Ordering::Relaxed);
    entry.start.store(map.as_ptr() as usize, Ordering::Release);
    Ok(map)
}

impl Deref for Mapping {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // Unregistered before `map` is unmapped (fields drop after this
        // body): no read can fault once the slot is free.
        release(self.slot);
    }
}

fn claim() -> Option<usize> {
    REGISTRY.iter().position(|slot| {
        slot.taken
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    })
}

fn release(slot: usize) {
    let entry = &REGISTRY[slot];
    entry.start.store(0, Ordering::Release);
    entry.len.store(0, Ordering::Relaxed);
    entry.truncated.store(false, Ordering::Relaxed);
    entry.taken.store(false, Ordering::Release);
}

#[cfg(unix)]
fn install_handler() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        PAGE.store(usize::try_from(page).unwrap_or(4096), Ordering::Relaxed);
        // SAFETY: a zeroed sigaction is a valid value to fill in (an empty
        // mask once sigemptyset has run on it); the handler has the
        // signature SA_SIGINFO calls for, and only touches atomics and
        // calls mmap and sigaction.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    });
}

#[cfg(not(unix))]
fn install_handler() {}

/// The SIGBUS handler: see the module's documentation.
#[cfg(unix)]
extern "C" fn on_sigbus(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler;
    // for SIGBUS, si_addr is the faulting address.
    let addr = unsafe { (*info).si_addr() } as usize;
    let page = PAGE.load(Ordering::Relaxed);
    for entry in &REGISTRY {
        let start = entry.start.load(Ordering::Acquire);
        let len = entry.len.load(Ordering::Relaxed);
        if start == 0 || addr < start || addr - start >= len {
            continue;
        }
        // From the faulting page to the end of the mapping's last page,
        // all inside the mapping that `memmap2` made (it maps whole pages,
        // from the page holding `start`).
        let from = addr & !(page - 1);
        let to = (start + len).div_ceil(page) * page;
        // SAFETY: [from, to) lies inside this process's mapping of the
        // file, which stays mapped while its slot is registered; replacing
        // its pages with anonymous zero pages (MAP_FIXED) changes only
        // what those addresses read, as a rewrite of the file would.
        let zeros = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                to - from,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if zeros != libc::MAP_FAILED {
            entry.truncated.store(true, Ordering::Release);
            return;
        }
        break;
    }
    // Not a page of ours (or it could not be replaced): the default action,
    // which the same fault raises again as soon as this returns.
    // SAFETY: a zeroed sigaction with SIG_DFL (0) as its handler is valid.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_file_truncated_while_mapped_reads_as_zeros_and_says_so() {
        let mut file = tempfile::tempfile().unwrap();
        let page = 4096;
        let data = vec![b'x'; 64 * page];
        file.write_all(&data).unwrap();
        for populate in [false, true] {
            file.set_len(data.len() as u64).unwrap();
            let map = Mapping::new(&file, 0, data.len(), populate).unwrap();
            assert_eq!(map[0], b'x');
            assert!(!map.truncated());
            file.set_len(10 * page as u64 + 100).unwrap();
            // Past the new end: without the handler, SIGBUS ends the test.
            let ones = map.iter().filter(|&&b| b == b'x').count();
            assert!(map.truncated());
            // The pages still in the file keep their bytes; what a fault
            // replaced reads as zeros.
            assert_eq!(map[10 * page + 99], b'x');
            assert!(ones >= 10 * page + 100 && ones < data.len());
            assert_eq!(map[data.len() - 1], 0);
        }
    }

    #[test]
    fn a_mapping_frees_its_slot() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&[b'a'; 8192]).unwrap();
        for _ in 0..SLOTS * 2 {
            let map = Mapping::new(&file, 0, 8192, false).unwrap();
            assert!(!map.truncated());
            assert_eq!(map.len(), 8192);
        }
    }
}

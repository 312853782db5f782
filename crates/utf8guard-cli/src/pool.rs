//! The thread pool of `check --jobs`, made when an input first needs it.
//!
//! Making it up front cost every run its threads, and finding the number of
//! CPUs (which reads the process's cgroup files) cost every run that gave
//! no `--jobs` a noticeable part of a run on a small file (docs/TUNING.md,
//! "Thread pool made on demand"). A file under the parallel threshold
//! (1 MiB) needs neither.

use std::sync::{Once, OnceLock};

/// `--jobs`, as given (`None`: one thread per logical CPU).
static REQUESTED: OnceLock<Option<usize>> = OnceLock::new();
/// The number of threads, once asked for.
static THREADS: OnceLock<usize> = OnceLock::new();
static BUILT: Once = Once::new();

/// Records `--jobs`; nothing is measured or made yet.
pub fn configure(jobs: Option<usize>) {
    let _ = REQUESTED.set(jobs);
}

/// Whether more than one thread may be used: `--jobs` other than 1. (Only
/// [`threads`] finds out how many CPUs there are.)
pub fn may_be_parallel() -> bool {
    REQUESTED.get().copied().flatten() != Some(1)
}

/// The number of threads of the pool: `--jobs`, at most the number of
/// logical CPUs, which is also the default.
pub fn threads() -> usize {
    *THREADS.get_or_init(|| {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        capped(REQUESTED.get().copied().flatten(), cpus)
    })
}

/// The threads to start for `--jobs` (`requested`) on `cpus` logical CPUs.
/// More threads than CPUs only add work: `--jobs 1024` took a cached 1 GB
/// file from 0.2 s to 11 s, and a walk of /etc from 0.00 s to 1.5 s.
fn capped(requested: Option<usize>, cpus: usize) -> usize {
    requested.map_or(cpus, |n| n.min(cpus)).max(1)
}

/// Makes the global rayon pool with [`threads`] threads, the first time;
/// its number of threads. Called before any work goes to the pool (work
/// sent without it would make rayon's default pool instead).
pub fn ready() -> usize {
    BUILT.call_once(|| {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads())
            .build_global();
    });
    rayon::current_num_threads()
}

#[cfg(test)]
mod tests {
    use super::capped;

    #[test]
    fn jobs_are_capped_at_the_cpus() {
        assert_eq!(capped(None, 8), 8);
        assert_eq!(capped(Some(1), 8), 1);
        assert_eq!(capped(Some(3), 8), 3);
        assert_eq!(capped(Some(1024), 8), 8);
        assert_eq!(capped(Some(1024), 1), 1);
    }
}

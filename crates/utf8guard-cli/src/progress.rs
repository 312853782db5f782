//! The progress bar on stderr: only on a terminal, and only once the work
//! has taken more than a moment.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long the work runs before the bar appears.
const DELAY: Duration = Duration::from_millis(500);

/// Progress in bytes over all inputs. A disabled one costs a branch.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    shown: AtomicBool,
}

impl Progress {
    /// A progress bar that never draws.
    pub fn disabled() -> Progress {
        Progress {
            bar: None,
            start: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }

    /// A bar over `total` bytes (`None`: unknown, as for a stream), drawn on
    /// stderr once the work has taken more than half a second.
    pub fn new(total: Option<u64>) -> Progress {
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
        let template = if total.is_some() {
            "{spinner} [{elapsed_precise}] [{wide_bar}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})"
        } else {
            "{spinner} [{elapsed_precise}] {bytes} ({bytes_per_sec})"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        Progress {
            bar: Some(bar),
            start: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }

    /// Counts `bytes` more as done.
    pub fn inc(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
            if !self.shown.load(Ordering::Relaxed) && self.start.elapsed() >= DELAY {
                self.shown.store(true, Ordering::Relaxed);
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
        }
    }

    /// Counts `bytes` of the total as never to be read: an input cut short
    /// once its report was full. They leave the total rather than count
    /// as done, so that the rate, and the time left that the rate gives,
    /// are those of the bytes actually checked.
    pub fn skip(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            if bar.length().is_some() {
                bar.dec_length(bytes);
            }
        }
    }

    /// Position and length of the bar, for tests.
    #[cfg(test)]
    pub fn state(&self) -> Option<(u64, Option<u64>)> {
        self.bar.as_ref().map(|bar| (bar.position(), bar.length()))
    }

    /// Runs `f` (which writes to the terminal) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) if self.shown.load(Ordering::Relaxed) => bar.suspend(f),
            _ => f(),
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

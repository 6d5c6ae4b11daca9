//! Cancellation that wakes every waiting worker at once: a flag plus a self-pipe
//! whose read end each sandbox poll loop watches.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};

/// Shared cancellation signal for a run.
#[derive(Debug)]
pub struct CancelToken {
    flag: AtomicBool,
    read: OwnedFd,
    write: OwnedFd,
}

impl CancelToken {
    /// A new, not yet cancelled token.
    pub fn new() -> std::io::Result<Self> {
        let (read, write) = super::sys::pipe_cloexec()?;
        Ok(CancelToken {
            flag: AtomicBool::new(false),
            read,
            write,
        })
    }

    /// Cancels: running candidates are killed, queued ones never start.
    pub fn cancel(&self) {
        if !self.flag.swap(true, Ordering::SeqCst) {
            let byte = [1u8];
            // SAFETY: writing one byte from a valid buffer to a descriptor we own.
            unsafe { libc::write(self.write.as_raw_fd(), byte.as_ptr().cast(), 1) };
        }
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// The descriptor that becomes readable on cancel.
    pub(crate) fn fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }
}

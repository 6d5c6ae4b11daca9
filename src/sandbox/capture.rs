//! Bounded capture of a candidate's output: everything is counted against the
//! cap, a fixed excerpt is kept for display.

use std::io;
use std::os::fd::RawFd;

use super::sys::read_fd;

/// Bytes of each of stdout and stderr kept for display.
pub const EXCERPT_BYTES: usize = 16 * 1024;

/// One captured output stream.
pub(super) struct Stream {
    pub open: bool,
    pub total: u64,
    pub excerpt: Vec<u8>,
}

impl Stream {
    /// An open stream with nothing read yet.
    pub fn new() -> Self {
        Stream {
            open: true,
            total: 0,
            excerpt: Vec::new(),
        }
    }

    /// Reads what is available, keeping at most `keep` bytes.
    pub fn pump(&mut self, fd: RawFd, keep: usize, buf: &mut [u8]) {
        loop {
            match read_fd(fd, buf) {
                Ok(0) => {
                    self.open = false;
                    return;
                }
                Ok(n) => {
                    self.total += n as u64;
                    let room = keep.saturating_sub(self.excerpt.len());
                    self.excerpt.extend_from_slice(&buf[..n.min(room)]);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(_) => {
                    self.open = false;
                    return;
                }
            }
        }
    }

    /// The excerpt as text, with a note of what was cut.
    pub fn text(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.excerpt).into_owned();
        if self.total > self.excerpt.len() as u64 {
            s.push_str(&format!(
                "\n[... {} more bytes not shown]",
                self.total - self.excerpt.len() as u64
            ));
        }
        s
    }
}

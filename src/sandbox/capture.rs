//! Bounded capture of a candidate's output: everything is counted against the
//! cap, a fixed excerpt is kept for display.

use std::io;
use std::os::fd::RawFd;

use super::Overflow;
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

    /// Reads what is available, keeping at most `keep` bytes, and stops
    /// once more than `stop_after` bytes have been read in all.
    pub fn pump(&mut self, fd: RawFd, keep: usize, stop_after: u64, buf: &mut [u8]) {
        while self.total <= stop_after {
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

/// The stream that crossed `cap`, if one did (stdout first), with how much
/// of it was read.
pub(super) fn overflowed(stdout: &Stream, stderr: &Stream, cap: u64) -> Option<Overflow> {
    [("stdout", stdout), ("stderr", stderr)]
        .into_iter()
        .find(|(_, s)| s.total > cap)
        .map(|(name, s)| Overflow {
            stream: name.to_owned(),
            read_bytes: s.total,
            cap_bytes: cap,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pipe holding `n` bytes, its read end non-blocking.
    fn filled(n: usize) -> (std::os::fd::OwnedFd, std::os::fd::OwnedFd) {
        use std::io::Write;
        let (r, w) = std::io::pipe().unwrap();
        let mut w = std::fs::File::from(std::os::fd::OwnedFd::from(w));
        w.write_all(&vec![b'x'; n]).unwrap();
        let r = std::os::fd::OwnedFd::from(r);
        super::super::sys::set_nonblocking(std::os::fd::AsRawFd::as_raw_fd(&r));
        (r, w.into())
    }

    #[test]
    fn a_read_stops_once_the_cap_is_crossed_and_says_which_stream() {
        use std::os::fd::AsRawFd;
        let (r, _w) = filled(60_000);
        let mut out = Stream::new();
        let mut buf = vec![0u8; 4096];
        out.pump(r.as_raw_fd(), 100, 10_000, &mut buf);
        assert!(
            out.total > 10_000 && out.total <= 10_000 + 4096,
            "{}",
            out.total
        );
        assert_eq!(out.excerpt.len(), 100);
        assert!(out.open);
        let err = Stream::new();
        assert_eq!(overflowed(&err, &err, 10_000), None);
        let o = overflowed(&err, &out, 10_000).unwrap();
        assert_eq!(
            (o.stream.as_str(), o.read_bytes, o.cap_bytes),
            ("stderr", out.total, 10_000)
        );
        // Without a cap it reads to the end of what is there.
        let (r, _w) = filled(60_000);
        let mut all = Stream::new();
        all.pump(r.as_raw_fd(), 0, u64::MAX, &mut buf);
        assert_eq!(all.total, 60_000);
    }
}

//! Thin wrappers over the system calls the sandbox uses on descriptors and
//! processes: pipes, reads and writes, the monotonic clock, pidfds, group kills.

use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

/// A pipe whose ends are close-on-exec.
pub(crate) fn pipe_cloexec() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    // SAFETY: `fds` is a valid two-element buffer.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    // SAFETY: `fds` is a valid two-element buffer; flags are set right after.
    let rc = unsafe {
        let rc = libc::pipe(fds.as_mut_ptr());
        if rc == 0 {
            libc::fcntl(fds[0], libc::F_SETFD, libc::FD_CLOEXEC);
            libc::fcntl(fds[1], libc::F_SETFD, libc::FD_CLOEXEC);
        }
        rc
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((owned(fds[0]), owned(fds[1])))
}

/// A connected pair of unix stream sockets, close-on-exec: the call channel
/// between a candidate process and its judge, and a fork server's command
/// channel (which carries descriptors).
pub(crate) fn socketpair_cloexec() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    #[cfg(target_os = "linux")]
    let kind = libc::SOCK_STREAM | libc::SOCK_CLOEXEC;
    #[cfg(not(target_os = "linux"))]
    let kind = libc::SOCK_STREAM;
    // SAFETY: `fds` is a valid two-element buffer.
    let rc = unsafe { libc::socketpair(libc::AF_UNIX, kind, 0, fds.as_mut_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    #[cfg(not(target_os = "linux"))]
    // SAFETY: fcntl on the descriptors just created.
    unsafe {
        libc::fcntl(fds[0], libc::F_SETFD, libc::FD_CLOEXEC);
        libc::fcntl(fds[1], libc::F_SETFD, libc::FD_CLOEXEC);
    }
    Ok((owned(fds[0]), owned(fds[1])))
}

/// Sends the one byte `byte` on the socket `fd` with the descriptors `fds`
/// attached (`SCM_RIGHTS`); blocks until it is sent.
pub(super) fn send_with_fds(fd: RawFd, byte: u8, fds: &[RawFd]) -> io::Result<()> {
    let data = [byte];
    let mut iov = libc::iovec {
        iov_base: data.as_ptr() as *mut libc::c_void,
        iov_len: 1,
    };
    let payload = std::mem::size_of_val(fds);
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(payload as libc::c_uint) } as usize;
    // u64 words keep the control buffer aligned for `cmsghdr`.
    let mut control = vec![0u64; space.div_ceil(8).max(1)];
    // SAFETY: an all-zero msghdr is valid; every pointer set below outlives
    // the sendmsg call, and the control buffer holds CMSG_SPACE(payload) bytes.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        if !fds.is_empty() {
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = space as _;
            let header = libc::CMSG_FIRSTHDR(&msg);
            (*header).cmsg_level = libc::SOL_SOCKET;
            (*header).cmsg_type = libc::SCM_RIGHTS;
            (*header).cmsg_len = libc::CMSG_LEN(payload as libc::c_uint) as _;
            std::ptr::copy_nonoverlapping(
                fds.as_ptr().cast::<u8>(),
                libc::CMSG_DATA(header),
                payload,
            );
        }
        loop {
            if libc::sendmsg(fd, &msg, 0) == 1 {
                return Ok(());
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
    }
}

/// Clears `O_NONBLOCK` on `fd` (a channel the host writes whole messages to).
pub(super) fn set_blocking(fd: RawFd) {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
    }
}

/// Writes all of `data` to the blocking descriptor `fd`.
pub(super) fn write_all_fd(fd: RawFd, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        match write_fd(fd, data) {
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// CLOCK_MONOTONIC in nanoseconds, the clock the harness stamps with.
pub(crate) fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

pub(super) fn set_nonblocking(fd: RawFd) {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
}

pub(super) fn kill_group(pgid: libc::pid_t) {
    if pgid > 0 {
        // SAFETY: plain syscall; an already-empty group yields ESRCH, which is fine.
        unsafe { libc::killpg(pgid, libc::SIGKILL) };
    }
}

/// `read(2)` on a raw descriptor.
pub(super) fn read_fd(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for `buf.len()` bytes.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// `write(2)` on a raw descriptor.
pub(super) fn write_fd(fd: RawFd, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for `buf.len()` bytes.
    let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// Opens a pidfd for `pid` where the kernel has them.
pub(super) fn pidfd(pid: libc::pid_t) -> Option<OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd >= 0 {
            return Some(owned(fd as RawFd));
        }
    }
    let _ = pid;
    None
}

/// Whether `pid` has exited, without reaping it (so its group id stays reserved).
pub(super) fn has_exited(pid: libc::pid_t) -> bool {
    // SAFETY: `info` is a valid out-pointer; WNOWAIT leaves the child waitable.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let rc = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        rc == 0 && info.si_pid() != 0
    }
}

/// Wraps a raw descriptor just created (by `pipe2`, `pidfd_open`).
pub(super) fn owned(fd: RawFd) -> OwnedFd {
    // SAFETY: callers pass a freshly created descriptor that nothing else owns.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

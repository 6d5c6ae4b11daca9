//! The kernel's bound on live threads and processes per candidate: a `pids`
//! control group of its own where the host can make one (cgroup v1's `pids`
//! hierarchy, or cgroup v2, as root), else `RLIMIT_NPROC`, which counts the
//! processes and threads of the user in the candidate's own user namespace
//! (so it is the bound itself; where no user namespace can be made, those
//! alive when the candidate starts plus the bound; it does not apply to
//! root).
//!
//! A process joins its group before any Python runs: a fresh candidate by
//! writing its pid to the group's `cgroup.procs` (opened by the host) between
//! clone and exec, a fork server the same way when it starts (its children
//! then stay in its group; it runs one at a time).

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::ThreadBound;

/// What this machine gives.
pub(crate) fn probe() -> ThreadBound {
    if base().is_some() {
        ThreadBound::Cgroup
    // SAFETY: geteuid has no preconditions.
    } else if unsafe { libc::geteuid() } != 0 {
        ThreadBound::Rlimit
    } else {
        ThreadBound::None
    }
}

/// Where groups are made: cgroup v1's `pids` hierarchy, or the v2 root, when
/// this process may make a group there; found once.
fn base() -> Option<&'static Path> {
    static BASE: OnceLock<Option<PathBuf>> = OnceLock::new();
    BASE.get_or_init(|| {
        ["/sys/fs/cgroup/pids", "/sys/fs/cgroup"]
            .into_iter()
            .map(PathBuf::from)
            .find(|dir| makes_groups(dir, "pids.max"))
            .inspect(|dir| sweep(dir))
    })
    .as_deref()
}

/// Bytes of TCP buffers all of a candidate's sockets hold at most (cgroup
/// v1 does not count them in its memory otherwise).
pub(crate) const TCP_BUFFERS: u64 = 64 << 20;

/// Whether this host can bound a candidate's memory as a whole.
pub(crate) fn memory_groups() -> bool {
    memory_base().is_some()
}

/// cgroup v1's `memory` hierarchy, when this process may make a group
/// there; found once.
fn memory_base() -> Option<&'static Path> {
    static BASE: OnceLock<Option<PathBuf>> = OnceLock::new();
    BASE.get_or_init(|| {
        Some(PathBuf::from("/sys/fs/cgroup/memory"))
            .filter(|dir| makes_groups(dir, "memory.limit_in_bytes"))
            .inspect(|dir| sweep(dir))
    })
    .as_deref()
}

/// Whether this process may make a group under `dir` whose controller
/// shows `file` (a group made and removed at once).
fn makes_groups(dir: &Path, file: &str) -> bool {
    let probe = dir.join(format!("execscope-probe-{}", std::process::id()));
    let usable = std::fs::create_dir(&probe).is_ok() && probe.join(file).exists();
    let _ = std::fs::remove_dir(&probe);
    usable
}

/// Removes the groups of hosts that are gone (killed before they could).
fn sweep(dir: &Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("execscope-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// One `pids` group: at most `max` live threads and processes in it.
#[derive(Debug)]
pub(crate) struct Group {
    dir: PathBuf,
    procs: OwnedFd,
    /// The host thread that joined it (see [`Group::new_for_thread`]).
    thread: Option<libc::pid_t>,
}

impl Group {
    /// A new group bounded at `max`; `None` where groups cannot be made.
    pub(crate) fn new(max: u64) -> Option<io::Result<Group>> {
        Some(Group::make(base()?, &[("pids.max", max)]))
    }

    /// A new group under `base` with each of `settings` written, named for
    /// this host and a number of its own.
    fn make(base: &Path, settings: &[(&str, u64)]) -> io::Result<Group> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("execscope-{}-{n}", std::process::id()));
        std::fs::create_dir(&dir)?;
        let opened = settings
            .iter()
            .try_for_each(|(file, value)| std::fs::write(dir.join(file), value.to_string()))
            .and_then(|_| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(dir.join("cgroup.procs"))
            });
        match opened {
            Ok(file) => Ok(Group {
                dir,
                procs: OwnedFd::from(file),
                thread: None,
            }),
            Err(e) => {
                let _ = std::fs::remove_dir(&dir);
                Err(e)
            }
        }
    }

    /// A new group bounded at `max` that the calling thread joins, so that
    /// every process it clones starts inside: cgroup v1 only (v2 keeps a
    /// process's threads together). `None` where that cannot be done.
    pub(crate) fn new_for_thread(max: u64) -> Option<Group> {
        if base()? != Path::new("/sys/fs/cgroup/pids") {
            return None;
        }
        Group::new(max)?.ok()?.joined()
    }

    /// A cgroup v1 `memory` group holding at most `bytes` of memory and
    /// swap, which the calling thread joins as in [`Group::new_for_thread`]:
    /// all of a candidate's processes together, its tmpfs files and IPC
    /// included, and at most [`TCP_BUFFERS`] of TCP buffers (which cgroup
    /// v1 counts only once they are bounded). `None` where that cannot be
    /// done.
    pub(crate) fn memory_for_thread(bytes: u64) -> Option<Group> {
        let base = memory_base()?;
        let mut settings = vec![("memory.limit_in_bytes", bytes)];
        for (file, value) in [
            ("memory.memsw.limit_in_bytes", bytes),
            ("memory.kmem.tcp.limit_in_bytes", TCP_BUFFERS),
        ] {
            if base.join(file).exists() {
                settings.push((file, value));
            }
        }
        Group::make(base, &settings).ok()?.joined()
    }

    /// This group with the calling thread in it.
    fn joined(mut self) -> Option<Group> {
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::syscall(libc::SYS_gettid) } as libc::pid_t;
        std::fs::write(self.dir.join("tasks"), tid.to_string()).ok()?;
        self.thread = Some(tid);
        Some(self)
    }

    /// The group's `cgroup.procs`, which a child writes its pid to.
    pub(crate) fn procs(&self) -> RawFd {
        self.procs.as_raw_fd()
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        // A thread that joined leaves first (it is the one dropping it).
        if let (Some(tid), Some(base)) = (self.thread, self.dir.parent()) {
            let _ = std::fs::write(base.join("tasks"), tid.to_string());
        }
        // Empty once its processes are reaped; killed ones may take a moment.
        for _ in 0..50 {
            match std::fs::remove_dir(&self.dir) {
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                _ => return,
            }
        }
    }
}

/// Writes the calling process's pid to the `cgroup.procs` at `fd`.
///
/// # Safety
/// Async-signal-safe: runs in a child between clone and exec.
pub(crate) unsafe fn join(fd: RawFd) -> io::Result<()> {
    // SAFETY: getpid and write on a stack buffer.
    unsafe {
        let mut pid = libc::getpid() as u64;
        let mut buf = [0u8; 24];
        let mut at = buf.len();
        loop {
            at -= 1;
            buf[at] = b'0' + (pid % 10) as u8;
            pid /= 10;
            if pid == 0 {
                break;
            }
        }
        let text = &buf[at..];
        if libc::write(fd, text.as_ptr().cast(), text.len()) != text.len() as isize {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// `RLIMIT_NPROC` for a candidate starting now. The kernel counts the
/// user's tasks in the candidate's own user namespace alone (each candidate
/// and each fork server has one where the kernel gives it; a server's
/// children share its namespace, one candidate at a time): there the bound
/// is `max` itself, whatever other candidates hold. Without one: the threads
/// alive on the machine (an upper bound of the user's) plus `max`.
pub(crate) fn nproc_limit(max: u64, own_user_namespace: bool) -> u64 {
    if own_user_namespace {
        return max;
    }
    let alive = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().nth(3)?.split('/').nth(1)?.parse().ok())
        .unwrap_or(0u64);
    alive + max
}

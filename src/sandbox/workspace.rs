//! A worker thread's place for the fresh candidates it starts, one at a time:
//! their directory, a sized tmpfs in a mount namespace of the thread's own
//! (as root), and the thread's `pids` and `memory` groups (cgroup v1 groups
//! threads: the thread joins once, and every process it clones starts
//! inside). Made once
//! per thread and emptied after each candidate, so that a candidate pays for
//! no mount and no group move of its own (each took a grace period of the
//! kernel's, milliseconds). Where this cannot be done (not root, cgroup v2)
//! each candidate gets its own directory, and enters its namespaces and
//! joins its group itself.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// The name of a candidate's directory starts with this (a fast-start
/// server's with `execscope_server_`). No hyphen: tests split paths on `-`
/// (BigCodeBench/1127), and the official harnesses' temporary names
/// (`tmpk3j_x9a`) have none.
pub(super) const DIR_PREFIX: &str = "execscope_";

use super::{Limits, SandboxError};

/// What a fresh candidate starting on this thread gets.
pub(super) struct Place {
    /// Its directory (the thread's, emptied after it), or `None`: make one.
    pub dir: Option<PathBuf>,
    /// The directory is the thread's tmpfs: no namespace of its own needed.
    pub tmpfs: bool,
    /// The thread is in the candidate's pids group already.
    pub grouped: bool,
    /// The thread is in a memory group that bounds all of a candidate's
    /// processes together (see [`memory_bound`]).
    pub memory_bounded: bool,
}

/// What a memory group holds at most for `limits`: the memory limit, the
/// container's two tmpfs mounts (`/tmp` and `/dev/shm`) and 64 MiB for the
/// kernel's own; `None` without a memory limit.
pub(super) fn memory_bound(limits: &Limits) -> Option<u64> {
    let tmpfs = limits.disk_bytes.unwrap_or(0);
    Some(limits.memory_bytes? + 2 * tmpfs + (64 << 20))
}

/// Where a candidate joins its pids group itself (cgroup v2, where a thread
/// cannot join one alone): the `cgroup.procs` of this thread's group, made
/// on first use and kept for the thread's next candidates (each is reaped,
/// group and all, before the next starts); `None` where there are no such
/// groups or no bound.
pub(super) fn candidate_group(limits: &Limits) -> Result<Option<std::os::fd::RawFd>, SandboxError> {
    #[cfg(target_os = "linux")]
    {
        use super::confine::Group;
        thread_local! {
            static GROUP: std::cell::RefCell<Option<(u64, Group)>> = const { std::cell::RefCell::new(None) };
        }
        let Some(max) = limits.threads else {
            return Ok(None);
        };
        GROUP.with_borrow_mut(|slot| {
            if slot.as_ref().is_none_or(|(m, _)| *m != max) {
                *slot = None;
                match Group::new(max) {
                    None => return Ok(None),
                    Some(group) => *slot = Some((max, group.map_err(SandboxError::Confinement)?)),
                }
            }
            Ok(slot.as_ref().map(|(_, g)| g.procs()))
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = limits;
        Ok(None)
    }
}

/// The thread's workspace for `limits`, made on first use.
#[cfg(target_os = "linux")]
pub(super) fn place(limits: &Limits) -> Place {
    thread_local! {
        static SPACE: RefCell<Option<Workspace>> = const { RefCell::new(None) };
    }
    SPACE.with_borrow_mut(|slot| {
        let key = (
            limits.disk_bytes,
            limits.threads,
            limits.confinement().disk_tmpfs,
            limits.memory_bytes,
        );
        if slot.as_ref().is_none_or(|w| w.key != key) {
            *slot = None;
            *slot = Workspace::new(limits, key);
        }
        match slot {
            Some(w) => Place {
                dir: Some(w.dir.path().to_path_buf()),
                tmpfs: w.tmpfs,
                grouped: w.group.is_some(),
                memory_bounded: w.memory.is_some(),
            },
            None => Place {
                dir: None,
                tmpfs: false,
                grouped: false,
                memory_bounded: false,
            },
        }
    })
}

/// Nothing to share off Linux.
#[cfg(not(target_os = "linux"))]
pub(super) fn place(_: &Limits) -> Place {
    Place {
        dir: None,
        tmpfs: false,
        grouped: false,
        memory_bounded: false,
    }
}

#[cfg(target_os = "linux")]
type Key = (Option<u64>, Option<u64>, bool, Option<u64>);

#[cfg(target_os = "linux")]
struct Workspace {
    key: Key,
    dir: tempfile::TempDir,
    tmpfs: bool,
    group: Option<super::confine::Group>,
    memory: Option<super::confine::Group>,
}

#[cfg(target_os = "linux")]
impl Workspace {
    /// `None` when neither a tmpfs nor a thread group can be had here (then
    /// nothing is gained over a directory per candidate).
    fn new(limits: &Limits, key: Key) -> Option<Workspace> {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let dir = tempfile::Builder::new().prefix(DIR_PREFIX).tempdir().ok()?;
        let tmpfs = match (root && key.2, limits.disk_bytes) {
            (true, Some(bytes)) => mount_tmpfs(dir.path(), bytes).is_ok(),
            _ => false,
        };
        let group = limits
            .threads
            .and_then(|max| super::confine::Group::new_for_thread(max + 1));
        let memory = memory_bound(limits).and_then(super::confine::Group::memory_for_thread);
        if !tmpfs && group.is_none() && memory.is_none() {
            return None;
        }
        Some(Workspace {
            key,
            dir,
            tmpfs,
            group,
            memory,
        })
    }
}

#[cfg(target_os = "linux")]
impl Drop for Workspace {
    fn drop(&mut self) {
        use std::os::unix::ffi::OsStrExt;
        if self.tmpfs {
            if let Ok(path) = std::ffi::CString::new(self.dir.path().as_os_str().as_bytes()) {
                // SAFETY: unmounting our own thread's tmpfs by path.
                unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH) };
            }
        }
    }
}

/// Gives the calling thread a mount namespace of its own, with a tmpfs of
/// `bytes` on `dir`.
#[cfg(target_os = "linux")]
fn mount_tmpfs(dir: &Path, bytes: u64) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let dir = std::ffi::CString::new(dir.as_os_str().as_bytes())?;
    let options = super::namespaces::tmpfs_options(bytes)
        .ok_or_else(|| std::io::Error::other("no tmpfs options"))?;
    // SAFETY: unshare for this thread alone, then the mount on prepared strings.
    unsafe {
        if libc::unshare(libc::CLONE_FS | libc::CLONE_NEWNS) == -1 {
            return Err(std::io::Error::last_os_error());
        }
        super::namespaces::mount_tmpfs(&dir, &options)
    }
}

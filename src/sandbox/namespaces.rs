//! The namespaces a child enters before it is confined: a fresh network
//! namespace (`--no-network`), and a mount namespace in which its directory
//! is a tmpfs of the disk limit's size, so the kernel bounds the bytes and
//! entries it keeps however it keeps them (files unlinked but held open,
//! `O_TMPFILE`, descriptors in flight in a socket). A host that is not root
//! enters a user namespace always (where the kernel gives one), mapping its
//! ids to themselves. Each is probed
//! once; where the tmpfs cannot be made, the host's watchdog measures the
//! directory instead (see `disk.rs`) and no descriptor may be sent.

use std::ffi::{CStr, CString};
use std::io;
use std::path::Path;
use std::sync::OnceLock;

use super::container::Container;

/// Entries (files and directories) a candidate's tmpfs holds at most.
pub const DISK_ENTRIES: u64 = 4096;

/// What a child enters before it is confined.
#[derive(Debug, Clone)]
pub(super) struct Namespaces {
    /// A fresh network namespace.
    net: bool,
    /// Not root: a user namespace too, mapping our ids to themselves.
    user: Option<(Vec<u8>, Vec<u8>)>,
    /// A mount namespace with this tmpfs mounted on the child's directory.
    tmpfs: Option<Tmpfs>,
    /// A pid namespace of its own, made by `clone` (with the user namespace,
    /// where there is one): the child is its first process.
    pid: bool,
    /// A suite candidate's container (see `container.rs`).
    container: Option<Container>,
}

/// What [`Namespaces::enter`] calls for each mount the child's Landlock
/// ruleset must reach: writable (`true`) or readable.
pub(super) type Allow<'a> = &'a dyn Fn(&CStr, bool) -> io::Result<()>;

/// A sized tmpfs to mount on a directory.
#[derive(Debug, Clone)]
struct Tmpfs {
    dir: CString,
    options: CString,
}

impl Namespaces {
    /// What `no_network` and a disk limit of `disk` bytes on `dir` ask for
    /// (the tmpfs only where this kernel gives it), with `own_user` a user
    /// namespace even without them (see [`own_user_namespace`]), and with
    /// `pid` a pid namespace of its own (see [`pid_isolation`]); `None` for
    /// nothing.
    pub(super) fn new(
        no_network: bool,
        disk: Option<(&Path, u64)>,
        own_user: bool,
        pid: bool,
    ) -> Option<Namespaces> {
        use std::os::unix::ffi::OsStrExt;
        let tmpfs = disk.filter(|_| disk_isolation()).and_then(|(dir, bytes)| {
            Some(Tmpfs {
                dir: CString::new(dir.as_os_str().as_bytes()).ok()?,
                options: tmpfs_options(bytes)?,
            })
        });
        if !no_network && tmpfs.is_none() && !own_user && !pid {
            return None;
        }
        Some(Namespaces {
            net: no_network,
            user: user_maps(),
            tmpfs,
            pid,
            container: None,
        })
    }

    /// The namespaces of a suite candidate's `container`, with a pid
    /// namespace of its own.
    pub(super) fn container(container: Container) -> Namespaces {
        Namespaces {
            net: false,
            user: user_maps(),
            tmpfs: None,
            pid: true,
            container: Some(container),
        }
    }

    /// Whether these are a container's.
    pub(super) fn is_container(&self) -> bool {
        self.container.is_some()
    }

    /// The flags `clone` adds for these: a pid namespace, and the user
    /// namespace that owns it where we are not root.
    pub(super) fn clone_flags(&self) -> libc::c_int {
        match (self.pid, &self.user) {
            (false, _) => 0,
            (true, None) => libc::CLONE_NEWPID,
            (true, Some(_)) => libc::CLONE_NEWPID | libc::CLONE_NEWUSER,
        }
    }

    /// Whether a child entering these can share the host's memory until it
    /// execs (a user namespace refuses a process that does).
    pub(super) fn shares_memory_safely(&self) -> bool {
        self.user.is_none()
    }

    /// Enters them (those `clone` did not: [`Namespaces::clone_flags`]),
    /// mounts the tmpfs or builds the container, and calls `allow` for each
    /// mount the child's Landlock ruleset must reach.
    ///
    /// # Safety
    /// Async-signal-safe calls only: runs in a child between clone and exec.
    #[cfg(target_os = "linux")]
    pub(super) unsafe fn enter(&self, allow: Allow<'_>) -> io::Result<()> {
        let mut flags = 0;
        if self.net {
            flags |= libc::CLONE_NEWNET;
        }
        if self.tmpfs.is_some() {
            flags |= libc::CLONE_NEWNS;
        }
        if self.user.is_some() && !self.pid {
            flags |= libc::CLONE_NEWUSER;
        }
        if let Some(container) = &self.container {
            flags |= container.unshare_flags();
        }
        // SAFETY: unshare, open, write, close and mount on prepared memory.
        unsafe {
            if libc::unshare(flags) == -1 {
                return Err(io::Error::last_os_error());
            }
            if let Some((uid_map, gid_map)) = &self.user {
                for (path, data) in [
                    (c"/proc/self/setgroups", b"deny".as_slice()),
                    (c"/proc/self/uid_map", uid_map.as_slice()),
                    (c"/proc/self/gid_map", gid_map.as_slice()),
                ] {
                    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                    if fd < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    let written = libc::write(fd, data.as_ptr().cast(), data.len());
                    libc::close(fd);
                    if written < 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
            }
            if let Some(tmpfs) = &self.tmpfs {
                mount_tmpfs(&tmpfs.dir, &tmpfs.options)?;
                allow(&tmpfs.dir, true)?;
            }
            if let Some(container) = &self.container {
                container.build(allow)?;
            }
        }
        Ok(())
    }

    /// Namespaces are Linux-only.
    ///
    /// # Safety
    /// None: it only fails.
    #[cfg(not(target_os = "linux"))]
    pub(super) unsafe fn enter(&self, _: Allow<'_>) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "namespaces are Linux-only",
        ))
    }
}

/// The options of a tmpfs of `bytes` and [`DISK_ENTRIES`] entries.
pub(super) fn tmpfs_options(bytes: u64) -> Option<CString> {
    CString::new(format!("size={bytes},nr_inodes={DISK_ENTRIES},mode=0700")).ok()
}

/// Makes the calling thread's mounts private (nothing mounted next may reach
/// the host's view) and mounts a tmpfs with `options` on `dir`.
///
/// # Safety
/// Async-signal-safe: two system calls on prepared strings. The caller is in
/// a mount namespace of its own.
#[cfg(target_os = "linux")]
pub(super) unsafe fn mount_tmpfs(dir: &std::ffi::CStr, options: &std::ffi::CStr) -> io::Result<()> {
    let none = std::ptr::null();
    // SAFETY: mount and statvfs on NUL-terminated strings and a stack buffer.
    unsafe {
        let private = libc::MS_REC | libc::MS_PRIVATE;
        if libc::mount(none, c"/".as_ptr(), none, private, none.cast()) == -1 {
            return Err(io::Error::last_os_error());
        }
        // Reading a file would set its access time on the host's disk: a
        // mark a candidate running later (or at once) could read. Here the
        // root is remounted `noatime`, keeping its other flags; a user
        // namespace may not change them (they are locked), so there it
        // stays as it is.
        let mut st: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(c"/".as_ptr(), &mut st) == 0 {
            let keep = libc::ST_RDONLY | libc::ST_NOSUID | libc::ST_NODEV | libc::ST_NOEXEC;
            let flags = (st.f_flag & keep) as libc::c_ulong
                | libc::MS_REMOUNT
                | libc::MS_BIND
                | libc::MS_NOATIME;
            libc::mount(none, c"/".as_ptr(), none, flags, none.cast());
        }
        if libc::mount(
            c"tmpfs".as_ptr(),
            dir.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            options.as_ptr().cast(),
        ) == -1
        {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Not root: the maps of a user namespace of our own ids.
fn user_maps() -> Option<(Vec<u8>, Vec<u8>)> {
    // SAFETY: plain id getters.
    let (uid, gid, euid) = unsafe { (libc::getuid(), libc::getgid(), libc::geteuid()) };
    (euid != 0).then(|| {
        (
            format!("{uid} {uid} 1\n").into_bytes(),
            format!("{gid} {gid} 1\n").into_bytes(),
        )
    })
}

/// Runs /bin/true in `namespaces`; why not, if it cannot.
fn probe(namespaces: Namespaces, what: &str) -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        return Err(format!(
            "{what} needs Linux namespaces; this system has none"
        ));
    }
    let true_bin = ["/bin/true", "/usr/bin/true"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .ok_or(format!("cannot probe {what}: no /bin/true"))?;
    let mut cmd = std::process::Command::new(true_bin);
    // SAFETY: the closure only makes async-signal-safe calls.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || {
            namespaces.enter(&|_, _| Ok(()))
        });
    }
    match cmd.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("the {what} probe failed ({status})")),
        Err(e) => Err(format!(
            "this kernel does not let execscope make {what} ({e})"
        )),
    }
}

/// Whether candidates can run without network here, or why not. Checked once by
/// starting a trivial process in a fresh network namespace.
pub fn network_isolation() -> Result<(), String> {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            let net = Namespaces {
                net: true,
                user: user_maps(),
                tmpfs: None,
                pid: false,
                container: None,
            };
            probe(net, "a network namespace")
                .map_err(|e| format!("{e}; candidates keep the host's network"))
        })
        .clone()
}

/// Whether every candidate and fork server enters a user namespace of its
/// own under `limits`: not root, the kernel's confinement on, and the kernel
/// gives one. There RLIMIT_NPROC counts that namespace's tasks alone (see
/// `confine/pids.rs`).
pub(super) fn own_user_namespace(limits: &super::Limits) -> bool {
    limits.confine && user_isolation()
}

/// Not root, and a user namespace of our own ids can be made here. Checked
/// once.
fn user_isolation() -> bool {
    static PROBE: OnceLock<bool> = OnceLock::new();
    *PROBE.get_or_init(|| {
        let Some(maps) = user_maps() else {
            return false;
        };
        let ns = Namespaces {
            net: false,
            user: Some(maps),
            tmpfs: None,
            pid: false,
            container: None,
        };
        probe(ns, "a user namespace").is_ok()
    })
}

/// Whether a candidate's directory can be a sized tmpfs of its own here.
/// Checked once by mounting one in a trivial process.
pub fn disk_isolation() -> bool {
    static PROBE: OnceLock<bool> = OnceLock::new();
    *PROBE.get_or_init(|| {
        let Ok(dir) = tempfile::Builder::new()
            .prefix("execscope-probe-")
            .tempdir()
        else {
            return false;
        };
        use std::os::unix::ffi::OsStrExt;
        let Ok(path) = CString::new(dir.path().as_os_str().as_bytes()) else {
            return false;
        };
        let ns = Namespaces {
            net: false,
            user: user_maps(),
            tmpfs: Some(Tmpfs {
                dir: path,
                options: c"size=1048576,nr_inodes=16".into(),
            }),
            pid: false,
            container: None,
        };
        probe(ns, "a mount namespace").is_ok()
    })
}

/// Whether a trivial process can build a container (see `container.rs`)
/// here: its mounts, its loopback, a user namespace where not root (the pid
/// namespace, which `clone` makes, is left out: `Command` cannot).
pub(super) fn probe_container() -> bool {
    let Ok(dir) = tempfile::Builder::new()
        .prefix("execscope_probe_")
        .tempdir()
    else {
        return false;
    };
    let Some(container) = Container::new(dir.path(), Some(1 << 20), false) else {
        return false;
    };
    let ns = Namespaces {
        pid: false,
        ..Namespaces::container(container)
    };
    probe(ns, "a container").is_ok()
}

/// Whether a process can be the first of a pid namespace of its own here
/// (as root, or through the user namespace that owns it, which is probed
/// once): the ids of the processes and threads in it then count from 1
/// whatever runs beside it.
pub(super) fn pid_isolation() -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    cfg!(target_os = "linux") && (root || user_isolation())
}

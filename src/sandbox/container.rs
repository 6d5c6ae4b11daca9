//! A unittest suite's candidate runs in a world of its own that is thrown
//! away with it, so that the tests' own work (starting programs, copying
//! modes and times, a server on loopback, a file in `/tmp`) succeeds without
//! reaching the host. Besides the namespaces every candidate gets (see
//! `namespaces.rs`), its child enters new pid, mount, IPC and UTS namespaces
//! (and a network namespace unless the user allowed the network), and before
//! it is confined:
//!
//! - every mount it inherits becomes read-only in its view (a mode, time or
//!   write there fails with `EROFS`); the host's mounts are not touched;
//! - `/tmp` and `/dev/shm` are fresh tmpfs mounts of the disk limit's size,
//!   and its own directory is made inside `/tmp` (or is a tmpfs of its own
//!   where it lies elsewhere);
//! - `/proc` is the proc of its own pid namespace: its processes alone;
//! - its loopback is up (its network namespace has nothing else).
//!
//! The relaxations this allows (new processes, any exec, mode, time and
//! attribute changes, sockets, IPC: see `confine/calls.rs`) reach nothing
//! beyond it; the README says why each is safe.

use std::ffi::{CStr, CString};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::namespaces::DISK_ENTRIES;

/// What a child builds of its container, prepared in the host.
#[derive(Debug, Clone)]
pub(super) struct Container {
    /// Options of the `/tmp` and `/dev/shm` tmpfs mounts.
    tmp_options: CString,
    /// The directories to make in the new `/tmp`, outermost first, ending
    /// with the candidate's own; empty when that lies outside `/tmp`.
    own_in_tmp: Vec<CString>,
    /// The candidate's own directory with the options of its tmpfs, when it
    /// lies outside `/tmp`.
    own_elsewhere: Option<(CString, CString)>,
    /// Its network namespace is its own: bring the loopback up.
    loopback: bool,
}

/// Bytes of a tmpfs of `/tmp` when no disk limit is set.
const UNLIMITED_TMP: u64 = 1 << 30;

impl Container {
    /// The container of a candidate whose directory is `dir`, with `disk`
    /// bytes for each tmpfs, in a network namespace of its own unless
    /// `network`.
    pub(super) fn new(dir: &Path, disk: Option<u64>, network: bool) -> Option<Container> {
        use std::os::unix::ffi::OsStrExt;
        let bytes = disk.unwrap_or(UNLIMITED_TMP);
        let tmp_options =
            CString::new(format!("size={bytes},nr_inodes={DISK_ENTRIES},mode=1777")).ok()?;
        let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).ok();
        let (own_in_tmp, own_elsewhere) = match dir.strip_prefix("/tmp") {
            Ok(rest) if !rest.as_os_str().is_empty() => {
                let mut at = std::path::PathBuf::from("/tmp");
                let mut made = Vec::new();
                for part in rest.components() {
                    at.push(part);
                    made.push(c(&at)?);
                }
                (made, None)
            }
            _ => (
                Vec::new(),
                Some((c(dir)?, super::namespaces::tmpfs_options(bytes)?)),
            ),
        };
        Some(Container {
            tmp_options,
            own_in_tmp,
            own_elsewhere,
            loopback: !network,
        })
    }

    /// The namespaces it adds to `unshare` (pid comes from `clone`).
    pub(super) fn unshare_flags(&self) -> libc::c_int {
        let net = if self.loopback { libc::CLONE_NEWNET } else { 0 };
        libc::CLONE_NEWNS | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS | net
    }

    /// Builds the view: called in the child once it is in its namespaces;
    /// `allow` then adds each writable mount to its Landlock ruleset (with
    /// `true` for one it may write, `false` for `/proc`, which it may read).
    ///
    /// # Safety
    /// Async-signal-safe system calls on strings prepared in the host.
    #[cfg(target_os = "linux")]
    pub(super) unsafe fn build(
        &self,
        allow: &dyn Fn(&CStr, bool) -> io::Result<()>,
    ) -> io::Result<()> {
        let fail = || Err(io::Error::last_os_error());
        let none = std::ptr::null();
        let tmpfs = |dir: &CStr, options: &CStr| {
            // SAFETY: mount on NUL-terminated strings.
            let rc = unsafe {
                libc::mount(
                    c"tmpfs".as_ptr(),
                    dir.as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    options.as_ptr().cast(),
                )
            };
            if rc == -1 { fail() } else { Ok(()) }
        };
        // SAFETY: mount, mount_setattr, mkdir and the loopback's ioctl on
        // prepared strings and stack memory.
        unsafe {
            let private = libc::MS_REC | libc::MS_PRIVATE;
            if libc::mount(none, c"/".as_ptr(), none, private, none.cast()) == -1 {
                return fail();
            }
            read_only_everywhere()?;
            tmpfs(c"/tmp", &self.tmp_options)?;
            allow(c"/tmp", true)?;
            for dir in &self.own_in_tmp {
                if libc::mkdir(dir.as_ptr(), 0o700) == -1 {
                    return fail();
                }
            }
            if let Some((dir, options)) = &self.own_elsewhere {
                tmpfs(dir, options)?;
                allow(dir, true)?;
            }
            if tmpfs(c"/dev/shm", &self.tmp_options).is_ok() {
                allow(c"/dev/shm", true)?;
            }
            let proc_flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
            if libc::mount(
                c"proc".as_ptr(),
                c"/proc".as_ptr(),
                c"proc".as_ptr(),
                proc_flags,
                none.cast(),
            ) == 0
            {
                allow(c"/proc", false)?;
            }
            if self.loopback {
                loopback_up()?;
            }
        }
        Ok(())
    }
}

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// Makes every mount in the calling process's (private) mount namespace
/// read-only.
///
/// # Safety
/// Async-signal-safe: one system call.
#[cfg(target_os = "linux")]
unsafe fn read_only_everywhere() -> io::Result<()> {
    const AT_RECURSIVE: libc::c_uint = 0x8000;
    let attr = MountAttr {
        attr_set: libc::MOUNT_ATTR_RDONLY,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: a valid attribute of the size passed, on a NUL-terminated path.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            c"/".as_ptr(),
            AT_RECURSIVE,
            &attr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if rc == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `struct ifreq` as `SIOCSIFFLAGS` reads it: a name, then the flags.
#[repr(C)]
struct IfreqFlags {
    name: [u8; 16],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Brings up `lo` in the calling process's network namespace.
///
/// # Safety
/// Async-signal-safe: socket, ioctl, close.
#[cfg(target_os = "linux")]
unsafe fn loopback_up() -> io::Result<()> {
    const SIOCSIFFLAGS: libc::c_ulong = 0x8914;
    let mut req = IfreqFlags {
        name: [0; 16],
        flags: (libc::IFF_UP | libc::IFF_LOOPBACK | libc::IFF_RUNNING) as libc::c_short,
        _pad: [0; 22],
    };
    req.name[..2].copy_from_slice(b"lo");
    // SAFETY: a datagram socket for the request, the request on the stack.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let rc = libc::ioctl(fd, SIOCSIFFLAGS, &mut req);
        let err = io::Error::last_os_error();
        libc::close(fd);
        if rc == -1 {
            return Err(err);
        }
    }
    Ok(())
}

/// A directory whose `python` runs `exe`, for the front of a container's
/// PATH (the official harnesses run in environments where `python` is
/// theirs): the interpreter's own directory when its `python` is `exe`,
/// else one made once in the user's cache; `None` where neither can be had.
pub(crate) fn python_dir(exe: &Path) -> Option<PathBuf> {
    use std::sync::Mutex;
    static MADE: Mutex<Vec<(PathBuf, Option<PathBuf>)>> = Mutex::new(Vec::new());
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, dir)) = made.iter().find(|(e, _)| e == exe) {
        return dir.clone();
    }
    let dir = own_python_dir(exe).or_else(|| cached_python_dir(exe));
    made.push((exe.to_path_buf(), dir.clone()));
    dir
}

fn own_python_dir(exe: &Path) -> Option<PathBuf> {
    let dir = exe.parent()?;
    let same =
        std::fs::canonicalize(dir.join("python")).ok()? == std::fs::canonicalize(exe).ok()?;
    same.then(|| dir.to_path_buf())
}

fn cached_python_dir(exe: &Path) -> Option<PathBuf> {
    use sha2::Digest;
    use std::os::unix::ffi::OsStrExt;
    let hash = sha2::Sha256::digest(exe.as_os_str().as_bytes());
    let name: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    let dir = crate::cache::cache_dir()?
        .join("execscope")
        .join(format!("python-{name}"));
    std::fs::create_dir_all(&dir).ok()?;
    let link = dir.join("python");
    if std::fs::read_link(&link).ok().as_deref() != Some(exe) {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(exe, &link).ok()?;
    }
    Some(dir)
}

/// Whether suites can run in containers here: a trivial process builds one
/// (checked once).
pub fn container_isolation() -> bool {
    static PROBE: OnceLock<bool> = OnceLock::new();
    *PROBE.get_or_init(|| cfg!(target_os = "linux") && super::namespaces::probe_container())
}

//! Landlock through its three system calls: the ABI probe, a ruleset built in
//! the host (paths opened there, so the child only has to enforce it), and
//! `landlock_restrict_self` in the child. Best effort across ABI versions:
//! each right and scope the running kernel does not know is left out, and the
//! status says which are in force.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::sync::OnceLock;

const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: libc::c_int = 1;

/// Filesystem rights (`LANDLOCK_ACCESS_FS_*`).
pub(super) mod fs {
    pub const EXECUTE: u64 = 1 << 0;
    pub const WRITE_FILE: u64 = 1 << 1;
    pub const READ_FILE: u64 = 1 << 2;
    pub const READ_DIR: u64 = 1 << 3;
    pub const REMOVE_DIR: u64 = 1 << 4;
    pub const REMOVE_FILE: u64 = 1 << 5;
    pub const MAKE_DIR: u64 = 1 << 7;
    pub const MAKE_REG: u64 = 1 << 8;
    pub const MAKE_SOCK: u64 = 1 << 9;
    pub const MAKE_FIFO: u64 = 1 << 10;
    pub const MAKE_SYM: u64 = 1 << 12;
    pub const REFER: u64 = 1 << 13;
    pub const TRUNCATE: u64 = 1 << 14;
    pub const IOCTL_DEV: u64 = 1 << 15;
    /// Rights that apply to a file (not only to a directory).
    pub const ON_FILES: u64 = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV;
    /// Reading files and listing directories.
    pub const READ: u64 = READ_FILE | READ_DIR;
    /// Everything a candidate may do in its own directory: read, write,
    /// create, remove, rename, truncate; no devices, no execution.
    pub const OWN_DIR: u64 = READ
        | WRITE_FILE
        | REMOVE_DIR
        | REMOVE_FILE
        | MAKE_DIR
        | MAKE_REG
        | MAKE_SOCK
        | MAKE_FIFO
        | MAKE_SYM
        | REFER
        | TRUNCATE;
}

/// Network rights (`LANDLOCK_ACCESS_NET_*`, ABI 4).
const NET_BIND_TCP: u64 = 1 << 0;
const NET_CONNECT_TCP: u64 = 1 << 1;
/// Scopes (`LANDLOCK_SCOPE_*`, ABI 6).
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The Landlock ABI version of the running kernel (0: none).
pub fn abi() -> u32 {
    static ABI: OnceLock<u32> = OnceLock::new();
    *ABI.get_or_init(|| {
        // SAFETY: the documented version query: null attribute, size 0.
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<RulesetAttr>(),
                0usize,
                CREATE_RULESET_VERSION,
            )
        };
        u32::try_from(v).unwrap_or(0)
    })
}

/// Filesystem rights the kernel with ABI `abi` handles.
fn handled_fs(abi: u32) -> u64 {
    let mut rights = (1 << 13) - 1;
    if abi >= 2 {
        rights |= fs::REFER;
    }
    if abi >= 3 {
        rights |= fs::TRUNCATE;
    }
    if abi >= 5 {
        rights |= fs::IOCTL_DEV;
    }
    rights
}

/// One path and what may be done beneath it, opened (`O_PATH`) once and
/// added to as many rulesets as need it.
#[derive(Debug)]
pub(crate) struct Rule {
    path: std::path::PathBuf,
    fd: OwnedFd,
    allowed: u64,
}

impl Rule {
    /// Opens `path` for a rule granting `rights` (as far as the kernel knows
    /// them, and as far as they apply to a file when it is one); `None` when
    /// it does not exist.
    pub(crate) fn open(path: &Path, rights: u64) -> Option<Rule> {
        use std::os::unix::ffi::OsStrExt;
        let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
        // SAFETY: open with O_PATH on a NUL-terminated path.
        let fd = unsafe { libc::open(c_path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if fd < 0 {
            return None;
        }
        // SAFETY: the descriptor just opened.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let is_dir = std::fs::metadata(path).is_ok_and(|m| m.is_dir());
        let rights = rights & handled_fs(abi());
        Some(Rule {
            path: path.to_path_buf(),
            fd,
            allowed: if is_dir {
                rights
            } else {
                rights & fs::ON_FILES
            },
        })
    }
}

/// A ruleset ready to be enforced in a child.
#[derive(Debug)]
pub(crate) struct Ruleset(OwnedFd);

impl Ruleset {
    /// Creates a ruleset that handles every right the kernel knows, refuses
    /// TCP unless `network`, and scopes signals and abstract sockets; it
    /// allows nothing until rules are added.
    pub(crate) fn new(network: bool) -> io::Result<Ruleset> {
        let abi = abi();
        if abi == 0 {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "this kernel has no Landlock",
            ));
        }
        let attr = RulesetAttr {
            handled_access_fs: handled_fs(abi),
            handled_access_net: if !network && abi >= 4 {
                NET_BIND_TCP | NET_CONNECT_TCP
            } else {
                0
            },
            scoped: if abi >= 6 {
                SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
            } else {
                0
            },
        };
        // SAFETY: a valid attribute of the size passed.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                &attr,
                std::mem::size_of::<RulesetAttr>(),
                0u32,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a descriptor the kernel just returned to us (close-on-exec).
        Ok(Ruleset(unsafe { OwnedFd::from_raw_fd(fd as RawFd) }))
    }

    /// Adds `rule`.
    pub(crate) fn add(&self, rule: &Rule) -> io::Result<()> {
        let attr = PathBeneathAttr {
            allowed_access: rule.allowed,
            parent_fd: rule.fd.as_raw_fd(),
        };
        // SAFETY: our ruleset descriptor and a valid path-beneath attribute.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                self.0.as_raw_fd(),
                RULE_PATH_BENEATH,
                &attr,
                0u32,
            )
        };
        if rc < 0 {
            return Err(io::Error::other(format!(
                "Landlock refused a rule for {}: {}",
                rule.path.display(),
                io::Error::last_os_error()
            )));
        }
        Ok(())
    }

    /// The ruleset's descriptor.
    pub(crate) fn fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}

/// Adds to the ruleset `fd` a rule granting `rights` beneath `dir`, opened
/// now: in a child, for a tmpfs it has just mounted there (a rule on the
/// directory beneath a mount does not reach into it).
///
/// # Safety
/// Async-signal-safe: open, one system call, close.
pub(crate) unsafe fn allow_beneath(fd: RawFd, dir: &std::ffi::CStr, rights: u64) -> io::Result<()> {
    // SAFETY: open with O_PATH on a NUL-terminated path; the attribute lives
    // on the stack for the call.
    unsafe {
        let own = libc::open(
            dir.as_ptr(),
            libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY,
        );
        if own < 0 {
            return Err(io::Error::last_os_error());
        }
        let attr = PathBeneathAttr {
            allowed_access: rights & handled_fs(abi()),
            parent_fd: own,
        };
        let rc = libc::syscall(
            libc::SYS_landlock_add_rule,
            fd,
            RULE_PATH_BENEATH,
            &attr,
            0u32,
        );
        let err = io::Error::last_os_error();
        libc::close(own);
        if rc < 0 {
            return Err(err);
        }
    }
    Ok(())
}

/// Enforces the ruleset `fd` on the calling thread (no_new_privs must be set).
///
/// # Safety
/// Async-signal-safe: one system call; `fd` must be a Landlock ruleset.
pub(crate) unsafe fn restrict_self(fd: RawFd) -> io::Result<()> {
    // SAFETY: the caller passes a ruleset descriptor.
    if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

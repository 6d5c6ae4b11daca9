//! What is applied to a candidate between fork and exec: a new session, the
//! result channel on descriptor 3, resource limits, and (optionally) a fresh
//! network namespace. Everything here runs in the forked child, so it only makes
//! async-signal-safe calls on data prepared beforehand.

use std::io;
use std::os::fd::RawFd;
use std::sync::OnceLock;
use std::time::Duration;

use super::Limits;

/// The descriptor the harness writes its envelope to.
pub(super) const ENVELOPE_FD: RawFd = 3;

/// Everything the forked child needs, computed in the parent.
#[derive(Debug, Clone)]
pub(super) struct ChildSetup {
    envelope_w: RawFd,
    host: libc::pid_t,
    rlimits: Vec<(RlimitResource, libc::rlim_t, libc::rlim_t)>,
    network: Option<NetNs>,
}

#[cfg(target_os = "linux")]
type RlimitResource = libc::__rlimit_resource_t;
#[cfg(not(target_os = "linux"))]
type RlimitResource = libc::c_int;

/// What it takes to enter a fresh network namespace.
#[derive(Debug, Clone)]
struct NetNs {
    /// Not root: a user namespace too, mapping our ids to themselves.
    user: Option<(Vec<u8>, Vec<u8>)>,
}

impl ChildSetup {
    /// Prepares the child's setup for `limits` and `timeout`.
    pub(super) fn new(limits: &Limits, timeout: Duration, envelope_w: RawFd) -> ChildSetup {
        let mut rlimits = Vec::new();
        if let Some(bytes) = limits.memory_bytes {
            rlimits.push((
                libc::RLIMIT_AS,
                bytes as libc::rlim_t,
                bytes as libc::rlim_t,
            ));
        }
        if let Some(bytes) = limits.file_size_bytes {
            rlimits.push((
                libc::RLIMIT_FSIZE,
                bytes as libc::rlim_t,
                bytes as libc::rlim_t,
            ));
        }
        if let Some(n) = limits.open_files {
            rlimits.push((libc::RLIMIT_NOFILE, n as libc::rlim_t, n as libc::rlim_t));
        }
        if limits.cpu_backstop {
            let soft = timeout.as_secs() as libc::rlim_t + 2;
            rlimits.push((libc::RLIMIT_CPU, soft, soft + 1));
            rlimits.push((libc::RLIMIT_CORE, 0, 0));
        }
        ChildSetup {
            envelope_w,
            // SAFETY: getpid has no preconditions.
            host: unsafe { libc::getpid() },
            rlimits,
            network: limits.no_network.then(netns),
        }
    }

    /// Runs in the child between fork and exec.
    pub(super) fn apply(&self) -> io::Result<()> {
        // SAFETY: only async-signal-safe calls on memory prepared before fork.
        unsafe {
            if libc::setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            // If the host dies (even by SIGKILL), the candidate dies with it.
            #[cfg(target_os = "linux")]
            {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                if libc::getppid() != self.host {
                    libc::_exit(1);
                }
            }
            if self.envelope_w == ENVELOPE_FD {
                libc::fcntl(ENVELOPE_FD, libc::F_SETFD, 0);
            } else if libc::dup2(self.envelope_w, ENVELOPE_FD) == -1 {
                return Err(io::Error::last_os_error());
            }
            if let Some(net) = &self.network {
                enter_netns(net)?;
            }
            for &(resource, soft, hard) in &self.rlimits {
                let limit = libc::rlimit {
                    rlim_cur: soft,
                    rlim_max: hard,
                };
                if libc::setrlimit(resource, &limit) == -1 {
                    return Err(io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }
}

fn netns() -> NetNs {
    // SAFETY: plain id getters.
    let (uid, gid, euid) = unsafe { (libc::getuid(), libc::getgid(), libc::geteuid()) };
    NetNs {
        user: (euid != 0).then(|| {
            (
                format!("{uid} {uid} 1\n").into_bytes(),
                format!("{gid} {gid} 1\n").into_bytes(),
            )
        }),
    }
}

#[cfg(target_os = "linux")]
unsafe fn enter_netns(net: &NetNs) -> io::Result<()> {
    let flags = if net.user.is_some() {
        libc::CLONE_NEWUSER | libc::CLONE_NEWNET
    } else {
        libc::CLONE_NEWNET
    };
    // SAFETY: unshare in the single-threaded forked child.
    if unsafe { libc::unshare(flags) } == -1 {
        return Err(io::Error::last_os_error());
    }
    if let Some((uid_map, gid_map)) = &net.user {
        for (path, data) in [
            (c"/proc/self/setgroups", b"deny".as_slice()),
            (c"/proc/self/uid_map", uid_map.as_slice()),
            (c"/proc/self/gid_map", gid_map.as_slice()),
        ] {
            // SAFETY: open/write/close on a NUL-terminated path and a valid buffer.
            unsafe {
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
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
unsafe fn enter_netns(_: &NetNs) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "network namespaces are Linux-only",
    ))
}

/// Whether candidates can run without network here, or why not. Checked once by
/// starting a trivial process in a fresh network namespace.
pub fn network_isolation() -> Result<(), String> {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            if !cfg!(target_os = "linux") {
                return Err(
                    "no-network mode needs Linux network namespaces; this system has none".into(),
                );
            }
            let true_bin = ["/bin/true", "/usr/bin/true"]
                .into_iter()
                .find(|p| std::path::Path::new(p).exists())
                .ok_or("cannot probe network namespaces: no /bin/true")?;
            let net = netns();
            let mut cmd = std::process::Command::new(true_bin);
            // SAFETY: the closure only makes async-signal-safe calls.
            unsafe {
                std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || enter_netns(&net));
            }
            match cmd.status() {
                Ok(status) if status.success() => Ok(()),
                Ok(status) => Err(format!("the network-namespace probe failed ({status})")),
                Err(e) => Err(format!(
                    "this kernel does not let execscope create a network namespace ({e}); \
                     candidates keep the host's network"
                )),
            }
        })
        .clone()
}

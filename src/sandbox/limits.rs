//! What is applied to a candidate between fork (or clone) and exec: a new
//! session, the call channel to its judge on descriptor 3, the kernel confinement (see
//! `confine`), resource limits, and (optionally) a fresh network namespace.
//! Everything here runs in the child, which may share the host's memory until
//! it execs (see `spawn`), so it only makes async-signal-safe calls on data
//! prepared beforehand.

use std::io;
use std::os::fd::RawFd;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::Limits;
use super::confine::Prepared;

/// The descriptor of a candidate process's call channel to its judge.
pub(super) const CALL_FD: RawFd = 3;
/// The descriptor of the Landlock ruleset a fork server's children enforce.
pub(super) const RULESET_FD: RawFd = 5;

/// One resource limit: resource, soft, hard.
pub(super) type Rlimit = (RlimitResource, libc::rlim_t, libc::rlim_t);

/// Everything the child needs, computed in the parent.
#[derive(Debug, Clone)]
pub(super) struct ChildSetup {
    /// Descriptors to place: (ours, the number the child sees).
    fds: Vec<(RawFd, RawFd)>,
    host: libc::pid_t,
    death_signal: libc::c_int,
    rlimits: Vec<Rlimit>,
    network: Option<NetNs>,
    confine: Option<Arc<Prepared>>,
    /// The `cgroup.procs` of the pids group the child joins first.
    cgroup: Option<RawFd>,
}

#[cfg(target_os = "linux")]
pub(super) type RlimitResource = libc::__rlimit_resource_t;
#[cfg(not(target_os = "linux"))]
pub(super) type RlimitResource = libc::c_int;

/// What it takes to enter a fresh network namespace.
#[derive(Debug, Clone)]
struct NetNs {
    /// Not root: a user namespace too, mapping our ids to themselves.
    user: Option<(Vec<u8>, Vec<u8>)>,
}

/// The resource limits of one candidate under `limits` with `timeout`.
pub(super) fn rlimits(limits: &Limits, timeout: Duration) -> Vec<Rlimit> {
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
    #[cfg(target_os = "linux")]
    if let Some(max) = limits.threads {
        if limits.confinement().threads == super::confine::ThreadBound::Rlimit {
            let n = super::confine::nproc_limit(max) as libc::rlim_t;
            rlimits.push((libc::RLIMIT_NPROC, n, n));
        }
    }
    if limits.cpu_backstop {
        let soft = cpu_seconds(timeout) as libc::rlim_t;
        rlimits.push((libc::RLIMIT_CPU, soft, soft + 1));
        rlimits.push((libc::RLIMIT_CORE, 0, 0));
    }
    rlimits
}

/// The CPU backstop's soft limit for `timeout`: the timeout plus 2 s.
pub(super) fn cpu_seconds(timeout: Duration) -> u64 {
    timeout.as_secs() + 2
}

impl ChildSetup {
    /// The setup of a candidate started fresh: its limits and confinement,
    /// the call channel on descriptor 3, killed with the host.
    pub(super) fn candidate(
        limits: &Limits,
        timeout: Duration,
        call: RawFd,
        confine: Option<Prepared>,
    ) -> ChildSetup {
        ChildSetup {
            fds: vec![(call, CALL_FD)],
            // SAFETY: getpid has no preconditions.
            host: unsafe { libc::getpid() },
            death_signal: libc::SIGKILL,
            rlimits: rlimits(limits, timeout),
            network: limits.no_network.then(netns),
            confine: confine.map(Arc::new),
            cgroup: None,
        }
    }

    /// This set-up with the child joining the pids group whose
    /// `cgroup.procs` is `procs` before anything else.
    pub(super) fn in_group(mut self, procs: Option<RawFd>) -> ChildSetup {
        self.cgroup = procs;
        self
    }

    /// The setup of a fork server: (confined) the Landlock ruleset its
    /// children enforce again on 5; no limits of its own (each child it forks
    /// sets them); SIGTERM when the host dies, which it answers by killing its
    /// child. The server is confined like a candidate except that it may fork.
    pub(super) fn server(limits: &Limits, confine: Option<Prepared>) -> ChildSetup {
        #[cfg_attr(not(target_os = "linux"), allow(unused_mut))]
        let mut fds = Vec::new();
        #[cfg(target_os = "linux")]
        if let Some(ruleset) = confine.as_ref().and_then(Prepared::ruleset) {
            fds.push((ruleset.fd(), RULESET_FD));
        }
        ChildSetup {
            fds,
            // SAFETY: getpid has no preconditions.
            host: unsafe { libc::getpid() },
            death_signal: libc::SIGTERM,
            rlimits: Vec::new(),
            network: limits.no_network.then(netns),
            confine: confine.map(Arc::new),
            cgroup: None,
        }
    }

    /// The seccomp filter to load just before exec, which allows exactly one
    /// exec: of the path at `exec_path` (the pointer the child passes).
    #[cfg(target_os = "linux")]
    pub(super) fn filter(&self, exec_path: *const libc::c_char) -> Option<Vec<libc::sock_filter>> {
        self.confine
            .as_ref()
            .and_then(|c| c.filter(exec_path as u64))
    }

    /// This set-up with the child's stdin, stdout and stderr placed too (for a
    /// spawn that does not place them itself).
    pub(super) fn with_stdio(&self, [stdin, stdout, stderr]: [RawFd; 3]) -> ChildSetup {
        let mut setup = self.clone();
        setup
            .fds
            .splice(0..0, [(stdin, 0), (stdout, 1), (stderr, 2)]);
        setup
    }

    /// Whether the set-up can run in a child that shares the host's memory
    /// until exec: not when it enters a namespace (a user namespace refuses a
    /// process sharing its address space).
    pub(super) fn shares_memory_safely(&self) -> bool {
        self.network.is_none()
    }

    /// Runs in the child between fork (or clone) and exec.
    pub(super) fn apply(&self) -> io::Result<()> {
        // SAFETY: only async-signal-safe calls on memory prepared before fork.
        unsafe {
            if libc::setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            #[cfg(target_os = "linux")]
            if let Some(fd) = self.cgroup {
                super::confine::join_group(fd)?;
            }
            // If the host dies (even by SIGKILL), the candidate dies with it.
            #[cfg(target_os = "linux")]
            {
                libc::prctl(libc::PR_SET_PDEATHSIG, self.death_signal, 0, 0, 0);
                if libc::getppid() != self.host {
                    libc::_exit(1);
                }
            }
            // Before the descriptors are placed: placing them may overwrite the
            // host's number of the Landlock ruleset. The namespace first (it
            // needs the capabilities the confinement drops).
            if let Some(net) = &self.network {
                enter_netns(net)?;
            }
            if let Some(confine) = &self.confine {
                confine.apply()?;
            }
            // Copied high first, so that placing one cannot overwrite another.
            let mut high = [0 as RawFd; 8];
            for (i, &(ours, _)) in self.fds.iter().enumerate().take(high.len()) {
                high[i] = libc::fcntl(ours, libc::F_DUPFD_CLOEXEC, 64);
                if high[i] == -1 {
                    return Err(io::Error::last_os_error());
                }
            }
            for (i, &(_, theirs)) in self.fds.iter().enumerate().take(high.len()) {
                // dup2 clears close-on-exec on the new descriptor.
                if libc::dup2(high[i], theirs) == -1 {
                    return Err(io::Error::last_os_error());
                }
            }
            // Nothing else the host inherited reaches the candidate: closed at
            // exec, so that the spawn can still report a failure until then.
            #[cfg(target_os = "linux")]
            {
                let first = self.fds.iter().map(|&(_, fd)| fd).max().unwrap_or(2) + 1;
                libc::syscall(
                    libc::SYS_close_range,
                    first as libc::c_uint,
                    libc::c_uint::MAX,
                    libc::CLOSE_RANGE_CLOEXEC,
                );
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

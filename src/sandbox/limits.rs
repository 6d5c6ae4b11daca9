//! What is applied to a candidate between fork (or clone) and exec: a new
//! session, the call channel to its judge on descriptor 3, the kernel confinement (see
//! `confine`), resource limits, and the namespaces of `namespaces.rs`.
//! Everything here runs in the child, which may share the host's memory until
//! it execs (see `spawn`), so it only makes async-signal-safe calls on data
//! prepared beforehand.

use std::io;
use std::os::fd::RawFd;
use std::sync::Arc;
use std::time::Duration;

use super::Limits;
use super::confine::Prepared;
use super::namespaces::{Namespaces, own_user_namespace, pid_isolation};

/// Whether a fork server under `limits` is the first process of a pid
/// namespace of its own, which its children (one at a time) share: with the
/// kernel's confinement, where it can be. (A fresh candidate is not: as the
/// first process it would outlive the signals it sends itself, which end
/// a process under plain CPython.)
fn own_pid_namespace(limits: &Limits) -> bool {
    limits.confine && pid_isolation()
}

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
    namespaces: Option<Namespaces>,
    confine: Option<Arc<Prepared>>,
    /// The `cgroup.procs` of the pids group the child joins first.
    cgroup: Option<RawFd>,
}

#[cfg(target_os = "linux")]
pub(super) type RlimitResource = libc::__rlimit_resource_t;
#[cfg(not(target_os = "linux"))]
pub(super) type RlimitResource = libc::c_int;

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
            let own = own_user_namespace(limits);
            let n = super::confine::nproc_limit(max, own) as libc::rlim_t;
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
            namespaces: Namespaces::new(limits.no_network, None, own_user_namespace(limits), false),
            confine: confine.map(Arc::new),
            cgroup: None,
        }
    }

    /// This set-up with the child's directory `dir` a tmpfs of the disk
    /// limit's size in a mount namespace of its own, where confinement is on
    /// and the kernel gives one (see `namespaces.rs`).
    pub(super) fn with_disk(mut self, limits: &Limits, dir: &std::path::Path) -> ChildSetup {
        // A layer of the kernel's confinement: off with it.
        if limits.confinement().disk_tmpfs {
            let pid = self.clone_flags() & libc::CLONE_NEWPID != 0;
            self.namespaces = Namespaces::new(
                limits.no_network,
                limits.disk_bytes.map(|b| (dir, b)),
                own_user_namespace(limits),
                pid,
            );
        }
        self
    }

    /// This set-up with the child in a suite candidate's `container` (see
    /// `container.rs`), which replaces its other namespaces.
    pub(super) fn in_container(mut self, container: super::container::Container) -> ChildSetup {
        self.namespaces = Some(Namespaces::container(container));
        self
    }

    /// Whether the child runs in a container.
    pub(super) fn is_container(&self) -> bool {
        self.namespaces
            .as_ref()
            .is_some_and(Namespaces::is_container)
    }

    /// The namespaces `clone` must make for the child (see
    /// [`Namespaces::clone_flags`]).
    pub(super) fn clone_flags(&self) -> libc::c_int {
        self.namespaces.as_ref().map_or(0, Namespaces::clone_flags)
    }

    /// This set-up with the child joining the pids group whose
    /// `cgroup.procs` is `procs` before anything else.
    pub(super) fn in_group(mut self, procs: Option<RawFd>) -> ChildSetup {
        self.cgroup = procs;
        self
    }

    /// The setup of a fork server: (confined, where its `children_confine`
    /// themselves further: candidate processes) the Landlock ruleset its
    /// children enforce again on 5; no limits of its own (each child it forks
    /// sets them); SIGTERM when the host dies, which it answers by killing its
    /// child. The server is confined like a candidate except that it may fork.
    pub(super) fn server(
        limits: &Limits,
        confine: Option<Prepared>,
        children_confine: bool,
    ) -> ChildSetup {
        #[cfg_attr(not(target_os = "linux"), allow(unused_mut))]
        let mut fds = Vec::new();
        #[cfg(target_os = "linux")]
        if let Some(ruleset) = confine.as_ref().and_then(Prepared::ruleset) {
            if children_confine {
                fds.push((ruleset.fd(), RULESET_FD));
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = children_confine;
        ChildSetup {
            fds,
            // SAFETY: getpid has no preconditions.
            host: unsafe { libc::getpid() },
            death_signal: libc::SIGTERM,
            rlimits: Vec::new(),
            namespaces: Namespaces::new(
                limits.no_network,
                None,
                own_user_namespace(limits),
                own_pid_namespace(limits),
            ),
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
        self.namespaces
            .as_ref()
            .is_none_or(Namespaces::shares_memory_safely)
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
            // (In a pid namespace of its own its parent has no number: 0.)
            #[cfg(target_os = "linux")]
            {
                libc::prctl(libc::PR_SET_PDEATHSIG, self.death_signal, 0, 0, 0);
                let parent = libc::getppid();
                if parent != self.host && !(parent == 0 && self.clone_flags() != 0) {
                    libc::_exit(1);
                }
            }
            // Before the descriptors are placed: placing them may overwrite the
            // host's number of the Landlock ruleset. The namespaces first (they
            // need the capabilities the confinement drops); each mount they
            // make is added to the ruleset.
            if let Some(namespaces) = &self.namespaces {
                namespaces.enter(&|dir, write| match &self.confine {
                    #[cfg(target_os = "linux")]
                    Some(confine) => confine.allow(dir, write),
                    _ => Ok(()),
                })?;
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

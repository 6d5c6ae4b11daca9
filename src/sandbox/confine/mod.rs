//! Confinement the kernel enforces on every candidate, in both start-up modes:
//! one policy, described here, applied by the child before any candidate code.
//!
//! - files (Landlock): write, create, remove, rename, truncate only in the
//!   candidate's own directory; read only the interpreter's installation, its
//!   module path, the system's libraries and a few files under `/etc`, `/sys`
//!   and `/dev` (listed in [`read_only_paths`]); execute only the interpreter
//!   and its loader; nothing under `/proc`, so nothing of the host;
//! - processes (seccomp, see `seccomp.rs`): no new processes, no exec once the
//!   interpreter runs, no tracing, no other process's memory, limits or
//!   priority, no namespaces, mounts, modules, keys, BPF or io_uring;
//!   signals only inside the candidate's own Landlock domain (its own process
//!   group and children);
//! - network: no sockets but `AF_UNIX` streams, no `connect`, no TCP (Landlock
//!   too), no abstract unix sockets of the desktop (Landlock scope), unless
//!   the user opts in;
//! - privileges: `no_new_privs`, and no capabilities under a root host.
//!
//! Each layer is probed once ([`Status::probe`]) and reported as it is; a
//! kernel that lacks one runs with the rest.

#[cfg(target_os = "linux")]
mod calls;
#[cfg(target_os = "linux")]
mod caps;
#[cfg(target_os = "linux")]
mod landlock;
#[cfg(target_os = "linux")]
mod pids;
mod prepared;
#[cfg(target_os = "linux")]
mod seccomp;

use std::path::{Path, PathBuf};

#[cfg(target_os = "linux")]
pub(crate) use pids::{Group, join as join_group, nproc_limit};
#[cfg(target_os = "linux")]
pub(crate) use prepared::install_filter;
pub(crate) use prepared::{Prepared, child_field};

/// How live threads and processes are bounded here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadBound {
    /// A `pids` control group per candidate.
    Cgroup,
    /// `RLIMIT_NPROC`, counted in the candidate's own user namespace.
    Rlimit,
    /// Nothing bounds them (root without a writable `pids` controller, or
    /// not Linux).
    None,
}

impl ThreadBound {
    /// What this machine gives.
    pub fn probe() -> ThreadBound {
        #[cfg(target_os = "linux")]
        return pids::probe();
        #[cfg(not(target_os = "linux"))]
        ThreadBound::None
    }

    /// Words for the confinement line.
    pub fn describe(self, max: u64) -> String {
        match self {
            ThreadBound::Cgroup => format!("at most {max} threads (pids cgroup)"),
            ThreadBound::Rlimit => {
                format!("at most {max} threads (RLIMIT_NPROC in a user namespace of its own)")
            }
            ThreadBound::None => "threads unbounded (no pids cgroup here)".into(),
        }
    }
}

use super::Interpreter;

/// What the kernel of this machine enforces for a candidate, layer by layer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Status {
    /// Confinement was asked for (the default).
    pub enabled: bool,
    /// The Landlock ABI version of the kernel (0: none).
    pub landlock_abi: u32,
    /// Files: Landlock restricts reading, writing and executing.
    pub files: bool,
    /// Processes: the seccomp filter is loaded.
    pub seccomp: bool,
    /// Signals and abstract unix sockets stay inside the candidate's domain
    /// (Landlock ABI 6); without it the filter allows only `kill(0, ..)`.
    pub scopes: bool,
    /// The candidate may use the network (the user opted in).
    pub network: bool,
    /// No capabilities and no new privileges.
    pub privileges: bool,
    /// How live threads and processes are bounded.
    #[serde(default = "no_thread_bound")]
    pub threads: ThreadBound,
    /// The bound itself (`None`: unbounded by choice).
    #[serde(default)]
    pub thread_limit: Option<u64>,
    /// The candidate's directory is a tmpfs of the disk limit's size (else
    /// the host's watchdog measures it, and no descriptor may be sent).
    #[serde(default)]
    pub disk_tmpfs: bool,
    /// Unittest suites run in a container each (see `sandbox/container.rs`).
    #[serde(default)]
    pub suite_container: bool,
    /// There they may start processes: a memory group bounds them together
    /// (cgroup v1, as root).
    #[serde(default)]
    pub suite_processes: bool,
}

fn no_thread_bound() -> ThreadBound {
    ThreadBound::None
}

impl Status {
    /// Probes the running kernel for a run that allows the network or not.
    pub fn probe(enabled: bool, network: bool) -> Status {
        #[cfg(target_os = "linux")]
        {
            let abi = landlock::abi();
            let files = enabled && abi >= 1;
            let seccomp = enabled && seccomp::SUPPORTED && seccomp_available();
            let suite_container = files && seccomp && super::container_isolation();
            Status {
                enabled,
                landlock_abi: abi,
                files,
                seccomp,
                scopes: enabled && abi >= 6,
                network,
                privileges: enabled,
                threads: ThreadBound::probe(),
                thread_limit: None,
                disk_tmpfs: enabled && super::namespaces::disk_isolation(),
                suite_container,
                suite_processes: suite_container && pids::memory_groups(),
            }
        }
        #[cfg(not(target_os = "linux"))]
        Status {
            enabled,
            landlock_abi: 0,
            files: false,
            seccomp: false,
            scopes: false,
            network,
            privileges: false,
            threads: ThreadBound::None,
            thread_limit: None,
            disk_tmpfs: false,
            suite_container: false,
            suite_processes: false,
        }
    }

    /// The layers missing from full confinement: those this kernel does not
    /// give, or all of it when confinement is off. Empty: every layer is in
    /// force.
    pub fn missing(&self) -> Vec<&'static str> {
        if !self.enabled {
            return vec!["all of it (confinement is off)"];
        }
        let mut out = Vec::new();
        if !self.files {
            out.push("files (Landlock)");
        }
        if !self.seccomp {
            out.push("processes (seccomp)");
        }
        if !self.scopes {
            out.push("signal and abstract-socket scopes (Landlock ABI 6)");
        }
        if !self.privileges {
            out.push("privileges");
        }
        out
    }

    /// One line for the CLI and the status bar.
    pub fn describe(&self) -> String {
        if !self.enabled {
            return "confinement: off (only the Python-level guard and the denylist)".into();
        }
        let mut layers = Vec::new();
        if self.files {
            layers.push(format!("files (Landlock ABI {})", self.landlock_abi));
        }
        if self.seccomp {
            layers.push("processes (seccomp)".into());
        }
        if self.scopes {
            layers.push("signals scoped".into());
        }
        layers.push(if self.network {
            "network allowed".into()
        } else {
            "network off".into()
        });
        if self.privileges {
            layers.push("no privileges".into());
        }
        if self.disk_tmpfs {
            layers.push("disk bounded (tmpfs)".into());
        }
        if self.suite_processes {
            layers.push("unittest suites in a container each".into());
        } else if self.suite_container {
            layers.push(
                "unittest suites in a container each, without processes of their own (no memory group here)"
                    .into(),
            );
        }
        layers.push(match self.thread_limit {
            Some(max) => self.threads.describe(max),
            None => "threads unbounded (by choice)".into(),
        });
        let mut line = format!("confinement: {}", layers.join(", "));
        let missing = self.missing();
        if !missing.is_empty() {
            line.push_str(&format!("; missing here: {}", missing.join(", ")));
        }
        line
    }
}

/// Whether the kernel has seccomp filters (`PR_GET_SECCOMP` answers); asked
/// once, as every candidate's status is probed.
#[cfg(target_os = "linux")]
fn seccomp_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // SAFETY: prctl with integer arguments only reads our own mode.
    *AVAILABLE.get_or_init(|| unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 })
}

/// Files outside the interpreter's installation that Python reads: the
/// system's shared libraries and locales, the dynamic linker's cache, the
/// time zone, the CPU count (`os.cpu_count`), and the random and null devices.
/// Nothing else under `/etc` (no `passwd`: the user's real home is not named).
pub const READ_ONLY_PATHS: [&str; 12] = [
    "/lib",
    "/lib64",
    "/usr/lib",
    "/usr/lib64",
    "/usr/share/zoneinfo",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/sys/devices/system/cpu",
    "/dev/urandom",
    "/dev/random",
    "/dev/zero",
    "/dev/full",
];

/// What name resolution and TLS read, granted only when the network is
/// allowed: the resolver's configuration, the hosts and services files, and
/// the certificate authorities.
pub const NETWORK_READ_ONLY_PATHS: [&str; 10] = [
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/gai.conf",
    "/etc/host.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/usr/share/ca-certificates",
];

/// What a suite candidate's container may read and execute besides what
/// every candidate may read: the system's programs and libraries (its view
/// of them is read-only, see `sandbox/container.rs`).
pub const CONTAINER_PROGRAM_PATHS: [&str; 7] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];

/// The files under `/etc` a container may read besides: users and groups
/// (no passwords), names, MIME types, the time zone and the alternatives the
/// programs are links through. Nothing else of `/etc`.
pub const CONTAINER_ETC_PATHS: [&str; 14] = [
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/gai.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/mime.types",
    "/etc/mailcap",
    "/etc/timezone",
    "/etc/alternatives",
    "/etc/magic",
    "/etc/os-release",
];

/// Every path a candidate of `python` may read, beyond its own directory.
pub(crate) fn read_only_paths(python: &Interpreter, network: bool) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = READ_ONLY_PATHS.iter().map(PathBuf::from).collect();
    if network {
        paths.extend(NETWORK_READ_ONLY_PATHS.iter().map(PathBuf::from));
    }
    // The installation: the executable's `..`, as named (a virtual
    // environment) and resolved (its base), which hold the standard library,
    // `libpython` and `pyvenv.cfg`.
    let exe = &python.executable;
    let resolved = std::fs::canonicalize(exe).unwrap_or_else(|_| exe.clone());
    for e in [exe, &resolved] {
        if let Some(prefix) = e.parent().and_then(Path::parent) {
            paths.push(prefix.to_path_buf());
        }
    }
    paths.extend(python.sys_path.iter().map(PathBuf::from));
    paths
}

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

mod caps;
mod landlock;
mod seccomp;

use std::io;
use std::path::{Path, PathBuf};

pub(crate) use landlock::Ruleset;
pub(crate) use seccomp::Rules;

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
}

impl Status {
    /// Probes the running kernel for a run that allows the network or not.
    pub fn probe(enabled: bool, network: bool) -> Status {
        let linux = cfg!(target_os = "linux");
        let coverage = landlock::Coverage::of_kernel(network);
        Status {
            enabled,
            landlock_abi: coverage.abi,
            files: enabled && coverage.abi >= 1,
            seccomp: enabled && seccomp::SUPPORTED && seccomp_available(),
            scopes: enabled && coverage.scopes,
            network,
            privileges: enabled && linux,
        }
    }

    /// The layers asked for that this kernel does not give.
    pub fn missing(&self) -> Vec<&'static str> {
        if !self.enabled {
            return Vec::new();
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
        let mut line = format!("confinement: {}", layers.join(", "));
        let missing = self.missing();
        if !missing.is_empty() {
            line.push_str(&format!("; missing here: {}", missing.join(", ")));
        }
        line
    }
}

/// Whether the kernel has seccomp filters (`PR_GET_SECCOMP` answers).
fn seccomp_available() -> bool {
    // SAFETY: prctl with integer arguments only reads our own mode.
    cfg!(target_os = "linux") && unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } >= 0
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

/// Every path a candidate of `python` running in `dir` may touch, with its
/// Landlock rights.
pub(crate) fn read_only_paths(python: &Interpreter) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = READ_ONLY_PATHS.iter().map(PathBuf::from).collect();
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

/// The rules of a candidate of `python` whose own directory is `dir`.
fn rules(python: &Interpreter, dir: &Path) -> Vec<(PathBuf, u64)> {
    use landlock::fs;
    let mut rules: Vec<(PathBuf, u64)> = read_only_paths(python)
        .into_iter()
        .map(|p| (p, fs::READ))
        .collect();
    rules.push(("/dev/null".into(), fs::READ_FILE | fs::WRITE_FILE));
    let exe = std::fs::canonicalize(&python.executable).unwrap_or(python.executable.clone());
    if let Some(loader) = elf_interpreter(&exe) {
        rules.push((loader, fs::EXECUTE | fs::READ_FILE));
    }
    rules.push((exe, fs::EXECUTE | fs::READ_FILE));
    rules.push((dir.to_path_buf(), fs::OWN_DIR));
    rules
}

/// The program interpreter (`PT_INTERP`, the dynamic loader) named by the ELF
/// executable at `path`, which the kernel opens for execution too.
fn elf_interpreter(path: &Path) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let data = std::fs::read(path).ok()?;
    let u16_at = |o: usize| Some(u16::from_le_bytes(data.get(o..o + 2)?.try_into().ok()?));
    let u32_at = |o: usize| Some(u32::from_le_bytes(data.get(o..o + 4)?.try_into().ok()?));
    let u64_at = |o: usize| Some(u64::from_le_bytes(data.get(o..o + 8)?.try_into().ok()?));
    // 64-bit little-endian ELF only (the architectures the filter knows).
    if data.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let phoff = usize::try_from(u64_at(0x20)?).ok()?;
    let phentsize = usize::from(u16_at(0x36)?);
    let phnum = usize::from(u16_at(0x38)?);
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        if u32_at(ph)? == 3 {
            let offset = usize::try_from(u64_at(ph + 8)?).ok()?;
            let size = usize::try_from(u64_at(ph + 32)?).ok()?;
            let name = data.get(offset..offset + size)?;
            let name = name.strip_suffix(b"\0").unwrap_or(name);
            return Some(PathBuf::from(std::ffi::OsStr::from_bytes(name)));
        }
    }
    None
}

/// Everything a child needs to confine itself, prepared in the host.
#[derive(Debug)]
pub(crate) struct Prepared {
    ruleset: Option<Ruleset>,
    /// The filter's rules (its exec pointer is filled in at spawn).
    pub rules: Rules,
    seccomp: bool,
    last_cap: libc::c_ulong,
}

impl Prepared {
    /// The confinement of a candidate of `python` whose directory is `dir`,
    /// as far as `status` says the kernel gives it.
    pub(crate) fn new(
        status: &Status,
        python: &Interpreter,
        dir: &Path,
        fork: bool,
    ) -> io::Result<Prepared> {
        let ruleset = if status.files {
            Some(Ruleset::build(
                &rules(python, dir)
                    .iter()
                    .map(|(p, r)| (p.as_path(), *r))
                    .collect::<Vec<_>>(),
                status.network,
            )?)
        } else {
            None
        };
        Ok(Prepared {
            ruleset,
            rules: Rules {
                fork,
                exec_path: None,
                network: status.network,
                filter_signals: !status.scopes,
            },
            seccomp: status.seccomp,
            last_cap: caps::last_cap(),
        })
    }

    /// The seccomp filter, allowing one exec of the path at `exec_path`.
    pub(crate) fn filter(&self, exec_path: Option<u64>) -> Option<Vec<libc::sock_filter>> {
        self.seccomp.then(|| {
            seccomp::program(&Rules {
                exec_path,
                ..self.rules
            })
        })
    }

    /// The Landlock ruleset, if files are confined.
    pub(crate) fn ruleset(&self) -> Option<&Ruleset> {
        self.ruleset.as_ref()
    }

    /// Drops privileges and enforces the Landlock ruleset on the calling
    /// thread (the filter comes last, just before exec: [`install_filter`]).
    ///
    /// # Safety
    /// Async-signal-safe system calls on data prepared before the fork.
    pub(crate) unsafe fn apply(&self) -> io::Result<()> {
        // SAFETY: as documented on each; all on the calling thread.
        unsafe {
            caps::drop_all(self.last_cap)?;
            caps::no_new_privs()?;
            if let Some(ruleset) = &self.ruleset {
                landlock::restrict_self(ruleset.fd())?;
            }
        }
        Ok(())
    }
}

/// Loads a filter made by [`Prepared::filter`].
///
/// # Safety
/// Async-signal-safe: one system call; no_new_privs must be set.
pub(crate) unsafe fn install_filter(filter: &[libc::sock_filter]) -> io::Result<()> {
    // SAFETY: forwarded to the caller.
    unsafe { seccomp::install(filter) }
}

/// The filter a fork server's child loads before any candidate code: no new
/// processes and no exec (the server itself may fork), as bytes.
pub(crate) fn child_filter_bytes(status: &Status) -> Vec<u8> {
    if !status.seccomp {
        return Vec::new();
    }
    seccomp::to_bytes(&seccomp::program(&Rules {
        fork: false,
        exec_path: None,
        network: status.network,
        filter_signals: !status.scopes,
    }))
}

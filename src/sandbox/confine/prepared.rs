//! What a child applies to confine itself, prepared in the host: the Landlock
//! ruleset of its policy (paths opened here), the seccomp filter, the
//! capabilities to drop; and what a fork server's children apply themselves.
//! Systems other than Linux have none of these layers, so nothing can be
//! prepared there ([`Prepared`] has no value).

#[cfg(target_os = "linux")]
pub(crate) use linux::*;
#[cfg(not(target_os = "linux"))]
pub(crate) use other::*;

#[cfg(target_os = "linux")]
mod linux {
    use std::io;
    use std::path::{Path, PathBuf};

    use super::super::caps;
    use super::super::landlock::{self, Rule, Ruleset};
    use super::super::seccomp::{self, Rules};
    use super::super::{Status, read_only_paths};
    use crate::sandbox::{Interpreter, Limits};

    /// The rules every candidate of `python` shares (all but its own
    /// directory), a container's with the paths it adds, opened once per
    /// interpreter and kept.
    fn shared_rules(
        python: &Interpreter,
        network: bool,
        container: bool,
    ) -> std::sync::Arc<Vec<Rule>> {
        use std::sync::{Arc, Mutex};
        type Cache = Mutex<Vec<((PathBuf, bool, bool), Arc<Vec<Rule>>)>>;
        static CACHE: Cache = Mutex::new(Vec::new());
        let key = (python.executable.clone(), network, container);
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, rules)) = cache.iter().find(|(k, _)| *k == key) {
            return Arc::clone(rules);
        }
        use landlock::fs;
        let mut wanted: Vec<(PathBuf, u64)> = read_only_paths(python, network)
            .into_iter()
            .map(|p| (p, fs::READ))
            .collect();
        if container {
            let programs = super::super::CONTAINER_PROGRAM_PATHS
                .iter()
                .map(PathBuf::from);
            // The directory that puts its `python` on PATH.
            let own = crate::sandbox::container::python_dir(&python.executable);
            wanted.extend(programs.chain(own).map(|p| (p, fs::READ | fs::EXECUTE)));
            let etc = super::super::CONTAINER_ETC_PATHS.iter().map(PathBuf::from);
            wanted.extend(etc.map(|p| (p, fs::READ)));
        }
        wanted.push(("/dev/null".into(), fs::READ_FILE | fs::WRITE_FILE));
        let exe = std::fs::canonicalize(&python.executable).unwrap_or(python.executable.clone());
        if let Some(loader) = elf_interpreter(&exe) {
            wanted.push((loader, fs::EXECUTE | fs::READ_FILE));
        }
        wanted.push((exe, fs::EXECUTE | fs::READ_FILE));
        let rules: Arc<Vec<Rule>> = Arc::new(
            wanted
                .iter()
                .filter_map(|(path, rights)| Rule::open(path, *rights))
                .collect(),
        );
        cache.push((key, Arc::clone(&rules)));
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
        rules: Rules,
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
            Prepared::with(status, python, dir, fork, false)
        }

        /// The confinement of a suite candidate in its container (see
        /// `sandbox/container.rs`), with new processes where `processes`
        /// (its memory is bounded as a whole): its network is a namespace
        /// of its own (or the user allowed the network), so TCP is not
        /// handled here.
        pub(crate) fn container(
            status: &Status,
            python: &Interpreter,
            dir: &Path,
            processes: bool,
        ) -> io::Result<Prepared> {
            Prepared::with(status, python, dir, processes, true)
        }

        /// With `fork` and in a container: the container's processes.
        fn with(
            status: &Status,
            python: &Interpreter,
            dir: &Path,
            fork: bool,
            container: bool,
        ) -> io::Result<Prepared> {
            let network = status.network || container;
            let ruleset = if status.files {
                let ruleset = Ruleset::new(network)?;
                for rule in shared_rules(python, status.network, container).iter() {
                    ruleset.add(rule)?;
                }
                let own = Rule::open(dir, landlock::fs::OWN_DIR)
                    .ok_or_else(|| io::Error::other(format!("cannot open {}", dir.display())))?;
                ruleset.add(&own)?;
                Some(ruleset)
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
                    fd_passing: status.disk_tmpfs || container,
                    container,
                    processes: container && fork,
                },
                seccomp: status.seccomp,
                last_cap: caps::last_cap(),
            })
        }

        /// The seccomp filter, allowing one exec of the path at `exec_path`.
        pub(crate) fn filter(&self, exec_path: u64) -> Option<Vec<libc::sock_filter>> {
            self.seccomp.then(|| {
                seccomp::program(&Rules {
                    exec_path: Some(exec_path),
                    ..self.rules
                })
            })
        }

        /// The Landlock ruleset, if files are confined.
        pub(crate) fn ruleset(&self) -> Option<&Ruleset> {
            self.ruleset.as_ref()
        }

        /// Lets the ruleset reach the mount now at `dir` (a tmpfs the child
        /// has just mounted over its own directory, or one of its
        /// container's): as its own directory when `write` (and there it may
        /// execute in a container), else to read.
        ///
        /// # Safety
        /// Async-signal-safe (see [`landlock::allow_beneath`]).
        pub(crate) unsafe fn allow(&self, dir: &std::ffi::CStr, write: bool) -> io::Result<()> {
            use landlock::fs;
            let rights = match (write, self.rules.container) {
                (true, true) => fs::OWN_DIR | fs::EXECUTE,
                (true, false) => fs::OWN_DIR,
                (false, _) => fs::READ,
            };
            match &self.ruleset {
                // SAFETY: forwarded to the caller.
                Some(ruleset) => unsafe { landlock::allow_beneath(ruleset.fd(), dir, rights) },
                None => Ok(()),
            }
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

    /// What a fork server's children enforce on themselves before any candidate
    /// code (see the harness's `_load_child_confinement`): the numbers of
    /// `landlock_restrict_self` and `seccomp`, the descriptor of the ruleset
    /// (`ruleset_fd`, or -1), then the bytes of a filter without fork and exec.
    /// Empty when the server is not confined.
    pub(crate) fn child_field(
        limits: &Limits,
        server: Option<&Prepared>,
        ruleset_fd: i32,
    ) -> Vec<u8> {
        let Some(server) = server else {
            return Vec::new();
        };
        let status = limits.confinement();
        let fd = if server.ruleset().is_some() {
            ruleset_fd
        } else {
            -1
        };
        let mut out = format!(
            "{} {} {fd}\n",
            libc::SYS_landlock_restrict_self,
            libc::SYS_seccomp
        )
        .into_bytes();
        if status.seccomp {
            out.extend(seccomp::to_bytes(&seccomp::child_program()));
        }
        out
    }
}

#[cfg(not(target_os = "linux"))]
mod other {
    use std::io;
    use std::path::Path;

    use super::super::Status;
    use crate::sandbox::{Interpreter, Limits};

    /// No confinement can be prepared here.
    #[derive(Debug)]
    pub(crate) enum Prepared {}

    impl Prepared {
        pub(crate) fn new(_: &Status, _: &Interpreter, _: &Path, _: bool) -> io::Result<Prepared> {
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "no kernel confinement on this system",
            ))
        }
        pub(crate) unsafe fn apply(&self) -> io::Result<()> {
            match *self {}
        }
    }

    /// Empty: there is no server confinement to pass on.
    pub(crate) fn child_field(_: &Limits, _: Option<&Prepared>, _: i32) -> Vec<u8> {
        Vec::new()
    }
}

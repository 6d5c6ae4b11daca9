//! The settings a user chooses for a run, in the units people think in (seconds,
//! KiB, MiB, "0 for none"), and their one conversion to the engine's
//! [`RunSettings`]. The app edits them in its Settings window; the CLI fills
//! them from its flags.

use std::time::Duration;

use crate::engine::{MAX_WORKERS, RunSettings, default_workers};
use crate::sandbox::{
    DEFAULT_DENYLIST, DEFAULT_DISK_LIMIT, DEFAULT_FILE_SIZE_LIMIT, DEFAULT_MEMORY_LIMIT,
    DEFAULT_OPEN_FILES, DEFAULT_OUTPUT_CAP, DEFAULT_THREADS, DEFAULT_TIMEOUT, Limits, MAX_TIMEOUT,
};

/// Settings a user edits in the Settings panel.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Default wall-clock timeout per candidate, seconds.
    pub timeout_s: f64,
    /// Output cap per stream, bytes.
    pub output_cap_bytes: u64,
    /// Worker threads.
    pub workers: usize,
    /// Interpreter command or path.
    pub python: String,
    /// Denied modules, one per line.
    pub denylist: String,
    /// Address-space limit, MiB (0: none).
    pub memory_mib: u64,
    /// Largest file a candidate may write, MiB (0: none).
    pub file_size_mib: u64,
    /// Most open files (0: inherited).
    pub open_files: u64,
    /// CPU-seconds backstop and no core dumps.
    pub cpu_backstop: bool,
    /// The process guard (fork, exec, kill, setsid refused).
    pub process_guard: bool,
    /// Run candidates without network (a fresh network namespace).
    pub no_network: bool,
    /// Kernel confinement (Landlock, seccomp, no privileges).
    pub confine: bool,
    /// Let candidates use the network under confinement.
    pub network: bool,
    /// Most a candidate may keep in its directory, MiB (0: none).
    pub disk_mib: u64,
    /// Most live threads and processes of a candidate (0: none).
    pub threads: u64,
    /// Refuse to run unless every confinement layer is in force.
    pub require_confinement: bool,
    /// Fast start: a warm interpreter per worker forks each candidate.
    pub fast_start: bool,
    /// Strict integrity: a flagged pass counts as error.
    pub strict_integrity: bool,
    /// Rechecks after the run (0: none).
    pub recheck: u32,
    /// Recheck every candidate, not only those that timed out.
    pub recheck_all: bool,
    /// Wall clock of a task whose tests are a unittest suite (BigCodeBench), seconds.
    pub suite_timeout_s: f64,
    /// Keep the denylist and the process guard for unittest suites under confinement.
    pub suite_denylist: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            timeout_s: DEFAULT_TIMEOUT.as_secs_f64(),
            output_cap_bytes: DEFAULT_OUTPUT_CAP,
            workers: default_workers(),
            python: "python3".into(),
            denylist: DEFAULT_DENYLIST.join("\n"),
            memory_mib: DEFAULT_MEMORY_LIMIT >> 20,
            file_size_mib: DEFAULT_FILE_SIZE_LIMIT >> 20,
            open_files: DEFAULT_OPEN_FILES,
            cpu_backstop: true,
            process_guard: true,
            no_network: false,
            confine: true,
            network: false,
            disk_mib: DEFAULT_DISK_LIMIT >> 20,
            threads: DEFAULT_THREADS,
            require_confinement: false,
            fast_start: false,
            strict_integrity: false,
            recheck: 0,
            recheck_all: false,
            suite_timeout_s: crate::spec::suite::DEFAULT_TIMEOUT_S,
            suite_denylist: false,
        }
    }
}

impl Settings {
    /// The denylist: modules separated by lines, commas or spaces.
    pub fn denied(&self) -> Vec<String> {
        self.denylist
            .split([',', '\n', ' '])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// The confinement these settings ask for, as this kernel gives it.
    pub fn confinement(&self) -> crate::sandbox::confine::Status {
        self.run_settings().limits.confinement()
    }

    /// The engine settings these stand for.
    pub fn run_settings(&self) -> RunSettings {
        RunSettings {
            limits: Limits {
                timeout: timeout(self.timeout_s),
                output_cap: self.output_cap_bytes.max(1),
                denylist: self.denied(),
                memory_bytes: mib(self.memory_mib),
                file_size_bytes: mib(self.file_size_mib),
                open_files: (self.open_files > 0).then_some(self.open_files),
                cpu_backstop: self.cpu_backstop,
                process_guard: self.process_guard,
                no_network: self.no_network,
                confine: self.confine,
                network: self.network,
                disk_bytes: mib(self.disk_mib),
                threads: (self.threads > 0).then_some(self.threads),
            },
            workers: self.workers.clamp(1, MAX_WORKERS),
            fast_start: self.fast_start,
            require_confinement: self.require_confinement,
            strict_integrity: self.strict_integrity,
            recheck: self.recheck,
            recheck_all: self.recheck_all,
            timeouts: Default::default(),
            timeouts_from: None,
            suite_timeout_s: self.suite_timeout_s,
            suite_denylist: self.suite_denylist,
        }
    }
}

/// A timeout in seconds as the engine takes it: at most [`MAX_TIMEOUT`]; a
/// value that is not a positive number gives the default.
pub fn timeout(secs: f64) -> Duration {
    if secs > 0.0 && secs.is_finite() {
        Duration::from_secs_f64(secs).min(MAX_TIMEOUT)
    } else {
        DEFAULT_TIMEOUT
    }
}

/// A size given in MiB where 0 means no limit, in bytes.
fn mib(mib: u64) -> Option<u64> {
    (mib > 0).then_some(mib.saturating_mul(1 << 20))
}

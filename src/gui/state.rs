//! What the app remembers between sessions (plain data, persisted through eframe
//! storage): settings, recent files and the theme.

use std::path::PathBuf;
use std::time::Duration;

use crate::engine::{RunSettings, default_workers};
use crate::sandbox::{
    DEFAULT_DENYLIST, DEFAULT_DISK_LIMIT, DEFAULT_FILE_SIZE_LIMIT, DEFAULT_MEMORY_LIMIT,
    DEFAULT_OPEN_FILES, DEFAULT_OUTPUT_CAP, Limits,
};

/// The storage key.
pub const STORAGE_KEY: &str = "execscope-state";
/// How many recent files are kept.
const RECENT_MAX: usize = 8;

/// Settings a user edits in the Settings panel.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Default wall-clock timeout per candidate, seconds.
    pub timeout_s: f64,
    /// Output cap per stream, KiB.
    pub output_cap_kib: u64,
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
    /// Refuse to run unless every confinement layer is in force.
    pub require_confinement: bool,
    /// Fast start: a warm interpreter per worker forks each candidate.
    pub fast_start: bool,
    /// Strict integrity: a flagged pass counts as error.
    #[serde(default)]
    pub strict_integrity: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            timeout_s: 3.0,
            output_cap_kib: DEFAULT_OUTPUT_CAP / 1024,
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
            require_confinement: false,
            fast_start: false,
            strict_integrity: false,
        }
    }
}

impl Settings {
    /// The confinement these settings ask for, as this kernel gives it.
    pub fn confinement(&self) -> crate::sandbox::confine::Status {
        crate::sandbox::confine::Status::probe(self.confine, self.network)
    }

    /// The engine settings these stand for.
    pub fn run_settings(&self) -> RunSettings {
        RunSettings {
            limits: Limits {
                timeout: Duration::from_secs_f64(self.timeout_s.clamp(0.1, 30.0)),
                output_cap: self.output_cap_kib.max(1) * 1024,
                denylist: self
                    .denylist
                    .split([',', '\n', ' '])
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
                memory_bytes: (self.memory_mib > 0)
                    .then_some(self.memory_mib.saturating_mul(1 << 20)),
                file_size_bytes: (self.file_size_mib > 0)
                    .then_some(self.file_size_mib.saturating_mul(1 << 20)),
                open_files: (self.open_files > 0).then_some(self.open_files),
                cpu_backstop: self.cpu_backstop,
                process_guard: self.process_guard,
                no_network: self.no_network,
                confine: self.confine,
                network: self.network,
                disk_bytes: (self.disk_mib > 0).then_some(self.disk_mib.saturating_mul(1 << 20)),
            },
            workers: self.workers.clamp(1, 512),
            fast_start: self.fast_start,
            require_confinement: self.require_confinement,
            strict_integrity: self.strict_integrity,
        }
    }
}

/// Kinds of recent file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RecentKind {
    /// A task file.
    Tasks,
    /// A generations file.
    Generations,
    /// A run file.
    Run,
}

/// Light or dark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum ThemeChoice {
    /// Dark (the default: easiest on a projector in a dim room).
    #[default]
    Dark,
    /// Light.
    Light,
}

/// Everything persisted.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct AppState {
    /// Run settings.
    pub settings: Settings,
    /// Recently opened files, newest first.
    pub recent: Vec<(RecentKind, PathBuf)>,
    /// The theme.
    pub theme: ThemeChoice,
}

impl AppState {
    /// Puts `path` at the front of the recent files.
    pub fn remember(&mut self, kind: RecentKind, path: PathBuf) {
        self.recent.retain(|(k, p)| !(*k == kind && *p == path));
        self.recent.insert(0, (kind, path));
        self.recent.truncate(RECENT_MAX);
    }
}

//! The settings of one run, as the engine takes them.

use crate::sandbox::Limits;

/// Settings of one run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunSettings {
    /// Limits for every candidate.
    pub limits: Limits,
    /// Candidates running at full priority. A candidate gives its place to the
    /// next one once it has used half its timeout on a CPU (it is lowered in
    /// priority then) or when it mostly sleeps (at most eight times as many
    /// candidates run in all).
    pub workers: usize,
    /// Fast start: each worker keeps one warm interpreter that forks a fresh
    /// child per candidate (same limits, group, denylist and envelope).
    #[serde(default)]
    pub fast_start: bool,
    /// Refuse to start unless every confinement layer is in force.
    #[serde(default)]
    pub require_confinement: bool,
    /// Strict integrity: a flagged pass counts as `error` (see
    /// [`crate::sandbox::flags::apply_strict`]).
    #[serde(default)]
    pub strict_integrity: bool,
    /// Rechecks after the run: candidates that timed out (every candidate
    /// with `recheck_all`) run this many more times (see [`crate::recheck`]).
    #[serde(default)]
    pub recheck: u32,
    /// Recheck every candidate, not only those that timed out.
    #[serde(default)]
    pub recheck_all: bool,
    /// Per-task timeouts in seconds by task id (a calibration), which
    /// override the default and the tasks' own.
    #[serde(default)]
    pub timeouts: std::collections::BTreeMap<String, f64>,
    /// Where `timeouts` came from (a calibration file).
    #[serde(default)]
    pub timeouts_from: Option<String>,
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            limits: Limits::default(),
            workers: default_workers(),
            fast_start: false,
            require_confinement: false,
            strict_integrity: false,
            recheck: 0,
            recheck_all: false,
            timeouts: Default::default(),
            timeouts_from: None,
        }
    }
}

/// The most workers a run may have.
pub const MAX_WORKERS: usize = 512;

/// One worker per available core.
pub fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
}

impl RunSettings {
    /// The timeout of task `id`, whose file asks for `own` seconds (if it
    /// does): its calibrated timeout, else its own, else the setting; never
    /// more than [`crate::sandbox::MAX_TIMEOUT`].
    pub fn timeout_for(&self, id: Option<&str>, own: Option<f64>) -> std::time::Duration {
        id.and_then(|id| self.timeouts.get(id).copied())
            .or(own)
            .map(std::time::Duration::from_secs_f64)
            .unwrap_or(self.limits.timeout)
            .min(crate::sandbox::MAX_TIMEOUT)
    }
}

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
    /// Wall clock of a task whose tests are a unittest suite (BigCodeBench),
    /// seconds: its whole suite, as BigCodeBench times it; not capped at
    /// [`crate::sandbox::MAX_TIMEOUT`].
    #[serde(default = "default_suite_timeout")]
    pub suite_timeout_s: f64,
    /// Keep the import denylist and the process guard for unittest suites
    /// under kernel confinement too (by default they are off there: the
    /// suites use `os`, `shutil`, `subprocess` and sockets as they should).
    #[serde(default)]
    pub suite_denylist: bool,
}

fn default_suite_timeout() -> f64 {
    crate::spec::suite::DEFAULT_TIMEOUT_S
}

/// The most a suite's timeout may be, seconds.
pub const MAX_SUITE_TIMEOUT_S: f64 = 3600.0;

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
            suite_timeout_s: default_suite_timeout(),
            suite_denylist: false,
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

    /// Settles the limits for `plan`: where its tests are unittest suites
    /// (BigCodeBench) and the kernel's confinement is in force, the import
    /// denylist and the process guard are off, unless `suite_denylist`; what
    /// the confinement refuses (exec, new processes, the network) fails as
    /// that call's own error. Returns the line saying so, if it applies.
    pub fn settle_for(&mut self, plan: &crate::plan::Plan) -> Option<String> {
        let suites = plan
            .tasks
            .iter()
            .any(|t| matches!(t.tests, crate::plan::Tests::Suite(_)));
        if self.suite_denylist || !suites {
            return None;
        }
        let status = self.limits.confinement();
        if !(status.enabled && status.files && status.seccomp) {
            return None;
        }
        self.limits.denylist.clear();
        self.limits.process_guard = false;
        Some(
            "unittest suites (BigCodeBench): no import denylist and no process guard under the \
             kernel's confinement (--suite-denylist keeps them)"
                .to_owned(),
        )
    }

    /// The timeout of task `id`, whose tests are a unittest suite: its
    /// calibrated timeout, else the suite setting.
    pub fn suite_timeout_for(&self, id: &str) -> std::time::Duration {
        let secs = self
            .timeouts
            .get(id)
            .copied()
            .unwrap_or(self.suite_timeout_s);
        let secs = if secs.is_finite() && secs > 0.0 {
            secs
        } else {
            default_suite_timeout()
        };
        std::time::Duration::from_secs_f64(secs.min(MAX_SUITE_TIMEOUT_S))
    }
}

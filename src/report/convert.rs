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
        let finished: Vec<usize> = (0..store.candidates.len())
            .filter(|&i| store.candidates[i].result.is_some())
            .collect();
        self.candidates = finished
            .iter()
            .filter_map(|&i| CandidateRow::from_store(store, i))
            .collect();
        self.texts = store.texts.as_ref().map(|texts| {
            if finished.len() == store.candidates.len() {
                std::sync::Arc::clone(texts)
            } else {
                std::sync::Arc::new(crate::store::Texts::gather(
                    finished.iter().map(|&i| (Some(&**texts), i)),
                ))
            }
        });
        self.figures_of(store, ks)
    }

    /// This run file with its tasks and data-set figures taken from `store`,
    /// whose candidates are this file's.
    pub fn figures_of(mut self, store: &Store, ks: &[usize]) -> RunFile {
        let summary = store.summary(ks);
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
            // Another harness's result file says nothing of where it decided.
            verdicts_decided: self.source.is_none().then(|| {
                crate::integrity::Deciders::of_results(
                    store.candidates.iter().filter_map(|c| c.result.as_ref()),
                )
            }),
            ..self.summary
        };
        self
    }

    /// Rebuilds the store so a saved run can be inspected without re-running.
    pub fn to_store(&self) -> Store {
        store_of(
            &self.tasks,
            self.candidates.iter().cloned(),
            self.texts.clone(),
        )
    }

    /// The store of this run, its candidates moved out of it into the store
    /// (so a big run is never held twice); the rest of the run file stays.
    pub fn take_store(&mut self) -> Store {
        let candidates = std::mem::take(&mut self.candidates);
        store_of(&self.tasks, candidates.into_iter(), self.texts.clone())
    }

    /// The store of this run, its candidates moved in.
    pub fn into_store(self) -> Store {
        store_of(&self.tasks, self.candidates.into_iter(), self.texts)
    }
}

/// The store of `rows` (moved in), whose tasks are `tasks` (a row of a task
/// not among them adds it).
pub(super) fn store_of(
    tasks: &[TaskRow],
    rows: impl Iterator<Item = CandidateRow>,
    texts: Option<std::sync::Arc<crate::store::Texts>>,
) -> Store {
    let mut tasks: Vec<TaskEntry> = tasks
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
    let candidates = rows
        .map(|row| {
            let task = match index.get(&row.task_id) {
                Some(&task) => task,
                None => {
                    tasks.push(TaskEntry {
                        id: row.task_id.clone(),
                        prompt: String::new(),
                        assertions: Vec::new(),
                    });
                    index.insert(row.task_id.clone(), tasks.len() - 1);
                    tasks.len() - 1
                }
            };
            Candidate {
                task,
                sample: row.sample,
                generation: row.generation,
                code: row.code,
                setup: row.setup,
                result: Some(CandidateResult {
                    outcome: row.outcome,
                    score: row.score,
                    passed: row.passed,
                    total: row.total,
                    per_assertion: row.per_assertion,
                    detail: row.detail,
                    duration_ms: row.duration_ms,
                    stdout: row.stdout,
                    stderr: row.stderr,
                    timing: row.timing,
                    flags: row.flags,
                    fault: row.fault,
                    rechecks: row.rechecks,
                    failure: row.failure,
                    edited: row.edited,
                    base: row.base,
                    integrity: row.integrity,
                    overflow: row.overflow.clone(),
                    recorded: None,
                }),
            }
        })
        .collect();
    Store {
        tasks,
        candidates,
        texts,
    }
}

/// The rows of `store`'s finished candidates, moved out of it.
pub(super) fn rows_of(store: Store) -> Vec<CandidateRow> {
    let Store {
        tasks, candidates, ..
    } = store;
    candidates
        .into_iter()
        .filter_map(|c| {
            let task_id = tasks.get(c.task).map(|t| t.id.clone()).unwrap_or_default();
            candidate_row(task_id, c)
        })
        .collect()
}

impl CandidateRow {
    /// The row of candidate `index` of `store`, if it has finished (without
    /// its texts where the store left them in a run file: the run file made
    /// of it carries the store's `texts` and writes them out).
    pub fn from_store(store: &Store, index: usize) -> Option<CandidateRow> {
        let c = store.candidates.get(index)?;
        c.result.as_ref()?;
        candidate_row(store.task_id(c).to_owned(), c.clone())
    }
}

fn candidate_row(task_id: String, c: Candidate) -> Option<CandidateRow> {
    let r = c.result?;
    Some(CandidateRow {
        task_id,
        sample: c.sample,
        outcome: r.outcome,
        score: r.score,
        passed: r.passed,
        total: r.total,
        per_assertion: r.per_assertion,
        detail: r.detail,
        duration_ms: r.duration_ms,
        code: c.code,
        stdout: r.stdout,
        stderr: r.stderr,
        generation: c.generation,
        setup: c.setup,
        timing: r.timing,
        flags: r.flags,
        fault: r.fault,
        rechecks: r.rechecks,
        failure: r.failure,
        edited: r.edited,
        base: r.base,
        integrity: r.integrity,
        overflow: r.overflow.clone(),
    })
}

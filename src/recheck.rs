//! Rechecks: after a run, candidates that timed out (or every candidate) run a
//! few more times. One whose outcomes disagree is flaky: it gets the flag
//! [`FLAKY`] and keeps the list of its outcomes. The reported outcome stays the
//! first run's; the summary gives the range of pass@k the flakiness allows
//! ([`crate::store::Caveats`]).

use std::sync::Arc;

use crate::engine::{self, RunSettings};
use crate::plan::Plan;
use crate::sandbox::{Interpreter, Outcome, SandboxError};
use crate::store::Store;

pub use crate::sandbox::flags::FLAKY;

/// The plan of the rechecks of `store` (the results of `plan`'s jobs) under
/// `settings`, and for each of its jobs the candidate it rechecks; `None`
/// when nothing is to be rechecked.
pub fn plan(plan: &Plan, store: &Store, settings: &RunSettings) -> Option<(Plan, Vec<usize>)> {
    let chosen: Vec<usize> = store
        .candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            c.result
                .as_ref()
                .is_some_and(|r| settings.recheck_all || r.outcome == Outcome::Timeout)
        })
        .map(|(i, _)| i)
        .filter(|&i| plan.jobs.get(i).is_some_and(|j| j.program.is_ok()))
        .collect();
    if settings.recheck == 0 || chosen.is_empty() {
        return None;
    }
    let targets: Vec<usize> = (0..settings.recheck as usize)
        .flat_map(|_| chosen.iter().copied())
        .collect();
    let rechecks = Plan {
        tasks: plan.tasks.clone(),
        jobs: targets.iter().map(|&i| plan.jobs[i].clone()).collect(),
        problems: Vec::new(),
        missing: Vec::new(),
    };
    Some((rechecks, targets))
}

/// Records that a recheck of candidate `index` ended in `outcome`, and flags
/// it flaky once its outcomes disagree.
pub fn record(store: &mut Store, index: usize, outcome: Outcome) {
    let Some(result) = store
        .candidates
        .get_mut(index)
        .and_then(|c| c.result.as_mut())
    else {
        return;
    };
    result.rechecks.push(outcome);
    if result.is_flaky() {
        crate::sandbox::flags::add_flag(&mut result.flags, FLAKY);
    }
}

/// Runs the rechecks `settings` ask for on the finished `store` of `plan`
/// and records them; returns how many candidates were rechecked.
pub fn run_blocking(
    plan: &Plan,
    store: &mut Store,
    python: &Interpreter,
    settings: &RunSettings,
) -> Result<usize, SandboxError> {
    let Some((rechecks, targets)) = self::plan(plan, store, settings) else {
        return Ok(0);
    };
    let done = engine::run_blocking(&Arc::new(rechecks), python, settings, |_, _| {})?;
    for (job, c) in done.store.candidates.iter().enumerate() {
        if let Some(r) = &c.result {
            record(store, targets[job], r.outcome);
        }
    }
    Ok(targets.len() / settings.recheck.max(1) as usize)
}

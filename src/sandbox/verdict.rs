//! From what the poll loop observed to a candidate's result: the outcome the
//! judge's verdict decides, or why there is none. What the candidate process
//! did decides only what the host sees for itself (its output against the
//! cap, its directory against the disk limit, the deadline, how it ended).

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use super::flags::add_flag;
use super::job::Job;
use super::limits;
use super::supervise::{Observed, Side};
use super::wire::{self, Report, Step, StepId};
use super::{CandidateResult, Failure, Limits, Outcome, Timing};
use crate::plan::Tests;

/// Host clock stamps around one candidate (monotonic ns) and its wall time.
pub(super) struct Times {
    pub begin: u64,
    pub spawned: u64,
    pub reaped: u64,
    pub duration_ms: u64,
}

/// Maps what the poll loop observed to a result.
pub(super) fn interpret(
    observed: &Observed,
    candidate: &Side,
    judge: &Side,
    job: &Job<'_>,
    limits: &Limits,
    times: &Times,
) -> CandidateResult {
    let total = job.program.assertions.len();
    let report = wire::parse(&observed.verdict);
    let mut result = CandidateResult {
        outcome: Outcome::Error,
        score: 0.0,
        passed: 0,
        total: total as u32,
        per_assertion: vec![false; total],
        detail: String::new(),
        duration_ms: times.duration_ms,
        stdout: observed.stdout.text(),
        stderr: observed.stderr.text(),
        timing: None,
        flags: report.flags.clone(),
        fault: None,
        rechecks: Vec::new(),
        failure: None,
        edited: false,
        base: None,
        integrity: match job.program.tests {
            Tests::Suite(_) => Some(super::Integrity::InProcess),
            Tests::Assertions | Tests::Inputs(_) | Tests::Stdio(_) => None,
        },
        overflow: None,
        recorded: None,
    };
    let status = candidate.status.map(ExitStatus::from_raw);
    if let Some(overflow) = &observed.overflow {
        result.detail = "output overflow".into();
        result.overflow = Some(overflow.clone());
    } else if observed.disk_full {
        result.detail = format!(
            "disk limit ({} MiB in its directory)",
            limits.disk_bytes.unwrap_or(0) >> 20
        );
    } else if observed.timed_out {
        result.outcome = Outcome::Timeout;
        result.detail = format!("timed out after {:.1} s", job.timeout.as_secs_f64());
    } else if report.step(StepId::Program) == Some(Step::Syntax) {
        result.outcome = Outcome::SyntaxError;
        result.detail = report.detail(StepId::Program).to_owned();
    } else if report.ended() {
        verdict(&report, job, &mut result);
        if let Tests::Suite(suite) = &job.program.tests {
            let reasons =
                failed_steps(&report, job.program.assertions.len()).map(|step| report.detail(step));
            super::missing::blame_missing(&mut result, suite.missing(), reasons);
        }
        if result.outcome == Outcome::Error && report.lost.is_some() {
            let early = Early {
                status,
                killed: candidate.killed,
            };
            ended_early(&mut result, &report, early, observed, limits, job);
        }
        result.timing = timing(&report, times).map(|t| Timing {
            cpu_us: observed.cpu.map(|c| c.as_micros() as u64),
            ..t
        });
    } else if candidate.server_lost && candidate.status.is_none() {
        result.blame_harness("the fast-start interpreter ended before reporting a result");
    } else if judge.server_lost && judge.status.is_none() {
        result.blame_harness("the judge's server ended before the judge did");
    } else {
        let judge_status = judge.status.map(ExitStatus::from_raw);
        result.detail = format!(
            "the judge ended without a verdict ({})",
            judge_status.map_or("unknown".into(), |s| s.to_string())
        );
    }
    if let (Tests::Inputs(io), None) = (&job.program.tests, &result.base) {
        // Decided before the tests (the program, the deadline): the base
        // tests share the outcome.
        result.base = Some(super::BaseVerdict {
            outcome: result.outcome,
            passed: 0,
            total: io.base_count() as u32,
        });
    }
    result
}

/// The outcome of a candidate whose judge finished, from its verdict.
fn verdict(report: &Report, job: &Job<'_>, result: &mut CandidateResult) {
    let total = job.program.assertions.len();
    let failed = |step: StepId, fallback: &str| -> String {
        let why = report.detail(step);
        if why.is_empty() { fallback } else { why }.to_owned()
    };
    match report.step(StepId::Program) {
        Some(Step::Ok) => {}
        Some(Step::Memory) => return result.detail = "memory limit".into(),
        Some(Step::Fail) => {
            result.failure = report
                .failure(StepId::Program)
                .and_then(|f| Failure::from_judge(f, None));
            return result.detail = failed(StepId::Program, "the code raised an exception");
        }
        Some(Step::Lost) => return,
        _ => return result.detail = "the judge's verdict is incomplete".into(),
    }
    let setup_ran = match job.program.tests {
        Tests::Suite(_) => true,
        Tests::Assertions | Tests::Inputs(_) | Tests::Stdio(_) => !job.program.setup.is_empty(),
    };
    if setup_ran {
        match report.step(StepId::Setup) {
            Some(Step::Ok) => {}
            Some(Step::Memory) => return result.detail = "test setup failed: memory limit".into(),
            Some(Step::Fail) => {
                result.failure = report
                    .failure(StepId::Setup)
                    .and_then(|f| Failure::from_judge(f, None));
                let why = failed(StepId::Setup, "error");
                return result.detail = format!("test setup failed: {why}");
            }
            Some(Step::Lost) => return,
            _ => return result.detail = "the judge's verdict is incomplete".into(),
        }
    }
    if total == 0 {
        return result.detail = "no assertions".into();
    }
    let mut per = Vec::with_capacity(total);
    let mut timed_out = None;
    for i in 1..=total {
        match report.step(StepId::Assertion(i)) {
            Some(Step::Ok) => per.push(true),
            Some(Step::Memory) => return result.detail = "memory limit".into(),
            Some(Step::Lost) => return,
            Some(Step::Timeout) => {
                timed_out.get_or_insert(i);
                per.push(false);
            }
            Some(Step::Fail | Step::Skip) => per.push(false),
            _ => return result.detail = "the judge's verdict is incomplete".into(),
        }
    }
    result.recorded = report.recorded.as_deref().map(std::sync::Arc::from);
    if let Tests::Inputs(io) = &job.program.tests {
        result.base = Some(base_verdict(&per[..io.base_count().min(total)], timed_out));
    }
    let passed = per.iter().filter(|p| **p).count();
    result.passed = passed as u32;
    result.score = passed as f64 / total as f64;
    if let Some(first) = per.iter().position(|p| !p) {
        let step = StepId::Assertion(first + 1);
        result.failure = report
            .failure(step)
            .and_then(|f| Failure::from_judge(f, Some(first as u32 + 1)));
        if timed_out == Some(first + 1) {
            // Its time limit, not the task's: the tests that are inputs.
            result.outcome = Outcome::Timeout;
            result.score = 0.0;
            result.detail = format!("test {} {}", first + 1, failed(step, "timed out"));
        } else {
            result.outcome = Outcome::AssertionFail;
            result.detail = format!("assertion {} failed: {}", first + 1, failed(step, "failed"));
        }
    } else {
        result.outcome = Outcome::Pass;
    }
    result.per_assertion = per;
}

/// The steps that failed: the program, or the setup, or the assertions.
fn failed_steps(report: &Report, total: usize) -> impl Iterator<Item = StepId> + '_ {
    let mut failed = Vec::new();
    for step in StepId::all(total) {
        if report.step(step) == Some(Step::Fail) {
            // A program or setup that failed is the one reason.
            let only = !matches!(step, StepId::Assertion(_));
            failed.push(step);
            if only {
                break;
            }
        }
    }
    failed.into_iter()
}

/// The verdict over the base tests alone (`per`: their pass marks; the first
/// test that timed out, 1-based, if one did).
fn base_verdict(per: &[bool], timed_out: Option<usize>) -> super::BaseVerdict {
    let passed = per.iter().filter(|p| **p).count() as u32;
    let outcome = match per.iter().position(|p| !p) {
        None => Outcome::Pass,
        Some(first) if timed_out == Some(first + 1) => Outcome::Timeout,
        Some(_) => Outcome::AssertionFail,
    };
    super::BaseVerdict {
        outcome,
        passed,
        total: per.len() as u32,
    }
}

/// How the candidate process ended: its status, and whether the host killed
/// it (it had stopped answering, and the judge was done).
struct Early {
    status: Option<ExitStatus>,
    killed: bool,
}

/// The candidate process stopped answering before the tests had their
/// answers: how it ended decides the outcome.
fn ended_early(
    result: &mut CandidateResult,
    report: &Report,
    Early {
        status,
        killed: candidate_killed,
    }: Early,
    observed: &Observed,
    limits: &Limits,
    job: &Job<'_>,
) {
    let lost = report.lost.as_deref().unwrap_or("");
    // Its channel closed while the judge waited: how it ended says why. An
    // answer that was not data came first otherwise, and how the process
    // ended after its judge hung up says nothing.
    let closed = lost.starts_with("closed");
    let stopped = |result: &mut CandidateResult| {
        result.detail = if closed {
            format!("the candidate process stopped answering: {lost}")
        } else {
            format!("the candidate process answered with something that is not data: {lost}")
        };
    };
    let Some(status) = status.filter(|_| closed) else {
        return stopped(result);
    };
    if let Some(code) = status.code() {
        add_flag(&mut result.flags, "early-exit");
        result.detail = format!("exited with status {code} ({lost})");
        return;
    }
    let signal = status.signal().unwrap_or(0);
    if signal == libc::SIGKILL && candidate_killed {
        // Killed by the host once the judge was done without it.
        return stopped(result);
    }
    if signal == libc::SIGXCPU && limits.cpu_backstop {
        // The host's CPU limit (timeout + 2 s): a timeout only when the
        // candidate really used that much; one it raised itself is an error.
        let limit = limits::cpu_seconds(job.timeout);
        if observed.cpu.is_some_and(|c| c.as_secs() >= limit) {
            result.outcome = Outcome::Timeout;
            result.detail = "CPU time limit".into();
            return;
        }
    }
    if limits.memory_bytes.is_some()
        && (result.stderr.contains("MemoryError")
            || result.stderr.contains("Cannot allocate memory"))
    {
        result.detail = "memory limit".into();
        return;
    }
    result.detail = format!("killed by signal {signal}{} ({lost})", signal_name(signal));
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGKILL => " (SIGKILL)",
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGABRT => " (SIGABRT)",
        libc::SIGBUS => " (SIGBUS)",
        libc::SIGFPE => " (SIGFPE)",
        libc::SIGILL => " (SIGILL)",
        libc::SIGTERM => " (SIGTERM)",
        libc::SIGXFSZ => " (SIGXFSZ: file size limit)",
        libc::SIGXCPU => " (SIGXCPU)",
        _ => "",
    }
}

/// Where the time went, when the judge's clock readings fit the host's: the
/// spawn, the candidate's start-up until its program had run, the tests,
/// and the teardown.
fn timing(report: &Report, times: &Times) -> Option<Timing> {
    let (ready, end) = (report.ready_ns?, report.end_ns?);
    let spawned = times.spawned.min(ready);
    (times.begin <= ready && ready <= end && end <= times.reaped).then(|| Timing {
        spawn_us: (spawned - times.begin) / 1000,
        startup_us: (ready - spawned) / 1000,
        candidate_us: (end - ready) / 1000,
        teardown_us: (times.reaped - end) / 1000,
        cpu_us: None,
    })
}

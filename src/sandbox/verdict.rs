//! From what the poll loop observed to a candidate's result: the outcome the
//! harness's genuine records decide (see `assets/harness/core.py`), or why
//! there is none, with the flags the harness noted and the host saw.

use std::os::unix::process::ExitStatusExt;

use super::job::Job;
use super::payload::{self, Step};
use super::supervise::Observed;
use super::{CandidateResult, Limits, Outcome, Timing};
use crate::integrity;

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
    keys: &payload::Keys,
    job: &Job<'_>,
    limits: &Limits,
    times: &Times,
) -> CandidateResult {
    let total = job.program.assertions.len();
    let report = payload::parse(&observed.envelope, keys);
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
    };
    if observed.overflow {
        result.detail = "output overflow".into();
    } else if observed.disk_full {
        result.detail = format!(
            "disk limit ({} MiB in its directory)",
            limits.disk_bytes.unwrap_or(0) >> 20
        );
    } else if observed.timed_out {
        result.outcome = Outcome::Timeout;
        result.detail = format!("timed out after {:.1} s", job.timeout.as_secs_f64());
    } else if report.syntax {
        result.outcome = Outcome::SyntaxError;
        result.detail = report.detail("c").to_owned();
    } else if report.ended {
        verdict(&report, job, &mut result);
        result.timing = timing(&report, times).map(|t| Timing {
            cpu_us: observed.cpu.map(|c| c.as_micros() as u64),
            ..t
        });
    } else if observed.server_lost && observed.status.is_none() {
        result.blame_harness("the fast-start interpreter ended before reporting a result");
    } else {
        let status = observed.status.map(std::process::ExitStatus::from_raw);
        if report.start_ns.is_some() && status.is_some_and(|s| s.code().is_some()) {
            integrity::add_flag(&mut result.flags, "early-exit");
        }
        let (outcome, detail) = without_envelope(status, &result.stderr, limits);
        result.outcome = outcome;
        result.detail = detail;
    }
    if report.forged
        || payload::mimics_envelope(&result.stdout)
        || payload::mimics_envelope(&result.stderr)
    {
        integrity::add_flag(&mut result.flags, "forged-envelope");
    }
    result
}

/// The outcome of a candidate whose every step ran, from the harness's records.
fn verdict(report: &payload::Report, job: &Job<'_>, result: &mut CandidateResult) {
    let total = job.program.assertions.len();
    let failed = |step: &str, fallback: &str| -> String {
        let why = report.detail(step);
        if why.is_empty() { fallback } else { why }.to_owned()
    };
    match report.step("c") {
        Some(Step::Ok) => {}
        Some(Step::Memory) => return result.detail = "memory limit".into(),
        Some(Step::Fail) => return result.detail = failed("c", "the code raised an exception"),
        _ => return result.detail = "malformed result envelope".into(),
    }
    if !job.program.setup.is_empty() {
        match report.step("s") {
            Some(Step::Ok) => {}
            Some(Step::Memory) => return result.detail = "test setup failed: memory limit".into(),
            Some(Step::Fail) => {
                return result.detail = format!("test setup failed: {}", failed("s", "error"));
            }
            _ => return result.detail = "malformed result envelope".into(),
        }
    }
    if total == 0 {
        return result.detail = "no assertions".into();
    }
    let mut per = Vec::with_capacity(total);
    for i in 1..=total {
        match report.step(&format!("a{i}")) {
            Some(Step::Ok) => per.push(true),
            Some(Step::Memory) => return result.detail = "memory limit".into(),
            Some(Step::Fail | Step::Skip) => per.push(false),
            None => return result.detail = "malformed result envelope".into(),
        }
    }
    let passed = per.iter().filter(|p| **p).count();
    if let Some(first) = per.iter().position(|p| !p) {
        let step = format!("a{}", first + 1);
        result.outcome = Outcome::AssertionFail;
        result.detail = format!(
            "assertion {} failed: {}",
            first + 1,
            failed(&step, "failed")
        );
    } else {
        result.outcome = Outcome::Pass;
    }
    result.passed = passed as u32;
    result.score = passed as f64 / total as f64;
    result.per_assertion = per;
}

/// Where the time went, when the harness's clock readings fit the host's.
fn timing(report: &payload::Report, times: &Times) -> Option<Timing> {
    let (start, end) = (report.start_ns?, report.end_ns?);
    // On a loaded machine the harness may start before the parent thread
    // notes that the spawn returned: start-up then counts from the earlier.
    let spawned = times.spawned.min(start);
    (times.begin <= start && start <= end && end <= times.reaped).then(|| Timing {
        spawn_us: (spawned - times.begin) / 1000,
        startup_us: (start - spawned) / 1000,
        candidate_us: (end - start) / 1000,
        teardown_us: (times.reaped - end) / 1000,
        cpu_us: None,
    })
}

/// Outcome and detail of a candidate that ended without a result.
fn without_envelope(
    status: Option<std::process::ExitStatus>,
    stderr: &str,
    limits: &Limits,
) -> (Outcome, String) {
    let Some(status) = status else {
        return (Outcome::Error, "ended without a result".into());
    };
    if let Some(code) = status.code() {
        return (
            Outcome::Error,
            format!("exited with status {code} before reporting a result"),
        );
    }
    let signal = status.signal().unwrap_or(0);
    if signal == libc::SIGXCPU && limits.cpu_backstop {
        return (Outcome::Timeout, "CPU time limit".into());
    }
    if limits.memory_bytes.is_some()
        && (stderr.contains("MemoryError") || stderr.contains("Cannot allocate memory"))
    {
        return (Outcome::Error, "memory limit".into());
    }
    let name = match signal {
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
    };
    (
        Outcome::Error,
        format!("killed by signal {signal}{name} before reporting a result"),
    )
}

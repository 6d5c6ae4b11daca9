//! What a candidate's run comes to: its outcome, score, detail and output,
//! where the time went, its flags and fault, and how its verdict was decided.

use super::Failure;

/// The five outcomes a candidate can have.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every assertion passed.
    Pass,
    /// The code ran and at least one assertion failed.
    AssertionFail,
    /// The code did not compile.
    SyntaxError,
    /// The wall clock expired.
    Timeout,
    /// Anything else (exception, output overflow, no code, lost result, ...).
    Error,
}

impl Outcome {
    /// All outcomes in display order.
    pub const ALL: [Outcome; 5] = [
        Outcome::Pass,
        Outcome::AssertionFail,
        Outcome::SyntaxError,
        Outcome::Timeout,
        Outcome::Error,
    ];

    /// The contract string (`pass`, `assertion_fail`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::AssertionFail => "assertion_fail",
            Outcome::SyntaxError => "syntax_error",
            Outcome::Timeout => "timeout",
            Outcome::Error => "error",
        }
    }

    /// The outcome's place in [`Outcome::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Parses a contract string.
    pub fn parse(s: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.as_str() == s)
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a candidate's wall-clock time went, in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Timing {
    /// Creating the process: until the new process execs (fresh) or is
    /// forked (fast start).
    pub spawn_us: u64,
    /// The exec, the interpreter's start-up and the program's top level,
    /// until the judge heard that it had run.
    pub startup_us: u64,
    /// The tests: the judge's setup and assertions, calls included.
    pub candidate_us: u64,
    /// The judge's and the candidate process's exit, reaping and clean-up.
    pub teardown_us: u64,
    /// CPU time the candidate's process used (user and system), where the
    /// kernel says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us: Option<u64>,
}

/// The result of evaluating one candidate.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CandidateResult {
    /// One of the five outcomes.
    pub outcome: Outcome,
    /// Fraction of assertions passed (0 unless the outcome is pass or assertion_fail).
    pub score: f64,
    /// Assertions passed.
    pub passed: u32,
    /// Assertions in the task.
    pub total: u32,
    /// Pass mark of each assertion, in task order.
    pub per_assertion: Vec<bool>,
    /// Why it did not pass (exception, `output overflow`, `denied: ...`), or empty.
    pub detail: String,
    /// Wall-clock time from spawn to reaping.
    pub duration_ms: u64,
    /// Captured stdout (a bounded excerpt).
    pub stdout: String,
    /// Captured stderr (a bounded excerpt).
    pub stderr: String,
    /// Where the time went (absent when the harness did not report).
    pub timing: Option<Timing>,
    /// Signs that it tried to game the grader (see [`super::flags::FLAGS`]), and
    /// `flaky` when rechecks disagreed.
    #[serde(default)]
    pub flags: Vec<String>,
    /// Set when the machine or the harness failed, not the candidate's code
    /// (the outcome is then `error`, the detail names the cause).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// The outcomes of the rechecks (`run --recheck N`), after the first run's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rechecks: Vec<Outcome>,
    /// Why it failed, as the judge saw it (the first failing assertion, or
    /// the program's own exception).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// Its program was edited by hand and run again, and the user kept that
    /// result in the run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub edited: bool,
    /// The verdict over the base tests alone, where a benchmark has two
    /// (evalplus's base inputs; the outcome above is base + plus).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<BaseVerdict>,
    /// `in-process` where the verdict was the candidate process's word (its
    /// tests are a unittest suite that runs there); absent where the judge
    /// decided it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<Integrity>,
    /// Which stream crossed the output cap and how much of it was read,
    /// where the detail is `output overflow`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overflow: Option<Overflow>,
    /// What a task's reference returned on its inputs, when it ran to record
    /// them (JSON text for the judge; never written to a run file).
    #[serde(skip)]
    pub recorded: Option<std::sync::Arc<str>>,
}

/// A verdict over a subset of a task's tests: evalplus's base inputs, whose
/// pass@k is its "humaneval" figure beside "humaneval+".
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BaseVerdict {
    /// The outcome over those tests.
    pub outcome: Outcome,
    /// Tests passed (0 where the format does not record it).
    pub passed: u32,
    /// Tests in all (0 where the format does not record it).
    pub total: u32,
}

/// A stream that crossed the output cap: the candidate was stopped within
/// one read of crossing it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Overflow {
    /// `stdout` or `stderr`.
    pub stream: String,
    /// Bytes read from it before the candidate was stopped.
    pub read_bytes: u64,
    /// The cap.
    pub cap_bytes: u64,
}

impl Overflow {
    /// One line on it, for the Output tab and `show`.
    pub fn describe(&self) -> String {
        format!(
            "{} crossed the output cap of {} bytes: {} bytes were read before the candidate was stopped",
            self.stream, self.cap_bytes, self.read_bytes
        )
    }
}

/// Where a verdict was decided, when not in the judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Integrity {
    /// In the candidate's own process (a unittest suite that patches the
    /// program's modules): the candidate could have forged it.
    InProcess,
}

/// Who is at fault when a candidate could not be judged on its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// The machine or the harness (the interpreter would not start, the
    /// temporary directory could not be made, a spawn ran out of resources,
    /// the fast-start interpreter was lost).
    Harness,
    /// The interpreter lacks a library the task needs (`missing library:
    /// faker`): the candidate failed only on importing it.
    Environment,
}

impl CandidateResult {
    /// A result decided without running anything (no code block, no assertions).
    pub fn not_run(detail: &str, total: usize) -> Self {
        CandidateResult {
            outcome: Outcome::Error,
            score: 0.0,
            passed: 0,
            total: total as u32,
            per_assertion: vec![false; total],
            detail: detail.to_owned(),
            duration_ms: 0,
            stdout: String::new(),
            stderr: String::new(),
            timing: None,
            flags: Vec::new(),
            fault: None,
            rechecks: Vec::new(),
            failure: None,
            edited: false,
            base: None,
            integrity: None,
            overflow: None,
            recorded: None,
        }
    }

    /// A result the machine or the harness is to blame for: `error`, the
    /// detail naming the cause.
    pub fn harness_fault(cause: &str, total: usize) -> Self {
        let mut result = CandidateResult::not_run("", total);
        result.blame_harness(cause);
        result
    }

    /// Makes this the harness's fault, not the code's: `error`, with the
    /// detail `harness fault: <cause>`.
    pub fn blame_harness(&mut self, cause: &str) {
        self.outcome = Outcome::Error;
        self.score = 0.0;
        self.fault = Some(Fault::Harness);
        self.detail = format!("harness fault: {cause}");
    }

    /// Whether its first run and its rechecks disagree.
    pub fn is_flaky(&self) -> bool {
        self.rechecks.iter().any(|o| *o != self.outcome)
    }
}

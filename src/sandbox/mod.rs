//! The sandbox: one fresh Python interpreter per candidate, started directly with
//! the embedded harness (`assets/harness/`) and a payload on stdin, a wall-clock
//! timeout, a streaming output cap and an import denylist. Whatever a candidate
//! does ends in one of the five [`Outcome`]s; the host never panics or hangs.

mod cancel;
mod capture;
pub mod confine;
mod disk;
mod failure;
pub mod flags;
mod forkserver;
mod interpreter;
mod job;
mod limits;
pub mod missing;
mod namespaces;
mod pacing;
mod pair;
mod process;
mod reaper;
mod runner;
mod spawn;
mod supervise;
mod sys;
mod verdict;
mod wire;
mod workspace;

use std::time::Duration;

pub use cancel::CancelToken;
pub use failure::{Failure, printable};
pub use forkserver::PRELOADED_MODULES;
pub use interpreter::Interpreter;
pub use namespaces::{DISK_ENTRIES, disk_isolation, network_isolation};
pub use process::run_candidate;
pub use runner::Runner;

/// The exact payloads the two processes receive for `program`, shown to
/// users: the candidate process's (the program; no test) and the judge's
/// (the tests).
pub fn describe_payload(
    program: &crate::plan::Program,
    limits: &Limits,
    python: &Interpreter,
) -> String {
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    format!(
        "# the candidate process (its stdin)\n{}\n\n# the judge\n{}",
        text(wire::CandidatePayload::of(program, limits, python).encode()),
        text(wire::JudgePayload::of(program, false).encode())
    )
}

/// The candidate process's harness, embedded at build time: what a fresh
/// interpreter loads for each candidate (none of the judge's code).
pub const CANDIDATE_HARNESS: &str = concat!(
    include_str!("../../assets/harness/core.py"),
    include_str!("../../assets/harness/codec.py"),
    include_str!("../../assets/harness/bridge.py"),
    include_str!("../../assets/harness/graph.py"),
    include_str!("../../assets/harness/ungraph.py"),
    include_str!("../../assets/harness/talk.py"),
    include_str!("../../assets/harness/denylist.py"),
    include_str!("../../assets/harness/candidate.py"),
    include_str!("../../assets/harness/suite_watch.py"),
    include_str!("../../assets/harness/suite.py"),
    include_str!("../../assets/harness/stdio.py"),
    include_str!("../../assets/harness/main.py"),
);

/// The whole harness program, embedded at build time: what a fork server
/// loads (a candidate server's children take the candidate's path, a judge
/// server's the judge's).
pub const HARNESS: &str = concat!(
    include_str!("../../assets/harness/core.py"),
    include_str!("../../assets/harness/codec.py"),
    include_str!("../../assets/harness/bridge.py"),
    include_str!("../../assets/harness/graph.py"),
    include_str!("../../assets/harness/ungraph.py"),
    include_str!("../../assets/harness/talk.py"),
    include_str!("../../assets/harness/denylist.py"),
    include_str!("../../assets/harness/candidate.py"),
    include_str!("../../assets/harness/suite_watch.py"),
    include_str!("../../assets/harness/suite.py"),
    include_str!("../../assets/harness/stdio.py"),
    include_str!("../../assets/harness/judge.py"),
    include_str!("../../assets/harness/suite_verdict.py"),
    include_str!("../../assets/harness/explain.py"),
    include_str!("../../assets/harness/proxies.py"),
    include_str!("../../assets/harness/names.py"),
    include_str!("../../assets/harness/io.py"),
    include_str!("../../assets/harness/stdio_verdict.py"),
    include_str!("../../assets/harness/child_confine.py"),
    include_str!("../../assets/harness/server.py"),
    include_str!("../../assets/harness/main.py"),
);

/// Default wall-clock timeout per candidate.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3);
/// Largest timeout a task may ask for.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(30);
/// Default cap on each of stdout and stderr, in bytes (256 KiB).
pub const DEFAULT_OUTPUT_CAP: u64 = 262_144;
/// Modules denied by default (each also denies its submodules).
pub const DEFAULT_DENYLIST: [&str; 8] = [
    "subprocess",
    "socket",
    "shutil",
    "requests",
    "urllib",
    "ctypes",
    "http.client",
    "asyncio.subprocess",
];

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
    /// Signs that it tried to game the grader (see [`flags::FLAGS`]), and
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

/// Default address-space limit (2 GiB).
pub const DEFAULT_MEMORY_LIMIT: u64 = 2 << 30;
/// Default largest file a candidate may write (16 MiB).
pub const DEFAULT_FILE_SIZE_LIMIT: u64 = 16 << 20;
/// Default most bytes a candidate may keep in its directory (64 MiB).
pub const DEFAULT_DISK_LIMIT: u64 = 64 << 20;
/// Default most live threads and processes of a candidate.
pub const DEFAULT_THREADS: u64 = 256;
/// Default most open file descriptors.
pub const DEFAULT_OPEN_FILES: u64 = 256;

/// Limits applied to every candidate.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Wall-clock timeout from spawn.
    pub timeout: Duration,
    /// Cap on each of stdout and stderr in bytes; crossing it kills the candidate.
    pub output_cap: u64,
    /// Denied modules (each also denies its submodules); empty disables the hook.
    pub denylist: Vec<String>,
    /// Address-space limit in bytes (`RLIMIT_AS`); `None` leaves it unlimited.
    pub memory_bytes: Option<u64>,
    /// Largest file the candidate may write (`RLIMIT_FSIZE`); `None`: unlimited.
    pub file_size_bytes: Option<u64>,
    /// Most open file descriptors (`RLIMIT_NOFILE`); `None`: inherited.
    pub open_files: Option<u64>,
    /// A CPU-seconds limit just above the timeout (`RLIMIT_CPU`) and no core dumps.
    pub cpu_backstop: bool,
    /// The process guard: `os.fork`, `os.setsid`, `os.kill`, `os.exec*`,
    /// `os.posix_spawn*`, ... raise, and `pty`, `resource`, `_socket` and
    /// `_posixsubprocess` cannot be imported.
    pub process_guard: bool,
    /// Run in a fresh network namespace with only a loopback that is down (where
    /// the kernel allows it; see [`network_isolation`]).
    pub no_network: bool,
    /// Kernel confinement (Landlock, seccomp, no privileges; see [`confine`]).
    pub confine: bool,
    /// Let candidates use the network (sockets, TCP) under confinement.
    pub network: bool,
    /// Most bytes a candidate may keep in its directory at once; past it the
    /// candidate is killed (`error`, `disk limit`). `None`: unbounded.
    pub disk_bytes: Option<u64>,
    /// Most live threads and processes a candidate may have, bounded by the
    /// kernel (see [`confine::ThreadBound`]); past it a new thread cannot
    /// start. `None`: unbounded.
    pub threads: Option<u64>,
}

impl Limits {
    /// The confinement these limits ask for, as this kernel gives it.
    pub fn confinement(&self) -> confine::Status {
        let mut status = confine::Status::probe(self.confine, self.network);
        status.thread_limit = self.threads;
        status.disk_tmpfs &= self.disk_bytes.is_some();
        status
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: DEFAULT_TIMEOUT,
            output_cap: DEFAULT_OUTPUT_CAP,
            denylist: DEFAULT_DENYLIST.iter().map(|s| s.to_string()).collect(),
            memory_bytes: Some(DEFAULT_MEMORY_LIMIT),
            file_size_bytes: Some(DEFAULT_FILE_SIZE_LIMIT),
            open_files: Some(DEFAULT_OPEN_FILES),
            cpu_backstop: true,
            process_guard: true,
            no_network: false,
            confine: true,
            network: false,
            disk_bytes: Some(DEFAULT_DISK_LIMIT),
            threads: Some(DEFAULT_THREADS),
        }
    }
}

/// Problems with the host side of the sandbox (not with a candidate).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// Occurs when the interpreter command cannot be started at all.
    #[error(
        "cannot start the Python interpreter {command:?}: {error} (install python3 or set the interpreter with --python)"
    )]
    InterpreterNotFound {
        /// The command that was tried.
        command: String,
        /// Why it failed.
        error: std::io::Error,
    },
    /// Occurs when the interpreter starts but does not describe itself.
    #[error("{command:?} is not a usable Python 3 interpreter: {reason}")]
    InterpreterUnusable {
        /// The command that was tried.
        command: String,
        /// What went wrong.
        reason: String,
    },
    /// Occurs when creating a candidate process or its pipes fails (out of file
    /// descriptors or processes, temp directory not writable).
    #[error("cannot start a candidate process: {0}")]
    Spawn(#[from] std::io::Error),
    /// Occurs when the kernel refuses to set up the confinement it reported
    /// (a path of the policy cannot be ruled on).
    #[error(
        "cannot confine a candidate: {0} (run with confinement off to evaluate without it, at your own risk)"
    )]
    Confinement(std::io::Error),
    /// Occurs when every confinement layer is required and this system lacks
    /// some.
    #[error(
        "confinement is required but this system lacks: {0} (a newer Linux kernel has every layer; drop --require-confinement to run with what is here)"
    )]
    ConfinementMissing(String),
    /// Occurs when strict integrity is asked for where a candidate could read
    /// its own memory.
    #[error(
        "strict integrity is asked for but the verdict cannot be guarded here: it needs {0} (drop --strict-integrity to run with flags only)"
    )]
    IntegrityMissing(String),
    /// Occurs when the run was cancelled before the candidate finished.
    #[error("cancelled")]
    Cancelled,
}

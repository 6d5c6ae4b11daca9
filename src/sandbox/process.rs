//! What every start of the harness shares: the interpreter's flags, the boot
//! program that loads the compiled harness, the confinement a process gets,
//! and the results decided before anything starts.

use std::time::Duration;

use super::confine::Prepared;
use super::job::Job;
use super::supervise::Stop;
use super::{
    CANDIDATE_HARNESS, CancelToken, CandidateResult, HARNESS, Interpreter, Limits, Runner,
    SandboxError,
};
use crate::plan::Program;

/// The interpreter flags every candidate (and every fork server) starts with.
pub(super) const PYTHON_FLAGS: [&str; 3] = ["-s", "-S", "-B"];

/// A boot: reads an 8-digit length and that many bytes from stdin (exactly,
/// leaving the payload behind them unread) and runs them as `__main__` by
/// the last line given.
macro_rules! boot {
    ($run:literal) => {
        concat!(
            "import posix, marshal
def _boot_read(n):
    d = b''
    while len(d) < n:
        c = posix.read(0, n - len(d))
        if not c:
            raise SystemExit('execscope: the harness code was cut short')
        d += c
    return d
",
            $run,
            "\n"
        )
    };
}

/// What a fresh interpreter runs when the harness comes compiled: the
/// bytes are marshalled code.
const BOOT: &str = boot!("exec(marshal.loads(_boot_read(int(_boot_read(8)))))");

/// The same for an interpreter whose harness is not compiled: the bytes are
/// the harness's source (as `-c` it would pass the kernel's 128 KiB limit on
/// one argument), compiled as `-c` would compile it.
const BOOT_SOURCE: &str =
    boot!("exec(compile(_boot_read(int(_boot_read(8))).decode('utf-8'), '<string>', 'exec'))");

/// Digits of the harness code's length in front of the payload.
const BOOT_LENGTH_DIGITS: usize = 8;

/// Which harness a process loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Harness {
    /// A fresh candidate process: its part only.
    Candidate,
    /// A fork server: all of it.
    Server,
}

impl Harness {
    fn parts(self, python: &Interpreter) -> (&'static str, &[u8]) {
        match self {
            Harness::Candidate => (CANDIDATE_HARNESS, &python.candidate_code),
            Harness::Server => (HARNESS, &python.harness_code),
        }
    }
}

/// The `-c` program a fresh interpreter starts with: a boot that reads the
/// harness from stdin ([`child_input`]), compiled or as source.
pub(super) fn harness_program(python: &Interpreter, which: Harness) -> &'static str {
    match which.parts(python) {
        (_, []) => BOOT_SOURCE,
        _ => BOOT,
    }
}

/// The child's stdin: the harness (compiled where it can be, its source
/// otherwise), then the payload.
pub(super) fn child_input(python: &Interpreter, which: Harness, payload: Vec<u8>) -> Vec<u8> {
    let code = match which.parts(python) {
        (source, []) => source.as_bytes(),
        (_, code) => code,
    };
    let mut input = Vec::with_capacity(BOOT_LENGTH_DIGITS + code.len() + payload.len());
    input.extend_from_slice(
        format!("{:0width$}", code.len(), width = BOOT_LENGTH_DIGITS).as_bytes(),
    );
    input.extend_from_slice(code);
    input.extend_from_slice(&payload);
    input
}

/// Runs one candidate to completion and maps what happened to a result (a
/// runner of its own: its judge server is started for it alone).
///
/// `Err` only for host problems (cannot spawn) and cancellation; anything the
/// candidate does is an `Ok` result with one of the five outcomes.
pub fn run_candidate(
    python: &Interpreter,
    limits: &Limits,
    timeout: Duration,
    program: &Program,
    cancel: Option<&CancelToken>,
) -> Result<CandidateResult, SandboxError> {
    Runner::new(python, limits, false).run(timeout, program, cancel, &|| {})
}

/// The confinement a candidate (or, with `fork`, a fork server) of `python`
/// working in `dir` gets under `limits`; `None` where none was asked for or
/// the system has none.
pub(super) fn confinement(
    limits: &Limits,
    python: &Interpreter,
    dir: &std::path::Path,
    fork: bool,
) -> Result<Option<Prepared>, SandboxError> {
    let status = limits.confinement();
    if !status.enabled || !cfg!(target_os = "linux") {
        return Ok(None);
    }
    Prepared::new(&status, python, dir, fork)
        .map(Some)
        .map_err(SandboxError::Confinement)
}

/// Results decided without starting anything, or cancellation.
pub(super) fn before_running(job: &Job<'_>) -> Result<Option<CandidateResult>, SandboxError> {
    if job.program.assertions.is_empty() {
        return Ok(Some(CandidateResult::not_run("no assertions", 0)));
    }
    if job.cancel.is_some_and(CancelToken::is_cancelled) {
        return Err(SandboxError::Cancelled);
    }
    Ok(None)
}

pub(super) fn stop_error(stop: Stop) -> SandboxError {
    match stop {
        Stop::Cancelled => SandboxError::Cancelled,
        Stop::Poll(e) => SandboxError::Spawn(e),
    }
}

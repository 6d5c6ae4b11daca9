//! Running one candidate in a fresh interpreter: the harness started directly
//! (never through a shell) with the payload on stdin, supervised by the shared
//! poll loop, then what was observed mapped to one of the five outcomes.

use std::io;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::confine::Prepared;
use super::job::Job;
use super::limits::ChildSetup;
use super::supervise::{self, Exit, Input, Pipes, Stop, Watch};
use super::sys::{self, monotonic_ns, pipe_cloexec};
use super::verdict::{self, Times};
use super::{CancelToken, CandidateResult, HARNESS, Interpreter, Limits, SandboxError};
use super::{payload, reaper, spawn};
use crate::plan::Program;

/// The interpreter flags every candidate (and every fork server) starts with.
pub(super) const PYTHON_FLAGS: [&str; 3] = ["-s", "-S", "-B"];

/// What a fresh interpreter runs when the harness comes compiled: it reads an
/// 8-digit length and that many bytes of marshalled code from stdin (exactly,
/// leaving the payload behind them unread) and runs them as `__main__`.
const BOOT: &str = "import posix, marshal
def _boot_read(n):
    d = b''
    while len(d) < n:
        c = posix.read(0, n - len(d))
        if not c:
            raise SystemExit('execscope: the harness code was cut short')
        d += c
    return d
exec(marshal.loads(_boot_read(int(_boot_read(8)))))
";

/// Digits of the harness code's length in front of the payload.
const BOOT_LENGTH_DIGITS: usize = 8;

/// The `-c` program a fresh interpreter starts with: the boot when the harness
/// comes compiled (see [`child_input`]), its source otherwise.
pub(super) fn harness_program(python: &Interpreter) -> &'static str {
    if python.harness_code.is_empty() {
        HARNESS
    } else {
        BOOT
    }
}

/// The child's stdin: the compiled harness (when there is one), then the payload.
pub(super) fn child_input(python: &Interpreter, payload: Vec<u8>) -> Vec<u8> {
    if python.harness_code.is_empty() {
        return payload;
    }
    let code = &python.harness_code;
    let mut input = Vec::with_capacity(BOOT_LENGTH_DIGITS + code.len() + payload.len());
    input.extend_from_slice(
        format!("{:0width$}", code.len(), width = BOOT_LENGTH_DIGITS).as_bytes(),
    );
    input.extend_from_slice(code);
    input.extend_from_slice(&payload);
    input
}

/// Runs one candidate to completion and maps what happened to a result.
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
    let job = Job {
        program,
        timeout,
        cancel,
        on_hand_off: &|| {},
    };
    run_fresh(python, limits, &job)
}

/// Runs `job` in a fresh interpreter.
pub(super) fn run_fresh(
    python: &Interpreter,
    limits: &Limits,
    job: &Job<'_>,
) -> Result<CandidateResult, SandboxError> {
    let (program, timeout) = (job.program, job.timeout);
    if let Some(early) = before_running(job)? {
        return Ok(early);
    }
    let keys = payload::Keys::new(program);
    let input = child_input(python, payload::encode(&keys, program, limits, python));
    let dir = tempfile::Builder::new().prefix("execscope-").tempdir()?;

    let t_begin = monotonic_ns();
    let started = Instant::now();
    let (envelope_r, envelope_w) = pipe_cloexec()?;
    let confine = confinement(limits, python, dir.path(), false)?;
    let setup = ChildSetup::candidate(limits, timeout, envelope_w.as_raw_fd(), confine);
    let child = spawn::start_harness(python, &[], dir.path(), setup).map_err(|e| {
        SandboxError::Spawn(io::Error::new(
            e.kind(),
            format!("{}: {e}", python.executable.display()),
        ))
    })?;
    drop(envelope_w);
    let t_spawned = monotonic_ns();
    let pid = child.pid;
    let stdin = Some(Input::Owned(child.stdin));
    let (stdout, stderr) = (child.stdout, child.stderr);
    let exit = Exit::Child {
        pid,
        pidfd: sys::pidfd(pid),
    };
    let pipes = Pipes {
        stdout: stdout.as_raw_fd(),
        stderr: stderr.as_raw_fd(),
        envelope: envelope_r.as_raw_fd(),
    };
    let watch = Watch {
        cap: limits.output_cap,
        started,
        timeout,
        cancel: job.cancel,
        on_hand_off: job.on_hand_off,
        disk: limits.disk_bytes.map(|limit| (dir.path(), limit)),
    };
    let observed = supervise::supervise(&exit, stdin, &input, &pipes, &watch);
    let status = spawn::wait(pid);
    let t_reaped = monotonic_ns();
    let duration_ms = started.elapsed().as_millis() as u64;
    reaper::finished(pid);
    reaper::remove_dir(dir);
    let mut observed = observed.map_err(stop_error)?;
    observed.status = status;
    let times = Times {
        begin: t_begin,
        spawned: t_spawned,
        reaped: t_reaped,
        duration_ms,
    };
    Ok(verdict::interpret(&observed, &keys, job, limits, &times))
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

//! The one helper module of every test binary: the real interpreter (resolved
//! once), a unique temp dir per test, the fixtures under `tests/data`, the
//! real-data folder, and sandbox helpers that run a snippet in both start-up
//! modes (fresh and fast start, which must agree).
//!
//! Each binary uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use execscope::plan::{Program, Tests};
use execscope::sandbox::{CandidateResult, Interpreter, Limits, Runner};

/// The real python3, resolved once; panics clearly when it is missing.
pub fn python() -> &'static Interpreter {
    static PY: OnceLock<Interpreter> = OnceLock::new();
    PY.get_or_init(|| {
        Interpreter::resolve("python3")
            .unwrap_or_else(|e| panic!("these tests need a real python3 on PATH: {e}"))
    })
}

/// A fresh temporary directory, removed when dropped.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("execscope-test-")
        .tempdir()
        .expect("temp dir")
}

/// A fixture file under `tests/data`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A file of the embedded demo set under `assets/demo`.
pub fn demo_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/demo")
        .join(name)
}

/// The shared real-data folder (`EXECSCOPE_DATA`, default `../shared/data`), or
/// `None` with a printed notice when it is absent (a user's clone). In CI
/// (`CI` set) its absence fails the test instead: there it must run.
pub fn data_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("EXECSCOPE_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"));
    if dir.join("README.md").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the real data is missing at {} in CI, where these tests must run",
        dir.display()
    );
    eprintln!(
        "notice: real data not found at {} (set EXECSCOPE_DATA); skipping",
        dir.display()
    );
    None
}

/// A program from code and assertions, with no setup.
pub fn program(code: &str, assertions: &[&str]) -> Program {
    Program {
        setup: String::new(),
        code: code.to_owned(),
        assertions: Arc::from(assertions.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
        reference: Arc::from(""),
        given: Arc::from(""),
        tests: Tests::Assertions,
    }
}

/// Both ways of starting a candidate: a fresh interpreter, and fast start.
pub const MODES: [bool; 2] = [false, true];

/// Runs an assembled program in one mode (`fast_start` or fresh).
pub fn run_mode(
    fast_start: bool,
    program: &Program,
    limits: &Limits,
    timeout: Duration,
) -> CandidateResult {
    Runner::new(python(), limits, fast_start)
        .run(timeout, program, None, &|| {})
        .expect("the sandbox itself should not fail")
}

/// Runs `code` (against the single assertion `True`) in one mode, where a
/// test looks at each mode's result itself (pids, times).
pub fn run_code_in(
    fast_start: bool,
    code: &str,
    limits: &Limits,
    timeout: Duration,
) -> CandidateResult {
    run_mode(fast_start, &program(code, &["True"]), limits, timeout)
}

/// Runs an assembled program in both modes with default limits, strict
/// integrity or not; each mode's result (they may differ where a test looks
/// at flags a mode earns alone).
pub fn run_strict(program: &Program, strict: bool) -> Vec<CandidateResult> {
    MODES
        .into_iter()
        .map(|fast| {
            Runner::new(python(), &Limits::default(), fast)
                .strict(strict)
                .run(Duration::from_secs(10), program, None, &|| {})
                .expect("the sandbox itself should not fail")
        })
        .collect()
}

/// Runs an assembled program in both modes, checks that they reach the same
/// verdict, and returns the fresh interpreter's result.
pub fn run_both(program: &Program, limits: &Limits, timeout: Duration) -> CandidateResult {
    let fresh = run_mode(false, program, limits, timeout);
    let fast = run_mode(true, program, limits, timeout);
    let verdict = |r: &CandidateResult| {
        (
            r.outcome,
            r.passed,
            r.total,
            r.per_assertion.clone(),
            r.detail.clone(),
            r.flags.clone(),
            r.failure.clone(),
        )
    };
    assert_eq!(
        verdict(&fresh),
        verdict(&fast),
        "fresh and fast-start verdicts differ for {:?}\nfresh: {fresh:?}\nfast: {fast:?}",
        program.code
    );
    fresh
}

/// Runs an assembled program with default limits and a 3 s timeout, in both modes.
pub fn run_program(program: &Program) -> CandidateResult {
    run_both(program, &Limits::default(), Duration::from_secs(3))
}

/// Runs `code` against `assertions` with `limits` and `timeout`, in both modes.
pub fn run_with(
    code: &str,
    assertions: &[&str],
    limits: &Limits,
    timeout: Duration,
) -> CandidateResult {
    run_both(&program(code, assertions), limits, timeout)
}

/// Runs `code` against `assertions` with default limits and a 3 s timeout, in both modes.
pub fn run(code: &str, assertions: &[&str]) -> CandidateResult {
    run_with(code, assertions, &Limits::default(), Duration::from_secs(3))
}

/// Whether process `pid` is still running (absent and zombie both count as gone).
pub fn is_running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|s| s.split_whitespace().next());
            !matches!(state, Some("Z") | Some("X"))
        }
        Err(_) => false,
    }
}

/// Held by the tests whose candidates must get a known amount of CPU time
/// before their timeout, so two of them do not squeeze each other's share.
pub fn cpu_to_spare() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The process id of the running candidate that created the file `marker` in
/// its working directory (candidates cannot write anywhere else), found
/// through `/proc`.
pub fn pid_of_candidate_with(marker: &str) -> Option<i32> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        // Through the process's own view: its directory may be a tmpfs of
        // its own mount namespace.
        if Path::new(&format!("/proc/{pid}/cwd")).join(marker).exists() {
            return Some(pid);
        }
    }
    None
}

//! Sandbox helpers for the main test binary: build a program, run a snippet,
//! check whether a process is still running.

use std::sync::Arc;
use std::time::Duration;

use execscope::plan::Program;
use execscope::sandbox::{self, CandidateResult, Limits};

pub use crate::common::{data_dir, python, tempdir};

/// A program from code and assertions, with no setup.
pub fn program(code: &str, assertions: &[&str]) -> Program {
    Program {
        setup: String::new(),
        code: code.to_owned(),
        assertions: Arc::from(assertions.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
    }
}

/// Runs an assembled program with default limits and a 3 s timeout.
pub fn run_program(program: &Program) -> CandidateResult {
    sandbox::run_candidate(
        python(),
        &Limits::default(),
        Duration::from_secs(3),
        program,
        None,
    )
    .expect("the sandbox itself should not fail")
}

/// Runs `code` against `assertions` with default limits and `timeout`.
pub fn run_with(
    code: &str,
    assertions: &[&str],
    limits: &Limits,
    timeout: Duration,
) -> CandidateResult {
    sandbox::run_candidate(python(), limits, timeout, &program(code, assertions), None)
        .expect("the sandbox itself should not fail")
}

/// Runs `code` against `assertions` with default limits and a 3 s timeout.
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

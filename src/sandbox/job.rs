//! One candidate's job: everything that travels with it from the engine to
//! whichever way it is started (a fresh interpreter or a fork server's child).

use std::time::Duration;

use super::CancelToken;
use crate::plan::Program;

/// One candidate to run.
pub(super) struct Job<'a> {
    /// Its program: setup, code, assertions.
    pub program: &'a Program,
    /// Its wall-clock timeout.
    pub timeout: Duration,
    /// The run's cancellation, if any.
    pub cancel: Option<&'a CancelToken>,
    /// Called once the candidate no longer needs its worker's place (it
    /// mostly waits, or it has had its full-priority CPU time).
    pub on_hand_off: &'a dyn Fn(),
    /// Strict integrity: the judge binds no program name that hides a
    /// builtin or a module the tests use.
    pub strict: bool,
}

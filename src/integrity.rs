//! Verdict integrity: the flags a candidate can earn, what each means, and
//! strict integrity (a flagged pass becomes an error).
//!
//! The harness records a flag when its integrity hook refuses something only
//! a grader-gaming candidate needs, or when it sees a sign of reward hacking;
//! the host adds the signs it sees itself. Flags never change an outcome
//! unless the user asks for strict integrity.

use crate::sandbox::{CandidateResult, Limits, Outcome};

/// Every flag, with a one-line explanation (the README lists the same).
pub const FLAGS: [(&str, &str); 12] = [
    (
        "frame-introspection",
        "reached the harness's frames (sys._getframe, tracebacks, f_back, signal-handler frames) or other threads' frames",
    ),
    (
        "harness-introspection",
        "read or replaced the code or defaults of the harness's own functions",
    ),
    (
        "object-scan",
        "scanned the object graph (gc.get_objects, gc.get_referrers, gc.get_referents)",
    ),
    (
        "tracing",
        "installed a tracing, profiling or monitoring hook",
    ),
    (
        "code-construction",
        "built a code object or a function by hand",
    ),
    (
        "audit-hook",
        "tried to add an audit hook, or to start an interpreter without the harness's",
    ),
    ("ctypes", "used ctypes (it can read and write any memory)"),
    (
        "always-equal",
        "an assertion passed through its own __eq__, __ne__ or __bool__",
    ),
    (
        "early-exit",
        "exited, or raised SystemExit, before its assertions finished",
    ),
    (
        "rebound-builtins",
        "rebound builtins or patched functions the harness relies on",
    ),
    (
        "reentry",
        "ran the harness's steps again from inside a step",
    ),
    (
        "forged-envelope",
        "wrote to the harness's result channel, or printed something that mimics it",
    ),
];

/// The explanation of flag `name`, if it is one of [`FLAGS`].
pub fn explain(name: &str) -> Option<&'static str> {
    FLAGS.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
}

/// What any flag a candidate can carry means: one of [`FLAGS`], or
/// [`crate::recheck::FLAKY`].
pub fn meaning(name: &str) -> &'static str {
    if name == crate::recheck::FLAKY {
        return crate::recheck::FLAKY_MEANING;
    }
    explain(name).unwrap_or("a flag this version does not know")
}

/// Whether `name` is one of [`FLAGS`].
pub fn is_flag(name: &str) -> bool {
    explain(name).is_some()
}

/// Adds `name` to `flags` unless it is there already (keeps first-seen order).
pub fn add_flag(flags: &mut Vec<String>, name: &str) {
    if !flags.iter().any(|f| f == name) {
        flags.push(name.to_owned());
    }
}

/// What verdict integrity lacks under `limits`, each with what a candidate
/// could do for it (empty: nothing). The records and their secrets live in
/// the candidate's own memory, out of reach of every Python reference, so
/// the two ways to read raw memory must be closed.
pub fn missing(limits: &Limits) -> Vec<&'static str> {
    let mut missing = Vec::new();
    let status = limits.confinement();
    if !(status.enabled && status.files) {
        missing.push("the kernel's file confinement (without it a candidate can read its own memory through /proc/self/mem)");
    }
    let denied = |m: &str| limits.denylist.iter().any(|d| d == m);
    if !(denied("ctypes") || denied("_ctypes")) {
        missing.push("ctypes in the denylist (with it a candidate can read its own memory)");
    }
    missing
}

/// One line on verdict integrity under `limits`, for the CLI and the GUI.
pub fn describe(limits: &Limits) -> String {
    let missing = missing(limits);
    if missing.is_empty() {
        "verdict integrity: full".to_owned()
    } else {
        format!("verdict integrity: partial, missing {}", missing.join("; "))
    }
}

/// Strict integrity: a flagged pass becomes `error` with detail
/// `integrity: <flags>` and score 0. Anything else is left as it is.
pub fn apply_strict(result: &mut CandidateResult) {
    if result.outcome == Outcome::Pass && result.flags.iter().any(|f| is_flag(f)) {
        result.outcome = Outcome::Error;
        result.score = 0.0;
        result.detail = format!("integrity: {}", result.flags.join(", "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_integrity_turns_only_a_flagged_pass_into_an_error() {
        let mut r = CandidateResult::not_run("", 2);
        r.outcome = Outcome::Pass;
        r.score = 1.0;
        apply_strict(&mut r);
        assert_eq!(r.outcome, Outcome::Pass);
        r.flags = vec!["always-equal".into(), "tracing".into()];
        apply_strict(&mut r);
        assert_eq!(r.outcome, Outcome::Error);
        assert_eq!(r.score, 0.0);
        assert_eq!(r.detail, "integrity: always-equal, tracing");
        let mut failed = CandidateResult::not_run("assertion 1 failed", 1);
        failed.outcome = Outcome::AssertionFail;
        failed.flags = vec!["tracing".into()];
        apply_strict(&mut failed);
        assert_eq!(failed.outcome, Outcome::AssertionFail);
    }
}

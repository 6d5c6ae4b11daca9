//! The flags a candidate can carry, what each means, and strict integrity (a
//! flagged pass becomes an error). The judge decides the integrity flags; the
//! host adds `early-exit` from what it saw of the candidate process, and the
//! rechecks add [`FLAKY`]. Flags never change an outcome unless the user asks
//! for strict integrity.

use super::{CandidateResult, Integrity, Outcome};

/// Every integrity flag, with a one-line explanation (the README lists the same).
pub const FLAGS: [(&str, &str); 9] = [
    (
        "candidate-decided",
        "an assertion's result depended on the candidate's own code deciding a comparison, a truth value, a length or arithmetic on one of its objects",
    ),
    (
        "always-equal",
        "an assertion passed through its own __eq__ or __ne__: an object of the candidate's said it was equal",
    ),
    (
        "shadowed-name",
        "the program defines a name the tests use that hides a builtin, a standard module or a helper the prompt defines",
    ),
    (
        "early-exit",
        "the candidate process exited before the tests had their answers",
    ),
    (
        "malformed-answer",
        "the candidate process answered the judge with something that is not data",
    ),
    (
        "skipped",
        "a test method of its unittest suite was skipped (it counts as failed)",
    ),
    (
        "patched-framework",
        "the program replaced or changed part of the unittest machinery (TestCase, TestResult, TestSuite, TestLoader, the runner, unittest.mock) or the tests' own class",
    ),
    (
        "patched-clock",
        "the program replaced a clock of the time module or a class of the datetime module",
    ),
    (
        "frame-introspection",
        "the program reached the interpreter's frames (where a suite's tests keep their expected values) or set a trace or profile hook",
    ),
];

/// The flag of a candidate whose rechecks disagree with its first run.
pub const FLAKY: &str = "flaky";
/// What [`FLAKY`] means.
pub const FLAKY_MEANING: &str = "its rechecks disagree with its first run (the reported outcome is the first run's; see the range of pass@k in the summary)";

/// Flags that earlier versions recorded, when the verdict was decided in the
/// candidate's own interpreter; the judge makes them moot, but run files
/// written then still carry them.
const RETIRED: [(&str, &str); 8] = [
    (
        "harness-introspection",
        "(earlier versions) read or replaced the harness's own functions",
    ),
    ("object-scan", "(earlier versions) scanned the object graph"),
    ("tracing", "(earlier versions) installed a tracing hook"),
    (
        "code-construction",
        "(earlier versions) built a code object by hand",
    ),
    (
        "audit-hook",
        "(earlier versions) tried to add an audit hook",
    ),
    ("ctypes", "(earlier versions) used ctypes"),
    (
        "rebound-builtins",
        "(earlier versions) rebound builtins the harness relied on",
    ),
    (
        "forged-envelope",
        "(earlier versions) wrote to the harness's result channel",
    ),
];

/// The explanation of integrity flag `name`, if it is one of [`FLAGS`].
pub fn explain(name: &str) -> Option<&'static str> {
    FLAGS.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
}

/// What any flag a candidate can carry means (an earlier version's included).
pub fn meaning(name: &str) -> &'static str {
    if name == FLAKY {
        return FLAKY_MEANING;
    }
    explain(name)
        .or_else(|| RETIRED.iter().find(|(n, _)| *n == name).map(|(_, e)| *e))
        .unwrap_or("a flag this version does not know")
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

/// Strict integrity: a pass carrying an integrity flag (of this version or
/// an earlier one; not [`FLAKY`]), or decided in the candidate's own process
/// (which could have forged it unflagged), becomes `error` with detail
/// `integrity: <in-process, flags>` and score 0. Anything else is left as
/// it is.
pub fn apply_strict(result: &mut CandidateResult) {
    if result.outcome != Outcome::Pass {
        return;
    }
    let mut why: Vec<&str> = Vec::new();
    if result.integrity == Some(Integrity::InProcess) {
        why.push("in-process");
    }
    why.extend(
        result
            .flags
            .iter()
            .map(String::as_str)
            .filter(|f| *f != FLAKY),
    );
    if !why.is_empty() {
        result.outcome = Outcome::Error;
        result.score = 0.0;
        result.detail = format!("integrity: {}", why.join(", "));
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
        r.flags = vec![FLAKY.into()];
        apply_strict(&mut r);
        assert_eq!(r.outcome, Outcome::Pass);
        r.flags = vec!["always-equal".into(), "candidate-decided".into()];
        apply_strict(&mut r);
        assert_eq!(r.outcome, Outcome::Error);
        assert_eq!(r.score, 0.0);
        assert_eq!(r.detail, "integrity: always-equal, candidate-decided");
        let mut failed = CandidateResult::not_run("assertion 1 failed", 1);
        failed.outcome = Outcome::AssertionFail;
        failed.flags = vec!["candidate-decided".into()];
        apply_strict(&mut failed);
        assert_eq!(failed.outcome, Outcome::AssertionFail);
        let mut suite = CandidateResult::not_run("", 2);
        suite.outcome = Outcome::Pass;
        suite.score = 1.0;
        suite.integrity = Some(Integrity::InProcess);
        apply_strict(&mut suite);
        assert_eq!(suite.outcome, Outcome::Error);
        assert_eq!(suite.detail, "integrity: in-process");
    }

    #[test]
    fn every_flag_old_and_new_has_a_meaning() {
        for (name, _) in FLAGS.iter().chain(RETIRED.iter()) {
            assert_ne!(meaning(name), "a flag this version does not know");
        }
        assert_eq!(meaning("nope"), "a flag this version does not know");
    }
}

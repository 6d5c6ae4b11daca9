//! A candidate of a task whose tests are a unittest suite that failed only
//! because the interpreter lacks a library the task needs (the probe:
//! `crate::environment`) is an environment fault, kept apart from model
//! failures.

use super::{CandidateResult, Fault, Outcome};

/// The library named by a `No module named 'x.y'` message: `x`; or, in an
/// `ImportError` of the program's own words (`The package 'numpy' is not
/// installed!`), the first quoted name that is in `missing`.
fn missing_module<'a>(detail: &'a str, missing: &[String]) -> Option<&'a str> {
    if let Some(rest) = detail.split("No module named '").nth(1) {
        let name = rest.split('\'').next()?;
        return name.split('.').next().filter(|n| !n.is_empty());
    }
    let message = detail.split("ImportError: ").nth(1)?;
    message
        .split('\'')
        .skip(1)
        .step_by(2)
        .find(|quoted| missing.iter().any(|m| m == quoted))
}

/// Makes `result` an environment fault when every reason it failed (`why`,
/// one a failed step) is the import of a library in `missing`: `error`,
/// `fault: "environment"`, detail `missing library: faker`.
pub fn blame_missing<'a>(
    result: &mut CandidateResult,
    missing: &[String],
    why: impl IntoIterator<Item = &'a str>,
) {
    if missing.is_empty() || result.outcome == Outcome::Pass {
        return;
    }
    let mut libs: Vec<&str> = Vec::new();
    for detail in why {
        match missing_module(detail, missing).filter(|m| missing.iter().any(|x| x == m)) {
            Some(lib) if !libs.contains(&lib) => libs.push(lib),
            Some(_) => {}
            None => return,
        }
    }
    if libs.is_empty() {
        return;
    }
    result.outcome = Outcome::Error;
    result.score = 0.0;
    result.fault = Some(Fault::Environment);
    result.detail = format!("missing library: {}", libs.join(", "));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_failures_that_all_import_a_missing_library_are_blamed_on_it() {
        let missing = vec!["faker".to_owned()];
        let failed = || {
            let mut r = CandidateResult::not_run("x", 2);
            r.outcome = Outcome::AssertionFail;
            r
        };
        let mut r = failed();
        blame_missing(
            &mut r,
            &missing,
            ["ModuleNotFoundError: No module named 'faker.providers' (test line 3)"],
        );
        assert_eq!(
            (r.outcome, r.fault),
            (Outcome::Error, Some(Fault::Environment))
        );
        assert_eq!(r.detail, "missing library: faker");
        let mut r = failed();
        blame_missing(
            &mut r,
            &missing,
            [
                "ModuleNotFoundError: No module named 'faker'",
                "AssertionError: 1 != 2",
            ],
        );
        assert_eq!((r.outcome, r.fault), (Outcome::AssertionFail, None));
        let mut r = failed();
        blame_missing(
            &mut r,
            &missing,
            ["ModuleNotFoundError: No module named 'fakr'"],
        );
        assert_eq!(r.fault, None);
    }

    #[test]
    fn an_import_error_in_the_programs_own_words_names_the_library_it_quotes() {
        let missing = vec!["numpy".to_owned()];
        let mut r = CandidateResult::not_run("x", 2);
        r.outcome = Outcome::AssertionFail;
        let why = "ImportError: The package 'numpy' is not installed! Please install the \
                   package first using 'pip install numpy' (test line 34)";
        blame_missing(&mut r, &missing, [why]);
        assert_eq!(r.detail, "missing library: numpy");
        let mut r = CandidateResult::not_run("x", 2);
        r.outcome = Outcome::AssertionFail;
        blame_missing(&mut r, &missing, ["ImportError: cannot import name 'x'"]);
        assert_eq!(r.fault, None);
    }
}

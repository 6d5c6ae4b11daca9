//! Failure causes across a run: every candidate that did not pass, grouped by
//! a signature (its outcome, the exception's type and message with literals
//! and numbers made general, or the failing assertion of its task), so that
//! "NameError: name '…' is not defined" across 18 candidates of 7 tasks reads
//! as one mistake.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::Store;
use crate::sandbox::{CandidateResult, Outcome};

/// One cause: the failures that share a signature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cause {
    /// What the failures have in common, in words.
    pub signature: String,
    /// Their outcome.
    pub outcome: Outcome,
    /// How many candidates failed this way.
    pub candidates: usize,
    /// In how many tasks.
    pub tasks: usize,
    /// The first candidate that failed this way.
    pub example: CauseExample,
}

/// A candidate, by task and sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CauseExample {
    /// Its task's id.
    pub task_id: String,
    /// Its sample index within the task.
    pub sample: usize,
}

impl Cause {
    /// The failures `causes` hold between them (each is in exactly one).
    pub fn failures(causes: &[Cause]) -> usize {
        causes.iter().map(|c| c.candidates).sum()
    }

    /// This cause's share of `failures`, in percent.
    pub fn percent_of(&self, failures: usize) -> f64 {
        100.0 * self.candidates as f64 / failures.max(1) as f64
    }
}

/// The signature of a candidate's failure, or None when it passed.
pub fn signature(task_id: &str, result: &CandidateResult) -> Option<String> {
    if result.outcome == Outcome::Pass {
        return None;
    }
    let failure = result.failure.as_ref();
    let said = match result.outcome {
        Outcome::Timeout => "timed out".to_owned(),
        Outcome::AssertionFail => match failure {
            Some(f) if f.exception.is_some() => general(f.exception.as_deref().unwrap_or("")),
            Some(f) => {
                let at = f.line.map_or(String::new(), |l| format!(" line {l}"));
                let what = f.text.as_deref().unwrap_or("an assertion");
                format!(
                    "{task_id} assertion {}{at}: {what}",
                    f.assertion.unwrap_or(1)
                )
            }
            // A run file from before failures were recorded: its detail.
            None => {
                let (n, why) = assertion_detail(&result.detail);
                if why.split(':').next().is_some_and(is_exception_name) {
                    general(why)
                } else {
                    format!("{task_id} assertion {n}: {}", general(why))
                }
            }
        },
        _ => general(
            failure
                .and_then(|f| f.exception.as_deref())
                .unwrap_or(&result.detail),
        ),
    };
    Some(format!("{}: {said}", result.outcome.as_str()))
}

/// The assertion's number and the reason of a detail `assertion N failed:
/// reason`.
fn assertion_detail(detail: &str) -> (&str, &str) {
    detail
        .strip_prefix("assertion ")
        .and_then(|rest| rest.split_once(" failed: "))
        .unwrap_or(("1", detail))
}

/// Whether `word` reads as an exception's name (`ValueError`, `StopIteration`).
fn is_exception_name(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && (word.ends_with("Error") || word.ends_with("Exception") || word.ends_with("Iteration"))
}

/// `text` with what varies between candidates made general: quoted literals
/// become '…', numbers N, and "(line N)" and "(program line N)" go.
pub fn general(text: &str) -> String {
    let text = text.trim().split(" (line ").next().unwrap_or("");
    let text = text.split(" (program line ").next().unwrap_or("");
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut last_word = false;
    while let Some(c) = chars.next() {
        if (c == '\'' || c == '"') && !last_word {
            // A quoted literal, up to its closing quote on the same text.
            let rest: String = chars.clone().collect();
            if let Some(end) = rest.find(c) {
                out.push(c);
                out.push('…');
                out.push(c);
                for _ in 0..=rest[..end].chars().count() {
                    chars.next();
                }
                last_word = false;
                continue;
            }
        }
        if c.is_ascii_digit() && !last_word {
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || *d == '.')
            {
                chars.next();
            }
            out.push('N');
            last_word = false;
            continue;
        }
        last_word = c.is_alphanumeric() || c == '_';
        out.push(c);
    }
    let mut out: String = out.chars().take(200).collect();
    if out.is_empty() {
        out = "no detail".into();
    }
    out
}

impl Store {
    /// Every failure's cause, by count (then signature); each failure is in
    /// exactly one.
    pub fn causes(&self) -> Vec<Cause> {
        let mut by: HashMap<String, (Cause, BTreeSet<usize>)> = HashMap::new();
        for c in &self.candidates {
            let Some(r) = &c.result else { continue };
            let task_id = self.task_id(c);
            let Some(signature) = signature(task_id, r) else {
                continue;
            };
            let entry = by.entry(signature.clone()).or_insert_with(|| {
                let cause = Cause {
                    signature,
                    outcome: r.outcome,
                    candidates: 0,
                    tasks: 0,
                    example: CauseExample {
                        task_id: task_id.to_owned(),
                        sample: c.sample,
                    },
                };
                (cause, BTreeSet::new())
            });
            entry.0.candidates += 1;
            entry.1.insert(c.task);
        }
        let mut causes: Vec<Cause> = by
            .into_values()
            .map(|(mut cause, tasks)| {
                cause.tasks = tasks.len();
                cause
            })
            .collect();
        causes.sort_by(|a, b| {
            b.candidates
                .cmp(&a.candidates)
                .then_with(|| a.signature.cmp(&b.signature))
        });
        causes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_numbers_and_lines_are_made_general() {
        assert_eq!(
            general("NameError: name 'foo' is not defined (line 12)"),
            "NameError: name '…' is not defined"
        );
        assert_eq!(
            general("IndexError: list index out of range (program line 4)"),
            "IndexError: list index out of range"
        );
        assert_eq!(
            general("ValueError: invalid literal for int() with base 10: \"x1\""),
            "ValueError: invalid literal for int() with base N: \"…\""
        );
        assert_eq!(
            general("TypeError: f() takes 2 positional arguments but 3.5 were given"),
            "TypeError: f() takes N positional arguments but N were given"
        );
        assert_eq!(general("log10 of x2"), "log10 of x2");
        assert_eq!(general("it's"), "it's");
        assert_eq!(
            assertion_detail("assertion 2 failed: expression is false"),
            ("2", "expression is false")
        );
        assert!(
            is_exception_name("ZeroDivisionError") && !is_exception_name("expression is false")
        );
        assert_eq!(
            general("TypeError: can't multiply sequence by non-int of type 'float'"),
            "TypeError: can't multiply sequence by non-int of type '…'"
        );
    }
}

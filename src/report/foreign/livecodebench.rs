//! LiveCodeBench's `<scenario>_eval_all.json`: a list of problems, each with
//! its question fields and per sample `output_list` (the generation),
//! `code_list` (the program it extracted), `graded_list` (pass or not) and
//! `metadata` (a JSON string: `error_code` -1 compilation error, -2 wrong
//! answer, -3 time limit exceeded, -4 runtime error, -5 a fault of its test
//! runner, with `error_message`, `inputs`, `expected`, `output`).

use serde_json::Value;

use super::{Layout, Verdict};
use crate::sandbox::{Fault, Outcome};

const LAYOUT: Layout = Layout {
    harness: "livecodebench",
    layout: "eval_all.json",
    unknown: &[],
};

/// Whether `first`, the first item of a JSON list, is a LiveCodeBench record.
pub(super) fn looks_like(first: &Value) -> bool {
    ["question_id", "graded_list", "code_list"]
        .iter()
        .all(|k| first.get(k).is_some())
}

pub(super) fn read(value: &Value) -> Result<(Layout, Vec<Verdict>), String> {
    let problems = value.as_array().ok_or("not a list of problems")?;
    let mut verdicts = Vec::new();
    for (p, problem) in problems.iter().enumerate() {
        let at = format!("item {}", p + 1);
        let task_id = super::text(problem, &at, "question_id")?;
        let list = |key: &str| {
            problem[key]
                .as_array()
                .ok_or_else(|| format!("{at}: field `{key}`: missing or not a list"))
        };
        let graded = list("graded_list")?;
        let (codes, outputs) = (list("code_list")?, problem["output_list"].as_array());
        let metadata = problem["metadata"].as_array();
        for (i, grade) in graded.iter().enumerate() {
            let at = format!("{at}: sample {i}");
            let passed = grade
                .as_bool()
                .ok_or_else(|| format!("{at}: field `graded_list`: not true or false"))?;
            let meta = metadata
                .and_then(|m| m.get(i))
                .and_then(Value::as_str)
                .and_then(|m| serde_json::from_str::<Value>(m).ok())
                .unwrap_or(Value::Null);
            let mut v = if passed {
                Verdict::new(task_id, Outcome::Pass, String::new())
            } else {
                failure(task_id, &meta)
            };
            v.code = codes
                .get(i)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            v.generation = outputs
                .and_then(|o| o.get(i))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            verdicts.push(v);
        }
    }
    Ok((LAYOUT, verdicts))
}

/// A failed sample's outcome by its `error_code`, and its detail: the message,
/// then the failing test's input, expected and actual output where recorded.
fn failure(task_id: &str, meta: &Value) -> Verdict {
    let code = meta["error_code"].as_i64();
    let outcome = match code {
        Some(-1) => Outcome::SyntaxError,
        Some(-3) => Outcome::Timeout,
        Some(-4) | Some(-5) => Outcome::Error,
        // -2, wrong answer; or a failure it did not explain.
        _ => Outcome::AssertionFail,
    };
    let field = |k: &str| match &meta[k] {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    };
    let mut parts = Vec::new();
    if let Some(message) = field("error_message") {
        parts.push(message);
    }
    if let Some(error) = field("error") {
        parts.push(error);
    }
    for key in ["inputs", "expected", "output"] {
        if let Some(value) = field(key) {
            parts.push(format!("{key} {}", super::clip(&value, 120)));
        }
    }
    let detail = if parts.is_empty() {
        "failed".to_owned()
    } else {
        parts.join("; ")
    };
    let mut v = Verdict::new(task_id, outcome, super::clip(&detail, 600));
    v.fault = (code == Some(-5)).then_some(Fault::Harness);
    v
}

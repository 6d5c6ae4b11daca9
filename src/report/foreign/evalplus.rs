//! evalplus's `eval_results.json`: `{date, hash, eval}`. In the 0.3 layout
//! (since February 2024) `eval` maps each task to one record per sample,
//! `{task_id, solution, base_status, plus_status, base_fail_tests,
//! plus_fail_tests}`, statuses `pass`, `fail` or `timed out`; in the older one
//! to `{nfiles, base: [[status, marks]], plus: [[status, marks]]}`, statuses
//! `success`, `failed` or `timed out`. Samples are in each task's
//! completion order.
//!
//! Two verdicts per sample, as evalplus reports them: the base tests alone
//! (its "humaneval", kept as `base`) and base + plus (its "humaneval+", the
//! outcome): a pass needs both.

use serde_json::Value;

use super::{Layout, Verdict};
use crate::sandbox::Outcome;

/// Whether `value` (an object with `eval`) is evalplus's, not bigcodebench's
/// (whose records have `status`, not `base_status`).
pub(super) fn looks_like(value: &Value) -> bool {
    let first = value["eval"].as_object().and_then(|m| m.values().next());
    match first {
        Some(Value::Array(records)) => records
            .first()
            .is_some_and(|r| r.get("base_status").is_some()),
        Some(Value::Object(task)) => task.contains_key("base"),
        _ => false,
    }
}

pub(super) fn read(value: &Value) -> Result<(Layout, Vec<Verdict>), String> {
    let tasks = value["eval"]
        .as_object()
        .ok_or("field `eval`: not an object of tasks")?;
    let mut verdicts = Vec::new();
    let mut old = false;
    for (task_id, task) in tasks {
        let at = format!("eval[{task_id:?}]");
        match task {
            Value::Array(records) => {
                for (i, record) in records.iter().enumerate() {
                    verdicts.push(record_verdict(task_id, &format!("{at}[{i}]"), record)?);
                }
            }
            Value::Object(_) => {
                old = true;
                verdicts.extend(old_verdicts(task_id, &at, task)?);
            }
            _ => return Err(format!("{at}: neither a list of samples nor an object")),
        }
    }
    let layout = if old {
        Layout {
            harness: "evalplus",
            layout: "eval_results.json (before 0.3)",
            unknown: &["program", "exception type"],
        }
    } else {
        Layout {
            harness: "evalplus",
            layout: "eval_results.json (0.3)",
            unknown: &["exception type"],
        }
    };
    Ok((layout, verdicts))
}

/// A status word of either layout; `None` for a verdict not made (`null`,
/// `--base-only`'s plus).
fn status(value: &Value, at: &str) -> Result<Option<Outcome>, String> {
    Ok(match value {
        Value::Null => None,
        Value::String(s) => Some(match s.as_str() {
            "pass" | "success" => Outcome::Pass,
            "fail" | "failed" => Outcome::AssertionFail,
            "timeout" | "timed out" => Outcome::Timeout,
            other => return Err(format!("{at}: {other:?} is none of pass, fail, timed out")),
        }),
        _ => return Err(format!("{at}: not a status string")),
    })
}

/// base + plus: a pass only when both pass; otherwise the base verdict when
/// it failed, else the plus one.
fn combined(base: Outcome, plus: Option<Outcome>) -> Outcome {
    match (base, plus) {
        (Outcome::Pass, Some(plus)) => plus,
        (base, _) => base,
    }
}

fn record_verdict(task_id: &str, at: &str, record: &Value) -> Result<Verdict, String> {
    let base = status(
        &record["base_status"],
        &format!("{at}: field `base_status`"),
    )?
    .ok_or_else(|| format!("{at}: field `base_status`: missing"))?;
    let plus = status(
        &record["plus_status"],
        &format!("{at}: field `plus_status`"),
    )?;
    let outcome = combined(base, plus);
    let detail = if base != Outcome::Pass {
        failing("base", &record["base_fail_tests"], base)
    } else if outcome != Outcome::Pass {
        failing("plus", &record["plus_fail_tests"], outcome)
    } else {
        String::new()
    };
    let mut v = Verdict::new(task_id, outcome, detail);
    v.code = record["solution"].as_str().unwrap_or_default().to_owned();
    v.base = Some(base);
    Ok(v)
}

/// "fails base input ['three']": the inputs evalplus recorded (a list, or
/// the list written as a string).
fn failing(which: &str, tests: &Value, outcome: Outcome) -> String {
    if outcome == Outcome::Timeout {
        return format!("timed out on the {which} inputs");
    }
    let inputs = match tests {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    match inputs.as_str() {
        "" | "[]" => format!("fails the {which} inputs"),
        inputs => format!("fails {which} input {}", super::clip(inputs, 300)),
    }
}

fn old_verdicts(task_id: &str, at: &str, task: &Value) -> Result<Vec<Verdict>, String> {
    let statuses = |key: &str| -> Result<Vec<Option<Outcome>>, String> {
        match &task[key] {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| status(&item[0], &format!("{at}.{key}[{i}][0]")))
                .collect(),
            Value::Null => Ok(Vec::new()),
            _ => Err(format!("{at}: field `{key}`: not a list")),
        }
    };
    let (base, plus) = (statuses("base")?, statuses("plus")?);
    base.into_iter()
        .enumerate()
        .map(|(i, b)| {
            let b = b.ok_or_else(|| format!("{at}.base[{i}]: no verdict"))?;
            let outcome = combined(b, plus.get(i).copied().flatten());
            let which = if b != Outcome::Pass { "base" } else { "plus" };
            let detail = failing(which, &Value::Null, outcome);
            let mut v = Verdict::new(
                task_id,
                outcome,
                if outcome == Outcome::Pass {
                    String::new()
                } else {
                    detail
                },
            );
            v.base = Some(b);
            Ok(v)
        })
        .collect()
}

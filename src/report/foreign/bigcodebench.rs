//! bigcodebench's `<samples>_eval_results.json`: `{date, eval}`, `eval`
//! mapping each task to one record per sample, `{task_id, solution, status,
//! details}`; `status` is `pass`, `fail` or `timeout`, and `details` maps each
//! failing test method to its traceback, or `ALL` to why the test module did
//! not run at all (a missing library, an error at import).

use serde_json::Value;

use super::{Layout, Verdict};
use crate::sandbox::Outcome;

const LAYOUT: Layout = Layout {
    harness: "bigcodebench",
    layout: "eval_results.json",
    unknown: &[],
};

pub(super) fn read(value: &Value) -> Result<(Layout, Vec<Verdict>), String> {
    let tasks = value["eval"]
        .as_object()
        .ok_or("field `eval`: not an object of tasks")?;
    let mut verdicts = Vec::new();
    for (task_id, records) in tasks {
        let at = format!("eval[{task_id:?}]");
        let records = records
            .as_array()
            .ok_or_else(|| format!("{at}: not a list of samples"))?;
        for (i, record) in records.iter().enumerate() {
            verdicts.push(verdict(task_id, &format!("{at}[{i}]"), record)?);
        }
    }
    Ok((LAYOUT, verdicts))
}

fn verdict(task_id: &str, at: &str, record: &Value) -> Result<Verdict, String> {
    let status = super::text(record, at, "status")?;
    let details = record["details"].as_object();
    let whole = details.and_then(|d| d.get("ALL")).and_then(Value::as_str);
    let (outcome, detail) = match (status, whole) {
        ("pass", _) => (Outcome::Pass, String::new()),
        ("timeout", _) => (Outcome::Timeout, "timed out".to_owned()),
        // The test module itself failed: no test ran.
        ("fail", Some(why)) => (Outcome::Error, super::clip(super::last_line(why), 300)),
        ("fail", None) => (Outcome::AssertionFail, failed_methods(details)),
        (other, _) => {
            return Err(format!(
                "{at}: field `status`: {other:?} is none of pass, fail, timeout"
            ));
        }
    };
    let mut v = Verdict::new(task_id, outcome, detail);
    v.code = record["solution"].as_str().unwrap_or_default().to_owned();
    Ok(v)
}

/// "test_case_1: AssertionError: 3 != 4 (and 2 more)".
fn failed_methods(details: Option<&serde_json::Map<String, Value>>) -> String {
    let Some((method, traceback)) = details.and_then(|d| d.iter().next()) else {
        return "a test failed".to_owned();
    };
    let line = super::last_line(traceback.as_str().unwrap_or_default());
    let more = details.map_or(0, |d| d.len() - 1);
    let more = if more > 0 {
        format!(" (and {more} more)")
    } else {
        String::new()
    };
    format!("{method}: {}{more}", super::clip(line, 300))
}

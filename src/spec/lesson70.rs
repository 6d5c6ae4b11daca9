//! The lesson-70 task reader and its strict validator: one error per bad line
//! (line, rule, field); every other line still loads.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::{ProgramStyle, SkippedTask, Task, TaskSet};
use crate::input::{self, InputError};
use crate::plan::Tests;
use crate::postprocess::PostProcess;

const FIELDS: [&str; 8] = [
    "task_id",
    "category",
    "prompt",
    "targets",
    "metric_name",
    "post_process",
    "few_shot_examples",
    "metadata",
];
const CATEGORIES: [&str; 5] = [
    "arithmetic",
    "mcq",
    "code_exec",
    "classification",
    "summary",
];
const METRICS: [&str; 6] = [
    "exact_match",
    "f1",
    "bleu_4",
    "rouge_l",
    "accuracy",
    "code_exec",
];
const MAX_FEW_SHOT: usize = 8;
/// Per-task timeouts above this many seconds are capped to it.
pub const MAX_TIMEOUT_S: f64 = crate::sandbox::MAX_TIMEOUT.as_secs_f64();

pub(super) fn read(path: &Path, text: &str, set: &mut TaskSet) {
    let mut seen = HashMap::new();
    for (line, raw) in input::jsonl_lines(text) {
        match validate(path, line, raw, &mut seen) {
            Ok(Record::Executable(task)) => set.tasks.push(task),
            Ok(Record::Skipped(skipped)) => set.skipped.push(skipped),
            Err(e) => set.errors.push(e),
        }
    }
}

enum Record {
    Executable(Task),
    Skipped(SkippedTask),
}

fn validate(
    path: &Path,
    line: usize,
    raw: &str,
    seen: &mut HashMap<String, usize>,
) -> Result<Record, InputError> {
    let err =
        |field: &str, rule: &str, msg: String| InputError::at(path, line, Some(field), rule, msg);
    let obj = input::parse_object(path, line, raw)?;
    if let Some(unknown) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(err(
            unknown,
            "unknown_field",
            format!("unknown field (allowed: {})", FIELDS.join(", ")),
        ));
    }

    let task_id = super::req_str(path, line, &obj, "task_id")?;
    if task_id.is_empty() || task_id.chars().any(char::is_whitespace) {
        return Err(err(
            "task_id",
            "task_id_format",
            format!("task_id {task_id:?} must be non-empty and contain no whitespace"),
        ));
    }

    let category = super::req_str(path, line, &obj, "category")?;
    one_of("category", &category, &CATEGORIES).map_err(|m| err("category", "enum", m))?;

    let prompt = super::req_str(path, line, &obj, "prompt")?;
    if prompt.trim().is_empty() {
        return Err(err(
            "prompt",
            "prompt_empty",
            "prompt must not be empty".into(),
        ));
    }
    if prompt.ends_with(char::is_whitespace) {
        return Err(err(
            "prompt",
            "prompt_trailing_whitespace",
            "prompt must not end with whitespace (it changes tokenisation)".into(),
        ));
    }

    let targets = super::req_str_list(path, line, &obj, "targets")?;
    if targets.is_empty() {
        return Err(err(
            "targets",
            "targets_empty",
            "targets must be a non-empty list".into(),
        ));
    }

    let metric = super::req_str(path, line, &obj, "metric_name")?;
    one_of("metric_name", &metric, &METRICS).map_err(|m| err("metric_name", "enum", m))?;

    let rule = super::req_str(path, line, &obj, "post_process")?;
    let post_process = PostProcess::parse(&rule).ok_or_else(|| {
        err(
            "post_process",
            "enum",
            format!(
                "unknown post_process {rule:?} (allowed: {})",
                PostProcess::NAMES.join(", ")
            ),
        )
    })?;

    if let Some(shots) = obj.get("few_shot_examples") {
        check_few_shot(shots).map_err(|(field, rule, msg)| err(&field, rule, msg))?;
    }

    let timeout_s = match obj.get("metadata") {
        None => None,
        Some(meta) => metadata_timeout(meta).map_err(|(field, rule, msg)| err(field, rule, msg))?,
    };

    if category == "code_exec" && metric != "code_exec" {
        return Err(err(
            "metric_name",
            "code_exec_metric",
            format!("a code_exec task must use metric_name \"code_exec\", not {metric:?}"),
        ));
    }
    if category == "mcq" && targets.len() != 1 {
        return Err(err(
            "targets",
            "mcq_one_target",
            format!(
                "an mcq task has exactly one target, found {}",
                targets.len()
            ),
        ));
    }
    super::check_unique(path, line, &task_id, seen)?;

    if category != "code_exec" {
        return Ok(Record::Skipped(SkippedTask { task_id, category }));
    }
    Ok(Record::Executable(Task {
        id: task_id,
        prompt,
        style: ProgramStyle::Whole,
        setup: String::new(),
        assertions: targets,
        post_process,
        timeout_s,
        reference: None,
        tests: Tests::Assertions,
    }))
}

fn one_of(field: &str, value: &str, allowed: &[&str]) -> Result<(), String> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "unknown {field} {value:?} (allowed: {})",
            allowed.join(", ")
        ))
    }
}

type FieldError = (String, &'static str, String);

fn check_few_shot(shots: &Value) -> Result<(), FieldError> {
    let field = "few_shot_examples";
    let Value::Array(items) = shots else {
        return Err((
            field.into(),
            "type",
            format!("expected a list, found {}", input::json_kind(shots)),
        ));
    };
    if items.len() > MAX_FEW_SHOT {
        return Err((
            field.into(),
            "few_shot_max",
            format!(
                "at most {MAX_FEW_SHOT} few-shot examples, found {}",
                items.len()
            ),
        ));
    }
    for (i, item) in items.iter().enumerate() {
        let ok = matches!(item, Value::Object(m)
            if m.len() == 2
                && matches!(m.get("prompt"), Some(Value::String(_)))
                && matches!(m.get("completion"), Some(Value::String(_))));
        if !ok {
            return Err((
                format!("{field}[{i}]"),
                "few_shot_shape",
                "each few-shot example is {\"prompt\": string, \"completion\": string}".into(),
            ));
        }
    }
    Ok(())
}

fn metadata_timeout(meta: &Value) -> Result<Option<f64>, (&'static str, &'static str, String)> {
    let Value::Object(map) = meta else {
        return Err((
            "metadata",
            "type",
            format!("expected an object, found {}", input::json_kind(meta)),
        ));
    };
    timeout_from(map)
}

fn timeout_from(
    map: &Map<String, Value>,
) -> Result<Option<f64>, (&'static str, &'static str, String)> {
    match map.get("timeout_s") {
        None => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(t) if t > 0.0 && t.is_finite() => Ok(Some(t.min(MAX_TIMEOUT_S))),
            _ => Err((
                "metadata.timeout_s",
                "timeout_positive",
                format!("timeout_s must be a positive number of seconds, found {n}"),
            )),
        },
        Some(other) => Err((
            "metadata.timeout_s",
            "timeout_positive",
            format!(
                "timeout_s must be a positive number of seconds, found {}",
                input::json_kind(other)
            ),
        )),
    }
}

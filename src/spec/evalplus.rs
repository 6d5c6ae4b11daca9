//! The HumanEval+ reader (evalplus: HumanEval's fields plus `base_input`,
//! `plus_input`, `atol` and `contract`). Each input is a test
//! ([`super::io_tests`]); the program is built as HumanEval's. `contract` (the
//! input-validity asserts) is read past, as evalplus 0.3.1's evaluation does.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde_json::value::RawValue;

use super::io_tests::{IoGroup, IoTests, json_as_python};
use super::{Task, TaskSet};
use crate::input::{self, InputError};

/// Most characters of one test's text as shown (a call with its arguments).
const SHOWN_MAX: usize = 1000;

pub(super) fn read(path: &Path, text: &str, set: &mut TaskSet) {
    let mut seen = HashMap::new();
    for (line, raw) in input::jsonl_lines(text) {
        match record(path, line, raw, &mut seen) {
            Ok(task) => set.tasks.push(task),
            Err(e) => set.errors.push(e),
        }
    }
}

/// The fields read as written (the inputs hold integers of any size).
#[derive(serde::Deserialize)]
struct Raw<'a> {
    #[serde(borrow)]
    base_input: Option<&'a RawValue>,
    #[serde(borrow)]
    plus_input: Option<&'a RawValue>,
    #[serde(borrow)]
    atol: Option<&'a RawValue>,
}

fn record(
    path: &Path,
    line: usize,
    raw: &str,
    seen: &mut HashMap<String, usize>,
) -> Result<Task, InputError> {
    let mut task = super::humaneval::record(path, line, raw, seen)?;
    let fields: Raw = serde_json::from_str(raw)
        .map_err(|e| InputError::at(path, line, None, "json", format!("not valid JSON: {e}")))?;
    let entry_point = match &task.style {
        super::ProgramStyle::Completion { entry_point, .. } => entry_point.clone(),
        super::ProgramStyle::Whole | super::ProgramStyle::Calibrated { .. } => String::new(),
    };
    let atol = match fields.atol {
        None => "0".to_owned(),
        Some(v) => match serde_json::from_str::<f64>(v.get()) {
            Ok(x) if x.is_finite() && x >= 0.0 => v.get().to_owned(),
            _ => {
                return Err(InputError::at(
                    path,
                    line,
                    Some("atol"),
                    "type",
                    format!("expected a number at least 0, found {}", v.get()),
                ));
            }
        },
    };
    let mut groups = Vec::new();
    let mut assertions = Vec::new();
    for (name, value) in [("base", fields.base_input), ("plus", fields.plus_input)] {
        let field = format!("{name}_input");
        let Some(value) = value else {
            return Err(InputError::at(
                path,
                line,
                Some(&field),
                "required",
                "missing required field",
            ));
        };
        let inputs = argument_lists(path, line, &field, value)?;
        for (i, args) in inputs.iter().enumerate() {
            let call: Vec<String> = args.iter().map(|a| json_as_python(a.get())).collect();
            assertions.push(shown(&format!(
                "{name} input {}: {entry_point}({})",
                i + 1,
                call.join(", ")
            )));
        }
        groups.push(IoGroup {
            name: name.to_owned(),
            inputs: value.get().to_owned(),
            count: inputs.len(),
        });
    }
    task.assertions = assertions;
    task.tests = crate::plan::Tests::Inputs(Arc::new(IoTests {
        entry_point,
        atol,
        groups,
        expected: OnceLock::new(),
        recording: Default::default(),
    }));
    Ok(task)
}

/// A list of argument lists, or the error naming the bad item.
fn argument_lists<'a>(
    path: &Path,
    line: usize,
    field: &str,
    value: &'a RawValue,
) -> Result<Vec<Vec<&'a RawValue>>, InputError> {
    let items: Vec<&RawValue> = serde_json::from_str(value.get()).map_err(|_| {
        InputError::at(
            path,
            line,
            Some(field),
            "type",
            "expected a list of inputs, each a list of arguments",
        )
    })?;
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_str(item.get()).map_err(|_| {
                InputError::at(
                    path,
                    line,
                    Some(&format!("{field}[{i}]")),
                    "type",
                    "expected a list of arguments",
                )
            })
        })
        .collect()
}

/// `text` cut to [`SHOWN_MAX`] characters, its middle left out.
fn shown(text: &str) -> String {
    let count = text.chars().count();
    if count <= SHOWN_MAX {
        return text.to_owned();
    }
    let half = SHOWN_MAX / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!("{head} … {tail}")
}

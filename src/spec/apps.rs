//! The APPS/TACO reader (`question`, `starter_code`, `solutions` and
//! `input_output`, a JSON string of `{inputs, outputs, fn_name}`). Each input
//! is a test ([`super::stdio_tests`]), graded by LiveCodeBench's rules, which
//! grew out of APPS's: stdin programs when there is no `fn_name`, calls of
//! it otherwise (arguments as a JSON list; the expected output may be
//! wrapped in a list of one, as APPS writes it). The id is `problem_id`
//! (APPS), `task_id`, or the record's place in the file from 0 (TACO has no
//! id).

use std::collections::HashMap;
use std::path::Path;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::stdio_tests::{self, Mode, StdioTests};
use super::{Task, TaskSet};
use crate::input::{self, InputError};

/// Most characters of one test's text as shown.
const SHOWN_MAX: usize = 200;

pub(super) fn read(path: &Path, text: &str, set: &mut TaskSet) {
    let mut seen = HashMap::new();
    for (index, (line, raw)) in input::jsonl_lines(text).enumerate() {
        match record(path, line, index, raw, &mut seen) {
            Ok(task) => set.tasks.push(task),
            Err(e) => set.errors.push(e),
        }
    }
}

/// `input_output` as written (inputs of calls keep integers of any size).
#[derive(serde::Deserialize)]
struct InOut<'a> {
    #[serde(borrow)]
    inputs: Vec<&'a RawValue>,
    #[serde(borrow)]
    outputs: Vec<&'a RawValue>,
    #[serde(default)]
    fn_name: Option<String>,
}

fn record(
    path: &Path,
    line: usize,
    index: usize,
    raw: &str,
    seen: &mut HashMap<String, usize>,
) -> Result<Task, InputError> {
    let err = |field: &str, rule: &str, message: String| {
        InputError::at(path, line, Some(field), rule, message)
    };
    let obj = input::parse_object(path, line, raw)?;
    let id = match obj.get("problem_id").or_else(|| obj.get("task_id")) {
        Some(v) => input::id_from_value(v).ok_or_else(|| {
            err(
                "problem_id",
                "type",
                format!(
                    "expected a string or an integer, found {}",
                    input::json_kind(v)
                ),
            )
        })?,
        None => index.to_string(),
    };
    let question = super::req_str(path, line, &obj, "question")?;
    let starter = match obj.get("starter_code") {
        None | Some(Value::Null) => String::new(),
        Some(_) => super::req_str(path, line, &obj, "starter_code")?,
    };
    let io_text = super::req_str(path, line, &obj, "input_output")?;
    let io: InOut = serde_json::from_str(&io_text).map_err(|e| {
        err(
            "input_output",
            "json",
            format!("expected a JSON object {{inputs, outputs, fn_name}} in the string: {e}"),
        )
    })?;
    if io.inputs.len() != io.outputs.len() {
        return Err(err(
            "input_output",
            "format",
            format!(
                "{} inputs but {} outputs",
                io.inputs.len(),
                io.outputs.len()
            ),
        ));
    }
    if io.inputs.is_empty() {
        return Err(err(
            "input_output.inputs",
            "required",
            "the problem has no test".into(),
        ));
    }
    let func_name = io.fn_name.filter(|f| !f.trim().is_empty());
    let mode = if func_name.is_some() {
        Mode::Call
    } else {
        Mode::Stdin
    };
    let mut tests = Vec::with_capacity(io.inputs.len());
    let mut assertions = Vec::with_capacity(io.inputs.len());
    for (i, (input, output)) in io.inputs.iter().zip(&io.outputs).enumerate() {
        let place = |what: &str| format!("input_output.{what}[{i}]");
        let (test, shown) = match &func_name {
            Some(f) => {
                let args: Vec<&RawValue> = serde_json::from_str(input.get()).map_err(|_| {
                    err(
                        &place("inputs"),
                        "type",
                        "expected a list of arguments".into(),
                    )
                })?;
                for (what, json) in [("inputs", input.get()), ("outputs", output.get())] {
                    stdio_tests::python_can_read(json)
                        .map_err(|why| err(&place(what), "format", why))?;
                }
                let call: Vec<&str> = args.iter().map(|a| a.get()).collect();
                let test = format!(
                    "{{\"args\": {}, \"expected\": {}}}",
                    input.get(),
                    output.get()
                );
                (test, format!("{f}({})", call.join(", ")))
            }
            None => {
                let input_text = lines(input).ok_or_else(|| {
                    err(
                        &place("inputs"),
                        "type",
                        "expected a string or a list of strings".into(),
                    )
                })?;
                let output_text = lines(output).ok_or_else(|| {
                    err(
                        &place("outputs"),
                        "type",
                        "expected a string or a list of strings".into(),
                    )
                })?;
                let mut test = Map::new();
                test.insert("input".into(), Value::from(input_text.as_str()));
                test.insert("output".into(), Value::from(output_text));
                (
                    Value::Object(test).to_string(),
                    format!("stdin {input_text:?}"),
                )
            }
        };
        tests.push(test);
        assertions.push(stdio_tests::shown(
            &format!("test {}: {shown}", i + 1),
            SHOWN_MAX,
        ));
    }
    let reference = solution(&obj);
    super::check_unique(path, line, &id, seen)?;
    let count = tests.len();
    let stdio = StdioTests {
        mode,
        func_name,
        apps: true,
        tests: format!("[{}]", tests.join(", ")),
        count,
        test_timeout_s: stdio_tests::TEST_TIMEOUT_S,
    };
    Ok(stdio_tests::task(
        id, question, &starter, assertions, reference, stdio,
    ))
}

/// A string, or a list of strings joined by newlines (as LiveCodeBench's
/// `call_method` joins a list input).
fn lines(value: &RawValue) -> Option<String> {
    match serde_json::from_str::<Value>(value.get()).ok()? {
        Value::String(s) => Some(s),
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str())
            .collect::<Option<Vec<&str>>>()
            .map(|l| l.join("\n")),
        _ => None,
    }
}

/// The first of `solutions` (a JSON string of a list of programs), if any.
fn solution(obj: &Map<String, Value>) -> Option<String> {
    let Some(Value::String(text)) = obj.get("solutions") else {
        return None;
    };
    let list: Vec<String> = serde_json::from_str(text).ok()?;
    list.into_iter().next()
}

//! The LiveCodeBench code-generation reader (`question_id, question_content,
//! starter_code, public_test_cases, private_test_cases, metadata`, as
//! `lcb_runner/benchmarks/code_generation.py` reads them). Each public then
//! private test case is an assertion ([`super::stdio_tests`]); the tests are
//! calls of `metadata.func_name` when the metadata names one, stdin programs
//! otherwise, as `get_evaluation_sample` decides. `private_test_cases` is a
//! JSON string or base64 + zlib + pickle of one ([`super::pickled`]).

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::stdio_tests::{self, Mode, StdioTests};
use super::{Task, TaskSet};
use crate::input::{self, InputError};

/// Most characters of one test's text as shown.
const SHOWN_MAX: usize = 200;

pub(super) fn read(path: &Path, text: &str, set: &mut TaskSet) {
    let mut seen = HashMap::new();
    let mut budget = super::pickled::file_budget(text.len());
    for (line, raw) in input::jsonl_lines(text) {
        match record(path, line, raw, &mut seen, &mut budget) {
            Ok(task) => set.tasks.push(task),
            Err(e) => set.errors.push(e),
        }
    }
}

/// One test case as the file has it.
struct Case {
    input: String,
    output: String,
    testtype: String,
}

fn record(
    path: &Path,
    line: usize,
    raw: &str,
    seen: &mut HashMap<String, usize>,
    budget: &mut u64,
) -> Result<Task, InputError> {
    let err = |field: &str, rule: &str, message: String| {
        InputError::at(path, line, Some(field), rule, message)
    };
    let obj = input::parse_object(path, line, raw)?;
    let id = match obj.get("question_id") {
        Some(v) => input::id_from_value(v).ok_or_else(|| {
            err(
                "question_id",
                "type",
                format!("expected a string, found {}", input::json_kind(v)),
            )
        })?,
        None => input::task_id_field(path, line, &obj)
            .map_err(|_| err("question_id", "required", "missing required field".into()))?,
    };
    let content = super::req_str(path, line, &obj, "question_content")?;
    let starter = match obj.get("starter_code") {
        None | Some(Value::Null) => String::new(),
        Some(_) => super::req_str(path, line, &obj, "starter_code")?,
    };
    let func_name = func_name(path, line, &obj)?;
    let public = super::req_str(path, line, &obj, "public_test_cases")?;
    let public = cases(path, line, "public_test_cases", &public)?;
    let private_text = super::req_str(path, line, &obj, "private_test_cases")?;
    let private = if serde_json::from_str::<Value>(&private_text).is_ok() {
        private_text
    } else {
        super::pickled::decode_within(private_text.trim(), budget).map_err(|why| {
            err(
                "private_test_cases",
                "format",
                format!("neither JSON nor base64 + zlib + pickle of a JSON string: {why}"),
            )
        })?
    };
    let private = cases(path, line, "private_test_cases", &private)?;
    let mode = if func_name.is_some() {
        Mode::Call
    } else {
        Mode::Stdin
    };
    let mut tests = Vec::new();
    let mut assertions = Vec::new();
    for (group, list) in [("public", &public), ("private", &private)] {
        let field = format!("{group}_test_cases");
        for (i, case) in list.iter().enumerate() {
            let place = format!("{field}[{i}]");
            if case.testtype == "functional" && mode == Mode::Stdin {
                return Err(err(
                    &format!("{place}.testtype"),
                    "format",
                    "a functional test needs `func_name` in the metadata".into(),
                ));
            }
            if mode == Mode::Call {
                check_call(&case.input, &case.output).map_err(|why| err(&place, "format", why))?;
            }
            let shown_input = match &func_name {
                Some(f) => format!("{f}({})", case.input.replace('\n', ", ")),
                None => format!("stdin {:?}", case.input),
            };
            assertions.push(stdio_tests::shown(
                &format!("{group} test {}: {shown_input}", i + 1),
                SHOWN_MAX,
            ));
            let mut test = Map::new();
            test.insert("input".into(), Value::from(case.input.as_str()));
            test.insert("output".into(), Value::from(case.output.as_str()));
            tests.push(Value::Object(test));
        }
    }
    if tests.is_empty() {
        return Err(err(
            "public_test_cases",
            "required",
            "the problem has no test case".into(),
        ));
    }
    super::check_unique(path, line, &id, seen)?;
    let count = tests.len();
    let stdio = StdioTests {
        mode,
        func_name,
        apps: false,
        tests: Value::Array(tests).to_string(),
        count,
        test_timeout_s: stdio_tests::TEST_TIMEOUT_S,
    };
    Ok(stdio_tests::task(
        id, content, &starter, assertions, None, stdio,
    ))
}

/// `metadata` (a JSON string of an object, or an object) and its
/// `func_name`, if it names one.
fn func_name(
    path: &Path,
    line: usize,
    obj: &Map<String, Value>,
) -> Result<Option<String>, InputError> {
    let err = |message: String| InputError::at(path, line, Some("metadata"), "type", message);
    let meta = match obj.get("metadata") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => serde_json::from_str::<Value>(s)
            .map_err(|e| err(format!("expected a JSON object in the string: {e}")))?,
        Some(other) => other.clone(),
    };
    let Value::Object(meta) = meta else {
        return Err(err(format!(
            "expected a JSON object, found {}",
            input::json_kind(&meta)
        )));
    };
    match meta.get("func_name") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
        Some(other) => Err(InputError::at(
            path,
            line,
            Some("metadata.func_name"),
            "type",
            format!("expected a function's name, found {other}"),
        )),
    }
}

/// The test cases of `text`: a JSON list of `{input, output, testtype}`.
fn cases(path: &Path, line: usize, field: &str, text: &str) -> Result<Vec<Case>, InputError> {
    let err = |at: String, rule: &str, message: String| {
        InputError::at(path, line, Some(&at), rule, message)
    };
    let items: Vec<Value> = serde_json::from_str(text).map_err(|e| {
        err(
            field.to_owned(),
            "json",
            format!("expected a JSON list of test cases: {e}"),
        )
    })?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let place = format!("{field}[{i}]");
        let Value::Object(case) = item else {
            return Err(err(
                place,
                "type",
                format!(
                    "expected an object {{input, output, testtype}}, found {}",
                    input::json_kind(item)
                ),
            ));
        };
        let text_of = |key: &str| match case.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            None => Err(err(
                format!("{place}.{key}"),
                "required",
                "missing required field".into(),
            )),
            Some(other) => Err(err(
                format!("{place}.{key}"),
                "type",
                format!("expected a string, found {}", input::json_kind(other)),
            )),
        };
        let testtype = text_of("testtype")?;
        if testtype != "stdin" && testtype != "functional" {
            return Err(err(
                format!("{place}.testtype"),
                "value",
                format!("expected \"stdin\" or \"functional\", found {testtype:?}"),
            ));
        }
        out.push(Case {
            input: text_of("input")?,
            output: text_of("output")?,
            testtype,
        });
    }
    Ok(out)
}

/// A call's test: every line of the input is one argument's JSON, and the
/// output is JSON (LiveCodeBench's `grade_call_based` reads them so).
fn check_call(input: &str, output: &str) -> Result<(), String> {
    for (i, arg) in input.split('\n').enumerate() {
        serde_json::from_str::<serde::de::IgnoredAny>(arg)
            .map_err(|e| format!("line {} of the input is not JSON: {e}", i + 1))?;
        stdio_tests::python_can_read(arg)
            .map_err(|why| format!("line {} of the input: {why}", i + 1))?;
    }
    serde_json::from_str::<serde::de::IgnoredAny>(output)
        .map_err(|e| format!("the output is not JSON: {e}"))?;
    stdio_tests::python_can_read(output).map_err(|why| format!("the output: {why}"))
}

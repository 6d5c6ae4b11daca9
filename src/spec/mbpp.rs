//! The MBPP readers: the original JSONL (`task_id, text, code, test_list,
//! test_setup_code, challenge_test_list`) and sanitized MBPP (one JSON array with
//! `prompt, code, test_imports, test_list`).

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::{ProgramStyle, Task, TaskSet};
use crate::input::{self, InputError};
use crate::plan::Tests;
use crate::postprocess::PostProcess;

pub(super) fn read_jsonl(path: &Path, text: &str, set: &mut TaskSet) {
    let mut seen = HashMap::new();
    for (line, raw) in input::jsonl_lines(text) {
        let task = input::parse_object(path, line, raw).and_then(|obj| {
            let setup = optional_str(path, line, &obj, "test_setup_code")?;
            let prompt = super::req_str(path, line, &obj, "text")?;
            task_from(path, line, &obj, prompt, setup, &mut seen)
        });
        match task {
            Ok(task) => set.tasks.push(task),
            Err(e) => set.errors.push(e),
        }
    }
}

pub(super) fn read_sanitized(path: &Path, text: &str, set: &mut TaskSet) -> Result<(), InputError> {
    let items = input::parse_array(path, text)?;
    let mut seen = HashMap::new();
    // Records of a pretty-printed array carry the line of their `task_id`.
    let lines = object_lines(text);
    for (i, item) in items.iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(1);
        let task = match item {
            Value::Object(obj) => (|| {
                let imports = match obj.get("test_imports") {
                    Some(v) => super::str_list(path, line, "test_imports", v)?,
                    None => Vec::new(),
                };
                let prompt = super::req_str(path, line, obj, "prompt")?;
                task_from(path, line, obj, prompt, imports.join("\n"), &mut seen)
            })(),
            other => Err(InputError::at(
                path,
                line,
                None,
                "json",
                format!(
                    "array element {i} should be an object, found {}",
                    input::json_kind(other)
                ),
            )),
        };
        match task {
            Ok(task) => set.tasks.push(task),
            Err(e) => set.errors.push(e),
        }
    }
    Ok(())
}

fn task_from(
    path: &Path,
    line: usize,
    obj: &Map<String, Value>,
    prompt: String,
    setup: String,
    seen: &mut HashMap<String, usize>,
) -> Result<Task, InputError> {
    let id = input::task_id_field(path, line, obj)?;
    let assertions = super::req_str_list(path, line, obj, "test_list")?;
    let reference = match obj.get("code") {
        Some(_) => Some(super::req_str(path, line, obj, "code")?),
        None => None,
    };
    super::check_unique(path, line, &id, seen)?;
    Ok(Task {
        id,
        prompt,
        style: ProgramStyle::Whole,
        setup,
        assertions,
        post_process: PostProcess::ExtractCodeBlock,
        timeout_s: None,
        tests: Tests::Assertions,
        reference,
    })
}

fn optional_str(
    path: &Path,
    line: usize,
    obj: &Map<String, Value>,
    field: &str,
) -> Result<String, InputError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(_) => super::req_str(path, line, obj, field),
    }
}

/// 1-based line of each top-level array element's opening brace.
fn object_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let (mut depth, mut line, mut in_str, mut escaped) = (0usize, 1usize, false, false);
    for c in text.chars() {
        if c == '\n' {
            line += 1;
        }
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '[' | '{' => {
                if depth == 1 {
                    lines.push(line);
                }
                depth += 1;
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    lines
}

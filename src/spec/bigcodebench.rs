//! The BigCodeBench reader (`task_id, complete_prompt, code_prompt,
//! canonical_solution, test, entry_point, libs`). Every test method of the
//! task's `class TestCases(unittest.TestCase)` is an assertion
//! ([`super::suite`]); the program is built as BigCodeBench 0.2.5 builds it
//! ([`super::ProgramStyle::Calibrated`]), and the reference is
//! `code_prompt + canonical_solution`.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::suite::{self, Suite};
use super::{ProgramStyle, Task, TaskSet};
use crate::input::{self, InputError};
use crate::postprocess::PostProcess;

pub(super) fn read(path: &Path, text: &str, set: &mut TaskSet) {
    let mut seen = HashMap::new();
    for (line, raw) in input::jsonl_lines(text) {
        match record(path, line, raw, &mut seen) {
            Ok(task) => set.tasks.push(task),
            Err(e) => set.errors.push(e),
        }
    }
}

fn record(
    path: &Path,
    line: usize,
    raw: &str,
    seen: &mut HashMap<String, usize>,
) -> Result<Task, InputError> {
    let obj = input::parse_object(path, line, raw)?;
    let id = input::task_id_field(path, line, &obj)?;
    let complete_prompt = super::req_str(path, line, &obj, "complete_prompt")?;
    let code_prompt = super::req_str(path, line, &obj, "code_prompt")?;
    let entry_point = super::req_str(path, line, &obj, "entry_point")?;
    let test = super::req_str(path, line, &obj, "test")?;
    let libs = libs(path, line, &obj)?;
    let reference = match obj.get("canonical_solution") {
        Some(_) => Some(format!(
            "{code_prompt}{}",
            super::req_str(path, line, &obj, "canonical_solution")?
        )),
        None => None,
    };
    let Some(methods) = suite::test_methods(&test) else {
        return Err(InputError::at(
            path,
            line,
            Some("test"),
            "format",
            "no `class TestCases(unittest.TestCase)` at the top level of the test",
        ));
    };
    if methods.is_empty() {
        return Err(InputError::at(
            path,
            line,
            Some("test"),
            "format",
            "`class TestCases` has no test method (`def test...`)",
        ));
    }
    super::check_unique(path, line, &id, seen)?;
    let suite = Suite::new(test, &libs, &code_prompt);
    Ok(Task {
        id,
        prompt: complete_prompt.clone(),
        style: ProgramStyle::Calibrated {
            complete_prompt,
            code_prompt,
            entry_point,
        },
        setup: String::new(),
        assertions: methods,
        post_process: PostProcess::ExtractCodeBlock,
        timeout_s: None,
        reference,
        tests: crate::plan::Tests::Suite(Arc::new(suite)),
    })
}

/// `libs`: a list of module names, or (as the released files have it) a
/// Python list written as a string, `"['os', 'random']"`. Optional.
fn libs(path: &Path, line: usize, obj: &Map<String, Value>) -> Result<Vec<String>, InputError> {
    match obj.get("libs") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => python_str_list(s).ok_or_else(|| {
            InputError::at(
                path,
                line,
                Some("libs"),
                "type",
                format!("expected a list of module names such as \"['os', 're']\", found {s:?}"),
            )
        }),
        Some(other) => super::str_list(path, line, "libs", other),
    }
}

/// The items of a Python list of plain string literals, `['a', "b"]`.
fn python_str_list(text: &str) -> Option<Vec<String>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut out = Vec::new();
    for item in inner.split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let quote = item.chars().next()?;
        if quote != '\'' && quote != '"' {
            return None;
        }
        let name = item.strip_prefix(quote)?.strip_suffix(quote)?;
        if name.contains(['\'', '"', '\\']) {
            return None;
        }
        out.push(name.to_owned());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libs_written_as_a_python_list_are_read() {
        assert_eq!(
            python_str_list("['os', \"re\"]").unwrap(),
            vec!["os".to_owned(), "re".to_owned()]
        );
        assert_eq!(python_str_list("[]").unwrap(), Vec::<String>::new());
        assert_eq!(python_str_list("os, re"), None);
        assert_eq!(python_str_list("[os]"), None);
    }
}

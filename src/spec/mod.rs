//! The task model and the task-file readers: lesson-70 (native, strictly
//! validated), HumanEval, HumanEval+, BigCodeBench, MBPP (plain and
//! sanitized), LiveCodeBench and APPS/TACO. Formats are
//! detected from content, and `.gz` is read too.

mod apps;
mod bigcodebench;
mod evalplus;
mod humaneval;
pub mod io_tests;
mod lesson70;
mod livecodebench;
mod mbpp;
pub mod pickled;
pub mod stdio_tests;
pub mod suite;

use std::path::{Path, PathBuf};

use crate::input::{self, InputError};
use crate::postprocess::PostProcess;

/// How a task turns post-processed code into the program that runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramStyle {
    /// The code is the whole program (lesson-70, MBPP).
    Whole,
    /// HumanEval: the code completes `prompt`; if it defines `def <entry_point>`
    /// the program is `prompt + "\n" + code`, otherwise `prompt + code`.
    Completion {
        /// The function signature and docstring the completion continues.
        prompt: String,
        /// Name of the function under test.
        entry_point: String,
    },
    /// BigCodeBench 0.2.5's calibrated program: a code that defines
    /// `def <entry_point>` is a whole solution, run after `code_prompt` and
    /// `    pass` (for the imports it may lack); any other code completes
    /// `complete_prompt`.
    Calibrated {
        /// The prompt with its docstring, which a completion continues.
        complete_prompt: String,
        /// The imports and the signature alone.
        code_prompt: String,
        /// Name of the function under test.
        entry_point: String,
    },
}

impl ProgramStyle {
    /// The code the task gives the program to start from, which the judge
    /// runs itself for the helpers the tests use (HumanEval's prompt; empty
    /// where the program is whole or its tests run in its own process).
    pub fn given(&self) -> &str {
        match self {
            ProgramStyle::Completion { prompt, .. } => prompt,
            ProgramStyle::Whole | ProgramStyle::Calibrated { .. } => "",
        }
    }
}

/// One executable task: how to build the program, the test setup after it, and
/// the assertion strings that score it.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Unique id (`HumanEval/0`, `11`, ...).
    pub id: String,
    /// The text shown to the model.
    pub prompt: String,
    /// How the program is assembled from the generation.
    pub style: ProgramStyle,
    /// Test setup run after the candidate code and before the assertions (MBPP
    /// `test_setup_code` builds fixtures from what the code defines); may be empty.
    pub setup: String,
    /// Assertion strings; the score is the fraction that pass.
    pub assertions: Vec<String>,
    /// Rule applied to each generation before it runs.
    pub post_process: PostProcess,
    /// Per-task timeout override in seconds (already capped at 30).
    pub timeout_s: Option<f64>,
    /// A known-good solution shipped with the task (HumanEval canonical solution,
    /// MBPP reference code), usable with `--reference`.
    pub reference: Option<String>,
    /// The kind of tests: assertions, or one whose `assertions` only
    /// describe the tests, one per test (inputs, a suite's methods, stdio).
    pub tests: crate::plan::Tests,
}

/// A task that was read but is not executed (a non-`code_exec` lesson-70 task).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SkippedTask {
    /// The task's id.
    pub task_id: String,
    /// Its category (why it is not executed).
    pub category: String,
}

/// The task-file formats execscope reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskFormat {
    /// Lesson-70 task JSONL, the native format.
    Lesson70,
    /// OpenAI HumanEval JSONL.
    HumanEval,
    /// evalplus HumanEval+ JSONL (HumanEval with `base_input`, `plus_input`).
    HumanEvalPlus,
    /// Google MBPP JSONL.
    Mbpp,
    /// Sanitized MBPP (one JSON array).
    MbppSanitized,
    /// BigCodeBench JSONL (`complete_prompt`, `code_prompt`, a unittest `test`).
    BigCodeBench,
    /// LiveCodeBench code-generation JSONL (`public_test_cases`,
    /// `private_test_cases`, `metadata`).
    LiveCodeBench,
    /// APPS/TACO JSONL (`input_output`).
    AppsTaco,
}

impl TaskFormat {
    /// Human-readable name.
    pub fn label(self) -> &'static str {
        match self {
            TaskFormat::Lesson70 => "lesson-70 tasks",
            TaskFormat::HumanEval => "HumanEval",
            TaskFormat::HumanEvalPlus => "HumanEval+",
            TaskFormat::Mbpp => "MBPP",
            TaskFormat::MbppSanitized => "sanitized MBPP",
            TaskFormat::BigCodeBench => "BigCodeBench",
            TaskFormat::LiveCodeBench => "LiveCodeBench",
            TaskFormat::AppsTaco => "APPS/TACO",
        }
    }
}

/// Everything read from one task file: the valid tasks, the skipped ones and every
/// error found. Invalid records are left out of `tasks`, the rest still load.
#[derive(Debug, Clone)]
pub struct TaskSet {
    /// Where the tasks came from.
    pub path: PathBuf,
    /// SHA-256 of the file's bytes as read.
    pub sha256: String,
    /// The detected format.
    pub format: TaskFormat,
    /// Valid executable tasks, in file order.
    pub tasks: Vec<Task>,
    /// Valid tasks that are not executed.
    pub skipped: Vec<SkippedTask>,
    /// Every problem found, one per bad record.
    pub errors: Vec<InputError>,
}

/// Reads and validates a task file of any supported format.
///
/// `Err` means the file as a whole is unusable (missing, not text, unknown format);
/// problems in single records are collected in [`TaskSet::errors`].
pub fn load_tasks(path: &Path) -> Result<TaskSet, InputError> {
    parse_tasks(path, input::read_bytes(path)?)
}

/// Like [`load_tasks`] for bytes already in memory; `path` names them in messages.
pub fn parse_tasks(path: &Path, raw: Vec<u8>) -> Result<TaskSet, InputError> {
    let sha256 = input::sha256_hex(&raw);
    tasks_from_text(path, sha256, &input::decode_text(path, raw)?)
}

/// Like [`parse_tasks`] for a file already decoded to `text`, whose raw bytes
/// hash to `sha256`.
pub fn tasks_from_text(path: &Path, sha256: String, text: &str) -> Result<TaskSet, InputError> {
    let format = detect_format(path, text)?;
    let mut set = TaskSet {
        path: path.to_path_buf(),
        sha256,
        format,
        tasks: Vec::new(),
        skipped: Vec::new(),
        errors: Vec::new(),
    };
    match format {
        TaskFormat::Lesson70 => lesson70::read(path, text, &mut set),
        TaskFormat::HumanEval => humaneval::read(path, text, &mut set),
        TaskFormat::HumanEvalPlus => evalplus::read(path, text, &mut set),
        TaskFormat::Mbpp => mbpp::read_jsonl(path, text, &mut set),
        TaskFormat::MbppSanitized => mbpp::read_sanitized(path, text, &mut set)?,
        TaskFormat::BigCodeBench => bigcodebench::read(path, text, &mut set),
        TaskFormat::LiveCodeBench => livecodebench::read(path, text, &mut set),
        TaskFormat::AppsTaco => apps::read(path, text, &mut set),
    }
    Ok(set)
}

fn detect_format(path: &Path, text: &str) -> Result<TaskFormat, InputError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        return Ok(TaskFormat::MbppSanitized);
    }
    let Some((line, first)) = input::jsonl_lines(text).next() else {
        return Err(InputError::file(path, "empty", "the file is empty"));
    };
    let obj = input::parse_object(path, line, first)?;
    if obj.contains_key("public_test_cases") || obj.contains_key("private_test_cases") {
        Ok(TaskFormat::LiveCodeBench)
    } else if obj.contains_key("input_output") {
        Ok(TaskFormat::AppsTaco)
    } else if obj.contains_key("base_input") || obj.contains_key("plus_input") {
        Ok(TaskFormat::HumanEvalPlus)
    } else if obj.contains_key("complete_prompt") || obj.contains_key("code_prompt") {
        Ok(TaskFormat::BigCodeBench)
    } else if obj.contains_key("entry_point") || obj.contains_key("canonical_solution") {
        Ok(TaskFormat::HumanEval)
    } else if obj.contains_key("test_list") {
        Ok(TaskFormat::Mbpp)
    } else if obj.contains_key("targets")
        || obj.contains_key("metric_name")
        || obj.contains_key("category")
        || obj.contains_key("post_process")
    {
        Ok(TaskFormat::Lesson70)
    } else if obj.contains_key("generation") || obj.contains_key("completion") {
        Err(InputError::at(
            path,
            line,
            None,
            "format",
            "this looks like a generations file, not a task file (open it as generations)",
        ))
    } else {
        Err(InputError::at(
            path,
            line,
            None,
            "format",
            "unknown task format: expected lesson-70 (`targets`, `metric_name`), HumanEval \
             (`entry_point`, `test`), HumanEval+ (`base_input`, `plus_input`), BigCodeBench (`complete_prompt`, \
             `code_prompt`), MBPP (`test_list`), LiveCodeBench (`public_test_cases`) or \
             APPS/TACO (`input_output`) records",
        ))
    }
}

/// Reads a required string field of a record, with a precise error.
pub(crate) fn req_str(
    path: &Path,
    line: usize,
    obj: &serde_json::Map<String, serde_json::Value>,
    field: &str,
) -> Result<String, InputError> {
    match obj.get(field) {
        None => Err(InputError::at(
            path,
            line,
            Some(field),
            "required",
            "missing required field",
        )),
        Some(serde_json::Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(InputError::at(
            path,
            line,
            Some(field),
            "type",
            format!("expected a string, found {}", input::json_kind(other)),
        )),
    }
}

/// Reads a required list-of-strings field of a record, with a precise error.
pub(crate) fn req_str_list(
    path: &Path,
    line: usize,
    obj: &serde_json::Map<String, serde_json::Value>,
    field: &str,
) -> Result<Vec<String>, InputError> {
    let Some(value) = obj.get(field) else {
        return Err(InputError::at(
            path,
            line,
            Some(field),
            "required",
            "missing required field",
        ));
    };
    str_list(path, line, field, value)
}

/// A list of strings from a JSON value, with a precise error.
pub(crate) fn str_list(
    path: &Path,
    line: usize,
    field: &str,
    value: &serde_json::Value,
) -> Result<Vec<String>, InputError> {
    let serde_json::Value::Array(items) = value else {
        return Err(InputError::at(
            path,
            line,
            Some(field),
            "type",
            format!(
                "expected a list of strings, found {}",
                input::json_kind(value)
            ),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            serde_json::Value::String(s) => Ok(s.clone()),
            other => Err(InputError::at(
                path,
                line,
                Some(&format!("{field}[{i}]")),
                "type",
                format!("expected a string, found {}", input::json_kind(other)),
            )),
        })
        .collect()
}

/// Records `id` as seen, or returns the duplicate-id error.
pub(crate) fn check_unique(
    path: &Path,
    line: usize,
    id: &str,
    seen: &mut std::collections::HashMap<String, usize>,
) -> Result<(), InputError> {
    if let Some(first) = seen.get(id) {
        return Err(InputError::at(
            path,
            line,
            Some("task_id"),
            "unique",
            format!("duplicate task_id {id:?} (first defined on line {first})"),
        ));
    }
    seen.insert(id.to_owned(), line);
    Ok(())
}

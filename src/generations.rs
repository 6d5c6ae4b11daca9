//! Generation-file readers: JSONL records with `task_id` and one of `generation`,
//! `completion`, `solution` (several lines for one task are its samples), and
//! bigcode-evaluation-harness `generations.json` (a list of lists of strings, mapped
//! to tasks in task-file order).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::input::{self, InputError};

/// Where a generation's task is named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskRef {
    /// By id (JSONL).
    Id(String),
    /// By position in the task file (bigcode list of lists).
    Index(usize),
}

/// One model generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generation {
    /// The task it answers.
    pub task: TaskRef,
    /// Explicit sample number (`sample` or `completion_id`), if the file gives one.
    pub sample: Option<usize>,
    /// The raw text as the model wrote it.
    pub text: String,
    /// 1-based line (JSONL) or the line of the inner list (bigcode) it came from.
    pub line: usize,
}

/// The generation-file formats execscope reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GenerationFormat {
    /// JSONL with `task_id` and `generation|completion|solution`.
    Jsonl,
    /// bigcode-evaluation-harness list of lists.
    Bigcode,
}

impl GenerationFormat {
    /// Human-readable name.
    pub fn label(self) -> &'static str {
        match self {
            GenerationFormat::Jsonl => "generation JSONL",
            GenerationFormat::Bigcode => "bigcode generations.json",
        }
    }
}

/// Everything read from one generations file.
#[derive(Debug, Clone)]
pub struct GenerationSet {
    /// Where they came from.
    pub path: PathBuf,
    /// SHA-256 of the file's bytes as read.
    pub sha256: String,
    /// The detected format.
    pub format: GenerationFormat,
    /// Valid generations, in file order.
    pub items: Vec<Generation>,
    /// One error per bad record.
    pub errors: Vec<InputError>,
}

const TEXT_FIELDS: [&str; 3] = ["generation", "completion", "solution"];

/// Reads a generations file of either format.
pub fn load_generations(path: &Path) -> Result<GenerationSet, InputError> {
    parse_generations(path, input::read_bytes(path)?)
}

/// Like [`load_generations`] for bytes already in memory.
pub fn parse_generations(path: &Path, raw: Vec<u8>) -> Result<GenerationSet, InputError> {
    let sha256 = input::sha256_hex(&raw);
    generations_from_text(path, sha256, &input::decode_text(path, raw)?)
}

/// Like [`parse_generations`] for a file already decoded to `text`, whose raw
/// bytes hash to `sha256`.
pub fn generations_from_text(
    path: &Path,
    sha256: String,
    text: &str,
) -> Result<GenerationSet, InputError> {
    let mut set = GenerationSet {
        path: path.to_path_buf(),
        sha256,
        format: GenerationFormat::Jsonl,
        items: Vec::new(),
        errors: Vec::new(),
    };
    if text.trim_start().starts_with('[') {
        set.format = GenerationFormat::Bigcode;
        read_bigcode(path, text, &mut set)?;
    } else {
        for (line, raw) in input::jsonl_lines(text) {
            match jsonl_record(path, line, raw) {
                Ok(g) => set.items.push(g),
                Err(e) => set.errors.push(e),
            }
        }
    }
    Ok(set)
}

/// Builds a generation set from the tasks' own reference solutions (HumanEval
/// canonical solutions, MBPP reference code): one sample per task that has one.
pub fn from_references(tasks: &crate::spec::TaskSet) -> GenerationSet {
    GenerationSet {
        path: tasks.path.clone(),
        sha256: tasks.sha256.clone(),
        format: GenerationFormat::Jsonl,
        items: tasks
            .tasks
            .iter()
            .filter_map(|t| {
                t.reference.as_ref().map(|r| Generation {
                    task: TaskRef::Id(t.id.clone()),
                    sample: Some(0),
                    text: r.clone(),
                    line: 0,
                })
            })
            .collect(),
        errors: Vec::new(),
    }
}

fn jsonl_record(path: &Path, line: usize, raw: &str) -> Result<Generation, InputError> {
    let obj = input::parse_object(path, line, raw)?;
    if obj.contains_key("targets")
        || obj.contains_key("entry_point")
        || obj.contains_key("test_list")
    {
        return Err(InputError::at(
            path,
            line,
            None,
            "format",
            "this looks like a task file, not a generations file",
        ));
    }
    let id = input::task_id_field(path, line, &obj)?;
    let Some((field, value)) = TEXT_FIELDS
        .iter()
        .find_map(|f| obj.get(*f).map(|v| (*f, v)))
    else {
        return Err(InputError::at(
            path,
            line,
            Some("generation"),
            "required",
            "missing the generated text: one of `generation`, `completion` or `solution`",
        ));
    };
    let Value::String(text) = value else {
        return Err(InputError::at(
            path,
            line,
            Some(field),
            "type",
            format!("expected a string, found {}", input::json_kind(value)),
        ));
    };
    let sample = match ["sample", "completion_id"]
        .iter()
        .find_map(|f| obj.get(*f).map(|v| (*f, v)))
    {
        None => None,
        Some((_, Value::Number(n))) if n.as_u64().is_some() => n.as_u64().map(|n| n as usize),
        Some((f, v)) => {
            return Err(InputError::at(
                path,
                line,
                Some(f),
                "type",
                format!(
                    "expected a non-negative integer, found {}",
                    input::json_kind(v)
                ),
            ));
        }
    };
    Ok(Generation {
        task: TaskRef::Id(id),
        sample,
        text: text.clone(),
        line,
    })
}

fn read_bigcode(path: &Path, text: &str, set: &mut GenerationSet) -> Result<(), InputError> {
    let outer = input::parse_array(path, text)?;
    for (task, inner) in outer.iter().enumerate() {
        let Value::Array(samples) = inner else {
            set.errors.push(InputError::file(
                path,
                "shape",
                format!(
                    "element {task} should be a list of generated strings, found {}",
                    input::json_kind(inner)
                ),
            ));
            continue;
        };
        for (sample, g) in samples.iter().enumerate() {
            match g {
                Value::String(s) => set.items.push(Generation {
                    task: TaskRef::Index(task),
                    sample: Some(sample),
                    text: s.clone(),
                    line: 0,
                }),
                other => set.errors.push(InputError::file(
                    path,
                    "shape",
                    format!(
                        "element [{task}][{sample}] should be a string, found {}",
                        input::json_kind(other)
                    ),
                )),
            }
        }
    }
    Ok(())
}

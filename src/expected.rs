//! The reference's outputs on every input of the tasks whose tests are inputs
//! (HumanEval+): each task's reference runs once, in the sandbox, through the
//! same judge path a candidate takes (record mode: the judge calls it on each
//! input and writes down what it returned and how long that took), and the
//! outputs are kept in the user's cache, named by the SHA-256 of those tasks
//! (their ids, references and inputs) and the interpreter, so a task file is
//! recorded once per interpreter. The engine records a task when its first
//! candidate comes up ([`ensure`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::plan::{Plan, Program, Tests, reference_program};
use crate::sandbox::{CancelToken, Outcome, Runner, SandboxError};
use crate::spec::Task;
use crate::spec::io_tests::Recorded;

/// The `format` of a cache file.
pub const FORMAT: &str = "execscope-expected/1";
/// How long a reference may take to run on all of a task's inputs.
pub const RECORD_TIMEOUT: Duration = Duration::from_secs(120);

/// Fills in, from the user's cache, the reference's outputs of every task of
/// `plan` that has tests that are inputs; the cache file, where there is a
/// cache directory and such a task.
pub fn from_cache(plan: &Plan, python: &crate::sandbox::Interpreter) -> Option<PathBuf> {
    if !plan
        .tasks
        .iter()
        .any(|t| matches!(t.tests, Tests::Inputs(_)))
    {
        return None;
    }
    let file = cache_file(plan, python)?;
    for (id, recorded) in read_cache(&file).unwrap_or_default() {
        let tests = plan.tasks.iter().find(|t| t.id == id).map(|t| &t.tests);
        if let Some(Tests::Inputs(io)) = tests {
            let _ = io.expected.set(Ok(recorded));
        }
    }
    Some(file)
}

/// The reference's outputs of `task` (whose tests are inputs): the ones
/// already there, or recorded now by running its reference once, in the
/// sandbox, through the judge in record mode. A task without a reference, or
/// whose reference fails, gets the reason instead, and its candidates are a
/// harness fault, never judged against nothing. Recording stopped by `cancel`
/// leaves nothing behind (the next run records again).
pub fn ensure(
    task: &Task,
    runner: &Runner,
    cancel: Option<&CancelToken>,
) -> Result<Result<Recorded, String>, SandboxError> {
    let Tests::Inputs(io) = &task.tests else {
        return Ok(Err("the task has no tests that are inputs".into()));
    };
    // One recording per task, whichever worker comes first.
    let _one = io.recording.lock();
    if let Some(done) = io.expected.get() {
        return Ok(done.clone());
    }
    let reference = reference_program(task);
    let recorded = if reference.is_empty() {
        Err("the task has no reference solution to compare with".to_owned())
    } else {
        let program = Program {
            setup: String::new(),
            code: reference.to_string(),
            assertions: task.assertions.clone().into(),
            reference: Arc::clone(&reference),
            given: Arc::from(task.style.given()),
            tests: Tests::Inputs(Arc::clone(io)),
        };
        let result = runner.run(RECORD_TIMEOUT, &program, cancel, &|| {})?;
        match (&result.recorded, result.outcome) {
            (Some(text), Outcome::Pass) => parse_recorded(text)
                .ok_or_else(|| "the judge's record of the reference is malformed".to_owned()),
            _ => Err(format!(
                "the task's reference did not run on every input ({}: {})",
                result.outcome, result.detail
            )),
        }
    };
    let _ = io.expected.set(recorded.clone());
    Ok(recorded)
}

/// The judge's `recorded` note: the times (JSON, a list per group), a line
/// break, then the outputs (JSON the host passes on without parsing).
fn parse_recorded(text: &str) -> Option<Recorded> {
    let (times, json) = text.split_once('\n')?;
    Some(Recorded {
        times: serde_json::from_str(times).ok()?,
        json: Arc::from(json),
    })
}

/// The cache file for `plan`'s tasks that are inputs and `python`, where
/// there is a cache directory.
fn cache_file(plan: &Plan, python: &crate::sandbox::Interpreter) -> Option<PathBuf> {
    let dir = crate::cache::cache_dir()?;
    let mut key = Vec::new();
    for task in &plan.tasks {
        if let Tests::Inputs(io) = &task.tests {
            for part in [task.id.as_str(), &reference_program(task), &io.spec(true)] {
                key.extend_from_slice(part.len().to_string().as_bytes());
                key.push(b'\n');
                key.extend_from_slice(part.as_bytes());
            }
        }
    }
    // How outputs are recorded and digested is part of the key too.
    key.extend_from_slice(include_str!("../assets/harness/io.py").as_bytes());
    key.extend_from_slice(python.executable.to_string_lossy().as_bytes());
    key.extend_from_slice(python.version.as_bytes());
    let name = format!("{}.json", crate::input::sha256_hex(&key));
    Some(dir.join("execscope").join("expected").join(name))
}

#[derive(serde::Serialize, serde::Deserialize)]
struct CacheFile {
    format: String,
    /// Task id → (times JSON, outputs JSON), as the judge wrote them.
    tasks: std::collections::BTreeMap<String, (String, String)>,
}

fn read_cache(file: &std::path::Path) -> Option<std::collections::HashMap<String, Recorded>> {
    let text = std::fs::read_to_string(file).ok()?;
    let cache: CacheFile = serde_json::from_str(&text).ok()?;
    if cache.format != FORMAT {
        return None;
    }
    cache
        .tasks
        .into_iter()
        .map(|(id, (times, json))| Some((id, parse_recorded(&format!("{times}\n{json}"))?)))
        .collect()
}

/// Writes every recorded task of `plan` to `file` (a failure to write only
/// costs the next run the recording).
pub fn save(file: &std::path::Path, plan: &Plan) {
    let mut tasks = std::collections::BTreeMap::new();
    for task in &plan.tasks {
        let recorded = match &task.tests {
            Tests::Inputs(io) => io.recorded(),
            Tests::Assertions | Tests::Suite(_) | Tests::Stdio(_) => None,
        };
        if let Some(recorded) = recorded {
            let times = serde_json::to_string(&recorded.times).unwrap_or_default();
            tasks.insert(task.id.clone(), (times, recorded.json.to_string()));
        }
    }
    let cache = CacheFile {
        format: FORMAT.into(),
        tasks,
    };
    let Some(dir) = file.parent() else { return };
    let Ok(text) = serde_json::to_string(&cache) else {
        return;
    };
    let temporary = file.with_extension(format!("tmp{}", std::process::id()));
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&temporary, text))
        .and_then(|()| std::fs::rename(&temporary, file));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
}

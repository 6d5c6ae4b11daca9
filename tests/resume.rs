//! `run --resume`: a run killed at about half goes on from its journal to the
//! figures of an uninterrupted run; a changed input or setting, a journal of
//! the older layout and a torn last line (the app's offer: `resume_app`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use execscope::report::{Journal, read_journal};

use crate::util::tempdir;

/// Candidates in [`write_inputs`]'s files.
pub(crate) const CANDIDATES: usize = 40;

/// Ten tasks of eleven assertions, four samples each: passes, a score of
/// 1/11 (0.09090909090909091, which serde_json reads back one bit off,
/// as it does 10% of the fractions p/q with q up to 1000), syntax errors and
/// exceptions. Each candidate spends 0.1 s of CPU first, so a run on one
/// worker takes a few seconds and can be killed in the middle.
pub(crate) fn write_inputs(dir: &Path) -> (PathBuf, PathBuf) {
    let mut tasks = String::new();
    let mut gens = String::new();
    let busy =
        "import time\nt = time.perf_counter()\nwhile time.perf_counter() - t < 0.1:\n    pass\n";
    for i in 0..10 {
        let targets: Vec<String> = (0..11).map(|k| format!("f({k}) == {}", k * i)).collect();
        tasks += &serde_json::json!({
            "task_id": format!("t{i}"), "category": "code_exec", "prompt": "p",
            "targets": targets, "metric_name": "code_exec", "post_process": "none",
        })
        .to_string();
        tasks.push('\n');
        let right = format!("def f(x):\n    return x * {i}\n");
        let samples = [
            right.clone(),
            "def f(x):\n    return 0\n".to_owned(),
            "def f(x) return".to_owned(),
            if i % 2 == 1 {
                right
            } else {
                "raise ValueError('no')\n".to_owned()
            },
        ];
        for code in samples {
            gens += &serde_json::json!({"task_id": format!("t{i}"), "generation": format!("{busy}{code}")})
                .to_string();
            gens.push('\n');
        }
    }
    let (t, g) = (dir.join("tasks.jsonl"), dir.join("gens.jsonl"));
    std::fs::write(&t, tasks).unwrap();
    std::fs::write(&g, gens).unwrap();
    (t, g)
}

fn execscope(tasks: &Path, gens: &Path, json: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_execscope"));
    cmd.args(["run", "-q", "--tasks"])
        .arg(tasks)
        .arg("--generations")
        .arg(gens)
        .arg("--json")
        .arg(json)
        .args(extra);
    cmd
}

fn run(cmd: &mut Command) -> Output {
    cmd.stdout(Stdio::null()).output().unwrap()
}

fn entries(journal: &Path) -> usize {
    std::fs::read_to_string(journal).map_or(0, |t| t.lines().count().saturating_sub(1))
}

/// Starts a run on one worker and SIGKILLs it once its journal holds `at`
/// candidates; returns how many it holds then (fewer than all, or the
/// test fails: a run that ended proves nothing).
fn killed_run(tasks: &Path, gens: &Path, json: &Path, at: usize) -> usize {
    let mut child = execscope(tasks, gens, json, &["--workers", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let journal = Journal::path_for(json);
    let start = Instant::now();
    while entries(&journal) < at {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the journal did not fill"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be killed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let held = entries(&journal);
    assert!(held < CANDIDATES, "the run ended before it was killed");
    assert!(!json.exists(), "a killed run wrote its run file");
    held
}

/// The run file's figures: every candidate's verdict, the tasks' and the
/// data set's (times and captured output, which differ from run to run,
/// left out).
pub(crate) fn figures(json: &Path) -> serde_json::Value {
    let mut run: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    for c in run["candidates"].as_array_mut().unwrap() {
        let c = c.as_object_mut().unwrap();
        for key in ["duration_ms", "timing", "stdout", "stderr"] {
            c.remove(key);
        }
    }
    run["summary"].as_object_mut().unwrap().remove("elapsed_s");
    serde_json::json!({
        "candidates": run["candidates"],
        "tasks": run["tasks"],
        "summary": run["summary"],
        "scores": exact_scores(&std::fs::read_to_string(json).unwrap()),
    })
}

/// Every score and mean score as written (a JSON number read back may be a
/// bit off, so two files' differing numbers could read back the same).
fn exact_scores(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["\"score\":", "\"mean_score\":"] {
        for (at, _) in text.match_indices(key) {
            let rest = text[at + key.len()..].trim_start();
            let end = rest.find([',', '}', '\n']).unwrap_or(rest.len());
            out.push(rest[..end].trim().to_owned());
        }
    }
    out
}

pub(crate) fn uninterrupted(dir: &Path, tasks: &Path, gens: &Path) -> serde_json::Value {
    let json = dir.join("whole.json");
    let out = run(&mut execscope(tasks, gens, &json, &["--workers", "2"]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    figures(&json)
}

#[test]
fn a_run_killed_at_about_half_resumes_to_the_figures_of_an_uninterrupted_run() {
    let dir = tempdir();
    let (tasks, gens) = write_inputs(dir.path());
    let json = dir.path().join("run.json");
    let journal = Journal::path_for(&json);
    let held = killed_run(&tasks, &gens, &json, CANDIDATES / 2);
    let before = read_journal(&journal).unwrap();
    assert_eq!(before.entries.len(), held);

    let out = run(&mut execscope(
        &tasks,
        &gens,
        &json,
        &["--resume", "--workers", "2"],
    ));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{held} of {CANDIDATES} candidates judged already, {} to run",
            CANDIDATES - held
        )),
        "{stderr}"
    );
    assert!(!journal.exists(), "the journal outlived the run file");
    assert_eq!(figures(&json), uninterrupted(dir.path(), &tasks, &gens));

    // The candidates judged before the kill were not run again: their
    // results, times to the microsecond included, are the journal's.
    let run: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let rows = run["candidates"].as_array().unwrap();
    for (_, entry) in &before.entries {
        let row = rows
            .iter()
            .find(|r| r["task_id"] == entry.task_id.as_str() && r["sample"] == entry.sample)
            .unwrap();
        assert_eq!(
            row["timing"],
            serde_json::to_value(entry.result.timing).unwrap()
        );
        assert_eq!(row["duration_ms"], entry.result.duration_ms);
    }
    // The time of both sessions.
    let earlier = before
        .entries
        .iter()
        .map(|(_, e)| e.at_s)
        .fold(0.0, f64::max);
    assert!(run["summary"]["elapsed_s"].as_f64().unwrap() > earlier);
}

#[test]
fn a_resume_is_refused_when_an_input_or_a_setting_changed_and_the_journal_is_kept() {
    let dir = tempdir();
    let (tasks, gens) = write_inputs(dir.path());
    let json = dir.path().join("run.json");
    let journal = Journal::path_for(&json);
    killed_run(&tasks, &gens, &json, 3);
    let kept = std::fs::read(&journal).unwrap();

    let then = execscope::input::sha256_hex(&std::fs::read(&gens).unwrap());
    let changed = std::fs::read_to_string(&gens)
        .unwrap()
        .replace("return 0", "return 1");
    std::fs::write(&gens, changed.as_bytes()).unwrap();
    let now = execscope::input::sha256_hex(changed.as_bytes());
    let out = run(&mut execscope(&tasks, &gens, &json, &["--resume"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the generations file changed since the run began: SHA-256 {then} then"
        )) && stderr.contains(&format!("{now} now")),
        "{stderr}"
    );
    assert!(!stderr.contains("tasks file changed"), "{stderr}");

    std::fs::write(&gens, changed.replace("return 1", "return 0")).unwrap();
    let out = run(&mut execscope(
        &tasks,
        &gens,
        &json,
        &["--resume", "--timeout", "5"],
    ));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the setting timeout_s changed: 3.0 then, 5.0 now"),
        "{stderr}"
    );
    assert!(!stderr.contains("file changed"), "{stderr}");
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        kept,
        "a refusal touched the journal"
    );
    assert!(!json.exists());
}

#[test]
fn a_torn_last_line_is_dropped_and_its_candidate_runs_again() {
    let dir = tempdir();
    let (tasks, gens) = write_inputs(dir.path());
    let json = dir.path().join("run.json");
    let journal = Journal::path_for(&json);
    let held = killed_run(&tasks, &gens, &json, 6);
    // The last candidate's line cut in the middle, as a kill mid-write leaves it.
    let text = std::fs::read_to_string(&journal).unwrap();
    let body = text.trim_end_matches('\n');
    let last = body.rfind('\n').unwrap() + 1;
    let torn = &body[..last + (body.len() - last) / 2];
    std::fs::write(&journal, torn).unwrap();
    let read = read_journal(&journal).unwrap();
    assert_eq!(read.entries.len(), held - 1);
    assert_eq!(read.dropped, vec![held + 1]);

    let out = run(&mut execscope(&tasks, &gens, &json, &["--resume"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{} of {CANDIDATES} candidates judged already, {} to run; 1 line(s) that did not read back dropped (line {})",
            held - 1,
            CANDIDATES - held + 1,
            held + 1
        )),
        "{stderr}"
    );
    assert_eq!(figures(&json), uninterrupted(dir.path(), &tasks, &gens));
}

#[test]
fn a_journal_of_the_older_layout_is_refused_with_a_reason() {
    let dir = tempdir();
    let (tasks, gens) = write_inputs(dir.path());
    let json = dir.path().join("run.json");
    let journal = Journal::path_for(&json);
    // Before resume, a journal was candidate rows with no header.
    std::fs::write(
        &journal,
        "{\"task_id\": \"t0\", \"sample\": 0, \"outcome\": \"pass\", \"score\": 1.0}\n",
    )
    .unwrap();
    let out = run(&mut execscope(&tasks, &gens, &json, &["--resume"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot be resumed: it has no header line"),
        "{stderr}"
    );
    assert!(journal.exists());
}

#[test]
fn a_journal_holding_every_candidate_gives_back_the_same_results_without_running_any() {
    use execscope::engine::{EngineEvent, RunSettings};
    use execscope::report::InputRecord;
    use execscope::resume::{self, Resumption};

    let dir = tempdir();
    let (tasks, gens) = write_inputs(dir.path());
    let record = |path: &Path| InputRecord {
        path: path.display().to_string(),
        sha256: execscope::input::sha256_hex(&std::fs::read(path).unwrap()),
    };
    let (t, g) = (record(&tasks), record(&gens));
    let tasks = execscope::spec::load_tasks(&tasks).unwrap();
    let gens = execscope::generations::load_generations(&gens).unwrap();
    let plan = std::sync::Arc::new(execscope::plan::Plan::build(&tasks, &gens));
    let python = crate::util::python();
    let settings = RunSettings {
        workers: 4,
        ..RunSettings::default()
    };
    let header = resume::header(&settings, python, t, g, None, None, plan.jobs.len());
    let json = dir.path().join("run.json");
    let mut journal = Journal::create(&json, &header).unwrap();
    let fresh = Resumption::fresh(&plan);
    let done = resume::run_blocking(&plan, fresh, python, &settings, |ev, store, at_s| {
        if let EngineEvent::Finished { job, .. } = ev {
            journal.append(store, *job, at_s).unwrap();
        }
    })
    .unwrap();
    drop(journal); // closed, not finished: as a host killed before its run file

    let read = read_journal(&Journal::path_for(&json)).unwrap();
    let resumption = Resumption::from_journal(&plan, &read, &header).unwrap();
    assert_eq!(resumption.judged, CANDIDATES);
    assert!(resumption.remaining().is_empty());
    let again = resume::run_blocking(&plan, resumption, python, &settings, |ev, _, _| {
        panic!("nothing should run: {ev:?}")
    })
    .unwrap();
    // Every result to the last bit: outcomes, scores (1/11 among them),
    // assertions, details, output, times.
    assert_eq!(again.store, done.store);
    assert!(again.elapsed.as_secs_f64() > 0.0);
}

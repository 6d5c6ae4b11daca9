//! Checks against the real public data in `../shared/data` (see its README for the
//! reference figures the official harness produced). Each test skips with a
//! notice where the data is absent. They run one at a time (a lock), so timing-
//! sensitive candidates are not squeezed by each other.

// Tests may panic on what they set up themselves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common as util;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use execscope::engine::{self, RunSettings};
use execscope::generations::{self, GenerationSet};
use execscope::plan::Plan;
use execscope::sandbox::{Limits, Outcome};
use execscope::spec::{self, TaskFormat};
use execscope::store::Store;

static SERIAL: Mutex<()> = Mutex::new(());

fn run(tasks: &Path, gens: Option<&Path>, timeout: Duration) -> Store {
    let tasks = spec::load_tasks(tasks).unwrap();
    assert!(tasks.errors.is_empty(), "{:?}", tasks.errors);
    let gens: GenerationSet = match gens {
        Some(g) => generations::load_generations(g).unwrap(),
        None => generations::from_references(&tasks),
    };
    assert!(gens.errors.is_empty(), "{:?}", gens.errors);
    let plan = Arc::new(Plan::build(&tasks, &gens));
    assert!(plan.problems.is_empty() && plan.missing.is_empty());
    let settings = RunSettings {
        limits: Limits {
            timeout,
            ..Limits::default()
        },
        ..RunSettings::default()
    };
    let done = engine::run_blocking(&plan, util::python(), &settings, |_, _| {}).unwrap();
    assert!(done.failure.is_none());
    eprintln!(
        "{} candidates in {:.1} s ({:.0}/s)",
        plan.jobs.len(),
        done.elapsed.as_secs_f64(),
        plan.jobs.len() as f64 / done.elapsed.as_secs_f64()
    );
    done.store
}

#[test]
fn humaneval_canonical_solutions_all_pass() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let store = run(
        &data.join("humaneval/HumanEval.jsonl.gz"),
        None,
        Duration::from_secs(3),
    );
    let s = store.summary(&[1]);
    assert_eq!(s.candidates, 164);
    assert_eq!(s.outcomes[&Outcome::Pass], 164, "{:?}", s.outcomes);
    assert_eq!(s.pass_at_k[&1], 1.0);
}

#[test]
fn rexgavsie_samples_match_the_official_pass_at_k() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let store = run(
        &data.join("humaneval/HumanEval.jsonl.gz"),
        Some(&data.join("generations/rexgavsie_gpt35instruct_n10/samples.jsonl")),
        Duration::from_secs(3),
    );
    let s = store.summary(&[1, 10]);
    assert_eq!(s.candidates, 1640);
    // The per-candidate CSV carries the same verdicts.
    let dir = util::tempdir();
    let csv = dir.path().join("rex.csv");
    execscope::report::write_candidates_csv(&store, &csv).unwrap();
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        text.lines()
            .filter(|l| l.split(',').nth(2) == Some("pass"))
            .count(),
        1078
    );
    assert_eq!(s.outcomes[&Outcome::Pass], 1078, "{:?}", s.outcomes);
    assert_eq!(format!("{:.4}", s.pass_at_k[&1]), "0.6573");
    assert_eq!(format!("{:.4}", s.pass_at_k[&10]), "0.6646");
}

#[test]
fn mbpp_reference_code_passes_every_task_with_a_10_s_timeout() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let tasks = data.join("mbpp/mbpp.jsonl");
    assert_eq!(spec::load_tasks(&tasks).unwrap().format, TaskFormat::Mbpp);
    let store = run(&tasks, None, Duration::from_secs(10));
    let s = store.summary(&[1]);
    assert_eq!(s.candidates, 974);
    assert_eq!(s.outcomes[&Outcome::Pass], 974, "{:?}", s.outcomes);
}

#[test]
fn sanitized_mbpp_reference_code_passes_every_task_with_a_10_s_timeout() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let store = run(
        &data.join("mbpp/sanitized-mbpp.json"),
        None,
        Duration::from_secs(10),
    );
    let s = store.summary(&[1]);
    assert_eq!(s.candidates, 427);
    assert_eq!(s.outcomes[&Outcome::Pass], 427, "{:?}", s.outcomes);
}

#[test]
fn burakyetistiren_raw_completions_match_the_official_count_without_extraction() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let mut tasks = spec::load_tasks(&data.join("humaneval/HumanEval.jsonl.gz")).unwrap();
    tasks
        .tasks
        .iter_mut()
        .for_each(|t| t.post_process = execscope::postprocess::PostProcess::None);
    let gens = generations::load_generations(
        &data.join("generations/burakyetistiren_evalplus_openai_chat/samples.jsonl"),
    )
    .unwrap();
    let plan = Arc::new(Plan::build(&tasks, &gens));
    let done =
        engine::run_blocking(&plan, util::python(), &RunSettings::default(), |_, _| {}).unwrap();
    assert_eq!(done.store.summary(&[1]).outcomes[&Outcome::Pass], 109);
    // With extraction (the default for HumanEval) the fenced answers run too.
    let tasks = spec::load_tasks(&data.join("humaneval/HumanEval.jsonl.gz")).unwrap();
    let plan = Arc::new(Plan::build(&tasks, &gens));
    let done =
        engine::run_blocking(&plan, util::python(), &RunSettings::default(), |_, _| {}).unwrap();
    let passes = done.store.summary(&[1]).outcomes[&Outcome::Pass];
    assert!(
        passes > 109,
        "extraction should rescue fenced answers: {passes}"
    );
}

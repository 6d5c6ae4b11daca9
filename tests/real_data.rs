//! Checks against the real public data in `../shared/data` (see its README for the
//! reference figures the official harness produced). Each test skips with a
//! notice where the data is absent. They run one at a time (a lock), so timing-
//! sensitive candidates are not squeezed by each other.

// Tests may panic on what they set up themselves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod util;

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

fn run(tasks: &Path, gens: Option<&Path>, timeout: Duration, fast_start: bool) -> Store {
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
        fast_start,
        ..RunSettings::default()
    };
    let done = engine::run_blocking(&plan, util::python(), &settings, |_, _| {}).unwrap();
    assert!(done.failure.is_none());
    eprintln!(
        "{} candidates in {:.1} s ({:.0}/s){}",
        plan.jobs.len(),
        done.elapsed.as_secs_f64(),
        plan.jobs.len() as f64 / done.elapsed.as_secs_f64(),
        if fast_start { ", fast start" } else { "" }
    );
    // No sign of gaming the grader in real solutions and generations.
    let flagged: Vec<String> = done
        .store
        .candidates
        .iter()
        .filter_map(|c| {
            let r = c.result.as_ref()?;
            (!r.flags.is_empty())
                .then(|| format!("{} #{}: {:?}", done.store.task_id(c), c.sample, r.flags))
        })
        .collect();
    assert!(flagged.is_empty(), "flagged: {flagged:#?}");
    done.store
}

#[test]
fn humaneval_canonical_solutions_all_pass_in_both_modes() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    for fast in [false, true] {
        let store = run(
            &data.join("humaneval/HumanEval.jsonl.gz"),
            None,
            Duration::from_secs(3),
            fast,
        );
        let s = store.summary(&[1]);
        assert_eq!(s.candidates, 164);
        assert_eq!(s.outcomes[&Outcome::Pass], 164, "{:?}", s.outcomes);
        assert_eq!(s.pass_at_k[&1], 1.0);
    }
}

fn verdicts(store: &Store) -> Vec<(usize, usize, bool)> {
    store
        .candidates
        .iter()
        .map(|c| {
            let pass = c
                .result
                .as_ref()
                .is_some_and(|r| r.outcome == Outcome::Pass);
            (c.task, c.sample, pass)
        })
        .collect()
}

#[test]
fn rexgavsie_samples_match_the_official_pass_at_k_in_both_modes() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let tasks = data.join("humaneval/HumanEval.jsonl.gz");
    let gens = data.join("generations/rexgavsie_gpt35instruct_n10/samples.jsonl");
    let store = run(&tasks, Some(&gens), Duration::from_secs(3), false);
    let s = store.summary(&[1, 10]);
    assert_eq!(s.candidates, 1640);
    // The per-candidate CSV carries the same verdicts.
    let dir = util::tempdir();
    let csv = dir.path().join("rex.csv");
    let source = execscope::report::Source::of_store(&store, &[]);
    execscope::report::Export::CandidatesCsv
        .write(&source, &csv)
        .unwrap();
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
    // Fast start: the same verdict for every one of the 1640 samples.
    let fast = run(&tasks, Some(&gens), Duration::from_secs(3), true);
    assert_eq!(verdicts(&fast), verdicts(&store));
    let f = fast.summary(&[1, 10]);
    assert_eq!(
        (f.pass_at_k[&1], f.pass_at_k[&10]),
        (s.pass_at_k[&1], s.pass_at_k[&10])
    );
}

#[test]
fn mbpp_reference_code_passes_every_task_with_a_10_s_timeout_in_both_modes() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let tasks = data.join("mbpp/mbpp.jsonl");
    assert_eq!(spec::load_tasks(&tasks).unwrap().format, TaskFormat::Mbpp);
    for fast in [false, true] {
        let store = run(&tasks, None, Duration::from_secs(10), fast);
        let s = store.summary(&[1]);
        assert_eq!(s.candidates, 974);
        assert_eq!(
            s.outcomes[&Outcome::Pass],
            974,
            "fast start {fast}: {:?}",
            s.outcomes
        );
    }
}

#[test]
fn sanitized_mbpp_reference_code_passes_every_task_with_a_10_s_timeout_in_fast_start() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let store = run(
        &data.join("mbpp/sanitized-mbpp.json"),
        None,
        Duration::from_secs(10),
        true,
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

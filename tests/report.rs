//! Exports: golden CSVs on fixed data and the run-file round trip.

use execscope::engine::RunSettings;
use execscope::report::{self, InputRecord, RunContext, RunFile};
use execscope::sandbox::{CandidateResult, Interpreter, Outcome};
use execscope::store::{Candidate, Store, TaskEntry};

fn result(outcome: Outcome, per: &[bool], detail: &str) -> CandidateResult {
    let passed = per.iter().filter(|p| **p).count() as u32;
    CandidateResult {
        outcome,
        score: if matches!(outcome, Outcome::Pass | Outcome::AssertionFail) {
            f64::from(passed) / per.len() as f64
        } else {
            0.0
        },
        passed,
        total: per.len() as u32,
        per_assertion: per.to_vec(),
        detail: detail.to_owned(),
        duration_ms: 12,
        stdout: "out".into(),
        ..CandidateResult::not_run("", per.len())
    }
}

fn fixed_store() -> Store {
    let task = |id: &str| TaskEntry {
        id: id.into(),
        prompt: format!("Solve {id}."),
        assertions: vec!["a".into(), "b".into()],
    };
    let cand = |task, sample, r| Candidate {
        task,
        sample,
        generation: "gen".into(),
        code: "code".into(),
        setup: String::new(),
        result: Some(r),
    };
    Store {
        tasks: vec![task("t/1"), task("t,2")],
        candidates: vec![
            cand(
                0,
                0,
                CandidateResult {
                    flags: vec!["always-equal".into(), "shadowed-name".into()],
                    ..result(Outcome::Pass, &[true, true], "")
                },
            ),
            cand(
                0,
                1,
                CandidateResult {
                    failure: Some(execscope::sandbox::Failure {
                        assertion: Some(2),
                        line: Some(1),
                        text: Some("f(2) == [1, 2]".into()),
                        op: Some("==".into()),
                        left: Some("[1]".into()),
                        right: Some("[1, 2]".into()),
                        difference: Some("index 1: 2 missing".into()),
                        where_: vec![("f(2)".into(), "[1]".into())],
                        ..Default::default()
                    }),
                    ..result(
                        Outcome::AssertionFail,
                        &[true, false],
                        "assertion 2 failed: expression is false",
                    )
                },
            ),
            cand(
                1,
                0,
                result(
                    Outcome::Error,
                    &[false, false],
                    "ValueError: a \"quoted\", comma",
                ),
            ),
        ],
        texts: None,
    }
}

fn golden(name: &str) -> String {
    std::fs::read_to_string(crate::util::fixture(name)).unwrap()
}

#[test]
fn the_candidate_csv_matches_its_golden_file() {
    let dir = crate::util::tempdir();
    let path = dir.path().join("c.csv");
    let store = fixed_store();
    let source = report::Source::of_store(&store, &[]);
    report::Export::CandidatesCsv.write(&source, &path).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        golden("golden_candidates.csv")
    );
}

#[test]
fn the_summary_csv_gives_each_pass_at_k_with_its_interval_and_task_count() {
    let dir = crate::util::tempdir();
    let path = dir.path().join("s.csv");
    let store = fixed_store();
    let source = report::Source::of_store(&store, &[1, 2, 3]);
    report::Export::SummaryCsv.write(&source, &path).unwrap();
    // Tasks (n, c) = (2, 1), (1, 0). pass@1 = (0.5 + 0) / 2, its resampled
    // means are 0, 0.25 or 0.5; pass@2 has one task (1.0); pass@3 is undefined.
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "k,pass_at_k,ci95_low,ci95_high,tasks\n1,0.2500,0.0000,0.5000,2\n2,1.0000,1.0000,1.0000,1\n"
    );
}

#[test]
fn the_task_csv_matches_its_golden_file_with_empty_cells_for_undefined_k() {
    let dir = crate::util::tempdir();
    let path = dir.path().join("t.csv");
    let store = fixed_store();
    let source = report::Source::of_store(&store, &[1, 2]);
    report::Export::TasksCsv.write(&source, &path).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        golden("golden_tasks.csv")
    );
}

#[test]
fn a_run_file_keeps_the_contract_keys_and_reopens_to_the_same_store() {
    let store = fixed_store();
    let python = Interpreter {
        executable: "/usr/bin/python3".into(),
        version: "3.11.7".into(),
        sys_path: vec![],
        harness_code: Default::default(),
        candidate_code: Default::default(),
    };
    let settings = RunSettings::default();
    let input = |p: &str| InputRecord {
        path: p.into(),
        sha256: "ab".into(),
    };
    let file = RunFile::from_store(
        &store,
        &RunContext {
            settings: &settings,
            python: &python,
            tasks: input("tasks.jsonl"),
            generations: input("gens.jsonl"),
            ks: &[1, 2],
            elapsed_s: 1.5,
            cancelled: false,
            skipped: &[],
            missing: &[],
            shard: None,
        },
    );
    let json: serde_json::Value = serde_json::from_slice(&file.to_json().unwrap()).unwrap();
    assert_eq!(json["format"], "execscope-run/1");
    assert_eq!(json["settings"]["timeout_s"], 3.0);
    assert_eq!(json["settings"]["output_cap_bytes"], 262144);
    assert!(json["settings"]["workers"].is_u64());
    assert_eq!(json["settings"]["memory_limit_bytes"], 2u64 << 30);
    assert_eq!(json["settings"]["process_guard"], true);
    assert_eq!(json["settings"]["no_network"], false);
    assert_eq!(json["python"]["version"], "3.11.7");
    assert_eq!(json["inputs"]["tasks"]["sha256"], "ab");
    let c = &json["candidates"][1];
    for key in [
        "task_id",
        "sample",
        "outcome",
        "score",
        "passed",
        "total",
        "per_assertion",
        "detail",
        "duration_ms",
        "code",
        "stdout",
        "stderr",
        "flags",
    ] {
        assert!(c.get(key).is_some(), "candidate key {key}");
    }
    assert_eq!(
        json["candidates"][0]["flags"],
        serde_json::json!(["always-equal", "shadowed-name"])
    );
    assert_eq!(json["settings"]["strict_integrity"], false);
    assert_eq!(json["summary"]["flagged"], 1);
    assert_eq!(json["summary"]["flags"]["shadowed-name"], 1);
    assert_eq!(c["outcome"], "assertion_fail");
    assert_eq!(json["tasks"][0]["pass_at_k"]["2"], 1.0);
    assert_eq!(
        json["tasks"][1]["pass_at_k"].get("2"),
        None,
        "k > n is left out"
    );
    assert_eq!(json["summary"]["outcomes"]["pass"], 1);
    assert_eq!(json["summary"]["outcomes"]["timeout"], 0);
    assert_eq!(json["summary"]["pass_at_k"]["1"], 0.25);
    assert_eq!(json["summary"]["elapsed_s"], 1.5);
    // pass@1 per task is 0.5 and 0: every resampled mean is 0, 0.25 or 0.5.
    let ci = &json["summary"]["pass_at_k_ci"]["1"];
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    assert!(lo <= 0.25 && 0.25 <= hi && lo >= 0.0 && hi <= 0.5, "{ci}");

    let dir = crate::util::tempdir();
    let path = dir.path().join("run.json");
    file.save(&path).unwrap();
    let back = RunFile::load(&path).unwrap();
    assert_eq!(back, file);
    assert_eq!(back.to_store(), store);
}

#[test]
fn a_file_that_is_not_a_run_file_is_refused_with_a_reason() {
    let dir = crate::util::tempdir();
    let path = dir.path().join("x.json");
    std::fs::write(&path, "{\"format\": \"other/2\"}").unwrap();
    let err = RunFile::load(&path).unwrap_err().to_string();
    assert!(err.contains("x.json") && err.contains("other/2"), "{err}");
}

#[test]
fn the_human_eval_results_match_their_golden_file() {
    let bytes = report::human_eval_results(&fixed_store()).unwrap();
    assert_eq!(
        String::from_utf8(bytes).unwrap(),
        golden("golden_human_eval_results.jsonl")
    );
}

#[test]
fn the_markdown_summary_matches_its_golden_file() {
    let md = report::markdown_summary(&fixed_store(), &[1, 2], "execscope: fixed");
    assert_eq!(md, golden("golden_summary.md"));
}

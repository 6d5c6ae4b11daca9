//! `run --shard I/N` and `merge`: the parts of a split run merge into exactly the
//! single run; parts that do not belong together are refused with the reason.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

use crate::util::tempdir;

fn execscope() -> Command {
    Command::cargo_bin("execscope").unwrap()
}

fn run_demo(json: &Path, extra: &[&str]) {
    execscope()
        .args(["run", "-q", "--json"])
        .arg(json)
        .args(extra)
        .assert()
        .success();
}

fn load(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// What must be equal between a merged and a single run: every candidate's
/// verdict and every figure, not timings.
fn figures(run: &serde_json::Value) -> serde_json::Value {
    let candidates: Vec<serde_json::Value> = run["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            serde_json::json!([
                c["task_id"],
                c["sample"],
                c["outcome"],
                c["score"],
                c["per_assertion"],
                c["detail"],
                c["code"]
            ])
        })
        .collect();
    let tasks: Vec<serde_json::Value> = run["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            serde_json::json!([
                t["task_id"],
                t["n"],
                t["c"],
                t["mean_score"],
                t["pass_at_k"]
            ])
        })
        .collect();
    let s = &run["summary"];
    serde_json::json!({
        "candidates": candidates,
        "tasks": tasks,
        "summary": [s["candidates"], s["outcomes"], s["mean_score"], s["pass_at_k"], s["pass_at_k_ci"]],
    })
}

fn parts(dir: &Path, count: usize) -> Vec<PathBuf> {
    (1..=count)
        .map(|i| {
            let path = dir.join(format!("part{i}.json"));
            run_demo(&path, &["--shard", &format!("{i}/{count}")]);
            path
        })
        .collect()
}

#[test]
fn the_demo_split_four_ways_merges_into_the_single_run() {
    let dir = tempdir();
    let single = dir.path().join("single.json");
    run_demo(&single, &[]);
    let parts = parts(dir.path(), 4);
    let sizes: Vec<usize> = parts
        .iter()
        .map(|p| load(p)["candidates"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, vec![7, 6, 6, 6], "25 candidates, strided");
    assert_eq!(
        load(&parts[1])["shard"],
        serde_json::json!({"index": 2, "count": 4, "jobs": 25})
    );
    let merged = dir.path().join("merged.json");
    // Any order of parts.
    let mut shuffled = parts.clone();
    shuffled.reverse();
    execscope()
        .arg("merge")
        .args(&shuffled)
        .arg("-o")
        .arg(&merged)
        .assert()
        .success()
        .stdout(predicate::str::contains("25 candidates from 5 tasks"));
    let merged = load(&merged);
    assert!(merged.get("shard").is_none());
    assert_eq!(figures(&merged), figures(&load(&single)));
    // The app and every reader take it like any run file.
    execscope::report::RunFile::load(&dir.path().join("merged.json")).unwrap();
}

#[test]
fn merge_refuses_a_missing_shard() {
    let dir = tempdir();
    let parts = parts(dir.path(), 3);
    execscope()
        .arg("merge")
        .args(&parts[..2])
        .arg("-o")
        .arg(dir.path().join("m.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "incomplete: no part for shard 3/3",
        ));
    assert!(!dir.path().join("m.json").exists());
}

#[test]
fn merge_refuses_the_same_shard_twice() {
    let dir = tempdir();
    let parts = parts(dir.path(), 2);
    execscope()
        .arg("merge")
        .args([&parts[0], &parts[0], &parts[1]])
        .arg("-o")
        .arg(dir.path().join("m.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("shard 1/2 is also in"));
}

#[test]
fn merge_refuses_parts_run_with_other_settings() {
    let dir = tempdir();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    run_demo(&a, &["--shard", "1/2"]);
    run_demo(&b, &["--shard", "2/2", "--timeout", "5"]);
    execscope()
        .args(["merge"])
        .args([&a, &b])
        .arg("-o")
        .arg(dir.path().join("m.json"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("does not belong with")
                .and(predicate::str::contains("its settings differ")),
        );
}

#[test]
fn merge_refuses_a_run_file_that_is_not_a_part() {
    let dir = tempdir();
    let whole = dir.path().join("whole.json");
    run_demo(&whole, &[]);
    execscope()
        .args(["merge"])
        .arg(&whole)
        .arg("-o")
        .arg(dir.path().join("m.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a partial run file"));
}

#[test]
fn a_shard_outside_its_count_is_refused() {
    execscope()
        .args(["run", "--shard", "5/4"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("write I/N with 1 <= I <= N"));
}

//! The `execscope` binary end to end.

use assert_cmd::Command;
use predicates::prelude::*;

use crate::util::{fixture, tempdir};

fn execscope() -> Command {
    Command::cargo_bin("execscope").unwrap()
}

#[test]
fn run_without_files_runs_the_embedded_demo_and_says_so() {
    let dir = tempdir();
    let json = dir.path().join("run.json");
    let csv = dir.path().join("c.csv");
    let tcsv = dir.path().join("t.csv");
    execscope()
        .args(["run", "-q", "--k", "1,5", "--json"])
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .arg("--task-csv")
        .arg(&tcsv)
        .assert()
        .success()
        .stderr(predicate::str::contains("embedded demo set"))
        .stdout(predicate::str::contains("25 candidates from 5 tasks"))
        .stdout(predicate::str::contains("pass@5"))
        .stdout(predicate::str::contains(
            "pass@1            0.4400   95% CI [",
        ))
        .stdout(predicate::str::is_match(r"timeout\s+1\s").unwrap())
        .stdout(predicate::str::contains(
            "1 candidate flagged: always-equal 1",
        ));
    let run: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(run["summary"]["candidates"], 25);
    assert_eq!(run["summary"]["flags"]["always-equal"], 1);
    assert_eq!(run["skipped_tasks"][0]["task_id"], "capital_mcq");
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 26);
    assert!(
        std::fs::read_to_string(&tcsv)
            .unwrap()
            .starts_with("task_id,n,c,mean_score,pass@1,pass@5\n")
    );
}

#[test]
fn strict_integrity_turns_the_demos_flagged_pass_into_an_error() {
    let dir = tempdir();
    let json = dir.path().join("run.json");
    execscope()
        .args(["run", "-q", "--strict-integrity", "--json"])
        .arg(&json)
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"pass\s+10\s").unwrap())
        .stdout(predicate::str::is_match(r"error\s+5\s").unwrap());
    let run: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(run["settings"]["strict_integrity"], true);
    let flagged: Vec<&serde_json::Value> = run["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["flags"].as_array().is_some_and(|f| !f.is_empty()))
        .collect();
    assert_eq!(flagged.len(), 1);
    assert_eq!(flagged[0]["outcome"], "error");
    assert_eq!(flagged[0]["detail"], "integrity: always-equal");
}

#[test]
fn strict_integrity_refuses_to_run_where_the_candidate_could_reach_the_judge() {
    execscope()
        .args(["run", "-q", "--strict-integrity", "--no-confinement"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("verdict integrity: partial"))
        .stderr(predicate::str::contains("the judge's memory through /proc"));
    // The denylist plays no part in it any more.
    execscope()
        .args([
            "run",
            "-q",
            "--strict-integrity",
            "--deny",
            "subprocess,socket",
        ])
        .assert()
        .success();
}

#[test]
fn run_refuses_invalid_tasks_with_exit_2_and_lists_them() {
    let fixture = fixture("lesson70_rules.jsonl");
    let dir = tempdir();
    let gens = dir.path().join("g.jsonl");
    std::fs::write(
        &gens,
        "{\"task_id\": \"valid_code\", \"generation\": \"def f():\\n    return 1\\n\"}\n",
    )
    .unwrap();
    execscope()
        .args(["run", "-q", "--tasks"])
        .arg(&fixture)
        .arg("--generations")
        .arg(&gens)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("23 invalid record(s)"))
        .stderr(predicate::str::contains(
            "lesson70_rules.jsonl:5: field `answer`",
        ))
        .stderr(predicate::str::contains("--allow-bad-tasks"));
    execscope()
        .args(["run", "-q", "--allow-bad-tasks", "--tasks"])
        .arg(&fixture)
        .arg("--generations")
        .arg(&gens)
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"pass\s+1\s").unwrap());
}

#[test]
fn run_with_a_missing_file_exits_2_naming_it() {
    execscope()
        .args([
            "run",
            "--tasks",
            "no/such/tasks.jsonl",
            "--generations",
            "g.jsonl",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no/such/tasks.jsonl: cannot read the file",
        ));
}

#[test]
fn run_with_binary_garbage_exits_2_without_a_panic() {
    let dir = tempdir();
    let bad = dir.path().join("bad.bin");
    std::fs::write(&bad, [0u8, 159, 146, 150, 255, 0, 1]).unwrap();
    execscope()
        .args(["run", "--tasks"])
        .arg(&bad)
        .arg("--generations")
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("bad.bin:1: the file is not UTF-8 text")
                .and(predicate::str::contains("panicked").not()),
        );
}

#[test]
fn run_with_generations_for_unknown_tasks_exits_2_naming_the_line() {
    let dir = tempdir();
    let tasks = dir.path().join("t.jsonl");
    std::fs::write(&tasks, r#"{"task_id": "a", "category": "code_exec", "prompt": "p", "targets": ["True"], "metric_name": "code_exec", "post_process": "none"}"#).unwrap();
    let gens = dir.path().join("g.jsonl");
    std::fs::write(&gens, "{\"task_id\": \"a\", \"generation\": \"x = 1\"}\n{\"task_id\": \"b\", \"generation\": \"x = 1\"}\n").unwrap();
    execscope()
        .args(["run", "-q", "--tasks"])
        .arg(&tasks)
        .arg("--generations")
        .arg(&gens)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "g.jsonl:2: field `task_id`: no task \"b\"",
        ));
}

#[test]
fn run_with_a_missing_interpreter_fails_with_a_hint() {
    execscope()
        .args(["run", "-q", "--python", "/no/such/python"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("cannot start the Python interpreter")
                .and(predicate::str::contains("--python")),
        );
}

#[test]
fn validate_prints_every_error_and_exits_1() {
    let fixture = fixture("lesson70_rules.jsonl");
    let out = execscope()
        .arg("validate")
        .arg(&fixture)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8(out).unwrap().lines().count(), 23);
}

#[test]
fn validate_accepts_a_clean_file() {
    let dir = tempdir();
    let tasks = dir.path().join("t.jsonl");
    std::fs::write(&tasks, r#"{"task_id": "a", "category": "code_exec", "prompt": "p", "targets": ["True"], "metric_name": "code_exec", "post_process": "none"}"#).unwrap();
    execscope()
        .arg("validate")
        .arg(&tasks)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "1 executable task(s), 0 skipped, 0 error(s)",
        ));
}

#[test]
fn run_evaluates_humaneval_reference_solutions_from_the_real_data() {
    let Some(data) = crate::util::data_dir() else {
        return;
    };
    execscope()
        .args(["run", "-q", "--reference", "--tasks"])
        .arg(data.join("humaneval/HumanEval.jsonl.gz"))
        .assert()
        .success()
        .stdout(predicate::str::contains("164 candidates from 164 tasks"))
        .stdout(predicate::str::is_match(r"pass\s+164\s+100\.0%").unwrap());
}

#[test]
fn a_killed_run_leaves_a_journal_with_every_finished_candidate() {
    let dir = tempdir();
    let tasks = dir.path().join("t.jsonl");
    std::fs::write(&tasks, r#"{"task_id": "a", "category": "code_exec", "prompt": "p", "targets": ["True"], "metric_name": "code_exec", "post_process": "none", "metadata": {"timeout_s": 30}}"#).unwrap();
    let gens = dir.path().join("g.jsonl");
    let fast = "{\"task_id\": \"a\", \"generation\": \"x = 1\"}\n".repeat(4);
    let slow = "{\"task_id\": \"a\", \"generation\": \"import time\\ntime.sleep(30)\"}\n";
    std::fs::write(&gens, format!("{fast}{slow}")).unwrap();
    let json = dir.path().join("run.json");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("execscope"))
        .args(["run", "-q", "--workers", "1", "--tasks"])
        .arg(&tasks)
        .arg("--generations")
        .arg(&gens)
        .arg("--json")
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let journal = execscope::report::Journal::path_for(&json);
    let start = std::time::Instant::now();
    // The header, then one line per candidate.
    while std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count()) < 5 {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "the journal did not fill"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let read = execscope::report::read_journal(&journal).unwrap();
    assert_eq!(read.entries.len(), 4);
    assert!(
        read.entries
            .iter()
            .all(|(_, e)| e.result.outcome == execscope::sandbox::Outcome::Pass)
    );
    assert!(!json.exists(), "no run file for a run that never ended");
}

#[test]
fn a_completed_run_removes_its_journal() {
    let dir = tempdir();
    let json = dir.path().join("run.json");
    execscope()
        .args(["run", "-q", "--json"])
        .arg(&json)
        .assert()
        .success();
    assert!(json.exists());
    assert!(!execscope::report::Journal::path_for(&json).exists());
}

#[test]
fn run_writes_human_eval_results_and_a_markdown_summary() {
    let dir = tempdir();
    let results = dir.path().join("samples.jsonl_results.jsonl");
    let md = dir.path().join("summary.md");
    execscope()
        .args(["run", "-q", "--results-jsonl"])
        .arg(&results)
        .arg("--markdown")
        .arg(&md)
        .assert()
        .success();
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&results)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 25);
    assert_eq!(lines.iter().filter(|l| l["passed"] == true).count(), 11);
    assert!(lines.iter().any(|l| l["result"] == "timed out"));
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains("| pass | 11 | 44.0% |"), "{md}");
    assert!(md.contains("| pass@1 | 0.4400 |"), "{md}");
}

#[test]
fn compare_lists_regressions_and_improvements_and_writes_their_csv() {
    let dir = tempdir();
    let a = fixture("demo_run.json");
    let mut run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    for t in run["tasks"].as_array_mut().unwrap() {
        match t["task_id"].as_str().unwrap() {
            "add" => {
                t["c"] = 1.into();
                t["mean_score"] = 0.2.into();
            }
            "fib" => {
                t["c"] = 5.into();
                t["mean_score"] = 1.0.into();
            }
            _ => {}
        }
    }
    run["summary"]["pass_at_k"] = serde_json::json!({"1": 0.5});
    let b = dir.path().join("b.json");
    std::fs::write(&b, run.to_string()).unwrap();
    let csv = dir.path().join("changes.csv");
    execscope()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .arg("--csv")
        .arg(&csv)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "pass@1              0.4400    0.5000   +0.0600",
        ))
        .stdout(predicate::str::is_match(r"improved\s+1\nregressed\s+1\nunchanged\s+3").unwrap())
        .stdout(predicate::str::contains(
            "add                      passes 3/5 -> 1/5, mean score 0.60 -> 0.20",
        ));
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "task_id,change,n_a,c_a,mean_score_a,n_b,c_b,mean_score_b,mean_score_delta\n\
         add,regressed,5,3,0.6000,5,1,0.2000,-0.4000\n\
         fib,improved,5,2,0.4500,5,5,1.0000,+0.5500\n"
    );
}

#[test]
fn compare_refuses_a_file_that_is_not_a_run_file() {
    let a = fixture("demo_run.json");
    let b = fixture("lesson70_rules.jsonl");
    execscope()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "lesson70_rules.jsonl: not an execscope run file",
        ));
}

/// Every output flag of `run`.
const OUTPUT_FLAGS: [&str; 6] = [
    "--json",
    "--csv",
    "--task-csv",
    "--summary-csv",
    "--results-jsonl",
    "--markdown",
];

#[test]
fn an_unwritable_path_for_any_output_is_refused_before_the_run() {
    let dir = tempdir();
    let nowhere = dir.path().join("no-such-folder/out");
    for flag in OUTPUT_FLAGS {
        // A writable output beside it must not be written either, and the
        // interpreter (which does not exist) is never looked for: the run
        // would fail on it otherwise.
        let other = if flag == "--csv" {
            "--markdown"
        } else {
            "--csv"
        };
        let written = dir.path().join(format!("other{flag}"));
        execscope()
            .args(["run", "-q", "--python", "no-such-python-anywhere", flag])
            .arg(&nowhere)
            .arg(other)
            .arg(&written)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(format!(
                "cannot write {}",
                nowhere.display()
            )));
        assert!(!written.exists(), "{flag}: an output was written");
    }
}

#[test]
fn a_folder_or_a_file_named_twice_is_refused_before_the_run() {
    let dir = tempdir();
    execscope()
        .args(["run", "-q", "--python", "no-such-python-anywhere", "--csv"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("it is a folder"));
    let same = dir.path().join("out");
    execscope()
        .args(["run", "-q", "--python", "no-such-python-anywhere", "--csv"])
        .arg(&same)
        .arg("--markdown")
        .arg(&same)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is named for two outputs (per-candidate CSV and Markdown summary)",
        ));
    assert!(!same.exists());
}

#[test]
fn run_prints_the_top_causes_and_show_prints_expected_and_got() {
    let dir = tempdir();
    let json = dir.path().join("run.json");
    let causes = dir.path().join("causes.csv");
    execscope()
        .args(["run", "-q", "--json"])
        .arg(&json)
        .arg("--causes-csv")
        .arg(&causes)
        .assert()
        .success()
        .stdout(predicate::str::contains("top failure causes ("));
    let csv = std::fs::read_to_string(&causes).unwrap();
    assert!(
        csv.starts_with("signature,outcome,candidates,tasks,share,"),
        "{csv}"
    );
    assert!(
        csv.contains("assertion_fail: reverse_words assertion 2 line 1"),
        "{csv}"
    );
    execscope()
        .arg("show")
        .arg(&json)
        .args(["reverse_words", "3"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "  Expected:\n      'hello'\n  Got:\n      'olleh'\n",
        ))
        .stdout(predicate::str::contains("Difference: index 0: 'o' != 'h'"));
    execscope()
        .arg("show")
        .arg(&json)
        .arg("no_such_task")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no task \"no_such_task\""));
}

#[test]
fn show_run_and_the_markdown_print_the_candidates_words_inert() {
    let dir = tempdir();
    let tasks = dir.path().join("t.jsonl");
    let task = serde_json::json!({
        "task_id": "X/0", "prompt": "def add(a, b):\n", "entry_point": "add",
        "canonical_solution": "    return a + b\n",
        "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n",
    });
    std::fs::write(&tasks, format!("{task}\n")).unwrap();
    let gens = dir.path().join("g.jsonl");
    let completion =
        "    raise ValueError('\\r\\x1b[2Kevery candidate passed <img src=x onerror=alert(1)>')\n";
    let generation = serde_json::json!({"task_id": "X/0", "completion": completion});
    std::fs::write(&gens, format!("{generation}\n")).unwrap();
    let (json, md) = (dir.path().join("run.json"), dir.path().join("s.md"));
    let run = execscope()
        .args(["run", "-q", "--tasks"])
        .arg(&tasks)
        .arg("--generations")
        .arg(&gens)
        .arg("--json")
        .arg(&json)
        .arg("--markdown")
        .arg(&md)
        .assert()
        .success();
    let out = String::from_utf8(run.get_output().stdout.clone()).unwrap();
    assert!(
        out.contains("top failure causes") && !out.contains('\u{1b}') && !out.contains('\r'),
        "{out}"
    );
    let show = execscope()
        .arg("show")
        .arg(&json)
        .arg("X/0")
        .assert()
        .success();
    let out = String::from_utf8(show.get_output().stdout.clone()).unwrap();
    assert!(out.contains("Raised: ValueError: \\r\\u{1b}[2K"), "{out}");
    assert!(!out.contains('\u{1b}') && !out.contains('\r'), "{out}");
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("&lt;img src=x onerror=alert(1)&gt;") && !md.contains("<img"),
        "{md}"
    );
}

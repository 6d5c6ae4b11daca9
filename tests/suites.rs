//! Tests that are a unittest suite (BigCodeBench), on small task files
//! written here, in both modes: each method is an assertion, a failing
//! method's detail is its exception, fixtures and a raising test module fail
//! every method, a missing library is the environment's fault, and every
//! result says the verdict was decided in the candidate's process.

use std::sync::Arc;

use execscope::engine::{self, RunSettings};
use execscope::generations;
use execscope::plan::Plan;
use execscope::sandbox::{CandidateResult, Fault, Integrity, Outcome};
use execscope::spec::{self, TaskFormat};
use serde_json::json;

use crate::util;

const CODE_PROMPT: &str = "import os\ndef task_func(a, b):\n";

/// A BigCodeBench record with `test` and `libs`.
pub(crate) fn record(id: &str, test: &str, libs: &str) -> String {
    json!({
        "task_id": id,
        "complete_prompt": format!("{CODE_PROMPT}    \"\"\"Adds a and b.\"\"\"\n"),
        "instruct_prompt": "Write task_func.",
        "code_prompt": CODE_PROMPT,
        "canonical_solution": "    return a + b\n",
        "test": test,
        "entry_point": "task_func",
        "doc_struct": "{}",
        "libs": libs,
    })
    .to_string()
}

const ADDS: &str = "import unittest\n\
class TestCases(unittest.TestCase):\n    \
    def test_small(self):\n        self.assertEqual(task_func(1, 2), 3)\n    \
    def test_zero(self):\n        self.assertEqual(task_func(0, 0), 0)\n    \
    def test_negative(self):\n        self.assertEqual(task_func(-1, -2), -3)\n";

/// Runs each generation of `generations` on the one task of `line`, in the
/// default mode and in fast start; both must agree on everything shown here.
pub(crate) fn judge(line: &str, generations: &[&str]) -> Vec<CandidateResult> {
    let dir = util::tempdir();
    let path = dir.path().join("bcb.jsonl");
    std::fs::write(&path, format!("{line}\n")).unwrap();
    let tasks = spec::load_tasks(&path).unwrap();
    assert_eq!(tasks.format, TaskFormat::BigCodeBench);
    assert!(tasks.errors.is_empty(), "{:?}", tasks.errors);
    let id = &tasks.tasks[0].id;
    let gens: String = generations
        .iter()
        .map(|g| format!("{}\n", json!({"task_id": id, "solution": g})))
        .collect();
    let gens =
        generations::parse_generations(&dir.path().join("g.jsonl"), gens.into_bytes()).unwrap();
    let plan = Arc::new(Plan::build(&tasks, &gens));
    let mut results: Vec<Vec<CandidateResult>> = Vec::new();
    for fast_start in [false, true] {
        let mut settings = RunSettings {
            fast_start,
            ..RunSettings::default()
        };
        settings.settle_for(&plan);
        execscope::environment::probe(&plan, util::python());
        let done = engine::run_blocking(&plan, util::python(), &settings, |_, _| {}).unwrap();
        results.push(
            done.store
                .candidates
                .iter()
                .map(|c| c.result.clone().unwrap())
                .collect(),
        );
    }
    for (a, b) in results[0].iter().zip(&results[1]) {
        assert_eq!(
            (a.outcome, a.passed, a.total, &a.detail, a.fault),
            (b.outcome, b.passed, b.total, &b.detail, b.fault),
            "the two modes differ"
        );
        assert_eq!(a.integrity, Some(Integrity::InProcess));
    }
    results.swap_remove(0)
}

#[test]
fn each_test_method_is_an_assertion_and_a_failing_one_says_why_with_its_line() {
    let line = record("BigCodeBench/9000", ADDS, "['os']");
    let rs = judge(
        &line,
        &[
            // A completion of the prompt, and a whole function.
            "    return a + b\n",
            "```python\nimport os\ndef task_func(a, b):\n    return abs(a) + abs(b)\n```",
        ],
    );
    assert_eq!(
        (rs[0].outcome, rs[0].passed, rs[0].total),
        (Outcome::Pass, 3, 3)
    );
    assert_eq!(
        (rs[1].outcome, rs[1].passed, rs[1].total),
        (Outcome::AssertionFail, 2, 3)
    );
    assert!(
        rs[1]
            .detail
            .contains("AssertionError: 3 != -3 (test line 8)"),
        "{}",
        rs[1].detail
    );
    assert_eq!(rs[1].per_assertion, [false, true, true], "sorted by name");
}

#[test]
fn tests_that_patch_the_programs_modules_see_the_patch() {
    let test = "import unittest\nfrom unittest.mock import patch\n\
class TestCases(unittest.TestCase):\n    \
    @patch('os.listdir', return_value=['x', 'y'])\n    \
    def test_patched(self, listdir):\n        \
        self.assertEqual(task_func('.', 0), 2)\n        listdir.assert_called_once()\n";
    let line = record("BigCodeBench/9001", test, "['os']");
    let rs = judge(&line, &["    return len(os.listdir(a)) + b\n"]);
    assert_eq!(rs[0].outcome, Outcome::Pass, "{}", rs[0].detail);
}

#[test]
fn a_failing_fixture_or_a_raising_test_module_fails_every_method() {
    let fixture = "import unittest\n\
class TestCases(unittest.TestCase):\n    \
    @classmethod\n    def setUpClass(cls):\n        raise OSError('no fixture')\n    \
    def test_a(self):\n        pass\n    \
    def test_b(self):\n        pass\n";
    let rs = judge(
        &record("BigCodeBench/9002", fixture, "[]"),
        &["    return a + b\n"],
    );
    assert_eq!(
        (rs[0].outcome, rs[0].passed, rs[0].total),
        (Outcome::AssertionFail, 0, 2)
    );
    assert!(rs[0].detail.contains("no fixture"), "{}", rs[0].detail);

    let raising = format!("raise RuntimeError('module level')\n{ADDS}");
    let rs = judge(
        &record("BigCodeBench/9003", &raising, "[]"),
        &["    return a + b\n"],
    );
    assert_eq!(rs[0].passed, 0);
    assert_ne!(rs[0].outcome, Outcome::Pass);
    assert!(rs[0].detail.contains("module level"), "{}", rs[0].detail);
    assert_eq!(rs[0].fault, None);
}

#[test]
fn a_library_the_interpreter_lacks_is_an_environment_fault_not_a_model_failure() {
    let test = format!("import execscope_absent_library\n{ADDS}");
    let line = record("BigCodeBench/9004", &test, "['execscope_absent_library']");
    let rs = judge(&line, &["    return a + b\n", "    return a - b\n"]);
    for r in &rs {
        assert_eq!(r.outcome, Outcome::Error);
        assert_eq!(r.fault, Some(Fault::Environment));
        assert_eq!(r.detail, "missing library: execscope_absent_library");
    }
    // A failure of the code's own is not blamed on the environment.
    let rs = judge(
        &record("BigCodeBench/9005", ADDS, "['execscope_absent_library']"),
        &[
            "    import execscope_absent_library\n    return a + b\n",
            "    return a - b\n",
        ],
    );
    assert_eq!(rs[0].fault, Some(Fault::Environment), "{}", rs[0].detail);
    assert_eq!((rs[1].outcome, rs[1].fault), (Outcome::AssertionFail, None));
}

#[test]
fn bad_bigcodebench_records_are_named_by_line_and_field() {
    let dir = util::tempdir();
    let path = dir.path().join("bad.jsonl");
    let good = record("BigCodeBench/1", ADDS, "['os']");
    let no_class = record("BigCodeBench/2", "import unittest\n", "[]");
    let mut no_test: serde_json::Value = serde_json::from_str(&good).unwrap();
    no_test["task_id"] = json!("BigCodeBench/3");
    no_test.as_object_mut().unwrap().remove("test");
    let bad_libs = record("BigCodeBench/4", ADDS, "[os").replace("\"libs\":\"[os\"", "\"libs\":7");
    std::fs::write(
        &path,
        format!("{good}\n{no_class}\n{no_test}\n{bad_libs}\n"),
    )
    .unwrap();
    let tasks = spec::load_tasks(&path).unwrap();
    assert_eq!(tasks.format, TaskFormat::BigCodeBench);
    assert_eq!(tasks.tasks.len(), 1);
    let errors: Vec<String> = tasks.errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(
        errors[0].contains(":2") && errors[0].contains("test"),
        "{}",
        errors[0]
    );
    assert!(errors[0].contains("TestCases"), "{}", errors[0]);
    assert!(
        errors[1].contains(":3") && errors[1].contains("test"),
        "{}",
        errors[1]
    );
    assert!(
        errors[2].contains(":4") && errors[2].contains("libs"),
        "{}",
        errors[2]
    );
    for e in &errors {
        assert!(e.contains("bad.jsonl"), "{e}");
    }
}

#[test]
fn show_and_the_markdown_say_a_suites_verdict_is_the_candidates_own_word() {
    // A red-team route: a suite's verdict forged in the candidate's process
    // (it replaced assertEqual) was marked in the run file but not where a
    // user reads one candidate or a report.
    let dir = util::tempdir();
    let tasks = dir.path().join("bcb.jsonl");
    let gens = dir.path().join("g.jsonl");
    let run = dir.path().join("run.json");
    std::fs::write(&tasks, format!("{}\n", record("T/1", ADDS, "['os']"))).unwrap();
    let forged = "import os, unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\ndef task_func(a, b):\n    return 42\n";
    std::fs::write(
        &gens,
        format!("{}\n", json!({"task_id": "T/1", "solution": forged})),
    )
    .unwrap();
    let bin = || assert_cmd::Command::cargo_bin("execscope").unwrap();
    bin()
        .args(["run", "-q", "--tasks"])
        .arg(&tasks)
        .arg("--generations")
        .arg(&gens)
        .arg("--json")
        .arg(&run)
        .arg("--markdown")
        .arg(dir.path().join("summary.md"))
        .assert()
        .success();
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(
        md.contains("1 verdict was decided in the candidate's own process"),
        "{md}"
    );
    let out = bin().arg("show").arg(&run).arg("T/1").assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("T/1 sample 0: pass"), "{text}");
    assert!(text.contains("integrity: in-process"), "{text}");
}

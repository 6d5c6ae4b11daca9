//! Tests that are inputs (HumanEval+): each input calls the entry point and
//! the judge compares the output with the reference's, as evalplus 0.3.1 does
//! (tolerance, per-input time limit, `find_zero`, first failure ends a group),
//! on small task files written here; and the reader's errors.

use std::sync::Arc;

use execscope::engine::{self, RunSettings};
use execscope::generations;
use execscope::plan::Plan;
use execscope::sandbox::{CandidateResult, Outcome};
use execscope::spec::{self, TaskFormat};
use serde_json::json;

use crate::util;

const PROMPT: &str = "def f(x):\n    \"\"\"Returns x / 3.\"\"\"\n";

/// A HumanEval+ record: `base` and `plus` are JSON lists of argument lists.
fn record(
    id: &str,
    prompt: &str,
    entry: &str,
    solution: &str,
    base: &str,
    plus: &str,
    atol: &str,
) -> String {
    json!({
        "task_id": id,
        "prompt": prompt,
        "entry_point": entry,
        "canonical_solution": solution,
        "test": "def check(candidate):\n    pass\n",
        "contract": "",
        "base_input": serde_json::from_str::<serde_json::Value>(base).unwrap(),
        "plus_input": serde_json::from_str::<serde_json::Value>(plus).unwrap(),
        "atol": serde_json::from_str::<serde_json::Value>(atol).unwrap(),
    })
    .to_string()
}

/// Runs each completion of `completions` on task `line` (one task file),
/// the results in order.
fn judge(line: &str, completions: &[&str], strict: bool) -> Vec<CandidateResult> {
    judge_with(
        line,
        completions,
        RunSettings {
            strict_integrity: strict,
            ..RunSettings::default()
        },
    )
}

fn judge_with(line: &str, completions: &[&str], settings: RunSettings) -> Vec<CandidateResult> {
    let dir = util::tempdir();
    let path = dir.path().join("plus.jsonl");
    std::fs::write(&path, format!("{line}\n")).unwrap();
    let tasks = spec::load_tasks(&path).unwrap();
    assert_eq!(tasks.format, TaskFormat::HumanEvalPlus);
    assert!(tasks.errors.is_empty(), "{:?}", tasks.errors);
    let id = &tasks.tasks[0].id;
    let gens: String = completions
        .iter()
        .map(|c| format!("{}\n", json!({"task_id": id, "completion": c})))
        .collect();
    let gens =
        generations::parse_generations(&dir.path().join("g.jsonl"), gens.into_bytes()).unwrap();
    let plan = Arc::new(Plan::build(&tasks, &gens));
    let done = engine::run_blocking(&plan, util::python(), &settings, |_, _| {}).unwrap();
    done.store
        .candidates
        .iter()
        .map(|c| c.result.clone().unwrap())
        .collect()
}

#[test]
fn floats_pass_within_evalplus_tolerance_and_fail_past_it_with_both_values() {
    let line = record(
        "T/0",
        PROMPT,
        "f",
        "    return x / 3\n",
        "[[1], [2]]",
        "[[3], [4], [5]]",
        "0",
    );
    let r = judge(
        &line,
        &[
            "    return x / 3\n",
            "    return x / 3 + 1e-9\n",
            "    return x / 3 + 1e-3\n",
        ],
        false,
    );
    assert_eq!(r[0].outcome, Outcome::Pass, "{}", r[0].detail);
    assert_eq!((r[0].passed, r[0].total), (5, 5));
    // atol 0 becomes 1e-6 once the expected outputs are floats.
    assert_eq!(r[1].outcome, Outcome::Pass, "{}", r[1].detail);
    assert_eq!(r[2].outcome, Outcome::AssertionFail);
    let f = r[2].failure.as_ref().unwrap();
    assert_eq!(f.assertion, Some(1));
    assert_eq!(f.text.as_deref(), Some("f(1) == expected"));
    assert_eq!(f.right.as_deref(), Some("0.3333333333333333"));
    assert_eq!(f.left.as_deref(), Some("0.3343333333333333"));
    // The first failure ends the base group, and then the run.
    assert_eq!(r[2].per_assertion, [false; 5]);
    assert_eq!(r[2].base.unwrap().outcome, Outcome::AssertionFail);
}

#[test]
fn a_plus_failure_fails_base_plus_only_and_a_base_failure_both() {
    let line = record(
        "T/1",
        "def f(x):\n",
        "f",
        "    return x * 2\n",
        "[[1], [2]]",
        "[[3], [4], [5]]",
        "0",
    );
    let r = judge(
        &line,
        &[
            "    return x * 2 if x < 4 else 0\n",
            "    return x * 2 if x > 1 else 0\n",
        ],
        false,
    );
    assert_eq!(r[0].outcome, Outcome::AssertionFail);
    assert_eq!(r[0].per_assertion, [true, true, true, false, false]);
    assert_eq!((r[0].passed, r[0].total), (3, 5));
    let base = r[0].base.unwrap();
    assert_eq!(
        (base.outcome, base.passed, base.total),
        (Outcome::Pass, 2, 2)
    );
    assert!(
        r[0].detail.contains("f(4) returned 0; expected 8"),
        "{}",
        r[0].detail
    );
    assert_eq!(r[1].outcome, Outcome::AssertionFail);
    assert_eq!(r[1].base.unwrap().outcome, Outcome::AssertionFail);
    assert_eq!(r[1].passed, 0);
}

#[test]
fn an_input_past_its_limit_is_a_timeout_long_before_the_tasks_own() {
    let line = record(
        "T/2",
        "def f(x):\n",
        "f",
        "    return x\n",
        "[[1], [2]]",
        "[[3]]",
        "0",
    );
    let r = judge(
        &line,
        &["    import time\n    if x == 2:\n        time.sleep(30)\n    return x\n"],
        false,
    );
    assert_eq!(r[0].outcome, Outcome::Timeout, "{}", r[0].detail);
    assert!(
        r[0].detail
            .contains("f(2) took longer than its limit of 1.0 s"),
        "{}",
        r[0].detail
    );
    assert_eq!(r[0].base.unwrap().outcome, Outcome::Timeout);
    assert!(r[0].duration_ms < 6000, "{} ms", r[0].duration_ms);
}

/// A red-team route against inputs sent ahead (since removed): a program
/// that can see its next inputs computes the slow one in a thread while it
/// holds back the answers to the quick ones before it, each within its own
/// limit. One call at a time, there is nothing to see: the slow input times
/// out, in both modes.
#[test]
fn a_program_cannot_borrow_time_from_the_inputs_before_a_slow_one() {
    let line = record(
        "T/8",
        "def fib(n):\n",
        "fib",
        "    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
        "[[1], [2], [3], [4], [5], [6], [7]]",
        "[[8], [9], [10], [11], [12], [13], [14], [15], [16], [17], [18], [19], [37]]",
        "0",
    );
    // Looks for the inputs still to come anywhere in its process.
    let borrower = "    return _answer(n)\n\n\nimport gc, threading, time\n\n\ndef _naive(n):\n    return n if n < 2 else _naive(n - 1) + _naive(n - 2)\n\n\n_cache, _state = {}, {'last': None, 'worker': None}\n\n\ndef _upcoming():\n    found = set()\n    for o in gc.get_objects():\n        if isinstance(o, (list, tuple)) and 0 < len(o) < 100:\n            for a in o:\n                if isinstance(a, (list, tuple)) and len(a) == 1 and type(a[0]) is int and a[0] >= 27:\n                    found.add(a[0])\n    return found\n\n\ndef _work(ns):\n    for k in ns:\n        _cache[k] = _naive(k)\n\n\ndef _answer(n):\n    if _state['last'] is None:\n        _state['last'] = time.monotonic()\n    heavy = [k for k in _upcoming() if k not in _cache]\n    if heavy and _state['worker'] is None:\n        _state['worker'] = threading.Thread(target=_work, args=(heavy,), daemon=True)\n        _state['worker'].start()\n    if n >= 27:\n        while n not in _cache:\n            time.sleep(0.005)\n        r = _cache[n]\n    else:\n        r = _naive(n)\n        w = _state['worker']\n        while w is not None and w.is_alive() and time.monotonic() - _state['last'] < 0.8:\n            time.sleep(0.01)\n    _state['last'] = time.monotonic()\n    return r\n";
    for fast_start in [false, true] {
        let settings = RunSettings {
            fast_start,
            ..RunSettings::default()
        };
        let r = judge_with(&line, &[borrower], settings);
        assert_eq!(
            r[0].outcome,
            Outcome::Timeout,
            "fast start {fast_start}: {}",
            r[0].detail
        );
        assert!(
            r[0].detail.contains("fib(37) took longer than its limit"),
            "{}",
            r[0].detail
        );
    }
}

#[test]
fn find_zero_passes_any_root_within_atol() {
    let prompt = "def find_zero(xs):\n";
    let line = record(
        "T/32",
        prompt,
        "find_zero",
        "    return 1.0\n",
        "[[[-6, 11, -6, 1]]]",
        "[[[-6, 11, -6, 1]]]",
        "0.0001",
    );
    let r = judge(&line, &["    return 3.0\n", "    return 2.5\n"], false);
    assert_eq!(r[0].outcome, Outcome::Pass, "{}", r[0].detail);
    assert_eq!(r[1].outcome, Outcome::AssertionFail);
}

#[test]
fn find_zero_is_checked_on_the_list_as_given_not_as_the_candidate_left_it() {
    // A red-team route: emptying or zeroing `xs` made any answer a root of
    // the changed polynomial (evalplus 0.3.1 checks the list after the call).
    let line = record(
        "T/32",
        "def find_zero(xs):\n",
        "find_zero",
        "    return 1.0\n",
        "[[[-6, 11, -6, 1]]]",
        "[[[-6, 11, -6, 1]]]",
        "0.0001",
    );
    let zeroed = "    xs[:] = [0] * len(xs)\n    return 0.0\n";
    let emptied = "    xs.clear()\n    return 12345.0\n";
    let root_then_cleared = "    r = 3.0\n    xs.clear()\n    return r\n";
    for fast_start in [false, true] {
        let settings = RunSettings {
            fast_start,
            ..RunSettings::default()
        };
        let r = judge_with(&line, &[zeroed, emptied, root_then_cleared], settings);
        assert_eq!(r[0].outcome, Outcome::AssertionFail, "{}", r[0].detail);
        assert_eq!(r[1].outcome, Outcome::AssertionFail, "{}", r[1].detail);
        assert_eq!(r[2].outcome, Outcome::Pass, "{}", r[2].detail);
    }
}

#[test]
fn an_output_of_the_programs_own_is_never_compared_so_never_sees_the_expected_output() {
    // A red-team route: a returned object's `__eq__` was handed the expected
    // output (as evalplus hands it), and passed it on to another candidate
    // running beside it. Now such an output fails without being compared,
    // in a list too, and what it would have seen never reaches its process.
    let line = record(
        "T/3",
        "def f(x):\n",
        "f",
        "    return [x * 7919 + 13]\n",
        "[[1]]",
        "[[2]]",
        "0",
    );
    let spy = "    class Yes:\n        def __eq__(self, other):\n            print('SAW', other)\n            return True\n        __ne__ = __lt__ = __gt__ = __le__ = __ge__ = __eq__\n";
    let alone = format!("{spy}    return Yes()\n");
    let in_list = format!("{spy}    return [Yes()]\n");
    for fast_start in [false, true] {
        for strict_integrity in [false, true] {
            let settings = RunSettings {
                fast_start,
                strict_integrity,
                ..RunSettings::default()
            };
            let r = judge_with(&line, &[&alone, &in_list], settings);
            for r in &r {
                assert_eq!(r.outcome, Outcome::AssertionFail, "{}", r.detail);
                assert!(!r.stdout.contains("SAW"), "{}", r.stdout);
                assert!(!r.stdout.contains("7932"), "{}", r.stdout);
                assert!(r.detail.contains("expected [7932]"), "{}", r.detail);
            }
        }
    }
}

#[test]
fn a_long_reference_output_is_compared_by_its_digest() {
    // 300,000 characters: kept as a digest of its canonical form.
    let line = record(
        "T/4",
        "def f(n):\n",
        "f",
        "    return 'ab' * n\n",
        "[[150000]]",
        "[[5]]",
        "0",
    );
    let r = judge(
        &line,
        &[
            "    return ''.join(['ab'] * n)\n",
            "    return 'ab' * n + ('' if n < 100 else 'c')\n",
        ],
        false,
    );
    assert_eq!(r[0].outcome, Outcome::Pass, "{}", r[0].detail);
    assert_eq!(r[1].outcome, Outcome::AssertionFail);
    assert!(r[1].detail.contains("SHA-256"), "{}", r[1].detail);
}

#[test]
fn bad_humanevalplus_records_are_named_by_line_and_field() {
    let good = record("T/0", PROMPT, "f", "    return x\n", "[[1]]", "[[2]]", "0");
    let mut missing: serde_json::Value = serde_json::from_str(&good).unwrap();
    missing.as_object_mut().unwrap().remove("plus_input");
    missing["task_id"] = json!("T/9");
    let mut atol: serde_json::Value = serde_json::from_str(&good).unwrap();
    atol["atol"] = json!("small");
    atol["task_id"] = json!("T/1");
    let mut item: serde_json::Value = serde_json::from_str(&good).unwrap();
    item["base_input"] = json!([[1], 2]);
    item["task_id"] = json!("T/2");
    let text = format!("{good}\n{missing}\n{atol}\n{item}\n");
    let dir = util::tempdir();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, text).unwrap();
    let set = spec::load_tasks(&path).unwrap();
    assert_eq!(set.tasks.len(), 1);
    let errors: Vec<(Option<usize>, Option<&str>, &str)> = set
        .errors
        .iter()
        .map(|e| (e.line, e.field.as_deref(), e.rule.as_str()))
        .collect();
    assert_eq!(
        errors,
        [
            (Some(2), Some("plus_input"), "required"),
            (Some(3), Some("atol"), "type"),
            (Some(4), Some("base_input[1]"), "type"),
        ]
    );
    // Each input is a test, shown as the call it makes.
    assert_eq!(
        set.tasks[0].assertions,
        ["base input 1: f(1)", "plus input 1: f(2)"]
    );
}

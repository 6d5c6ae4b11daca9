//! LiveCodeBench and APPS/TACO tests (an input and an expected output each),
//! graded as LiveCodeBench's `testing_util.py` grades them, in both start-up
//! modes: o1-mini's code on the hand-built fixtures against its graded list,
//! stdin mocked as the grader mocks it, the comparison rules, timeouts and
//! errors, and that the expected outputs stay in the judge. The readers'
//! errors are in `livecodebench_readers`.

use std::sync::Arc;

use execscope::engine::{self, RunSettings};
use execscope::generations;
use execscope::plan::Plan;
use execscope::sandbox::{CandidateResult, Outcome};
use execscope::spec::{self, TaskFormat};
use serde_json::json;

use crate::util;

/// Runs `generations` (task id, code) on the task file `tasks`, in the
/// default mode and in fast start; the results of each mode, in file order.
fn judge_file(tasks: &std::path::Path, gens: &[(&str, &str)]) -> Vec<Vec<CandidateResult>> {
    let dir = util::tempdir();
    let tasks = spec::load_tasks(tasks).unwrap();
    assert!(tasks.errors.is_empty(), "{:?}", tasks.errors);
    let text: String = gens
        .iter()
        .map(|(id, code)| format!("{}\n", json!({"task_id": id, "generation": code})))
        .collect();
    let gens =
        generations::parse_generations(&dir.path().join("g.jsonl"), text.into_bytes()).unwrap();
    let plan = Arc::new(Plan::build(&tasks, &gens));
    [false, true]
        .into_iter()
        .map(|fast_start| {
            let settings = RunSettings {
                fast_start,
                ..RunSettings::default()
            };
            let done = engine::run_blocking(&plan, util::python(), &settings, |_, _| {}).unwrap();
            done.store
                .candidates
                .iter()
                .map(|c| c.result.clone().unwrap())
                .collect()
        })
        .collect()
}

/// A LiveCodeBench record whose public tests are `tests` (input, output),
/// of type `stdin` unless `func_name` is given.
pub fn problem(id: &str, func_name: Option<&str>, tests: &[(&str, &str)]) -> String {
    let testtype = if func_name.is_some() {
        "functional"
    } else {
        "stdin"
    };
    let cases: Vec<_> = tests
        .iter()
        .map(|(i, o)| json!({"input": i, "output": o, "testtype": testtype}))
        .collect();
    let metadata = match func_name {
        Some(f) => json!({"func_name": f}),
        None => json!({}),
    };
    json!({
        "question_title": id,
        "question_content": "Solve it.",
        "platform": "atcoder",
        "question_id": id,
        "contest_id": "c",
        "contest_date": "2024-01-01T00:00:00",
        "starter_code": "",
        "difficulty": "easy",
        "public_test_cases": serde_json::to_string(&cases).unwrap(),
        "private_test_cases": "[]",
        "metadata": metadata.to_string(),
    })
    .to_string()
}

/// Runs each code of `codes` on the one problem `record`, in both modes.
fn judge(record: &str, codes: &[&str]) -> Vec<Vec<CandidateResult>> {
    let dir = util::tempdir();
    let path = dir.path().join("lcb.jsonl");
    std::fs::write(&path, format!("{record}\n")).unwrap();
    let id = spec::load_tasks(&path).unwrap().tasks[0].id.clone();
    let gens: Vec<(&str, &str)> = codes.iter().map(|c| (id.as_str(), *c)).collect();
    judge_file(&path, &gens)
}

#[test]
fn o1_mini_s_code_gets_livecodebench_s_verdicts_on_the_hand_built_fixtures() {
    let tasks = util::fixture("livecodebench_problems.jsonl");
    let set = spec::load_tasks(&tasks).unwrap();
    assert_eq!(set.format, TaskFormat::LiveCodeBench);
    let text =
        std::fs::read_to_string(util::fixture("livecodebench_o1mini_generations.jsonl")).unwrap();
    let gens: Vec<(String, String)> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["task_id"].as_str().unwrap().to_owned(),
                v["generation"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let gens: Vec<(&str, &str)> = gens.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    // livecodebench_o1mini_eval_all_subset.json's graded_list, and its error
    // codes: -2 wrong answer, -3 time limit, -4 runtime error.
    let expected = [
        ("2727", Outcome::Pass, (2, 2)),
        ("2730", Outcome::AssertionFail, (0, 2)),
        ("abc301_a", Outcome::Pass, (3, 3)),
        ("abc301_d", Outcome::AssertionFail, (3, 4)),
        ("2784", Outcome::Timeout, (2, 3)),
        ("3344", Outcome::AssertionFail, (2, 3)),
        ("1873_A", Outcome::Pass, (1, 1)),
    ];
    for results in judge_file(&tasks, &gens) {
        for ((id, outcome, (passed, total)), r) in expected.iter().zip(&results) {
            assert_eq!(r.outcome, *outcome, "{id}: {}", r.detail);
            assert_eq!((r.passed, r.total), (*passed, *total), "{id}");
        }
        // A wrong answer says the input, what came back and what was expected.
        assert_eq!(
            results[1].detail,
            "assertion 1 failed: input [12, 9], 1 returned 25; expected 30"
        );
        assert_eq!(
            results[3].detail,
            "assertion 4 failed: input '??1\\n6\\n' printed '3\\n'; expected '5\\n'"
        );
        let f = results[3].failure.as_ref().unwrap();
        assert_eq!(
            (f.left.as_deref(), f.right.as_deref()),
            (Some("'3\\n'"), Some("'5\\n'"))
        );
        assert!(results[4].detail.contains("longer than its limit of 6.0 s"));
        assert_eq!(
            results[5].failure.as_ref().unwrap().exception.as_deref(),
            Some("TypeError: 'int' object is not subscriptable (line 9)")
        );
    }
}

#[test]
fn stdin_is_mocked_as_livecodebench_mocks_it() {
    // What LiveCodeBench's call_method printed for each program on input
    // "1 2\n3 4\n" (testing_util.py at the mirrored HEAD, run here once).
    let cases = [
        (
            "a = input()\nb = input()\nprint(repr(a), repr(b))",
            "'1 2' '3 4'\n",
        ),
        (
            "import sys\nprint(repr(sys.stdin.readline()))\nprint(repr(sys.stdin.readline()))",
            "'1 2\\n'\n'3 4\\n'\n",
        ),
        (
            "import sys\nprint(repr(sys.stdin.read()))",
            "'1 2\\n3 4\\n'\n",
        ),
        (
            "import sys\nprint(repr(sys.stdin.readlines()))",
            "['1 2', '3 4', '']\n",
        ),
        (
            "import sys\nprint(repr(sys.stdin.buffer.read()))\nprint(repr(sys.stdin.buffer.readline()))",
            "b'1 2\\n3 4\\n'\nb'1 2\\n'\n",
        ),
        // `stdin` of `from sys import *` is the real one, its methods patched.
        (
            "print(repr(stdin.readline()))\nprint(repr(stdin.read()))",
            "'1 2'\n'1 2\\n3 4\\n'\n",
        ),
        ("print('a')\nexit()\nprint('b')", "a\n"),
        (
            "def main():\n    print(input())\nif __name__ == '__main__':\n    main()",
            "1 2\n",
        ),
        ("print(__name__)", "tmp_sol\n"),
    ];
    for (i, (code, printed)) in cases.iter().enumerate() {
        let record = problem(&format!("p{i}"), None, &[("1 2\n3 4\n", printed)]);
        for r in judge(&record, &[code]).into_iter().flatten() {
            assert_eq!(r.outcome, Outcome::Pass, "{code}: {}", r.detail);
        }
    }
    // Its stdin cannot be iterated: a runtime error in the test.
    let record = problem("iter", None, &[("1\n", "1\n")]);
    for r in judge(
        &record,
        &["import sys\nfor line in sys.stdin:\n    print(line)"],
    )
    .into_iter()
    .flatten()
    {
        assert_eq!(r.outcome, Outcome::AssertionFail);
        assert!(
            r.detail
                .contains("TypeError: 'MockStdinWithBuffer' object is not iterable"),
            "{}",
            r.detail
        );
    }
}

#[test]
fn printed_lines_are_stripped_and_tokens_compare_as_decimals() {
    let record = problem("d", None, &[("", "1.0 2\n3\n")]);
    let codes = [
        // Stripped lines, tokens equal as decimals: pass.
        "print('  1.00   2.0 ')\nprint('3  ')\nprint()\n",
        // A token that is not a number: wrong answer.
        "print('1.0 x')\nprint(3)",
        // One line too many.
        "print('1.0 2')\nprint(3)\nprint(4)",
        // Decimals that differ.
        "print('1.0 2.000001')\nprint(3)",
    ];
    for r in judge(&record, &codes) {
        assert_eq!(r[0].outcome, Outcome::Pass, "{}", r[0].detail);
        for wrong in &r[1..] {
            assert_eq!(wrong.outcome, Outcome::AssertionFail, "{}", wrong.detail);
        }
        assert!(
            r[2].detail
                .contains("printed '1.0 2\\n3\\n4\\n'; expected '1.0 2\\n3\\n'")
        );
    }
}

#[test]
fn calls_take_json_arguments_count_a_tuple_as_a_list_and_use_one_solution() {
    let record = problem(
        "f",
        Some("pair"),
        &[
            ("[1, 2]\n\"x\"", "[[1, 2], \"x\"]"),
            ("[]\n\"\"", "[[], \"\"]"),
        ],
    );
    let codes = [
        // A tuple is a list; one Solution() serves every test.
        "class Solution:\n    made = 0\n    def __init__(self):\n        Solution.made += 1\n    def pair(self, a, b):\n        assert Solution.made == 1\n        return (a, b)\n",
        // A plain function (and the grader's imports: `List`, `deque`).
        "def pair(a: List[int], b):\n    return [list(deque(a)), b]\n",
        // The returned value is compared as data, never by the program's object.
        "class Always:\n    def __eq__(self, other):\n        return True\ndef pair(a, b):\n    return Always()\n",
        // No such function: the program fails before any test.
        "def other(a, b):\n    return [a, b]\n",
    ];
    for r in judge(&record, &codes) {
        assert_eq!(r[0].outcome, Outcome::Pass, "{}", r[0].detail);
        assert_eq!(r[1].outcome, Outcome::Pass, "{}", r[1].detail);
        assert_eq!(r[2].outcome, Outcome::AssertionFail, "{}", r[2].detail);
        assert_eq!(r[3].outcome, Outcome::Error);
        assert_eq!(r[3].detail, "the program defines no pair");
    }
}

#[test]
fn a_test_past_its_limit_is_a_timeout_and_a_raising_test_a_failure_and_both_end_the_run() {
    let record = problem("t", Some("f"), &[("1", "1"), ("2", "2"), ("3", "3")]);
    let codes = [
        "def f(x):\n    while x == 2:\n        pass\n    return x\n",
        "def f(x):\n    return x // (x - 2) * 0 + x\n",
    ];
    for r in judge(&record, &codes) {
        assert_eq!(r[0].outcome, Outcome::Timeout, "{}", r[0].detail);
        assert_eq!(r[0].per_assertion, [true, false, false]);
        assert_eq!(
            r[0].detail,
            "test 2 input 2 took longer than its limit of 6.0 s"
        );
        assert_eq!(r[1].outcome, Outcome::AssertionFail);
        assert_eq!(r[1].per_assertion, [true, false, false]);
        assert_eq!(
            r[1].detail,
            "assertion 2 failed: input 2 raised ZeroDivisionError: integer division or modulo by zero (line 2)"
        );
    }
    let record = problem("e", None, &[("1\n", "1\n"), ("0\n", "0\n"), ("2\n", "2\n")]);
    for r in judge(
        &record,
        &["x = int(input())\nprint(1 // x if x == 1 else 1 // x * x)"],
    )
    .into_iter()
    .flatten()
    {
        assert_eq!(r.outcome, Outcome::AssertionFail);
        assert_eq!(r.per_assertion, [true, false, false]);
        assert_eq!(
            r.detail,
            "assertion 2 failed: input '0\\n' raised ZeroDivisionError: integer division or modulo by zero"
        );
    }
}

#[test]
fn the_expected_outputs_reach_the_judge_and_never_the_candidate_process() {
    let dir = util::tempdir();
    let path = dir.path().join("lcb.jsonl");
    let record = problem("s", None, &[("in-7f3a", "OUT-SECRET-91c2")]);
    std::fs::write(&path, format!("{record}\n")).unwrap();
    let tasks = spec::load_tasks(&path).unwrap();
    let gens = generations::parse_generations(
        &dir.path().join("g.jsonl"),
        json!({"task_id": "s", "generation": "print(input())"})
            .to_string()
            .into_bytes(),
    )
    .unwrap();
    let plan = Plan::build(&tasks, &gens);
    let program = plan.jobs[0].program.as_ref().unwrap();
    let shown = execscope::sandbox::describe_payload(
        program,
        &execscope::sandbox::Limits::default(),
        util::python(),
    );
    let (candidate, judge_side) = shown.split_once("# the judge").unwrap();
    assert!(!candidate.contains("OUT-SECRET-91c2") && !candidate.contains("in-7f3a"));
    assert!(judge_side.contains("OUT-SECRET-91c2") && judge_side.contains("in-7f3a"));
    // A program that searches its whole process for the expected output
    // finds nothing.
    let record = problem("g", None, &[("x\n", "found: no\nOUT-SECRET-91c2\n")]);
    let search = "import gc\nneedle = ''.join(['SECRET', '-91c2'])\nfound = any(type(r) is str and needle in r and r != needle for o in gc.get_objects() for r in gc.get_referents(o))\nprint('found:', 'yes' if found else 'no')\n";
    for r in judge(&record, &[search]).into_iter().flatten() {
        assert_eq!(r.outcome, Outcome::AssertionFail, "{}", r.detail);
        assert!(r.detail.contains("printed 'found: no\\n'"), "{}", r.detail);
    }
}

#[test]
fn apps_taco_input_output_reads_stdin_problems_and_calls_with_wrapped_outputs() {
    let tasks = util::fixture("apps_problems.jsonl");
    assert_eq!(
        spec::load_tasks(&tasks).unwrap().format,
        TaskFormat::AppsTaco
    );
    let stdin = "n = int(input())\ns = input()\nt, a = s.count('T'), s.count('A')\nprint('T' if t > a or (t == a and s[-1] == 'A') else 'A')\n";
    let right = "class Solution:\n    def maximumOr(self, nums, k):\n        pre, suf, n = [0], [0], len(nums)\n        for x in nums:\n            pre.append(pre[-1] | x)\n        for x in reversed(nums):\n            suf.append(suf[-1] | x)\n        return max(pre[i] | (nums[i] << k) | suf[n - 1 - i] for i in range(n))\n";
    let wrong =
        "class Solution:\n    def maximumOr(self, nums, k):\n        return max(nums) << k\n";
    for r in judge_file(&tasks, &[("1", stdin), ("2", right), ("2", wrong)]) {
        assert_eq!(r[0].outcome, Outcome::Pass, "{}", r[0].detail);
        assert_eq!(r[1].outcome, Outcome::Pass, "{}", r[1].detail);
        assert_eq!(r[2].outcome, Outcome::AssertionFail, "{}", r[2].detail);
        assert_eq!(
            r[2].detail,
            "assertion 1 failed: input [12, 9], 1 returned 24; expected [30]"
        );
    }
}

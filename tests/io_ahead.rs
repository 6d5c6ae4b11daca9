//! Tests that are inputs sent ahead (`io.py`'s `_Ahead`): the candidate
//! process runs a group's calls one after another and answers each as it
//! returns. Each input still has its own limit, a failure still ends the run
//! at once, and what the candidate does after the failing input (it may be
//! running the next ones) changes nothing.

use execscope::engine::RunSettings;
use execscope::sandbox::Outcome;

use crate::io_tests::{judge_with, record};

fn both_modes() -> [RunSettings; 2] {
    [false, true].map(|fast_start| RunSettings {
        fast_start,
        ..RunSettings::default()
    })
}

#[test]
fn each_input_has_its_limit_from_the_answer_before_it() {
    // Four inputs of 0.6 s each: each within its 1.0 s limit, though the
    // candidate runs them back to back (2.4 s from the batch's sending).
    let line = record(
        "T/20",
        "def f(x):\n",
        "f",
        "    return x\n",
        "[[1], [2], [3]]",
        "[[4]]",
        "0",
    );
    let slow = "    import time\n    time.sleep(0.6)\n    return x\n";
    for settings in both_modes() {
        let r = judge_with(&line, &[slow], settings);
        assert_eq!(r[0].outcome, Outcome::Pass, "{}", r[0].detail);
        assert_eq!(r[0].passed, 4);
    }
}

#[test]
fn a_failure_ends_the_run_though_slow_inputs_were_sent_after_it() {
    let line = record(
        "T/21",
        "def f(x):\n",
        "f",
        "    return x\n",
        "[[1], [2], [3]]",
        "[[4]]",
        "0",
    );
    // Wrong on the first input; every later one sleeps for half a minute.
    let wrong = "    import time\n    if x > 1:\n        time.sleep(30)\n    return x + 1\n";
    for settings in both_modes() {
        let r = judge_with(&line, &[wrong], settings);
        assert_eq!(r[0].outcome, Outcome::AssertionFail, "{}", r[0].detail);
        assert!(
            r[0].detail.contains("f(1) returned 2; expected 1"),
            "{}",
            r[0].detail
        );
        assert!(r[0].duration_ms < 5000, "{} ms", r[0].duration_ms);
    }
}

#[test]
fn output_after_the_failing_input_is_not_an_overflow() {
    let line = record(
        "T/22",
        "def f(x):\n",
        "f",
        "    return x\n",
        "[[1], [2], [3]]",
        "[[4]]",
        "0",
    );
    // Wrong on the first input, then a flood on each later one: run one at a
    // time, the run would have ended before any of it.
    let wrong = "    if x > 1:\n        print('x' * 300000, flush=True)\n    return x + 1\n";
    // Right on the first two, and a flood inside the third call: that one
    // is an overflow, as it is run one at a time.
    let flood = "    if x == 3:\n        print('x' * 300000, flush=True)\n    return x\n";
    for settings in both_modes() {
        for _ in 0..5 {
            let r = judge_with(&line, &[wrong, flood], settings.clone());
            assert_eq!(r[0].outcome, Outcome::AssertionFail, "{}", r[0].detail);
            assert_eq!(r[1].outcome, Outcome::Error, "{}", r[1].detail);
            assert_eq!(r[1].detail, "output overflow");
        }
    }
}

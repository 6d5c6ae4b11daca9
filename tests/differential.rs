//! Differential fidelity against CPython on real code with its own tests:
//! `tests/differential/corpus.jsonl` (functions of more-itertools and
//! TheAlgorithms/Python pinned by commit, their doctests as checks, and
//! mutants made by AST changes) run by `tests/differential/run.py` through
//! this build's `execscope` and through plain CPython, check by check, in
//! both start-up modes. Every verdict must be identical, and no program
//! whose checks all pass in CPython may carry a flag.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

fn differential(fast_start: bool) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cmd = Command::new("python3");
    cmd.arg(root.join("tests/differential/run.py"))
        .arg("--execscope")
        .arg(env!("CARGO_BIN_EXE_execscope"));
    if fast_start {
        cmd.arg("--fast-start");
    }
    let out = cmd.output().expect("python3 runs the differential corpus");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default().to_owned();
    println!("fast start {fast_start}: {last}");
    assert!(
        out.status.success() && last.contains(" 0 different, 0 flagged"),
        "fast start {fast_start}:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Both modes in one test, one after the other: the corpus's time limits
/// (10 s a program, none needing more than 2.5 s) keep their margin.
#[test]
fn every_check_of_the_corpus_gets_cpythons_verdict_in_both_modes() {
    differential(false);
    differential(true);
}

//! Fast start against the fresh-interpreter mode: the same results through the
//! engine, a server that dies is replaced, and candidates die with a killed host.

use std::sync::Arc;
use std::time::{Duration, Instant};

use execscope::demo;
use execscope::engine::{self, RunSettings};
use execscope::plan::Plan;
use execscope::sandbox::{Limits, Outcome, Runner};

use crate::containment::unguarded;
use crate::util::{is_running, pid_of_candidate_with, program, python, run_with, tempdir};

fn demo_results(fast_start: bool) -> Vec<(Outcome, f64, String)> {
    let plan = Arc::new(Plan::build(
        &demo::tasks().unwrap(),
        &demo::generations().unwrap(),
    ));
    let settings = RunSettings {
        workers: 2,
        fast_start,
        ..RunSettings::default()
    };
    let done = engine::run_blocking(&plan, python(), &settings, |_, _| {}).unwrap();
    assert!(done.failure.is_none(), "{:?}", done.failure);
    done.store
        .candidates
        .iter()
        .map(|c| {
            let r = c.result.as_ref().expect("every candidate finished");
            (r.outcome, r.score, r.detail.clone())
        })
        .collect()
}

#[test]
fn the_demo_set_ends_the_same_in_both_modes() {
    let fresh = demo_results(false);
    let fast = demo_results(true);
    assert_eq!(fresh.len(), 25);
    assert_eq!(fresh, fast);
}

#[test]
fn a_candidate_that_kills_its_server_is_an_error_and_the_next_one_runs() {
    let runner = Runner::new(python(), &unguarded(), true);
    let kill = program(
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nimport time\ntime.sleep(5)\n",
        &["True"],
    );
    let start = Instant::now();
    let r = runner
        .run(Duration::from_secs(3), &kill, None, &|| {})
        .unwrap();
    assert_eq!(r.outcome, Outcome::Error, "{r:?}");
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    let ok = program("x = 2", &["x == 2"]);
    for _ in 0..3 {
        let r = runner
            .run(Duration::from_secs(3), &ok, None, &|| {})
            .unwrap();
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
    }
}

#[test]
fn a_module_that_needs_a_denied_one_fails_alike_though_it_is_preloaded() {
    // `typing` imports `re`; fast start preloads typing, but not with re
    // denied. Without confinement the strict rule refuses it in both modes.
    let strict = Limits {
        denylist: vec!["re".into()],
        confine: false,
        ..Limits::default()
    };
    let code = "from typing import List\n";
    let r = run_with(code, &["True"], &strict, Duration::from_secs(3));
    assert_eq!(r.outcome, Outcome::Error, "{r:?}");
    assert!(r.detail.contains("denied: re"), "{}", r.detail);
    // Confined, typing may load it for itself, in both modes alike; the
    // candidate's own import is still refused.
    let confined = Limits {
        confine: true,
        ..strict
    };
    let r = run_with(code, &["True"], &confined, Duration::from_secs(3));
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
    let r = run_with("import re\n", &["True"], &confined, Duration::from_secs(3));
    assert!(r.detail.contains("denied: re"), "{}", r.detail);
}

#[test]
fn the_candidate_cannot_read_the_servers_command_channel() {
    let r = crate::util::run(
        "import os, sys\nassert sys.stdin.read() == ''\ntry:\n    os.read(4, 10)\n    ok = False\nexcept OSError:\n    ok = True\n",
        &["ok"],
    );
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
}

#[test]
fn candidates_die_with_a_killed_host_in_fast_start() {
    let dir = tempdir();
    let marker = format!("killed-host-{}", std::process::id());
    let tasks = dir.path().join("t.jsonl");
    std::fs::write(&tasks, r#"{"task_id": "a", "category": "code_exec", "prompt": "p", "targets": ["True"], "metric_name": "code_exec", "post_process": "none", "metadata": {"timeout_s": 30}}"#).unwrap();
    let code = format!("import time\nopen({marker:?}, 'w').close()\ntime.sleep(30)");
    let gens = dir.path().join("g.jsonl");
    let line = serde_json::json!({"task_id": "a", "generation": code});
    std::fs::write(&gens, format!("{line}\n")).unwrap();
    let mut host = std::process::Command::new(assert_cmd::cargo::cargo_bin("execscope"))
        .args(["run", "-q", "--fast-start", "--workers", "1", "--tasks"])
        .arg(&tasks)
        .arg("--generations")
        .arg(&gens)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let pid: i32 = loop {
        if let Some(pid) = pid_of_candidate_with(&marker) {
            break pid;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no pid written");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(is_running(pid));
    host.kill().unwrap();
    host.wait().unwrap();
    let start = Instant::now();
    while is_running(pid) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "candidate {pid} outlived its killed host"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_run_file_records_fast_start() {
    let dir = tempdir();
    let json = dir.path().join("run.json");
    assert_cmd::Command::cargo_bin("execscope")
        .unwrap()
        .args(["run", "-q", "--fast-start", "--json"])
        .arg(&json)
        .assert()
        .success();
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(run["settings"]["fast_start"], true);
    assert_eq!(run["summary"]["outcomes"]["pass"], 11);
}

//! The host under a long run: 10,000 tiny candidates through the engine, then no
//! file descriptor leaked, no child process or zombie left, memory bounded.
//! A binary of its own so the count of open descriptors is not disturbed by
//! other tests running beside it.

// Tests may panic on what they set up themselves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use execscope::engine::{self, RunSettings};
use execscope::plan::Plan;
use execscope::sandbox::Outcome;
use execscope::{generations, spec};

const CANDIDATES: usize = 10_000;

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0)
}

fn children() -> Vec<String> {
    let mut out = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(list.split_whitespace().map(str::to_owned));
        }
    }
    out
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

#[test]
fn ten_thousand_candidates_leak_no_descriptors_processes_or_zombies() {
    if !Path::new("/proc/self/fd").exists() {
        eprintln!("notice: no /proc here; skipping");
        return;
    }
    let tasks = spec::parse_tasks(
        Path::new("soak.jsonl"),
        br#"{"task_id": "tiny", "category": "code_exec", "prompt": "p", "targets": ["x == 1"], "metric_name": "code_exec", "post_process": "none"}"#.to_vec(),
    )
    .unwrap();
    // A mix: most pass; some print, fork-and-exit, fail or raise.
    let bodies = [
        "x = 1",
        "x = 1\\nprint('hello')",
        "x = 2",
        "raise ValueError('no')",
        "import os\\nx = 1\\nos.close(0)",
    ];
    let lines: String = (0..CANDIDATES)
        .map(|i| {
            format!(
                "{{\"task_id\": \"tiny\", \"generation\": \"{}\"}}\n",
                bodies[i % bodies.len()]
            )
        })
        .collect();
    let gens =
        generations::parse_generations(Path::new("soak-g.jsonl"), lines.into_bytes()).unwrap();
    let plan = Arc::new(Plan::build(&tasks, &gens));
    assert_eq!(plan.jobs.len(), CANDIDATES);

    let python = &execscope::sandbox::Interpreter::resolve("python3")
        .unwrap_or_else(|e| panic!("this test needs a real python3 on PATH: {e}"));
    let settings = RunSettings::default();
    // Warm up once so lazily opened descriptors (the cancel pipe, procfs) exist.
    let warm = Arc::new(Plan {
        jobs: plan.jobs[..10].to_vec(),
        ..(*plan).clone()
    });
    engine::run_blocking(&warm, python, &settings, |_, _| {}).unwrap();
    let fds_before = open_fds();
    let rss_before = rss_kib();

    let done = engine::run_blocking(&plan, python, &settings, |_, _| {}).unwrap();
    assert_eq!(done.failure, None);
    let s = done.store.summary(&[1]);
    assert_eq!(s.candidates, CANDIDATES);
    assert_eq!(s.outcomes[&Outcome::Pass], CANDIDATES * 3 / 5);
    assert_eq!(s.outcomes[&Outcome::AssertionFail], CANDIDATES / 5);
    assert_eq!(s.outcomes[&Outcome::Error], CANDIDATES / 5);

    let fds_after = open_fds();
    let rss_after = rss_kib();
    eprintln!(
        "{CANDIDATES} candidates in {:.1} s ({:.0}/s); fds {fds_before} -> {fds_after}; RSS {rss_before} -> {rss_after} KiB",
        done.elapsed.as_secs_f64(),
        CANDIDATES as f64 / done.elapsed.as_secs_f64()
    );
    assert_eq!(fds_after, fds_before, "file descriptors leaked");
    assert!(children().is_empty(), "children left: {:?}", children());
    // The store holds 10,000 small results; the host must not grow by more.
    assert!(
        rss_after < rss_before + 64 * 1024,
        "RSS grew from {rss_before} to {rss_after} KiB"
    );
}

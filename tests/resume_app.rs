//! The app's run to a run file and its offer to resume one that was
//! interrupted: in the workbench (headless too), and in the window.

use std::sync::Arc;
use std::time::{Duration, Instant};

use execscope::report::{Journal, read_journal};
use execscope::workbench::{Settings, Target, Workbench};

use crate::resume::{CANDIDATES, figures, uninterrupted, write_inputs};
use crate::util::tempdir;

/// Steps `bench` until `at` candidates are judged, then cancels its run.
fn cancel_at(bench: &mut Workbench, at: usize) {
    let start = Instant::now();
    while bench.done < at {
        assert!(
            bench.is_running(),
            "the run ended before it could be cancelled"
        );
        assert!(start.elapsed() < Duration::from_secs(60), "the run stalled");
        bench.update(Duration::from_millis(10));
        std::thread::sleep(Duration::from_millis(5));
    }
    bench.cancel();
    bench.wait_idle();
}

#[test]
fn the_workbench_offers_to_resume_a_cancelled_run_to_a_run_file_and_finishes_it() {
    let dir = tempdir();
    let (tasks, gens) = write_inputs(dir.path());
    let mut bench = Workbench::new("python3");
    bench.open(Target::Tasks, tasks.clone());
    bench.open(Target::Generations, gens.clone());
    bench.wait_idle();
    let settings = Settings {
        workers: 1,
        ..Settings::default()
    }
    .run_settings();
    let json = dir.path().join("app.json");
    let journal = Journal::path_for(&json);
    assert_eq!(bench.resume_offer(&json, &settings), None);

    bench.run_to(json.clone(), false, settings.clone(), Arc::new(|| {}));
    cancel_at(&mut bench, CANDIDATES / 2);
    assert!(!json.exists(), "a cancelled run wrote its run file");
    let held = read_journal(&journal).unwrap().entries.len();
    assert!((CANDIDATES / 2..CANDIDATES).contains(&held), "{held}");

    let offer = bench.resume_offer(&json, &settings).unwrap();
    assert_eq!(
        (offer.judged, offer.planned, offer.refused),
        (held, CANDIDATES, None)
    );
    let other = Settings {
        workers: 1,
        timeout_s: 5.0,
        ..Settings::default()
    }
    .run_settings();
    let refused = bench.resume_offer(&json, &other).unwrap().refused.unwrap();
    assert!(
        refused.contains("the setting timeout_s changed: 3.0 then, 5.0 now"),
        "{refused}"
    );

    bench.run_to(json.clone(), true, settings, Arc::new(|| {}));
    assert_eq!(bench.done, held, "the journal's candidates are in at once");
    bench.wait_idle();
    assert!(json.exists() && !journal.exists());
    assert_eq!(figures(&json), uninterrupted(dir.path(), &tasks, &gens));
}

/// The offer in the app: *Run to file…* onto a run file whose run was
/// interrupted shows it; a changed setting is named and Resume disabled;
/// Resume finishes the run to the figures of an uninterrupted one.
#[cfg(feature = "gui")]
#[test]
fn the_app_offers_resume_or_start_over_for_a_run_file_with_a_journal() {
    use crate::gui::{new_harness, settle, step_while, wait_for_run};
    use egui_kittest::kittest::Queryable;
    use execscope::gui::{Command, Launch};

    let dir = tempdir();
    let (tasks, gens) = write_inputs(dir.path());
    let json = dir.path().join("app.json");
    let journal = Journal::path_for(&json);
    let mut harness = new_harness(Launch {
        tasks: Some(tasks.clone()),
        generations: Some(gens.clone()),
        ..Launch::default()
    });
    settle(&mut harness);
    // The entry that asks for the run file (its dialog cannot be driven here).
    harness.get_by_label("More ⏷").click();
    harness.run_steps(2);
    harness.get_by_label("Run to a run file…");
    harness.key_press(egui::Key::Escape);
    harness.run_steps(2);
    harness.state_mut().state.settings.workers = 1;
    harness.state_mut().push(Command::RunTo(json.clone()));
    step_while(&mut harness, "half the run", |app| {
        app.workbench.done < CANDIDATES / 2
    });
    harness.state_mut().push(Command::Cancel);
    wait_for_run(&mut harness);
    let held = read_journal(&journal).unwrap().entries.len();
    assert!(held < CANDIDATES && !json.exists());

    // Another timeout: the offer says why it cannot resume.
    harness.state_mut().state.settings.timeout_s = 5.0;
    harness.state_mut().push(Command::RunTo(json.clone()));
    harness.run_steps(3);
    assert!(harness.state().resume_offer.is_some());
    harness.get_by_label_contains(&format!(
        "its journal holds {held} of {CANDIDATES} candidates"
    ));
    harness.get_by_label_contains("the setting timeout_s changed: 3.0 then, 5.0 now");
    harness.get_by_label("Resume").click();
    harness.run_steps(3);
    assert!(
        !harness.state().workbench.is_running(),
        "a refused offer resumed"
    );
    harness.get_by_label("Cancel").click();
    harness.run_steps(3);
    assert!(harness.state().resume_offer.is_none());

    harness.state_mut().state.settings.timeout_s = 3.0;
    harness.state_mut().push(Command::RunTo(json.clone()));
    harness.run_steps(3);
    harness.get_by_label("Resume").click();
    harness.run_steps(2);
    assert!(harness.state().workbench.is_running());
    assert!(harness.state().workbench.done >= held);
    wait_for_run(&mut harness);
    assert!(json.exists() && !journal.exists());
    assert_eq!(figures(&json), uninterrupted(dir.path(), &tasks, &gens));
}

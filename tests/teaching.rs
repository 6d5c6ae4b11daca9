//! The app as a teacher uses it in front of a class: one row per task, the
//! More menu's path field, the row count's line, zoom for a projector (kittest,
//! the real engine and python3).

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use execscope::gui::{Command, Line};
use execscope::sandbox::Outcome;

use crate::gui::{finished_demo_run, new_harness, settle};
use crate::util::fixture;

#[test]
fn one_row_per_task_sums_up_each_task_and_expands_to_its_samples() {
    let mut harness = finished_demo_run();
    harness.get_by_label("each task").click();
    harness.run_steps(2);
    let grid = &harness.state().grid;
    assert!(grid.by_task);
    assert_eq!(grid.tasks.len(), 5);
    assert_eq!(grid.lines.len(), 5, "collapsed: one line per task");
    harness.get_by_label("25 rows in 5 tasks");
    // The row says what happened to the task's samples, its main cause and pass@1.
    for text in [
        "3 pass, 1 assertion_fail, 1 syntax_error · mostly assertion_fail: add assertion",
        "2 pass, 1 assertion_fail, 2 error · mostly",
        "pass@1 0.600",
    ] {
        let rows = harness.get_all_by_label_contains(text).count();
        assert!(rows > 0, "no task row says {text:?}");
    }
    // A click shows its samples under it; a click on a sample selects it.
    harness.get_by_label("⏵ add").click();
    harness.run_steps(2);
    harness.get_by_label("⏷ add");
    let lines = harness.state().grid.lines.clone();
    assert_eq!(lines.len(), 10);
    let samples: Vec<usize> = lines
        .iter()
        .filter_map(|l| match l {
            Line::Candidate(i) => Some(*i),
            Line::Task(_) => None,
        })
        .collect();
    let store = &harness.state().workbench.store;
    assert!(
        samples
            .iter()
            .all(|&i| store.task_id(&store.candidates[i]) == "add")
    );
    let failing = samples
        .iter()
        .copied()
        .find(|&i| {
            store.candidates[i]
                .result
                .as_ref()
                .is_some_and(|r| r.outcome == Outcome::SyntaxError)
        })
        .unwrap();
    harness.state_mut().push(Command::Select(failing));
    harness.run_steps(2);
    assert_eq!(harness.state().grid.selected, Some(failing));
    // Filters apply to the samples: only timeouts leaves one task, one sample.
    harness
        .state_mut()
        .push(Command::FocusOutcome(Outcome::Timeout));
    harness.run_steps(2);
    harness.get_by_label("expand all").click();
    harness.run_steps(2);
    let grid = &harness.state().grid;
    assert_eq!(grid.tasks.len(), 1);
    assert_eq!(grid.lines.len(), 2);
    assert_eq!(
        harness.state().workbench.store.tasks[grid.tasks[0].task].id,
        "is_prime"
    );
    // Sorting by score puts the weakest task first, both ways.
    harness
        .state_mut()
        .push(Command::FocusOutcome(Outcome::Timeout));
    harness.run_steps(2);
    harness.get_by_label("score").click();
    harness.run_steps(2);
    let scores: Vec<f64> = harness
        .state()
        .grid
        .tasks
        .iter()
        .map(|t| t.mean_score)
        .collect();
    assert_eq!(scores.len(), 5);
    assert!(scores.windows(2).all(|w| w[0] <= w[1]), "{scores:?}");
    // Back to one row per candidate.
    harness.get_by_label("each candidate").click();
    harness.run_steps(2);
    assert_eq!(harness.state().grid.line_count(), 25);
}

#[test]
fn the_more_menus_path_field_takes_a_click_and_opens_the_file() {
    let mut harness = new_harness(Default::default());
    harness.get_by_label("More ⏷").click();
    harness.run_steps(2);
    let field = "Open a path (any kind of file):";
    harness
        .get_by_role_and_label(Role::TextInput, field)
        .click();
    harness.run_steps(2);
    // Still open after a click into it.
    harness.get_by_label(field);
    let path = fixture("demo_run.json");
    harness
        .get_by_role_and_label(Role::TextInput, field)
        .type_text(&path.display().to_string());
    harness.run_steps(1);
    harness.key_press(Key::Enter);
    harness.run_steps(2);
    settle(&mut harness);
    harness.run_steps(2);
    let opened = harness
        .state()
        .workbench
        .opened_run
        .as_ref()
        .map(|(p, _)| p.clone());
    assert_eq!(opened, Some(path));
    assert!(harness.query_by_label(field).is_none(), "the menu closed");
}

#[test]
fn the_row_count_stays_on_the_search_boxs_line_at_1280_pixels() {
    let mut harness = finished_demo_run();
    harness.get_by_label("each task").click();
    harness.run_steps(2);
    let search = harness.get_by_role_and_label(Role::TextInput, "🔍").rect();
    let count = harness.get_by_label("25 rows in 5 tasks").rect();
    assert!(
        (count.center().y - search.center().y).abs() < 4.0,
        "{count:?} {search:?}"
    );
    assert!(count.left() > search.right());
}

#[test]
fn zoom_follows_the_keyboard_and_the_settings_and_is_kept() {
    let mut harness = new_harness(Default::default());
    harness.run_steps(2);
    // The Settings buttons first: kittest clicks at unzoomed positions.
    harness.get_by_label("⚙ Settings").click();
    harness.run_steps(2);
    harness.get_by_label("100%");
    harness.get_by_label("+").click();
    harness.run_steps(3);
    let zoom = harness.state().state.zoom;
    assert!((zoom - 1.1).abs() < 1e-4, "{zoom}");
    harness.get_by_label("110%");
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Plus);
    harness.run_steps(3);
    assert!((harness.state().state.zoom - 1.2).abs() < 1e-4);
    // What is saved comes back at the next start.
    let saved = serde_json::to_string(&harness.state().state).unwrap();
    let back: execscope::gui::AppState = serde_json::from_str(&saved).unwrap();
    assert!((back.zoom() - 1.2).abs() < 1e-4);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Num0);
    harness.run_steps(3);
    assert_eq!(harness.state().state.zoom, 1.0);
    // A state saved before zoom was kept starts at 100%.
    let old: execscope::gui::AppState = serde_json::from_str(r#"{"theme":"Light"}"#).unwrap();
    assert_eq!(old.zoom(), 1.0);
}

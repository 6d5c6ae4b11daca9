//! The desktop app driven headless through egui_kittest: the real app state, the
//! real engine and the real python3. Widgets are found by their labels.

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use execscope::gui::{App, Column, Command, DetailTab, Launch};
use execscope::sandbox::Outcome;

use crate::util::{fixture, tempdir};

/// One harness for every GUI test: the real app at projector size.
/// Once the interpreter is found and the launch files are read.
pub(crate) fn new_harness(launch: Launch) -> Harness<'static, App> {
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_eframe(move |cc| App::new(cc, launch));
    settle(&mut harness);
    harness
}

/// Steps the app while `busy` holds (for at most a minute): the engine and the
/// background reads run on threads of their own.
pub(crate) fn step_while(harness: &mut Harness<'static, App>, what: &str, busy: fn(&App) -> bool) {
    let start = Instant::now();
    harness.step();
    while busy(harness.state()) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{what} did not finish"
        );
        std::thread::sleep(Duration::from_millis(10));
        harness.step();
    }
}

/// Steps the app until its background work (finding the interpreter, reading
/// files) is done.
pub(crate) fn settle(harness: &mut Harness<'static, App>) {
    step_while(harness, "the background work", |app| {
        app.workbench.is_busy()
    });
}

/// Steps the app until no run is in progress.
pub(crate) fn wait_for_run(harness: &mut Harness<'static, App>) {
    step_while(harness, "the run", |app| app.workbench.is_running());
    harness.run_steps(3);
}

/// The app with the saved run of the demo set (`tests/fixtures/demo_run.json`) open.
pub(crate) fn opened_demo_run() -> Harness<'static, App> {
    let mut harness = new_harness(Launch::default());
    harness
        .state_mut()
        .push(Command::OpenRun(fixture("demo_run.json")));
    settle(&mut harness);
    harness.run_steps(2);
    harness
}

/// The app as it is once its embedded demo has run (`--run`).
pub(crate) fn finished_demo_run() -> Harness<'static, App> {
    let mut harness = new_harness(Launch {
        run: true,
        ..Launch::default()
    });
    wait_for_run(&mut harness);
    harness
}

#[test]
fn pressing_run_on_the_demo_fills_the_grid_the_histogram_and_pass_at_k() {
    let mut harness = new_harness(Launch::default());
    harness.run_steps(2);
    assert!(harness.state().workbench.is_demo());
    assert_eq!(harness.state().workbench.store.candidates.len(), 25);
    harness.get_by_label("▶ Run").click();
    wait_for_run(&mut harness);
    let app = harness.state();
    assert_eq!(app.workbench.done, 25);
    assert_eq!(app.grid.rows.len(), 25);
    let summary = app.workbench.store.summary(&[1, 5]);
    let counts: Vec<usize> = Outcome::ALL.iter().map(|o| summary.outcomes[o]).collect();
    assert_eq!(counts, [11, 8, 1, 1, 4]);
    assert_eq!(format!("{:.4}", summary.pass_at_k[&1]), "0.4400");
    assert_eq!(summary.pass_at_k[&5], 1.0);
    // The headline and the outcome chips show the same figures.
    harness.get_by_label("0.4400");
    harness.get_by_label("timeout 1");
    harness.get_by_label("assertion_fail 8");
    assert!(harness.query_by_label_contains("Done: 25 / 25").is_some());
}

#[test]
fn clicking_a_column_header_sorts_both_ways() {
    let mut harness = finished_demo_run();
    harness.get_by_label("ms").click();
    harness.run_steps(2);
    let durations = |h: &Harness<'static, App>| -> Vec<u64> {
        let app = h.state();
        app.grid
            .rows
            .iter()
            .map(|&i| {
                app.workbench.store.candidates[i]
                    .result
                    .as_ref()
                    .unwrap()
                    .duration_ms
            })
            .collect()
    };
    assert_eq!(harness.state().grid.sort, Column::Duration);
    let up = durations(&harness);
    assert!(up.windows(2).all(|w| w[0] <= w[1]), "{up:?}");
    assert!(up.last().unwrap() >= &1000, "the timeout is slowest");
    harness.get_by_label("ms ⏶").click();
    harness.run_steps(2);
    let down = durations(&harness);
    assert!(!harness.state().grid.ascending);
    assert!(down.windows(2).all(|w| w[0] >= w[1]), "{down:?}");
}

#[test]
fn outcome_chips_and_histogram_focus_filter_the_grid() {
    let mut harness = finished_demo_run();
    harness.get_by_label("pass 11").click();
    harness.run_steps(2);
    assert_eq!(harness.state().grid.rows.len(), 14, "pass rows hidden");
    harness
        .state_mut()
        .push(Command::FocusOutcome(Outcome::Error));
    harness.run_steps(2);
    let app = harness.state();
    assert_eq!(app.grid.rows.len(), 4);
    assert!(app.grid.rows.iter().all(|&i| {
        app.workbench.store.candidates[i]
            .result
            .as_ref()
            .unwrap()
            .outcome
            == Outcome::Error
    }));
    // Focusing the only shown outcome again shows everything.
    harness
        .state_mut()
        .push(Command::FocusOutcome(Outcome::Error));
    harness.run_steps(2);
    assert_eq!(harness.state().grid.rows.len(), 25);
}

#[test]
fn the_search_box_filters_by_task_and_detail() {
    let mut harness = finished_demo_run();
    harness
        .get_by_role_and_label(egui::accesskit::Role::TextInput, "🔍")
        .focus();
    harness
        .get_by_role_and_label(egui::accesskit::Role::TextInput, "🔍")
        .type_text("denied");
    harness.run_steps(3);
    let app = harness.state();
    assert_eq!(app.grid.rows.len(), 2, "{:?}", app.grid.search);
}

#[test]
fn selecting_a_row_shows_code_assertions_output_and_payload() {
    let mut harness = finished_demo_run();
    harness.get_by_label("output overflow").click();
    harness.run_steps(2);
    let app = harness.state();
    let selected = app.grid.selected.expect("a row is selected");
    let c = &app.workbench.store.candidates[selected];
    assert_eq!(
        (app.workbench.store.task_id(c), c.sample),
        ("count_vowels", 1)
    );
    harness.get_by_label("count_vowels  #1");
    harness.get_by_label("📋 Copy program");

    harness.get_by_label("Output").click();
    harness.run_steps(2);
    assert_eq!(harness.state().detail_tab, DetailTab::Output);
    assert!(harness.query_by_label_contains("vowels! vowels!").is_some());

    harness.get_by_label("Harness payload").click();
    harness.run_steps(2);
    // (The payload frames each field after its length and a newline; the
    // failure causes panel names the assertion too, without one.)
    assert!(
        harness
            .query_by_label_contains("\ncount_vowels('hello') == 2")
            .is_some()
    );

    // A passing row: every assertion carries a ✔.
    harness.state_mut().push(Command::Select(0));
    harness.run_steps(1);
    harness.get_by_label("Assertions").click();
    harness.run_steps(2);
    assert_eq!(harness.query_all_by_label("✔").count(), 3);
}

#[test]
fn files_open_through_the_same_path_as_the_dialogs_and_report_problems() {
    let mut harness = new_harness(Launch::default());
    harness.run_steps(1);
    harness
        .state_mut()
        .push(Command::LoadTasks(fixture("lesson70_rules.jsonl")));
    settle(&mut harness);
    harness.run_steps(2);
    let dir = tempdir();
    let gens = dir.path().join("g.jsonl");
    std::fs::write(
        &gens,
        "{\"task_id\": \"valid_code\", \"generation\": \"def f():\\n    return 1\\n\"}\n",
    )
    .unwrap();
    harness
        .state_mut()
        .push(Command::LoadGenerations(gens.clone()));
    settle(&mut harness);
    harness.run_steps(2);
    let app = harness.state();
    assert_eq!(app.workbench.problems().len(), 23);
    assert!(
        app.workbench.cannot_run().is_some(),
        "invalid inputs block the run"
    );
    harness.get_by_label("⚠ 23 problem(s) in the inputs");
    harness.get_by_label("Run the valid records anyway").click();
    harness.run_steps(2);
    assert_eq!(harness.state().workbench.cannot_run(), None);
    harness.get_by_label("▶ Run").click();
    wait_for_run(&mut harness);
    assert_eq!(
        harness.state().workbench.store.summary(&[1]).outcomes[&Outcome::Pass],
        1
    );
    // Recent files remember both.
    assert_eq!(harness.state().state.recent.len(), 2);
}

#[test]
fn a_saved_run_reopens_without_running_and_exports_csv() {
    let dir = tempdir();
    let mut harness = finished_demo_run();
    let run_path = dir.path().join("demo-run.json");
    harness.state_mut().push(Command::Export(
        execscope::gui::Export::RunFile,
        run_path.clone(),
    ));
    harness.run_steps(2);
    let mut reopened = new_harness(Launch::default());
    reopened.state_mut().push(Command::OpenAny(run_path));
    settle(&mut reopened);
    reopened.run_steps(3);
    let app = reopened.state();
    assert!(app.workbench.opened_run.is_some());
    assert_eq!(app.workbench.done, 25);
    assert!(
        app.workbench.cannot_run().is_some(),
        "a saved run is inspected, not re-run"
    );
    assert_eq!(
        app.workbench.store.summary(&[1]).outcomes,
        harness.state().workbench.store.summary(&[1]).outcomes
    );
    let csv = dir.path().join("c.csv");
    reopened.state_mut().push(Command::Export(
        execscope::gui::Export::CandidatesCsv,
        csv.clone(),
    ));
    reopened.run_steps(2);
    assert_eq!(std::fs::read_to_string(csv).unwrap().lines().count(), 26);
    let md = dir.path().join("summary.md");
    reopened.state_mut().push(Command::Export(
        execscope::gui::Export::Markdown,
        md.clone(),
    ));
    reopened.run_steps(2);
    assert!(
        std::fs::read_to_string(md)
            .unwrap()
            .contains("| pass@1 | 0.4400 |")
    );
}

#[test]
fn the_keyboard_shortcut_runs_and_the_calculator_shows_its_value() {
    let mut harness = new_harness(Launch::default());
    harness.run_steps(1);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::R);
    harness.step();
    assert!(harness.state().workbench.is_running() || harness.state().workbench.done > 0);
    wait_for_run(&mut harness);
    assert_eq!(harness.state().workbench.done, 25);
    // n=10, c=3, k=5: 1 - C(7,5)/C(10,5) = 1 - 21/252.
    harness.get_by_label("= 1 − 21 / 252");
    harness.get_by_label("pass@5 = 0.9167");
}

/// Whether a test that needs a rendering stack must run: always in CI, elsewhere
/// only where the stack is installed.
pub(crate) fn required(what: &str, available: bool) -> bool {
    if available {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{what} is missing in CI: .ci/run installs it"
    );
    eprintln!("notice: {what} is not installed here; skipping (see .ci/run for the packages)");
    false
}

#[test]
fn a_saved_run_looks_the_same_as_its_snapshot() {
    let mut harness = opened_demo_run();
    harness.run_steps(2);
    if !required("a wgpu renderer (Mesa)", harness.render().is_ok()) {
        return;
    }
    harness.snapshot("saved_run");
}

#[test]
fn the_window_starts_under_xvfb_and_saves_a_screenshot_of_the_run() {
    let xvfb = std::process::Command::new("xvfb-run")
        .arg("--help")
        .output()
        .is_ok();
    if !required("xvfb-run", xvfb) {
        return;
    }
    let dir = tempdir();
    let shot = dir.path().join("shot.png");
    let out = std::process::Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24"])
        .arg(assert_cmd::cargo::cargo_bin("execscope"))
        .arg("--screenshot")
        .arg(&shot)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert!(
        info.width >= 1024 && info.height >= 640,
        "{}x{}",
        info.width,
        info.height
    );
    // The pass colour of the grid badges and the histogram bar is on screen.
    let pass_green = pixels.chunks(4).filter(|p| p[..3] == [76, 175, 80]).count();
    assert!(pass_green > 2000, "{pass_green} pass-coloured pixels");
}

/// A store of `n` finished candidates over `n / 10` tasks, with every outcome.
fn big_store(n: usize) -> execscope::store::Store {
    use execscope::sandbox::CandidateResult;
    use execscope::store::{Candidate, Store, TaskEntry};
    let tasks: Vec<TaskEntry> = (0..n / 10)
        .map(|t| TaskEntry {
            id: format!("Task/{t}"),
            prompt: String::new(),
            assertions: vec!["True".into()],
        })
        .collect();
    let candidates = (0..n)
        .map(|i| {
            let outcome = Outcome::ALL[i % 7 % 5];
            let pass = outcome == Outcome::Pass;
            Candidate {
                task: i / 10,
                sample: i % 10,
                generation: String::new(),
                code: "x = 1".into(),
                setup: String::new(),
                result: Some(CandidateResult {
                    outcome,
                    score: if pass { 1.0 } else { 0.0 },
                    passed: u32::from(pass),
                    total: 1,
                    per_assertion: vec![pass],
                    detail: format!("detail {}", i % 97),
                    duration_ms: (i % 1000) as u64,
                    ..CandidateResult::not_run("", 1)
                }),
            }
        })
        .collect();
    Store {
        tasks,
        candidates,
        texts: None,
    }
}

#[test]
fn a_grid_of_200000_rows_shows_every_row_and_resorts_filters_and_searches() {
    const ROWS: usize = 200_080;
    let mut harness = new_harness(Launch::default());
    harness.run_steps(2);
    {
        let app = harness.state_mut();
        app.workbench.store = big_store(ROWS);
        app.workbench.progress = vec![execscope::workbench::Progress::Done; ROWS];
        app.workbench.done = ROWS;
        app.workbench.revision += 1;
    }
    harness.run_steps(3);
    assert_eq!(harness.state().grid.rows.len(), ROWS);
    let frames = 30;
    let start = Instant::now();
    for _ in 0..frames {
        harness.step();
    }
    let per_frame = start.elapsed().as_secs_f64() * 1000.0 / frames as f64;
    // The frames that rebuild the rows: a header click (re-sort), an
    // outcome chip (filter), a search.
    let timed = |harness: &mut Harness<'_, App>, act: &dyn Fn(&mut Harness<'_, App>)| {
        let start = Instant::now();
        act(harness);
        harness.step();
        start.elapsed().as_secs_f64() * 1000.0
    };
    let resort = timed(&mut harness, &|h| h.get_by_label("detail").click());
    assert_eq!(harness.state().grid.sort, Column::Detail);
    let filter = timed(&mut harness, &|h| {
        h.state_mut().grid.focus(Outcome::Timeout);
    });
    let shown = harness.state().grid.rows.len();
    assert!(shown > 0 && shown < ROWS, "{shown}");
    harness.state_mut().grid.focus(Outcome::Timeout);
    harness.step();
    let search = timed(&mut harness, &|h| {
        let grid = &mut h.state_mut().grid;
        grid.search = "detail 42".into();
        grid.invalidate();
    });
    let found = harness.state().grid.rows.len();
    assert!(found > 0 && found < ROWS / 50, "{found}");
    eprintln!(
        "{ROWS} rows ({} build): {per_frame:.2} ms per frame; the frame that re-sorts {resort:.1} ms, filters to one outcome {filter:.1} ms, searches {search:.1} ms",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    );
}

#[test]
fn a_finished_run_shows_the_confidence_band_around_the_curve() {
    let mut harness = finished_demo_run();
    let derived = harness.state_mut().workbench.derived();
    // Five samples a task: the band spans k = 1..5 and holds the curve.
    assert_eq!(derived.band.len(), 5, "{:?}", derived.band);
    for (&(k, lo, hi), &(ck, v)) in derived.band.iter().zip(&derived.curve) {
        assert_eq!(k, ck);
        assert!(lo <= v && v <= hi, "pass@{k} = {v} outside [{lo}, {hi}]");
    }
    // The headline gives the interval of each reported pass@k beside it.
    let (lo, hi) = derived.intervals[&1];
    harness.get_by_label(&format!("95% [{lo:.4}, {hi:.4}]"));
}

#[test]
fn comparing_with_a_saved_run_lists_regressions_and_exports_the_changes() {
    let dir = tempdir();
    // Baseline A: the demo run, but with every sample of `fib` passing.
    let mut a: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("demo_run.json")).unwrap()).unwrap();
    for t in a["tasks"].as_array_mut().unwrap() {
        if t["task_id"] == "fib" {
            t["c"] = serde_json::json!(5);
            t["mean_score"] = serde_json::json!(1.0);
        }
    }
    let baseline = dir.path().join("baseline.json");
    std::fs::write(&baseline, serde_json::to_vec(&a).unwrap()).unwrap();

    let mut harness = opened_demo_run();
    harness.state_mut().push(Command::OpenBaseline(baseline));
    settle(&mut harness);
    harness.run_steps(3);
    harness.get_by_label("Compare runs");
    harness.get_by_label("1 regressed");
    harness.get_by_label("0 improved");
    harness.get_by_label("4 unchanged");
    // One row in the table: fib, regressed from 5/5 to 2/5.
    harness.get_by_label("regressed");
    harness.get_by_label("5/5");
    assert_eq!(harness.query_all_by_label("unchanged").count(), 0);
    if required("a wgpu renderer (Mesa)", harness.render().is_ok()) {
        harness.snapshot("compare_runs");
    }
    // All tasks when the filter is off.
    harness.get_by_label("Changed tasks only").click();
    harness.run_steps(2);
    assert!(!harness.state().compare_view.changed_only);
    assert!(harness.query_all_by_label("unchanged").count() >= 4);
    // The CSV of the changes.
    let csv = dir.path().join("changes.csv");
    harness.state_mut().push(Command::Export(
        execscope::gui::Export::Changes,
        csv.clone(),
    ));
    harness.run_steps(2);
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[1].starts_with("fib,regressed,5,5,1.0000,5,2,0.4500,-0.5500"),
        "{text}"
    );
    // Closing the window ends the comparison.
    harness.state_mut().push(Command::CloseBaseline);
    harness.run_steps(2);
    assert!(harness.query_by_label("Compare runs").is_none());
}

#[test]
fn settings_show_the_confinement_in_force_and_its_switches_reach_the_run() {
    let mut harness = new_harness(Launch::default());
    harness.run_steps(2);
    harness.get_by_label("⚙ Settings").click();
    harness.run_steps(2);
    let status = execscope::sandbox::Limits::default().confinement();
    harness.get_by_label(&status.describe());
    assert!(harness.query_by_label("confined").is_some() == status.missing().is_empty());
    harness.get_by_label("Allow network").click();
    harness.run_steps(2);
    let settings = harness.state().state.settings.run_settings();
    assert!(settings.limits.network && settings.limits.confine);
    harness.get_by_label("Kernel confinement").click();
    harness.run_steps(2);
    let settings = harness.state().state.settings.run_settings();
    assert!(!settings.limits.confine);
    // Off, the line says so, in the error colour.
    harness.get_by_label_contains("confinement: off");
    harness.get_by_label("Strict integrity").click();
    harness.run_steps(2);
    assert!(
        harness
            .state()
            .state
            .settings
            .run_settings()
            .strict_integrity
    );
    assert!(harness.query_by_label("strict integrity").is_some());
    if required("a wgpu renderer (Mesa)", harness.render().is_ok()) {
        harness.snapshot("settings_confinement_off");
    }
}

#[test]
fn the_flagged_chip_and_the_detail_view_show_who_gamed_the_grader() {
    let mut harness = finished_demo_run();
    harness.get_by_label("⚑ flagged 1").click();
    harness.run_steps(2);
    let app = harness.state();
    assert_eq!(app.grid.rows.len(), 1);
    let index = app.grid.rows[0];
    let c = &app.workbench.store.candidates[index];
    let r = c.result.as_ref().unwrap();
    assert_eq!(
        (app.workbench.store.task_id(c), c.sample),
        ("count_vowels", 4)
    );
    assert_eq!(
        (r.outcome, r.flags.as_slice()),
        (Outcome::Pass, ["always-equal".to_string()].as_slice())
    );
    // The grid's flags column, then the detail view with what the flag means.
    harness.get_by_label("⚑ always-equal").click();
    harness.run_steps(2);
    assert_eq!(harness.state().grid.selected, Some(index));
    harness.get_by_label_contains("passed through its own __eq__");
    // The chip again shows every row.
    harness.get_by_label("⚑ flagged 1").click();
    harness.run_steps(2);
    assert_eq!(harness.state().grid.rows.len(), 25);
}

/// A two-task HumanEval file: `quick`, and `slow`, whose reference sleeps for
/// two thirds of the default 3 s timeout.
fn two_humaneval_tasks(dir: &std::path::Path) -> std::path::PathBuf {
    let task = |id: &str, body: &str| {
        serde_json::json!({
            "task_id": id,
            "prompt": "def f():\n",
            "canonical_solution": body,
            "test": "def check(f):\n    assert f() == 1\n",
            "entry_point": "f",
        })
        .to_string()
    };
    let path = dir.join("two.jsonl");
    std::fs::write(
        &path,
        [
            task("quick", "    return 1\n"),
            task("slow", "    import time\n    time.sleep(2)\n    return 1\n"),
        ]
        .join("\n"),
    )
    .unwrap();
    path
}

#[test]
fn calibrating_lists_the_at_risk_task_first_and_the_next_run_uses_its_timeouts() {
    let dir = tempdir();
    let tasks = two_humaneval_tasks(dir.path());
    let mut harness = new_harness(Launch::default());
    harness.state_mut().push(Command::LoadTasks(tasks.clone()));
    settle(&mut harness);
    harness.state_mut().push(Command::Calibrate);
    step_while(&mut harness, "the calibration", |app| {
        app.workbench.calibration.running
    });
    harness.run_steps(2);
    harness.get_by_label("Timeout calibration");
    let calibration = harness
        .state()
        .workbench
        .calibration
        .result
        .clone()
        .unwrap();
    assert_eq!(calibration.tasks[0].task_id, "slow");
    assert!(calibration.tasks[0].at_risk.is_some());
    assert!(calibration.tasks[1].at_risk.is_none());
    harness.get_by_label(calibration.tasks[0].at_risk.as_deref().unwrap());
    harness
        .get_by_label("Use the calibrated timeouts for the next run")
        .click();
    harness.run_steps(2);
    assert!(harness.state().workbench.calibration.use_for_runs);
    harness.get_by_label("calibrated timeouts");
    // The tasks' own references as generations, run with those timeouts.
    harness
        .state_mut()
        .push(Command::LoadGenerations(dir.path().join("refs.jsonl")));
    std::fs::write(
        dir.path().join("refs.jsonl"),
        "{\"task_id\": \"quick\", \"completion\": \"    return 1\\n\"}\n{\"task_id\": \"slow\", \"completion\": \"    import time\\n    time.sleep(2)\\n    return 1\\n\"}\n",
    )
    .unwrap();
    settle(&mut harness);
    harness.state_mut().push(Command::Run);
    wait_for_run(&mut harness);
    let run = harness.state().workbench.run_file(&[1]).unwrap();
    assert_eq!(run.settings.timeouts, calibration.timeouts());
    assert!(
        run.settings
            .timeouts_from
            .as_deref()
            .is_some_and(|from| from.contains("calibrated in the app")),
        "{:?}",
        run.settings.timeouts_from
    );
    assert_eq!(run.summary.outcomes[&Outcome::Pass], 2);
}

#[test]
fn harness_faults_get_a_banner_and_a_filter() {
    let dir = tempdir();
    let mut run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("demo_run.json")).unwrap()).unwrap();
    for c in run["candidates"].as_array_mut().unwrap().iter_mut().take(3) {
        c["outcome"] = serde_json::json!("error");
        c["detail"] = serde_json::json!("harness fault: cannot start a candidate process");
        c["fault"] = serde_json::json!("harness");
    }
    let path = dir.path().join("faults.json");
    std::fs::write(&path, serde_json::to_vec(&run).unwrap()).unwrap();
    let mut harness = new_harness(Launch::default());
    harness.state_mut().push(Command::OpenRun(path));
    settle(&mut harness);
    harness.run_steps(2);
    let banner = harness
        .query_all_by_label_contains("3 results are harness faults, not model failures")
        .count();
    assert_eq!(banner, 1);
    harness.get_by_label("Show only harness faults").click();
    harness.run_steps(2);
    assert_eq!(harness.state().grid.rows.len(), 3);
    harness.get_by_label("Show only harness faults").click();
    harness.run_steps(2);
    assert_eq!(harness.state().grid.rows.len(), 25);
}

#[test]
fn environment_faults_get_their_banner_filter_and_explanation() {
    let dir = tempdir();
    let mut run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("demo_run.json")).unwrap()).unwrap();
    for c in run["candidates"].as_array_mut().unwrap().iter_mut().take(2) {
        c["outcome"] = serde_json::json!("error");
        c["detail"] = serde_json::json!("missing library: faker");
        c["fault"] = serde_json::json!("environment");
        c["integrity"] = serde_json::json!("in-process");
    }
    let path = dir.path().join("environment.json");
    std::fs::write(&path, serde_json::to_vec(&run).unwrap()).unwrap();
    let mut harness = new_harness(Launch::default());
    harness.state_mut().push(Command::OpenRun(path));
    settle(&mut harness);
    harness.run_steps(2);
    let banner = harness
        .query_all_by_label_contains("2 results are environment faults, not model failures")
        .count();
    assert_eq!(banner, 1);
    harness.get_by_label("Show only environment faults").click();
    harness.run_steps(2);
    assert_eq!(harness.state().grid.rows.len(), 2);
    let first = harness.state().grid.rows[0];
    harness.state_mut().grid.selected = Some(first);
    harness.run_steps(2);
    for text in ["An environment fault", "Integrity: in-process"] {
        assert_eq!(
            harness.query_all_by_label_contains(text).count(),
            1,
            "{text}"
        );
    }
}

#[test]
fn a_failure_cause_filters_the_grid_and_the_detail_view_shows_got_and_expected() {
    let mut harness = finished_demo_run();
    let causes = harness.state().workbench.derived().causes.clone();
    let failures: usize = causes.iter().map(|c| c.candidates).sum();
    let outcomes = &harness.state().workbench.derived().summary.outcomes;
    assert_eq!(
        failures,
        25 - outcomes.get(&Outcome::Pass).copied().unwrap_or(0)
    );
    // A cause shows only its candidates; again, all. (The panel lists it
    // below the charts, out of the window here: the click's command.)
    let cause =
        "assertion_fail: reverse_words assertion 2 line 1: reverse_words('hello') == 'hello'";
    harness.get_by_label_contains(cause);
    harness.state_mut().push(Command::FocusCause(cause.into()));
    harness.run_steps(2);
    let rows = harness.state().grid.rows.clone();
    assert_eq!(rows.len(), 1);
    let c = &harness.state().workbench.store.candidates[rows[0]];
    assert_eq!(c.sample, 3);
    // The grid's detail column says what it returned and what was expected.
    harness
        .get_by_label("reverse_words('hello') returned 'olleh'; expected 'hello'")
        .click();
    harness.run_steps(2);
    assert_eq!(harness.state().grid.selected, Some(rows[0]));
    harness.get_by_label("Assertions").click();
    harness.run_steps(2);
    harness.get_by_label("Assertion 2 failed at line 1");
    harness.get_by_label("Got");
    harness.get_by_label("Expected");
    harness.get_by_label("First difference: index 0: 'o' != 'h'");
    harness.state_mut().push(Command::FocusCause(cause.into()));
    harness.run_steps(2);
    assert_eq!(harness.state().grid.rows.len(), 25);
}

#[test]
fn the_settings_window_closes_on_escape() {
    let mut harness = new_harness(Launch::default());
    harness.run_steps(2);
    harness.get_by_label("⚙ Settings").click();
    harness.run_steps(2);
    assert!(harness.state().show_settings);
    harness.key_press(egui::Key::Escape);
    harness.run_steps(2);
    assert!(!harness.state().show_settings);
}

#[test]
fn edit_and_run_again_turns_a_failing_candidate_into_a_pass_kept_or_undone() {
    let mut harness = finished_demo_run();
    let index = {
        let store = &harness.state().workbench.store;
        store
            .candidates
            .iter()
            .position(|c| store.task_id(c) == "add" && c.sample == 2)
            .unwrap()
    };
    harness.state_mut().push(Command::Select(index));
    harness.run_steps(2);
    harness.get_by_label("Program").click();
    harness.run_steps(2);
    harness.get_by_label("✏ Edit and run again").click();
    harness.run_steps(2);
    let edit = harness
        .state_mut()
        .workbench
        .edits
        .current
        .as_mut()
        .unwrap();
    edit.code = edit.code.replace("a - b", "a + b");
    harness.get_by_label("▶ Run again").click();
    harness.run_steps(1);
    step_while(&mut harness, "the edited run", |app| {
        app.workbench.is_busy()
    });
    harness.run_steps(2);
    harness.get_by_label("Edited");
    harness.get_by_label("Original");
    harness.get_by_label("Keep in this run").click();
    harness.run_steps(3);
    let r = harness.state().workbench.store.candidates[index]
        .result
        .clone()
        .unwrap();
    assert!(r.edited && r.outcome == Outcome::Pass, "{r:?}");
    harness.get_by_label_contains("1 candidate was edited by hand");
    harness.get_by_label("Undo edit").click();
    harness.run_steps(3);
    let r = harness.state().workbench.store.candidates[index]
        .result
        .clone()
        .unwrap();
    assert!(!r.edited && r.outcome == Outcome::AssertionFail, "{r:?}");
}

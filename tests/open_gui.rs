//! `execscope FILE...` in the app: what the files open as, and the window's
//! screenshot of a run file under Xvfb.

use egui_kittest::kittest::Queryable;
use execscope::gui::Launch;
use execscope::workbench::opening;

use crate::gui::{new_harness, required};
use crate::util::{demo_file, fixture, tempdir};

#[test]
fn a_run_file_given_opens_as_the_saved_run() {
    let run = fixture("demo_run.json");
    let harness = new_harness(Launch::open(opening(std::slice::from_ref(&run)).unwrap()));
    let bench = &harness.state().workbench;
    assert_eq!(bench.opened_run.as_ref().map(|(p, _)| p), Some(&run));
    assert_eq!(bench.store.candidates.len(), 25);
    assert!(bench.tasks.is_none() && bench.baseline().is_none());
}

#[test]
fn two_run_files_given_open_the_comparison_of_the_second_with_the_first() {
    let dir = tempdir();
    // A: the demo run with every sample of `fib` passing.
    let mut a: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("demo_run.json")).unwrap()).unwrap();
    for t in a["tasks"].as_array_mut().unwrap() {
        if t["task_id"] == "fib" {
            t["c"] = serde_json::json!(5);
        }
    }
    let baseline = dir.path().join("a.execscope.json");
    std::fs::write(&baseline, serde_json::to_vec_pretty(&a).unwrap()).unwrap();
    let files = [baseline.clone(), fixture("demo_run.json")];
    let mut harness = new_harness(Launch::open(opening(&files).unwrap()));
    harness.run_steps(3);
    let bench = &harness.state().workbench;
    assert_eq!(bench.baseline().map(|b| b.path.clone()), Some(baseline));
    assert_eq!(bench.store.candidates.len(), 25);
    harness.get_by_label("Compare runs");
    harness.get_by_label("a.execscope.json");
    // B is named: in the Compare window as well as on the status line.
    assert_eq!(harness.query_all_by_label("demo_run.json").count(), 2);
    assert!(harness.query_by_label("the results on screen").is_none());
    harness.get_by_label("1 regressed");
}

#[test]
fn a_task_file_and_a_generations_file_given_load_ready_to_run() {
    let files = [demo_file("generations.jsonl"), demo_file("tasks.jsonl")];
    let launch = Launch::open(opening(&files).unwrap());
    assert!(launch.can_run());
    let harness = new_harness(launch);
    let bench = &harness.state().workbench;
    assert!(bench.tasks.is_some() && bench.generations.is_some());
    assert!(!bench.is_demo());
    assert_eq!(bench.plan.as_ref().map(|p| p.jobs.len()), Some(25));
    assert_eq!(bench.cannot_run(), None);
}

#[test]
fn the_window_saves_a_screenshot_of_a_run_file_once_it_is_read() {
    let xvfb = std::process::Command::new("xvfb-run")
        .arg("--help")
        .output()
        .is_ok();
    if !required("xvfb-run", xvfb) {
        return;
    }
    let dir = tempdir();
    let shot = dir.path().join("run.png");
    let out = std::process::Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24"])
        .arg(assert_cmd::cargo::cargo_bin("execscope"))
        .arg(fixture("demo_run.json"))
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
    reader.next_frame(&mut pixels).unwrap();
    // The saved run's 11 passes are on screen: grid badges and histogram bar.
    let pass_green = pixels.chunks(4).filter(|p| p[..3] == [76, 175, 80]).count();
    assert!(pass_green > 2000, "{pass_green} pass-coloured pixels");
}

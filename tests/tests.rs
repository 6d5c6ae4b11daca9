//! Integration tests against the public API and the real python3.
//!
//! - `adversarial`: one test per attack on the host (hardening).
//! - `boundaries`: house rules checked by grep (GUI crates only in `src/gui/`).
//! - `bridge`: values crossing between the candidate and the judge behave as CPython's
//!   (identity, aliasing, callbacks, lazy iteration, value types), checked against CPython.
//! - `outcomes`: each of the five outcomes, scores, details, extraction end to end.
//! - `denylist`: every denied module through every import form, `os.system`.
//! - `confinement`: the kernel layers judged by effect (canaries, listeners, victims).
//! - `machine`: the host and the machine's resources (complete runs, status, disk, threads).
//! - `containment`: timeouts that ignore SIGTERM, output floods, forged envelopes,
//!   exits, forked children.
//! - `readers`: the lesson-70 validator, HumanEval/MBPP/generation readers, bad files.
//! - `engine`: worker-count independence, cancellation, events.
//! - `explain`: why it failed (the rewritten asserts' values, lines, exceptions).
//! - `faststart`: fast start against fresh interpreters, server death, host death.
//! - `report`: run-file round trip and golden CSVs.
//! - `result_files`: other harnesses' result files opened as runs, and the verdict audit
//!   (`result_files_gui`: the same in the app).
//! - `cli`: the `execscope` binary end to end.
//! - `open`: `execscope FILE...`, each file by its content, and the app's messages for
//!   a file it cannot open (`open_gui`: the same in the app, and its screenshot).
//! - `shard`: `run --shard I/N` and `merge` against the single run.
//! - `resume`: `run --resume` after a kill at about half, refusals, a torn journal line
//!   (`resume_app`: the app's run to a run file and its offer to resume).
//! - `integrity`: every route to a forged verdict against the judge, each flag, strict integrity.
//! - `io_tests`: HumanEval+ tests that are inputs (tolerance, limits, find_zero, digests, reader).
//! - `livecodebench`: LiveCodeBench and APPS/TACO tests graded as LiveCodeBench grades them
//!   (`livecodebench_readers`: their readers and the pickled private tests).
//! - `isolation`: nothing one candidate does reaches another; floods cost the host little.
//! - `redteam`: the routes a fresh attacker found against the judge, each a test.
//! - `redteam3`: the routes a third attacker found (exception classes, control characters).
//! - `redteam4`: the routes a fourth attacker found against the object bridge (run-time
//!   names, truthy answers, telling the probe apart, StopIteration, a crashing judge).
//! - `reward_hacks`: the published reward hacks against unittest graders, each caught.
//! - `numbers`: paired comparison, rechecks and flaky candidates, harness faults.
//! - `workbench`: a whole session through the library (load, run, inspect, compare, export).
//! - `gui`: the desktop app driven headless (egui_kittest).
//! - `teaching`: the app in front of a class (task rows, the More menu, zoom).
//!
//! Checks against the real public data live in `tests/real_data.rs` (a binary of
//! its own, so its long runs are not squeezed by these tests); tests that change
//! process-wide signal and descriptor state in `tests/signals.rs`; the long
//! soak in `tests/soak.rs`. `util` is every binary's one helper module.

// Tests may panic on what they set up themselves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod util;

mod adversarial;
mod boundaries;
mod bridge;
mod cli;
mod confinement;
mod container;
mod containment;
mod denylist;
mod engine;
mod explain;
mod faststart;
#[cfg(feature = "gui")]
mod gui;
mod integrity;
mod io_tests;
mod isolation;
mod lean;
mod livecodebench;
mod livecodebench_readers;
mod machine;
mod numbers;
mod open;
#[cfg(feature = "gui")]
mod open_gui;
mod outcomes;
mod readers;
mod redteam;
mod redteam3;
mod redteam4;
mod report;
mod result_files;
#[cfg(feature = "gui")]
mod result_files_gui;
mod resume;
mod resume_app;
mod reward_hacks;
mod shard;
mod suites;
#[cfg(feature = "gui")]
mod teaching;
mod workbench;

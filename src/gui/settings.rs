//! The Settings window: timeout, output cap, workers, interpreter (with its
//! detected version), the denylist, and the zoom. Persisted with the rest of the state.

use super::app::App;
use super::command::Command;
use super::ui_ext::UiExt;
use crate::engine::MAX_WORKERS;
use crate::sandbox::MAX_TIMEOUT;
use crate::workbench::{Python, Settings};

impl App {
    pub(super) fn settings_ui(&mut self, ui: &mut egui::Ui) {
        let mut open = self.show_settings;
        egui::Window::new("Settings")
            .open(&mut open)
            .resizable(false)
            .default_width(380.0)
            .show(ui.ctx(), |ui| {
                // The zoom first: on a projector it is what is looked for.
                zoom_ui(ui);
                ui.separator();
                // A long form (or a large zoom) scrolls inside the window,
                // which otherwise takes what the screen has.
                let tall = (ui.ctx().content_rect().height() - 120.0).max(120.0);
                let scroll = egui::ScrollArea::vertical().min_scrolled_height(tall);
                scroll.max_height(tall).show(ui, |ui| {
                    let running = self.workbench.is_running();
                    ui.add_enabled_ui(!running, |ui| self.settings_form_ui(ui));
                    if running {
                        ui.weak_label("Settings apply to the next run.");
                    }
                });
            });
        // Esc closes it, as it closes a dialog.
        if open && ui.ctx().input(|i| i.key_pressed(egui::Key::Escape)) {
            open = false;
        }
        self.show_settings = open;
    }

    fn settings_form_ui(&mut self, ui: &mut egui::Ui) {
        let deciders = self
            .workbench
            .plan
            .as_deref()
            .map(crate::integrity::Deciders::of);
        let s = &mut self.state.settings;
        let mut detect = false;
        egui::Grid::new("settings_grid").num_columns(2).spacing([12.0, 8.0]).show(ui, |ui| {
            ui.label("Timeout");
            let max = MAX_TIMEOUT.as_secs_f64();
            ui.add(egui::DragValue::new(&mut s.timeout_s).range(0.1..=max).speed(0.1).suffix(" s"))
                .on_hover_text(format!("Wall clock per candidate, from spawn. A task's metadata.timeout_s overrides it; at most {max} s."));
            ui.end_row();
            ui.label("Unittest suites");
            ui.vertical(|ui| {
                let max = crate::engine::MAX_SUITE_TIMEOUT_S;
                ui.add(egui::DragValue::new(&mut s.suite_timeout_s).range(0.1..=max).speed(1.0).prefix("timeout ").suffix(" s"))
                    .on_hover_text("Wall clock per candidate of a task whose tests are a unittest suite (BigCodeBench), whose tests start programs and sleep: BigCodeBench's own limit is 240 s, plus the interpreter's start.");
                ui.checkbox(&mut s.suite_denylist, "Denylist and process guard under confinement")
                    .on_hover_text("BigCodeBench's tasks use os, shutil, subprocess and sockets legitimately: under the kernel's confinement they run without the import denylist and the process guard, and what the confinement refuses (exec, the network) fails as that call's own error. On: keep both.");
            });
            ui.end_row();
            ui.label("Output cap");
            let mut kib = s.output_cap_bytes.div_ceil(1024);
            let cap = ui.add(egui::DragValue::new(&mut kib).range(1..=1_048_576).suffix(" KiB"));
            if cap.changed() {
                s.output_cap_bytes = kib * 1024;
            }
            cap.on_hover_text("A candidate printing more than this on stdout or on stderr is killed: error, output overflow.");
            ui.end_row();
            ui.label("Workers");
            ui.add(egui::DragValue::new(&mut s.workers).range(1..=MAX_WORKERS))
                .on_hover_text("Candidates running at full priority at once (default: one per core). One still running after a second is lowered in priority and lets the next start.");
            ui.end_row();
            let interpreter = ui.label("Interpreter");
            ui.horizontal(|ui| {
                let edit = ui
                    .add(egui::TextEdit::singleline(&mut s.python).desired_width(180.0))
                    .labelled_by(interpreter.id);
                detect |= edit.lost_focus();
                detect |= ui.button("Detect").clicked();
            });
            ui.end_row();
            ui.label("");
            match &self.workbench.python {
                Python::Ready(py) => ui.weak_label(format!("Python {} at {}", py.version, py.executable.display())),
                Python::Resolving(_) => ui.spinner(),
                Python::Failed(e) => ui.error_label(e),
            };
            ui.end_row();
            ui.label("Memory");
            ui.add(egui::DragValue::new(&mut s.memory_mib).range(0..=65_536).suffix(" MiB"))
                .on_hover_text("Address-space limit per candidate; going over it ends as error, memory limit. 0: no limit.");
            ui.end_row();
            ui.label("File size");
            ui.add(egui::DragValue::new(&mut s.file_size_mib).range(0..=65_536).suffix(" MiB"))
                .on_hover_text("Largest file a candidate may write. 0: no limit.");
            ui.end_row();
            ui.label("Open files");
            ui.add(egui::DragValue::new(&mut s.open_files).range(0..=65_536))
                .on_hover_text("Most file descriptors a candidate may hold. 0: inherited.");
            ui.end_row();
            ui.label("Isolation");
            ui.vertical(|ui| {
                ui.checkbox(&mut s.cpu_backstop, "CPU-time backstop, no core dumps");
                ui.checkbox(&mut s.process_guard, "Process guard")
                    .on_hover_text("os.fork, os.setsid, os.kill, os.exec*, os.posix_spawn* raise; pty, resource, _socket and _posixsubprocess cannot be imported.");
                let net = crate::sandbox::network_isolation();
                ui.add_enabled(net.is_ok(), egui::Checkbox::new(&mut s.no_network, "Network namespace"))
                    .on_hover_text("Each candidate also runs in a fresh network namespace with only a loopback interface, which is down (even with the network allowed below, it reaches nothing).")
                    .on_disabled_hover_text(net.err().unwrap_or_default());
            });
            ui.end_row();
            ui.label("Rechecks");
            ui.horizontal(|ui| {
                ui.add(egui::DragValue::new(&mut s.recheck).range(0..=20).suffix(" more runs"))
                    .on_hover_text("After the run, each candidate that timed out runs this many more times; one whose outcomes disagree is flagged flaky. The reported outcome stays the first run's.");
                ui.add_enabled(s.recheck > 0, egui::Checkbox::new(&mut s.recheck_all, "every candidate"))
                    .on_hover_text("Recheck every candidate, not only those that timed out");
            });
            ui.end_row();
            ui.label("Confinement");
            ui.vertical(|ui| {
                ui.checkbox(&mut s.confine, "Kernel confinement")
                    .on_hover_text("Landlock and a seccomp filter: a candidate writes only in its own directory, reads only Python and system libraries, starts no process, reaches no other process, holds no privileges. Off: only the process guard and the denylist stand.");
                ui.add_enabled(s.confine, egui::Checkbox::new(&mut s.network, "Allow network"))
                    .on_hover_text("Let candidates open sockets and connect (TCP and UDP). Off by default.");
                ui.add_enabled(s.confine, egui::Checkbox::new(&mut s.require_confinement, "Require every layer"))
                    .on_hover_text("Refuse to run where the kernel lacks a layer, instead of running with the rest.");
                ui.add(egui::DragValue::new(&mut s.disk_mib).range(0..=65_536).prefix("disk ").suffix(" MiB"))
                    .on_hover_text("Most bytes a candidate may keep in its directory; going over it ends as error, disk limit. 0: no limit.");
                let status = s.confinement();
                let line = status.describe();
                if status.missing().is_empty() {
                    ui.weak_label(line);
                } else {
                    ui.error_label(line);
                }
            });
            ui.end_row();
            ui.label("Integrity");
            ui.vertical(|ui| {
                ui.checkbox(&mut s.strict_integrity, "Strict integrity")
                    .on_hover_text("A pass that the candidate's own code decided (an object that says it is equal, its own comparison or arithmetic, a name that hides a builtin the tests use), or that a unittest suite decided in the candidate's own process, counts as error, not pass, and a name that hides a builtin or a module is not given to the tests. Off: the outcome stays as the official harness would give it and the flags inform. Refuses to run where the verdict cannot be guarded.");
                let limits = s.run_settings().limits;
                let line = crate::integrity::describe(&limits, deciders);
                if crate::integrity::missing(&limits).is_empty() && deciders.is_none_or(|d| d.in_process == 0) {
                    ui.weak_label(line);
                } else {
                    ui.error_label(line);
                }
            });
            ui.end_row();
            ui.label("Start-up");
            ui.checkbox(&mut s.fast_start, "Fast start")
                .on_hover_text("Each worker keeps one warm interpreter (harness and common modules loaded) and forks a fresh child per candidate: same limits, process group, denylist and result channel, several times faster. Off: a fresh interpreter per candidate.");
            ui.end_row();
            let denylist = ui.label("Denylist");
            ui.add(egui::TextEdit::multiline(&mut s.denylist).desired_rows(4).desired_width(220.0))
                .labelled_by(denylist.id)
                .on_hover_text("Modules candidates may not import (one per line; each includes its submodules). os.system is always refused while the list is not empty.");
            ui.end_row();
        });
        ui.separator();
        if ui.button("Reset to defaults").clicked() {
            let python_changed = self.state.settings.python != Settings::default().python;
            self.state.settings = Settings::default();
            detect |= python_changed;
        }
        if detect {
            self.push(Command::DetectPython);
        }
    }
}

/// The zoom for a projector: the same steps as Ctrl +, Ctrl − and Ctrl 0,
/// remembered for the next start.
fn zoom_ui(ui: &mut egui::Ui) {
    let ctx = ui.ctx().clone();
    ui.horizontal(|ui| {
        ui.label("Zoom");
        if ui.button("−").on_hover_text("Smaller (Ctrl −)").clicked() {
            egui::gui_zoom::zoom_out(&ctx);
        }
        ui.label(format!("{:.0}%", ctx.zoom_factor() * 100.0));
        if ui.button("+").on_hover_text("Larger (Ctrl +)").clicked() {
            egui::gui_zoom::zoom_in(&ctx);
        }
        if ui
            .button("Actual size")
            .on_hover_text("100% (Ctrl 0)")
            .clicked()
        {
            ctx.set_zoom_factor(1.0);
        }
        ui.weak_label("kept for the next start");
    });
}

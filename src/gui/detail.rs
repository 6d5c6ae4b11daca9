//! The detail view of the selected candidate: summary line, time split, its
//! flags with what each means, and tabs
//! for the program (highlighted, the line that raised marked), the raw
//! generation, each assertion with its mark (why the failing one failed above
//! them, its failing line marked), captured output and the exact harness
//! payload. Everything is copyable.

use super::app::{App, DetailTab};
use super::command::Command;
use super::failure::{failure_ui, python_view};
use super::theme::{Tokens, size};
use super::ui_ext::UiExt;
use crate::sandbox;
use egui::RichText;

impl App {
    pub(super) fn detail_ui(&mut self, ui: &mut egui::Ui) {
        let Some(index) = self.grid.selected else {
            return;
        };
        if index >= self.workbench.store.candidates.len() {
            self.grid.selected = None;
            return;
        }
        egui::Panel::bottom("detail")
            .resizable(true)
            .default_size(size::DETAIL_HEIGHT)
            .min_size(120.0)
            .show(ui, |ui| {
                ui.add_space(4.0);
                self.detail_header_ui(ui, index);
                ui.horizontal(|ui| {
                    for (tab, title) in [
                        (DetailTab::Code, "Program"),
                        (DetailTab::Generation, "Generation"),
                        (DetailTab::Assertions, "Assertions"),
                        (DetailTab::Output, "Output"),
                        (DetailTab::Payload, "Harness payload"),
                    ] {
                        ui.selectable_value(&mut self.detail_tab, tab, title);
                    }
                });
                ui.separator();
                egui::ScrollArea::both()
                    .auto_shrink([false, false])
                    .show(ui, |ui| match self.detail_tab {
                        DetailTab::Code => self.code_tab_ui(ui, index),
                        DetailTab::Generation => self.generation_tab_ui(ui, index),
                        DetailTab::Assertions => self.assertions_tab_ui(ui, index),
                        DetailTab::Output => self.output_tab_ui(ui, index),
                        DetailTab::Payload => self.payload_tab_ui(ui, index),
                    });
            });
    }

    fn detail_header_ui(&mut self, ui: &mut egui::Ui, index: usize) {
        let store = &self.workbench.store;
        let c = &store.candidates[index];
        ui.horizontal_wrapped(|ui| {
            ui.heading(format!("{}  #{}", store.task_id(c), c.sample));
            match &c.result {
                Some(r) => {
                    ui.outcome_badge(r.outcome);
                    if let Some(source) = self.workbench.foreign() {
                        ui.weak_label(format!("{}'s verdict", source.harness));
                        if let Some(base) = r.base {
                            ui.label(format!("base tests: {}", base.outcome.as_str()));
                        }
                    } else {
                        ui.label(format!("score {:.2} ({}/{})", r.score, r.passed, r.total));
                        ui.label(format!("{} ms", r.duration_ms));
                    }
                    if let Some(t) = &r.timing {
                        ui.weak_label(format!(
                            "spawn {:.1} · start-up {:.1} · candidate {:.1} · teardown {:.1} ms",
                            t.spawn_us as f64 / 1000.0,
                            t.startup_us as f64 / 1000.0,
                            t.candidate_us as f64 / 1000.0,
                            t.teardown_us as f64 / 1000.0
                        ))
                        .on_hover_text("Where the wall-clock time went");
                    }
                    if !r.detail.is_empty() {
                        ui.label(RichText::new(&r.detail).strong());
                    }
                }
                None => {
                    ui.weak_label("not run yet");
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui
                    .button("✖")
                    .on_hover_text("Close the detail view")
                    .clicked()
                {
                    self.grid.selected = None;
                }
            });
        });
        if let Some(r) = &c.result {
            flags_ui(ui, &r.flags);
            if !r.rechecks.is_empty() {
                let all: Vec<&str> = std::iter::once(r.outcome)
                    .chain(r.rechecks.iter().copied())
                    .map(|o| o.as_str())
                    .collect();
                ui.weak_label(format!(
                    "Outcomes of the first run and its rechecks: {} (the first is reported)",
                    all.join(", ")
                ));
            }
            match r.fault {
                Some(crate::sandbox::Fault::Harness) => {
                    ui.error_label(
                        "A harness fault: the machine or the harness failed, not this candidate's code.",
                    );
                }
                Some(crate::sandbox::Fault::Environment) => {
                    ui.error_label(
                        "An environment fault: the interpreter lacks a library the task needs; the candidate failed only on importing it.",
                    );
                }
                None => {}
            }
            if r.integrity == Some(crate::sandbox::Integrity::InProcess) {
                ui.weak_label(
                    "Integrity: in-process. This task's tests are a unittest suite that patches the program's modules, so they ran in the candidate's own process: the verdict is its word, not the judge's.",
                );
            }
        }
    }

    fn code_tab_ui(&mut self, ui: &mut egui::Ui, index: usize) {
        if self.edit_ui(ui, index) {
            return;
        }
        let c = self.full_candidate(ui, index);
        let mut command = None;
        ui.horizontal(|ui| {
            if !c.code.is_empty() {
                copy_button(ui, "Copy program", &c.code);
            }
            // Another harness's tests are not here to run an edit against.
            if c.result.is_some()
                && self.workbench.foreign().is_none()
                && ui
                    .small_button("✏ Edit and run again")
                    .on_hover_text("Change the program and run it again through the same tests; the run's figures change only if you keep it")
                    .clicked()
            {
                command = Some(Command::BeginEdit(index));
            }
            if self.workbench.edits.is_kept(index)
                && ui
                    .small_button("Undo edit")
                    .on_hover_text("Bring back the original program and result")
                    .clicked()
            {
                command = Some(Command::UndoEdit(index));
            }
        });
        if let Some(command) = command {
            self.push(command);
        }
        if c.result.as_ref().is_some_and(|r| r.edited) {
            ui.error_label("✏ Edited by hand: this program and result are not the model's.");
        }
        if c.code.is_empty() {
            ui.weak_label("No program: the generation had no code block.");
            return;
        }
        let failure = c.result.as_ref().and_then(|r| r.failure.as_ref());
        let line = failure.and_then(|f| f.program_line);
        if let (Some(line), Some(f)) = (line, failure) {
            let exc = f.exception.as_deref().unwrap_or("an exception");
            ui.error_label(format!("Line {line} raised {exc}"));
        }
        python_view(ui, &c.code, line);
        if !c.setup.is_empty() {
            ui.separator();
            ui.strong("Test setup (runs after the program)");
            python_view(ui, &c.setup, None);
        }
    }

    fn generation_tab_ui(&self, ui: &mut egui::Ui, index: usize) {
        let c = self.full_candidate(ui, index);
        copy_button(ui, "Copy generation", &c.generation);
        ui.add(egui::Label::new(RichText::new(&c.generation).monospace()).selectable(true));
    }

    fn assertions_tab_ui(&self, ui: &mut egui::Ui, index: usize) {
        let store = &self.workbench.store;
        let c = &store.candidates[index];
        let Some(task) = store.tasks.get(c.task) else {
            return;
        };
        let marks = c
            .result
            .as_ref()
            .map(|r| r.per_assertion.as_slice())
            .unwrap_or(&[]);
        let ran = c.result.as_ref().is_some_and(|r| {
            matches!(
                r.outcome,
                sandbox::Outcome::Pass | sandbox::Outcome::AssertionFail
            )
        });
        if !ran && c.result.is_some() {
            ui.weak_label("The assertions did not run: the program itself did not complete.");
        }
        let failure = c.result.as_ref().and_then(|r| r.failure.as_ref());
        if let Some(f) = failure {
            failure_ui(ui, f);
            ui.add_space(6.0);
        }
        for (i, assertion) in task.assertions.iter().enumerate() {
            ui.horizontal_top(|ui| {
                match (ran, marks.get(i)) {
                    (true, Some(ok)) => {
                        ui.mark(*ok);
                    }
                    _ => {
                        ui.weak_label("·");
                    }
                }
                let marked = failure
                    .filter(|f| f.assertion == Some(i as u32 + 1))
                    .and_then(|f| f.line);
                ui.vertical(|ui| python_view(ui, assertion, marked));
            });
        }
    }

    fn output_tab_ui(&self, ui: &mut egui::Ui, index: usize) {
        let c = self.full_candidate(ui, index);
        let Some(r) = &c.result else {
            return;
        };
        if let Some(overflow) = &r.overflow {
            ui.error_label(overflow.describe());
            ui.add_space(6.0);
        }
        for (title, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
            ui.horizontal(|ui| {
                ui.strong(title);
                if text.is_empty() {
                    ui.weak_label("(empty)");
                } else {
                    copy_button(ui, "Copy", text);
                }
            });
            if !text.is_empty() {
                ui.add(egui::Label::new(RichText::new(text.as_str()).monospace()).selectable(true));
            }
            ui.add_space(6.0);
        }
    }

    /// Candidate `index` with its program, generation and output, which a
    /// big run file keeps on disk until a candidate is opened; where they
    /// cannot be read back, why, and the candidate without them.
    fn full_candidate(&self, ui: &mut egui::Ui, index: usize) -> crate::store::Candidate {
        match self.workbench.store.full_or_error(index) {
            Ok(c) => c.into_owned(),
            Err(why) => {
                ui.error_label(why);
                self.workbench.store.candidates[index].clone()
            }
        }
    }

    fn payload_tab_ui(&self, ui: &mut egui::Ui, index: usize) {
        let limits = self.state.settings.run_settings().limits;
        let (python, payload) = match self.workbench.payload_of(index, &limits) {
            Ok(described) => described,
            Err(e) => {
                ui.error_label(e);
                return;
            }
        };
        ui.weak_label(format!(
            "{python} receives this on stdin as `{python} -s -S -B -c <harness>`: each field is `<byte length>\\n<bytes>` (token, setup, program, denylist, sys.path, flags, then one field per assertion).",
        ));
        copy_button(ui, "Copy payload", &payload);
        ui.add(egui::Label::new(RichText::new(payload).monospace()).selectable(true));
    }
}

fn copy_button(ui: &mut egui::Ui, label: &str, text: &str) {
    if ui.small_button(format!("📋 {label}")).clicked() {
        ui.ctx().copy_text(text.to_owned());
    }
}

/// Each flag of a candidate, with what it means.
fn flags_ui(ui: &mut egui::Ui, flags: &[String]) {
    let color = Tokens::of(ui).flag;
    for flag in flags {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(format!("⚑ {flag}")).color(color).strong());
            ui.label(crate::sandbox::flags::meaning(flag));
        });
    }
}

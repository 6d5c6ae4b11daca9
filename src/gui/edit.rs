//! Edit and run again, in the detail view's Program tab: the program in an
//! editor, its new result beside the original's, and the choice to keep it in
//! the run (the candidate is then marked edited) or to undo it.

use egui::RichText;
use egui_extras::syntax_highlighting::{CodeTheme, highlight};

use super::app::App;
use super::command::Command;
use super::failure::failure_ui;
use super::ui_ext::UiExt;
use crate::sandbox::CandidateResult;
use crate::workbench::EditState;

impl App {
    /// The editor of candidate `index`'s program, when it is being edited.
    /// Returns whether it drew one.
    pub(super) fn edit_ui(&mut self, ui: &mut egui::Ui, index: usize) -> bool {
        let original = self.workbench.store.candidates[index].result.clone();
        let Some(edit) = self
            .workbench
            .edits
            .current
            .as_mut()
            .filter(|e| e.index == index)
        else {
            return false;
        };
        let running = edit.state == EditState::Running;
        let mut commands = Vec::new();
        ui.horizontal(|ui| {
            if ui
                .add_enabled(!running, egui::Button::new("▶ Run again"))
                .on_hover_text("Run the edited program in the same sandbox, settings and tests")
                .clicked()
            {
                commands.push(Command::RunEdit);
            }
            let ran = matches!(edit.state, EditState::Ran { .. });
            if ui
                .add_enabled(ran, egui::Button::new("Keep in this run"))
                .on_hover_text("Replace the candidate's result with the edited run's, marked edited: the run's figures change")
                .clicked()
            {
                commands.push(Command::KeepEdit);
            }
            if ui
                .button(if ran { "Discard" } else { "Cancel" })
                .on_hover_text("Stop editing; nothing changes")
                .clicked()
            {
                commands.push(Command::CancelEdit);
            }
            if running {
                ui.spinner();
                ui.weak_label("running…");
            }
        });
        let theme = CodeTheme::from_style(ui.style());
        let mut layouter = |ui: &egui::Ui, text: &dyn egui::TextBuffer, wrap: f32| {
            let mut job = highlight(ui.ctx(), ui.style(), &theme, text.as_str(), "py");
            job.wrap.max_width = wrap;
            ui.fonts_mut(|f| f.layout_job(job))
        };
        ui.add(
            egui::TextEdit::multiline(&mut edit.code)
                .code_editor()
                .desired_rows(10)
                .desired_width(f32::INFINITY)
                .layouter(&mut layouter),
        );
        match &edit.state {
            EditState::Ran { code, result } => {
                let stale = *code != edit.code;
                ui.separator();
                ui.columns(2, |columns| {
                    outcome_ui(&mut columns[0], "Original", original.as_ref());
                    outcome_ui(&mut columns[1], "Edited", Some(result));
                });
                if stale {
                    ui.weak_label("The program changed since this run: run it again to see.");
                }
                if let Some(f) = &result.failure {
                    failure_ui(ui, f);
                }
            }
            EditState::Failed(why) => {
                ui.error_label(format!("The sandbox could not run it: {why}"));
            }
            EditState::Editing | EditState::Running => {}
        }
        for command in commands {
            self.push(command);
        }
        true
    }
}

/// "Original: ✖ assertion_fail 0.67 (2/3), 17 ms" and why.
fn outcome_ui(ui: &mut egui::Ui, title: &str, result: Option<&CandidateResult>) {
    ui.strong(title);
    let Some(r) = result else {
        ui.weak_label("not run");
        return;
    };
    ui.horizontal_wrapped(|ui| {
        ui.outcome_badge(r.outcome);
        ui.label(format!("score {:.2} ({}/{})", r.score, r.passed, r.total));
        ui.weak_label(format!("{} ms", r.duration_ms));
    });
    let why = r.explanation();
    if !why.is_empty() {
        ui.label(RichText::new(why.as_ref()).small());
    }
}

//! The "Failure causes" section of the right-hand panel: every failure grouped
//! by why it failed, by count, with its share of the failures and the tasks
//! it touches; clicking a cause shows only its candidates in the grid.

use egui::RichText;

use super::app::App;
use super::command::Command;
use super::theme::Tokens;
use super::ui_ext::UiExt;

/// Causes listed before "and N more".
const SHOWN: usize = 12;

impl App {
    pub(super) fn causes_ui(&mut self, ui: &mut egui::Ui) {
        let derived = self.workbench.derived();
        let causes = &derived.causes;
        let failures = crate::store::Cause::failures(causes);
        if failures == 0 {
            ui.weak_label(if self.workbench.is_running() {
                "Causes are grouped when the run ends."
            } else {
                "No failures."
            });
            return;
        }
        let tokens = Tokens::of(ui);
        let mut clicked = None;
        for cause in causes.iter().take(SHOWN) {
            let on = self.grid.cause.as_ref() == Some(&cause.signature);
            let share = cause.percent_of(failures);
            ui.horizontal_top(|ui| {
                ui.label(
                    RichText::new(format!("{:>4}", cause.candidates))
                        .monospace()
                        .color(tokens.outcome(cause.outcome)),
                );
                let text = format!(
                    "{}  ({share:.0}%, {} task{})",
                    cause.signature,
                    cause.tasks,
                    if cause.tasks == 1 { "" } else { "s" }
                );
                let text = if on {
                    RichText::new(text).strong().background_color(tokens.flag.gamma_multiply(0.3))
                } else {
                    RichText::new(text)
                };
                // Wrapped, so that a long cause never widens the panel.
                let label = ui
                    .add(egui::Label::new(text).wrap().sense(egui::Sense::click()))
                    .on_hover_text(format!(
                        "Show only these {} candidates in the grid (again: all). First seen: {} #{}",
                        cause.candidates, cause.example.task_id, cause.example.sample
                    ));
                if label.clicked() {
                    clicked = Some(cause.signature.clone());
                }
            });
        }
        if causes.len() > SHOWN {
            ui.weak_label(format!(
                "and {} more causes (the Failure causes export lists all)",
                causes.len() - SHOWN
            ));
        }
        if let Some(signature) = clicked {
            self.push(Command::FocusCause(signature));
        }
    }
}

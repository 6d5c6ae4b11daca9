//! The caveats banner: when some results are harness or environment faults
//! (the machine, the harness or a missing library failed, not the model) or
//! candidates are flaky, a line says so
//! with what it does to pass@k, and a button shows just those candidates; and
//! a line when results edited by hand were kept in the run.

use super::app::App;
use super::command::Command;
use super::ui_ext::UiExt;

impl App {
    pub(super) fn caveats_ui(&mut self, ui: &mut egui::Ui) {
        let derived = self.workbench.derived();
        let caveats = &derived.summary.caveats;
        let lines = [
            (caveats.faults_line(), Command::FocusFaults),
            (caveats.flaky_line(), Command::FocusFlaky),
        ];
        let faults = match (caveats.harness_faults, caveats.environment_faults) {
            (_, 0) => "Show only harness faults",
            (0, _) => "Show only environment faults",
            _ => "Show only faults",
        };
        let edited = crate::store::edited_line(derived.edited);
        if lines.iter().all(|(line, _)| line.is_none()) && edited.is_none() {
            return;
        }
        egui::Panel::top("caveats").show(ui, |ui| {
            ui.add_space(4.0);
            if let Some(line) = edited {
                ui.error_label(format!("✏ {line}"));
            }
            for (line, focus) in lines {
                let Some(line) = line else { continue };
                ui.horizontal_wrapped(|ui| {
                    ui.error_label(format!("⚠ {line}"));
                    let label = match focus {
                        Command::FocusFaults => faults,
                        _ => "Show only flaky candidates",
                    };
                    if ui.small_button(label).clicked() {
                        self.push(focus);
                    }
                });
            }
            ui.add_space(4.0);
        });
    }
}

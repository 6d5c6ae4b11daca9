//! *Run to a run file…*: the app asks where the run file goes, runs with a
//! journal beside it and writes it when the run ends. When a journal of an
//! interrupted run of that file is there, a window offers to resume from it
//! (only the candidates it lacks run) or to start over, and says why when it
//! cannot be resumed.

use std::path::PathBuf;
use std::sync::Arc;

use egui::RichText;

use super::app::{App, RESULT_REPAINT};
use super::command::Command;
use super::ui_ext::{UiExt, file_name};

/// The offer window's title.
pub const RESUME_TITLE: &str = "Resume the interrupted run?";

impl App {
    /// Applies the commands of running to a run file.
    pub(super) fn apply_resume(&mut self, ctx: &egui::Context, command: Command) {
        match command {
            Command::RunToDialog => {
                if let Err(e) = self.dialogs.save_run_to(ctx) {
                    self.workbench.notify(e, true);
                }
            }
            Command::RunTo(path) => {
                let settings = self.state.settings.run_settings();
                match self.workbench.resume_offer(&path, &settings) {
                    Some(offer) => self.resume_offer = Some(offer),
                    None => self.run_to(ctx, path, false),
                }
            }
            Command::ResumeRun => {
                if let Some(offer) = self.resume_offer.take() {
                    self.run_to(ctx, offer.run_file, true);
                }
            }
            Command::StartOver => {
                if let Some(offer) = self.resume_offer.take() {
                    self.run_to(ctx, offer.run_file, false);
                }
            }
            Command::CloseResumeOffer => self.resume_offer = None,
            _ => {}
        }
    }

    fn run_to(&mut self, ctx: &egui::Context, path: PathBuf, resume: bool) {
        let ctx = ctx.clone();
        let waker = Arc::new(move || ctx.request_repaint_after(RESULT_REPAINT));
        self.workbench
            .run_to(path, resume, self.state.settings.run_settings(), waker);
        self.grid.selected = None;
    }

    /// The offer to resume, while one is open.
    pub(super) fn resume_ui(&mut self, ui: &mut egui::Ui) {
        let Some(offer) = self.resume_offer.clone() else {
            return;
        };
        let mut open = true;
        egui::Window::new(RESUME_TITLE)
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .show(ui.ctx(), |ui| {
                ui.label(format!(
                    "A run to {} was interrupted: its journal holds {} of {} candidates.",
                    file_name(&offer.run_file),
                    offer.judged,
                    offer.planned
                ));
                ui.weak_label(offer.journal.display().to_string());
                if offer.dropped > 0 {
                    ui.weak_label(format!(
                        "{} line(s) the interruption cut short are dropped; those candidates run again.",
                        offer.dropped
                    ));
                }
                if let Some(why) = &offer.refused {
                    ui.error_label(why.clone());
                }
                ui.horizontal(|ui| {
                    let resume = ui
                        .add_enabled(
                            offer.refused.is_none(),
                            egui::Button::new(RichText::new("Resume").strong()),
                        )
                        .on_hover_text("Run only the candidates the journal lacks");
                    if resume.clicked() {
                        self.push(Command::ResumeRun);
                    }
                    if ui
                        .button("Start over")
                        .on_hover_text("Run every candidate; the journal is replaced")
                        .clicked()
                    {
                        self.push(Command::StartOver);
                    }
                    if ui.button("Cancel").clicked() {
                        self.push(Command::CloseResumeOffer);
                    }
                });
            });
        if !open {
            self.push(Command::CloseResumeOffer);
        }
    }
}

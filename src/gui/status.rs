//! The status bar: progress (done/total, rate, ETA) while running, the last run's
//! figures after, the interpreter, and messages. Also the drop-a-file overlay.

use super::app::App;
use super::command::Command;
use super::theme::Tokens;
use super::ui_ext::UiExt;
use crate::workbench::Python;

impl App {
    pub(super) fn status_ui(&mut self, ui: &mut egui::Ui) {
        egui::Panel::bottom("status").show(ui, |ui| {
            ui.add_space(3.0);
            ui.horizontal(|ui| {
                let total = self.workbench.store.candidates.len();
                let done = self.workbench.done;
                if let Some(elapsed) = self.workbench.running_for() {
                    let secs = elapsed.as_secs_f64().max(1e-3);
                    let rate = done as f64 / secs;
                    let eta = if rate > 0.0 {
                        (total - done) as f64 / rate
                    } else {
                        f64::NAN
                    };
                    let text = format!(
                        "{done} / {total}   {rate:.0} candidates/s   ETA {}",
                        if eta.is_finite() {
                            format!("{eta:.0} s")
                        } else {
                            "…".into()
                        }
                    );
                    let fraction = if total > 0 {
                        done as f32 / total as f32
                    } else {
                        0.0
                    };
                    ui.add(
                        egui::ProgressBar::new(fraction)
                            .text(text)
                            .desired_width(420.0)
                            .animate(true),
                    );
                } else if let Some(end) = &self.workbench.last_run {
                    let secs = end.elapsed.as_secs_f64();
                    ui.label(format!(
                        "{} {done} / {total} in {secs:.1} s ({:.0} candidates/s)",
                        if end.cancelled {
                            "Cancelled at"
                        } else {
                            "Done:"
                        },
                        if secs > 0.0 { done as f64 / secs } else { 0.0 }
                    ));
                } else if let Some(source) = self.workbench.foreign() {
                    ui.label(format!("{} verdicts: {total} candidates", source.harness));
                } else if let Some((_, file)) = &self.workbench.opened_run {
                    ui.label(format!(
                        "Saved run: {total} candidates, ran in {:.1} s{}",
                        file.summary.elapsed_s,
                        if file.summary.cancelled {
                            " (cancelled)"
                        } else {
                            ""
                        }
                    ));
                } else if total > 0 {
                    ui.label(format!("Ready: {total} candidates. Press ▶ Run."));
                }
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    let confinement = self.state.settings.confinement();
                    if confinement.missing().is_empty() {
                        ui.weak_label("confined")
                    } else {
                        ui.error_label("not fully confined")
                    }
                    .on_hover_text(confinement.describe());
                    if self.workbench.calibration.use_for_runs {
                        ui.weak_label("calibrated timeouts")
                            .on_hover_text("The next run gives each task its calibrated timeout");
                    }
                    if self.state.settings.strict_integrity {
                        ui.weak_label("strict integrity")
                            .on_hover_text("A flagged pass counts as error");
                    }
                    match &self.workbench.python {
                        Python::Ready(py) => {
                            ui.weak_label(format!("python {}", py.version))
                                .on_hover_text(py.executable.display().to_string());
                        }
                        Python::Resolving(command) => {
                            ui.spinner()
                                .on_hover_text(format!("looking for `{command}`"));
                        }
                        Python::Failed(e) => {
                            ui.error_label("no python").on_hover_text(e.clone());
                        }
                    }
                    if self.workbench.is_busy() {
                        ui.spinner();
                        ui.weak_label("reading…");
                    }
                    if let Some(last) = self.workbench.notices.last().cloned() {
                        ui.separator();
                        let more = self.workbench.notices.len() > 1;
                        if ui.small_button("✖").on_hover_text("Dismiss").clicked() {
                            self.push(Command::DismissNotice);
                        }
                        let label = if last.error {
                            ui.error_label(&last.text)
                        } else {
                            ui.label(&last.text)
                        };
                        if more {
                            label.on_hover_text(
                                self.workbench
                                    .notices
                                    .iter()
                                    .map(|n| n.text.as_str())
                                    .collect::<Vec<_>>()
                                    .join("\n"),
                            );
                        }
                    }
                });
            });
            ui.add_space(3.0);
        });
    }

    pub(super) fn drop_overlay_ui(&mut self, ui: &mut egui::Ui) {
        let hovering = ui.ctx().input(|i| !i.raw.hovered_files.is_empty());
        if !hovering {
            return;
        }
        let screen = ui.ctx().content_rect();
        let painter = ui.ctx().layer_painter(egui::LayerId::new(
            egui::Order::Foreground,
            egui::Id::unique("drop"),
        ));
        let tokens = Tokens::of(ui);
        painter.rect_filled(screen, 0.0, tokens.overlay);
        painter.text(
            screen.center(),
            egui::Align2::CENTER_CENTER,
            "Drop a task file, a generations file or a run file",
            egui::FontId::proportional(24.0),
            tokens.overlay_text,
        );
    }
}

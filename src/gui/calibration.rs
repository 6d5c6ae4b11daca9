//! The Calibration window: each task's reference timed on this machine, the
//! at-risk tasks first with why, the suggested timeouts, and the switch that
//! makes the next run use them.

use egui::RichText;
use egui_extras::{Column, TableBuilder};

use super::app::App;
use super::command::Command;
use super::theme::size;
use super::ui_ext::UiExt;
use crate::calibrate::{AT_RISK_SHARE, RULE, TaskTiming};

impl App {
    pub(super) fn calibration_ui(&mut self, ui: &mut egui::Ui) {
        let mut open = self.show_calibration;
        egui::Window::new("Timeout calibration")
            .open(&mut open)
            .default_width(860.0)
            .default_height(480.0)
            .show(ui.ctx(), |ui| self.calibration_body_ui(ui));
        self.show_calibration = open;
    }

    fn calibration_body_ui(&mut self, ui: &mut egui::Ui) {
        let calibrating = &self.workbench.calibration;
        if calibrating.running {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Timing each task's reference solution…");
            });
        }
        let Some(calibration) = calibrating.result.clone() else {
            if !calibrating.running {
                ui.weak_label("No calibration yet: Calibrate times each task's reference solution on this machine.");
            }
            return;
        };
        let at_risk = calibration.at_risk().count();
        ui.label(format!(
            "{} tasks of {} timed {} times each; {at_risk} at risk on this machine (the reference fails, times out, or needs more than {:.0}% of its timeout).",
            calibration.tasks.len(),
            super::ui_ext::file_name(std::path::Path::new(&calibration.tasks_file)),
            calibration.repeat,
            AT_RISK_SHARE * 100.0
        ));
        ui.weak_label(format!("Suggested timeout: {RULE}."));
        let mut use_them = calibrating.use_for_runs;
        if ui
            .checkbox(&mut use_them, "Use the calibrated timeouts for the next run")
            .on_hover_text("Each task gets its suggested timeout; the run file records them and where they came from")
            .changed()
        {
            self.push(Command::UseCalibration(use_them));
        }
        if ui.button("Calibrate again").clicked() {
            self.push(Command::Calibrate);
        }
        ui.separator();
        timings_table_ui(ui, &calibration.tasks);
    }
}

/// One row per task, at-risk rows first.
fn timings_table_ui(ui: &mut egui::Ui, tasks: &[TaskTiming]) {
    let row_height = ui.text_style_height(&egui::TextStyle::Body) + size::ROW_PADDING;
    let ms = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v:.0} ms"));
    TableBuilder::new(ui)
        .id_salt("calibration")
        .striped(true)
        .column(Column::auto().at_least(110.0).clip(true))
        .columns(Column::auto(), 6)
        .column(Column::remainder().clip(true))
        .header(row_height, |mut header| {
            for title in [
                "task",
                "wall med",
                "wall max",
                "cpu med",
                "cpu max",
                "share",
                "suggested",
                "why",
            ] {
                header.col(|ui| {
                    ui.strong(title);
                });
            }
        })
        .body(|body| {
            body.rows(row_height, tasks.len(), |mut row| {
                let t = &tasks[row.index()];
                row.col(|ui| {
                    ui.label(&t.task_id);
                });
                for cell in [
                    ms(Some(t.median_wall_ms)),
                    ms(Some(t.worst_wall_ms)),
                    ms(t.median_cpu_ms),
                    ms(t.worst_cpu_ms),
                    format!("{:.0}%", t.share * 100.0),
                    format!("{:.1} s", t.suggested_timeout_s),
                ] {
                    row.col(|ui| {
                        ui.label(cell);
                    });
                }
                row.col(|ui| match &t.at_risk {
                    Some(why) => {
                        ui.error_label(why).on_hover_text(why);
                    }
                    None => {
                        ui.label(RichText::new("ok").weak());
                    }
                });
            });
        });
}

//! The problems panel: every validation error of the inputs (file, line, field,
//! rule, message), and the choice to run the valid records anyway.

use egui::RichText;
use egui_extras::{Column, TableBuilder};

use super::app::App;
use super::command::Command;
use super::theme::size;
use super::ui_ext::UiExt;

impl App {
    pub(super) fn problems_ui(&mut self, ui: &mut egui::Ui) {
        let problems = self.workbench.problems();
        let missing = self.workbench.plan.as_ref().map_or(0, |p| p.missing.len());
        if problems.is_empty() && missing == 0 {
            return;
        }
        let rows: Vec<[String; 5]> = problems
            .iter()
            .map(|e| {
                [
                    e.file
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    e.line.map(|l| l.to_string()).unwrap_or_default(),
                    e.field.clone().unwrap_or_default(),
                    e.rule.clone(),
                    e.message.clone(),
                ]
            })
            .collect();
        let missing_ids = self
            .workbench
            .plan
            .as_ref()
            .map(|p| p.missing.join(", "))
            .unwrap_or_default();
        egui::Panel::top("problems").resizable(true).show(ui, |ui| {
            ui.add_space(4.0);
            ui.horizontal_wrapped(|ui| {
                if !rows.is_empty() {
                    ui.error_label(format!("⚠ {} problem(s) in the inputs", rows.len()));
                    let mut anyway = self.workbench.run_valid_anyway;
                    if ui
                        .checkbox(&mut anyway, "Run the valid records anyway")
                        .on_hover_text("Invalid records are left out of the run and listed here")
                        .changed()
                    {
                        self.push(Command::RunValidAnyway(anyway));
                    }
                }
                if missing > 0 {
                    ui.label(RichText::new(format!(
                        "{missing} task(s) have no generation and are not scored"
                    )))
                    .on_hover_text(missing_ids);
                }
            });
            if rows.is_empty() {
                return;
            }
            let row_height = ui.text_style_height(&egui::TextStyle::Body) + size::ROW_PADDING;
            TableBuilder::new(ui)
                .id_salt("problems_table")
                .striped(true)
                .max_scroll_height(150.0)
                .column(Column::auto().at_least(80.0))
                .column(Column::auto().at_least(40.0))
                .column(Column::auto().at_least(80.0))
                .column(Column::auto().at_least(100.0))
                .column(Column::remainder().clip(true))
                .header(row_height, |mut header| {
                    for title in ["file", "line", "field", "rule", "message"] {
                        header.col(|ui| {
                            ui.strong(title);
                        });
                    }
                })
                .body(|body| {
                    body.rows(row_height, rows.len(), |mut row| {
                        for cell in &rows[row.index()] {
                            row.col(|ui| {
                                ui.label(cell).on_hover_text(cell);
                            });
                        }
                    });
                });
            ui.add_space(4.0);
        });
    }
}

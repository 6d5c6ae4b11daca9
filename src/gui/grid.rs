//! The results grid: one row per candidate (or per task, expanding to its
//! samples), every column sortable both ways, outcome filter chips and a
//! flagged chip, text search, virtual scrolling (`body.rows`).

use egui::{RichText, Sense};
use egui_extras::{Column as TableColumn, TableBuilder};

use super::app::App;
use super::command::Command;
use super::task_rows::{Line, task_cells};
use super::theme::{Tokens, size};
use super::ui_ext::UiExt;
use super::view::Column;
use crate::sandbox::Outcome;
use crate::workbench::Progress;

impl App {
    pub(super) fn grid_ui(&mut self, ui: &mut egui::Ui) {
        egui::CentralPanel::default().show(ui, |ui| {
            self.grid_controls_ui(ui);
            ui.add_space(4.0);
            if self.workbench.store.candidates.is_empty() {
                ui.add_space(40.0);
                ui.vertical_centered(|ui| {
                    ui.heading("No candidates yet");
                    ui.weak_label("Open a task file and a generations file (or drop them here), then press ▶ Run.");
                });
                return;
            }
            self.table_ui(ui);
        });
    }

    fn grid_controls_ui(&mut self, ui: &mut egui::Ui) {
        self.find_line_ui(ui);
        self.filter_line_ui(ui);
    }

    /// Rows per candidate or per task, the search box and the row count.
    fn find_line_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.label("Rows:");
            let mut by_task = self.grid.by_task;
            ui.selectable_value(&mut by_task, false, "each candidate")
                .on_hover_text("One row per candidate");
            ui.selectable_value(&mut by_task, true, "each task")
                .on_hover_text("One row per task: its outcomes, pass@k and main cause; click a task to see its samples");
            if by_task != self.grid.by_task {
                self.grid.set_by_task(by_task);
            }
            if self.grid.by_task {
                let all = !self.grid.tasks.is_empty()
                    && self.grid.tasks.iter().all(|t| self.grid.expanded.contains(&t.task));
                let (text, hint) = if all {
                    ("collapse all", "Hide every task's samples")
                } else {
                    ("expand all", "Show every task's samples under it")
                };
                if ui.small_button(text).on_hover_text(hint).clicked() {
                    self.grid.expand_all(!all);
                }
            }
            ui.separator();
            let label = ui.label("🔍");
            let search = ui
                .add(
                    egui::TextEdit::singleline(&mut self.grid.search)
                        .hint_text("search task, detail, flag")
                        .desired_width(200.0),
                )
                .labelled_by(label.id);
            if search.changed() {
                self.grid.invalidate();
            }
            let (shown, all) = (self.grid.rows.len(), self.workbench.store.candidates.len());
            let mut count = if shown == all {
                format!("{all} rows")
            } else {
                format!("{shown} of {all} rows")
            };
            if self.grid.by_task {
                count.push_str(&format!(" in {} tasks", self.grid.tasks.len()));
            }
            ui.weak_label(count);
        });
    }

    /// The outcome chips and the flagged chip.
    fn filter_line_ui(&mut self, ui: &mut egui::Ui) {
        let derived = self.workbench.derived();
        let outcomes = &derived.summary.outcomes;
        ui.horizontal_wrapped(|ui| {
            ui.label("Show:");
            let tokens = Tokens::of(ui);
            for outcome in Outcome::ALL {
                let i = outcome.index();
                let shown = self.grid.shown[i];
                let count = outcomes.get(&outcome).copied().unwrap_or(0);
                let text = RichText::new(format!("{} {count}", outcome.as_str()));
                let button = if shown {
                    egui::Button::new(text.color(tokens.on_outcome)).fill(tokens.outcome(outcome))
                } else {
                    egui::Button::new(text.color(tokens.weak).strikethrough())
                };
                let chip = ui
                    .add(button)
                    .on_hover_text("Click to show or hide; double-click to show only this outcome");
                if chip.double_clicked() {
                    self.push(Command::FocusOutcome(outcome));
                } else if chip.clicked() {
                    self.grid.toggle(outcome);
                }
            }
            if !self.grid.shows_all() && ui.small_button("show all").clicked() {
                self.grid.shown = [true; 5];
                self.grid.invalidate();
            }
            let flagged = derived.summary.flagged;
            let text = RichText::new(format!("⚑ flagged {flagged}"));
            let chip = if self.grid.flagged_only {
                egui::Button::new(text.color(tokens.on_outcome)).fill(tokens.flag)
            } else {
                egui::Button::new(text)
            };
            if ui
                .add(chip)
                .on_hover_text("Show only candidates flagged for trying to game the grader")
                .clicked()
            {
                self.grid.toggle_flagged();
            }
        });
    }

    fn table_ui(&mut self, ui: &mut egui::Ui) {
        let row_height = ui.text_style_height(&egui::TextStyle::Body) + size::ROW_PADDING;
        let tokens = Tokens::of(ui);
        let mut clicked_header = None;
        let mut clicked_row = None;
        let mut clicked_task = None;
        let selected = self.grid.selected;
        let store = &self.workbench.store;
        let progress = &self.workbench.progress;
        let stats = &self.workbench.derived().tasks;
        let grid = &self.grid;
        let (sort, ascending) = (grid.sort, grid.ascending);
        // Another harness's result file records no test counts or times.
        let foreign = self.workbench.foreign();
        let unknown = |ui: &mut egui::Ui| {
            if let Some(source) = foreign {
                ui.weak_label("—")
                    .on_hover_text(format!("not recorded by {}", source.harness));
            }
            foreign.is_some()
        };
        // Cells are plain text so a click anywhere on a row selects it.
        ui.style_mut().interaction.selectable_labels = false;
        TableBuilder::new(ui)
            .id_salt("results")
            .striped(true)
            .resizable(true)
            .sense(Sense::click())
            .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
            .column(TableColumn::initial(170.0).at_least(80.0).clip(true))
            .column(TableColumn::auto().at_least(60.0))
            .column(TableColumn::auto().at_least(120.0))
            .column(TableColumn::auto().at_least(60.0))
            .column(TableColumn::auto().at_least(70.0))
            .column(TableColumn::auto().at_least(60.0))
            .column(TableColumn::auto().at_least(120.0).clip(true))
            .column(TableColumn::remainder().at_least(120.0).clip(true))
            .header(row_height + 4.0, |mut header| {
                for column in Column::ALL {
                    header.col(|ui| {
                        let arrow = match (sort == column, ascending) {
                            (true, true) => " ⏶",
                            (true, false) => " ⏷",
                            _ => "",
                        };
                        if ui
                            .button(RichText::new(format!("{}{arrow}", column.title())).strong())
                            .on_hover_text(format!("Sort by {}", column.title()))
                            .clicked()
                        {
                            clicked_header = Some(column);
                        }
                    });
                }
            })
            .body(|body| {
                body.rows(row_height, grid.line_count(), |mut row| {
                    let index = match grid.line(row.index()) {
                        Line::Task(i) => {
                            let t = &grid.tasks[i];
                            let open = grid.expanded.contains(&t.task);
                            let task_id = &store.tasks[t.task].id;
                            task_cells(&mut row, tokens, task_id, t, stats.get(t.task), open);
                            if row.response().clicked() {
                                clicked_task = Some(t.task);
                            }
                            return;
                        }
                        Line::Candidate(index) => index,
                    };
                    let c = &store.candidates[index];
                    row.set_selected(selected == Some(index));
                    row.col(|ui| {
                        if grid.by_task {
                            ui.weak_label(format!("    {}", store.task_id(c)));
                        } else {
                            ui.label(store.task_id(c));
                        }
                    });
                    row.col(|ui| {
                        ui.label(c.sample.to_string());
                    });
                    match &c.result {
                        Some(r) => {
                            row.col(|ui| {
                                ui.outcome_badge(r.outcome);
                            });
                            row.col(|ui| {
                                ui.label(format!("{:.2}", r.score));
                            });
                            row.col(|ui| {
                                if !unknown(ui) {
                                    ui.label(format!("{}/{}", r.passed, r.total));
                                }
                            });
                            row.col(|ui| {
                                if !unknown(ui) {
                                    ui.label(r.duration_ms.to_string());
                                }
                            });
                            row.col(|ui| {
                                if !r.flags.is_empty() {
                                    ui.label(
                                        RichText::new(format!("⚑ {}", r.flags.join(", ")))
                                            .color(tokens.flag),
                                    );
                                }
                            });
                            row.col(|ui| {
                                if r.edited {
                                    ui.label(format!("✏ edited · {}", r.explanation()));
                                } else {
                                    ui.label(r.explanation());
                                }
                            });
                        }
                        None => {
                            let state = match progress.get(index) {
                                Some(Progress::Running) => "running…",
                                _ => "queued",
                            };
                            row.col(|ui| {
                                ui.label(RichText::new(state).color(tokens.weak).italics());
                            });
                            for _ in 0..5 {
                                row.col(|_| {});
                            }
                        }
                    }
                    if row.response().clicked() {
                        clicked_row = Some(index);
                    }
                });
            });
        if let Some(column) = clicked_header {
            self.grid.click_header(column);
        }
        if let Some(index) = clicked_row {
            self.push(Command::Select(index));
        }
        if let Some(task) = clicked_task {
            self.grid.toggle_task(task);
        }
    }
}

//! The Compare window: a saved run (the baseline, A) against the results on
//! screen (B, live or opened): pass@k and mean score side by side, both pass@k
//! curves on one plot, the outcome histograms side by side, the verdict audit
//! (`audit.rs`), and the per-task table of regressions and improvements with a
//! filter for changed tasks.

use egui::RichText;
use egui_extras::{Column, TableBuilder};
use egui_plot::{Bar, BarChart, HoverPosition, Line, PlotPoints};

use super::app::App;
use super::charts::{curve_points, outcome_plot, passk_plot};
use super::command::{Command, Export};
use super::theme::{Tokens, size};
use super::ui_ext::{UiExt, file_name};
use crate::report::{Change, Comparison, PAIRED_RESAMPLES, Paired};
use crate::sandbox::Outcome;

/// Series names.
const CURVE_A: &str = "A (baseline)";
const CURVE_B: &str = "B (on screen)";

impl App {
    pub(super) fn compare_ui(&mut self, ui: &mut egui::Ui) {
        let Some(baseline) = self.workbench.baseline() else {
            return;
        };
        let path = baseline.path.clone();
        let curve_a = baseline.curve.clone();
        let outcomes_a = baseline.run.summary.outcomes.clone();
        let derived = self.workbench.derived();
        let cmp = self.workbench.comparison();
        let paired = self.workbench.paired();
        let mut open = true;
        egui::Window::new("Compare runs")
            .open(&mut open)
            .default_width(760.0)
            .default_height(620.0)
            .vscroll(true)
            .show(ui.ctx(), |ui| {
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new("A").strong());
                    ui.label(file_name(&path))
                        .on_hover_text(path.display().to_string());
                    ui.separator();
                    ui.label(RichText::new("B").strong());
                    match &self.workbench.opened_run {
                        Some((run, _)) if !self.workbench.is_running() => {
                            ui.label(file_name(run))
                                .on_hover_text(run.display().to_string());
                        }
                        _ if self.workbench.is_running() => {
                            ui.label("the run in progress");
                        }
                        _ => {
                            ui.label("the results on screen");
                        }
                    }
                });
                let Some(cmp) = cmp else {
                    ui.weak_label("B has no results yet: run, or open a run file.");
                    return;
                };
                self.compare_controls_ui(ui, &cmp, &paired);
                ui.separator();
                ui.columns(2, |cols| {
                    cols[0].strong("pass@k");
                    show_curves(&mut cols[0], &curve_a, &derived.curve);
                    cols[1].strong("Outcomes");
                    let b = Some(&derived.summary.outcomes);
                    show_histograms(&mut cols[1], &outcomes_a, b);
                });
                ui.separator();
                causes_changed_ui(ui, &cmp);
                self.audit_ui(ui, &cmp);
                changes_table_ui(ui, &cmp, self.compare_view.changed_only);
            });
        if !open {
            self.push(Command::CloseBaseline);
        }
    }

    fn compare_controls_ui(&mut self, ui: &mut egui::Ui, cmp: &Comparison, paired: &[Paired]) {
        let tokens = Tokens::of(ui);
        egui::Grid::new("compare_figures")
            .num_columns(5)
            .spacing([18.0, 4.0])
            .show(ui, |ui| {
                for title in ["", "A", "B", "B − A"] {
                    ui.strong(title);
                }
                ui.strong("paired over shared tasks").on_hover_text(format!(
                    "B − A over the tasks both runs have, its 95% paired bootstrap interval and the p-value of a paired permutation test ({PAIRED_RESAMPLES} resamples each, seeded)"
                ));
                ui.end_row();
                let (ma, mb) = cmp.mean_score;
                figure_row(ui, &tokens, "mean score", Some(ma), Some(mb));
                ui.end_row();
                for (k, (a, b)) in &cmp.pass_at_k {
                    figure_row(ui, &tokens, &format!("pass@{k}"), *a, *b);
                    match paired.iter().find(|p| p.k == *k) {
                        Some(p) => paired_cell(ui, &tokens, p),
                        None => {
                            ui.weak_label("–");
                        }
                    }
                    ui.end_row();
                }
                let (fa, fb) = cmp.flagged;
                ui.label("flagged")
                    .on_hover_text("Candidates flagged for trying to game the grader");
                ui.monospace(fa.to_string());
                ui.monospace(fb.to_string());
                ui.monospace(format!("{:+}", fb as i64 - fa as i64));
                ui.end_row();
            });
        let counts = cmp.counts();
        let count = |c: Change| counts.get(&c).copied().unwrap_or(0);
        ui.horizontal_wrapped(|ui| {
            ui.label(
                RichText::new(format!("{} regressed", count(Change::Regressed)))
                    .color(tokens.outcome(Outcome::AssertionFail))
                    .strong(),
            );
            ui.label(
                RichText::new(format!("{} improved", count(Change::Improved)))
                    .color(tokens.outcome(Outcome::Pass))
                    .strong(),
            );
            ui.label(format!("{} unchanged", count(Change::Unchanged)));
            let only = count(Change::OnlyA) + count(Change::OnlyB);
            if only > 0 {
                ui.label(format!("{only} in one run only"));
            }
            ui.separator();
            ui.checkbox(&mut self.compare_view.changed_only, "Changed tasks only");
            if ui
                .button("Export changes CSV…")
                .on_hover_text("The tasks that changed, with n, c and mean score in A and B")
                .clicked()
            {
                self.push(Command::SaveDialog(Export::Changes));
            }
            if ui
                .button("Export comparison JSON…")
                .on_hover_text("Every figure of this window, the paired test included")
                .clicked()
            {
                self.push(Command::SaveDialog(Export::CompareJson));
            }
        });
    }
}

fn figure_row(ui: &mut egui::Ui, tokens: &Tokens, name: &str, a: Option<f64>, b: Option<f64>) {
    let show = |v: Option<f64>| v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.4}"));
    ui.label(name);
    ui.label(show(a));
    ui.label(show(b));
    match (a, b) {
        (Some(a), Some(b)) => {
            let d = b - a;
            let color = if d > 1e-9 {
                tokens.outcome(Outcome::Pass)
            } else if d < -1e-9 {
                tokens.outcome(Outcome::AssertionFail)
            } else {
                ui.visuals().text_color()
            };
            ui.label(RichText::new(format!("{d:+.4}")).color(color).strong());
        }
        _ => {
            ui.weak_label("–");
        }
    }
}

/// The paired difference, its interval and p-value, coloured when it is
/// distinguishable from noise; the verdict in words on hover.
fn paired_cell(ui: &mut egui::Ui, tokens: &Tokens, p: &Paired) {
    let text = format!(
        "{:+.4} [{:+.4}, {:+.4}] p = {:.4} ({} tasks)",
        p.difference, p.ci95.0, p.ci95.1, p.p_value, p.tasks
    );
    let text = if !p.significant() {
        RichText::new(text)
    } else if p.difference > 0.0 {
        RichText::new(text)
            .color(tokens.outcome(Outcome::Pass))
            .strong()
    } else {
        RichText::new(text)
            .color(tokens.outcome(Outcome::AssertionFail))
            .strong()
    };
    ui.label(text).on_hover_text(p.verdict());
}

/// Both pass@k curves on one plot.
fn show_curves(ui: &mut egui::Ui, a: &[(usize, f64)], b: &[(usize, f64)]) {
    let tokens = Tokens::of(ui);
    let max_k = a.iter().chain(b).map(|&(k, _)| k).max().unwrap_or(1) as f64;
    passk_plot("compare_curves", max_k)
        .label_formatter(|pos| match pos {
            HoverPosition::NearDataPoint {
                plot_name,
                position,
                ..
            } => Some(format!(
                "{plot_name}: pass@{} = {:.4}",
                position.x.round(),
                position.y
            )),
            _ => None,
        })
        .show(ui, |plot| {
            plot.line(
                Line::new(CURVE_A, PlotPoints::new(curve_points(a)))
                    .color(tokens.mean)
                    .width(2.0)
                    .style(egui_plot::LineStyle::dashed_loose()),
            );
            plot.line(
                Line::new(CURVE_B, PlotPoints::new(curve_points(b)))
                    .color(tokens.curve)
                    .width(2.0),
            );
        });
}

/// The outcome counts of A and B, bar beside bar.
fn show_histograms(
    ui: &mut egui::Ui,
    a: &std::collections::BTreeMap<Outcome, usize>,
    b: Option<&std::collections::BTreeMap<Outcome, usize>>,
) {
    let tokens = Tokens::of(ui);
    let bars =
        |counts: Option<&std::collections::BTreeMap<Outcome, usize>>, shift: f64, dim: bool| {
            Outcome::ALL
                .iter()
                .enumerate()
                .map(|(i, o)| {
                    let n = counts.and_then(|c| c.get(o)).copied().unwrap_or(0) as f64;
                    let color = tokens.outcome(*o);
                    Bar::new(i as f64 + shift, n).name(o.as_str()).fill(if dim {
                        color.gamma_multiply(0.45)
                    } else {
                        color
                    })
                })
                .collect::<Vec<Bar>>()
        };
    let top = Outcome::ALL
        .iter()
        .flat_map(|o| [a.get(o), b.and_then(|b| b.get(o))])
        .flatten()
        .copied()
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let chart_a = BarChart::new(CURVE_A, bars(Some(a), -0.2, true))
        .color(ui.visuals().weak_text_color())
        .width(0.38)
        .element_formatter(Box::new(|bar, _| format!("A {}: {}", bar.name, bar.value)));
    let chart_b = BarChart::new(CURVE_B, bars(b, 0.2, false))
        .color(ui.visuals().strong_text_color())
        .width(0.38)
        .element_formatter(Box::new(|bar, _| format!("B {}: {}", bar.name, bar.value)));
    outcome_plot("compare_histograms", top)
        .legend(egui_plot::Legend::default().position(egui_plot::Corner::RightTop))
        .show(ui, |plot| {
            plot.bar_chart(chart_a);
            plot.bar_chart(chart_b);
            for (i, outcome) in Outcome::ALL.iter().enumerate() {
                plot.text(egui_plot::Text::new(
                    CURVE_B,
                    egui_plot::PlotPoint::new(i as f64, -0.07 * top),
                    RichText::new(super::charts::short_name(*outcome)).size(12.0),
                ));
            }
        });
}

/// The per-task table: verdict, passes and mean score in A and B, the change.
/// The failure causes that grew or shrank from A to B, the largest first.
fn causes_changed_ui(ui: &mut egui::Ui, cmp: &Comparison) {
    if cmp.causes.is_empty() {
        return;
    }
    let tokens = Tokens::of(ui);
    egui::CollapsingHeader::new(format!(
        "Failure causes that changed ({})",
        cmp.causes.len()
    ))
    .default_open(false)
    .show(ui, |ui| {
        for c in cmp.causes.iter().take(10) {
            ui.horizontal_wrapped(|ui| {
                let color = if c.b > c.a { tokens.bad } else { tokens.ok };
                ui.label(RichText::new(c.arrow()).monospace().color(color));
                ui.label(&c.signature);
            });
        }
    });
    ui.separator();
}

fn changes_table_ui(ui: &mut egui::Ui, cmp: &Comparison, changed_only: bool) {
    let tokens = Tokens::of(ui);
    let rows: Vec<usize> = (0..cmp.tasks.len())
        .filter(|&i| !changed_only || cmp.tasks[i].change != Change::Unchanged)
        .collect();
    if rows.is_empty() {
        ui.weak_label(if changed_only {
            "No task changed between A and B."
        } else {
            "No tasks."
        });
        return;
    }
    let row_height = ui.text_style_height(&egui::TextStyle::Body) + size::ROW_PADDING;
    TableBuilder::new(ui)
        .id_salt("compare_tasks")
        .striped(true)
        .max_scroll_height(280.0)
        .column(Column::remainder().at_least(120.0).clip(true))
        .columns(Column::auto().at_least(64.0), 6)
        .header(row_height, |mut header| {
            for title in [
                "task", "change", "A pass", "B pass", "A score", "B score", "Δ score",
            ] {
                header.col(|ui| {
                    ui.strong(title);
                });
            }
        })
        .body(|body| {
            body.rows(row_height, rows.len(), |mut row| {
                let t = &cmp.tasks[rows[row.index()]];
                let passes = |f: Option<(usize, usize, f64)>| {
                    f.map_or_else(|| "–".to_owned(), |(n, c, _)| format!("{c}/{n}"))
                };
                let score = |f: Option<(usize, usize, f64)>| {
                    f.map_or_else(|| "–".to_owned(), |(_, _, m)| format!("{m:.2}"))
                };
                row.col(|ui| {
                    ui.label(&t.task_id);
                });
                row.col(|ui| {
                    let color = match t.change {
                        Change::Improved => tokens.outcome(Outcome::Pass),
                        Change::Regressed => tokens.outcome(Outcome::AssertionFail),
                        _ => ui.visuals().weak_text_color(),
                    };
                    ui.label(RichText::new(t.change.as_str()).color(color));
                });
                row.col(|ui| {
                    ui.label(passes(t.a));
                });
                row.col(|ui| {
                    ui.label(passes(t.b));
                });
                row.col(|ui| {
                    ui.label(score(t.a));
                });
                row.col(|ui| {
                    ui.label(score(t.b));
                });
                row.col(|ui| match (t.a, t.b) {
                    (Some(a), Some(b)) => {
                        ui.label(format!("{:+.2}", b.2 - a.2));
                    }
                    _ => {
                        ui.weak_label("–");
                    }
                });
            });
        });
}

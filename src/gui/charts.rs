//! The right-hand panel: headline figures, the outcome histogram (click a bar to
//! filter the grid), the pass@k curve with values on hover, the failure causes
//! (click one to filter the grid), the per-task table and the pass@k calculator.

use egui::RichText;
use egui_plot::{
    AxisHints, Bar, BarChart, GridInput, GridMark, HoverPosition, Line, Plot, PlotPoint,
    PlotPoints, Points, Text,
};

use super::app::App;
use super::command::Command;
use super::tasks::task_table_ui;
use super::theme::{Tokens, size};
use super::ui_ext::UiExt;
use crate::sandbox::Outcome;
use crate::store::Summary;

/// Series names (they drive hover text).
const OUTCOMES_SERIES: &str = "outcomes";
const PASS_AT_K_SERIES: &str = "pass@k";
const MEAN_SCORE_SERIES: &str = "mean score";
const BAND_SERIES: &str = "95% interval";
const BASE_SERIES: &str = "pass@k, base tests";

impl App {
    pub(super) fn charts_ui(&mut self, ui: &mut egui::Ui) {
        egui::Panel::right("charts")
            .resizable(true)
            .default_size(size::CHARTS_WIDTH)
            .min_size(280.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    let derived = self.workbench.derived();
                    let summary = &derived.summary;
                    self.headline_ui(ui, summary, &derived.intervals);
                    ui.separator();
                    ui.strong("Outcomes");
                    let clicked = show_histogram(ui, summary);
                    if let Some(outcome) = clicked {
                        self.push(Command::FocusOutcome(outcome));
                    }
                    ui.weak_label("Click a bar to show only that outcome in the grid; click it again to show all.");
                    ui.separator();
                    ui.strong("pass@k");
                    let curve = &derived.curve;
                    show_curve(ui, curve, &derived.base_curve, &derived.band, summary.mean_score);
                    if !derived.base_curve.is_empty() {
                        ui.weak_label("Two verdicts: pass@k over every test (base + plus, evalplus's humaneval+) and over the base tests alone.");
                    }
                    if curve.is_empty() {
                        ui.weak_label("The curve appears as results arrive.");
                    } else if derived.band.is_empty() && self.workbench.is_running() {
                        ui.weak_label("The 95% band (bootstrap over tasks) appears when the run ends.");
                    }
                    ui.separator();
                    egui::CollapsingHeader::new("Failure causes")
                        .default_open(true)
                        .show(ui, |ui| self.causes_ui(ui));
                    egui::CollapsingHeader::new("Per-task summary")
                        .default_open(false)
                        .show(ui, |ui| task_table_ui(ui, &derived.ks, &derived.tasks));
                    egui::CollapsingHeader::new("pass@k calculator")
                        .default_open(true)
                        .show(ui, |ui| self.calculator_ui(ui));
                });
            });
    }

    fn headline_ui(
        &self,
        ui: &mut egui::Ui,
        summary: &Summary,
        intervals: &std::collections::BTreeMap<usize, (f64, f64)>,
    ) {
        egui::Grid::new("headline")
            .num_columns(2)
            .spacing([16.0, 4.0])
            .show(ui, |ui| {
                ui.label("candidates");
                ui.strong(format!(
                    "{} / {}",
                    summary.candidates,
                    self.workbench.store.candidates.len()
                ));
                ui.end_row();
                ui.label("tasks");
                ui.strong(self.workbench.store.tasks.len().to_string());
                ui.end_row();
                ui.label("mean score");
                ui.strong(format!("{:.4}", summary.mean_score));
                ui.end_row();
                for (k, v) in &summary.pass_at_k {
                    ui.label(format!("pass@{k}"));
                    ui.horizontal(|ui| {
                        ui.strong(format!("{v:.4}"));
                        if let Some((lo, hi)) = intervals.get(k) {
                            ui.weak_label(format!("95% [{lo:.4}, {hi:.4}]")).on_hover_text(
                                "Bootstrap over tasks: 2000 resamples with a fixed seed, so the same results always give the same interval.",
                            );
                        }
                    });
                    ui.end_row();
                }
                for (k, v) in &summary.base_pass_at_k {
                    ui.label(format!("pass@{k} base"))
                        .on_hover_text("Over the base tests alone (evalplus's humaneval; the line above is humaneval+)");
                    ui.strong(format!("{v:.4}"));
                    ui.end_row();
                }
            });
    }
}

/// Draws the histogram; returns the outcome whose bar was clicked.
fn show_histogram(ui: &mut egui::Ui, summary: &Summary) -> Option<Outcome> {
    let tokens = Tokens::of(ui);
    let counts: Vec<f64> = Outcome::ALL
        .iter()
        .map(|o| summary.outcomes.get(o).copied().unwrap_or(0) as f64)
        .collect();
    let top = counts.iter().copied().fold(1.0, f64::max);
    let bars: Vec<Bar> = Outcome::ALL
        .iter()
        .zip(&counts)
        .enumerate()
        .map(|(i, (o, &n))| {
            Bar::new(i as f64, n)
                .name(o.as_str())
                .fill(tokens.outcome(*o))
        })
        .collect();
    let chart = BarChart::new(OUTCOMES_SERIES, bars)
        .width(0.7)
        .element_formatter(Box::new(|bar, _| format!("{}: {}", bar.name, bar.value)));
    let text_color = ui.visuals().text_color();
    let response = outcome_plot("histogram", top).show(ui, |plot| {
        plot.bar_chart(chart);
        for (i, (outcome, &n)) in Outcome::ALL.iter().zip(&counts).enumerate() {
            let x = i as f64;
            plot.text(Text::new(
                OUTCOMES_SERIES,
                PlotPoint::new(x, -0.07 * top),
                RichText::new(short_name(*outcome))
                    .size(13.0)
                    .color(text_color),
            ));
            plot.text(Text::new(
                OUTCOMES_SERIES,
                PlotPoint::new(x, n + 0.07 * top),
                RichText::new(format!("{n}"))
                    .size(14.0)
                    .strong()
                    .color(tokens.outcome(*outcome)),
            ));
        }
        plot.pointer_coordinate()
    });
    if !response.response.clicked() {
        return None;
    }
    let x = response.inner?.x.round();
    (0.0..5.0).contains(&x).then(|| Outcome::ALL[x as usize])
}

/// A fixed plot of outcome counts up to `top`, bar `i` for `Outcome::ALL[i]`,
/// with room under the bars for their names (`-0.07 * top`) and no hover text.
pub(super) fn outcome_plot(id: &str, top: f64) -> Plot<'_> {
    Plot::new(id)
        .height(size::CHART_HEIGHT)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .allow_double_click_reset(false)
        .show_x(false)
        .show_axes([false, true])
        .show_grid([false, true])
        .include_y(-0.14 * top)
        .include_y(1.15 * top)
        .y_axis_formatter(|mark, _| {
            if mark.value >= 0.0 {
                format!("{}", mark.value)
            } else {
                String::new()
            }
        })
        .label_formatter(|_| None)
}

/// Axis label of an outcome, short enough for five to fit under the bars.
pub(super) fn short_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "pass",
        Outcome::AssertionFail => "assert fail",
        Outcome::SyntaxError => "syntax",
        Outcome::Timeout => "timeout",
        Outcome::Error => "error",
    }
}

/// The band as a closed outline: the upper edge left to right, then the lower
/// edge back.
fn band_outline(band: &[(usize, f64, f64)]) -> Vec<[f64; 2]> {
    band.iter()
        .map(|&(k, _, hi)| [k as f64, hi])
        .chain(band.iter().rev().map(|&(k, lo, _)| [k as f64, lo]))
        .collect()
}

/// A curve's points for plotting.
pub(super) fn curve_points(curve: &[(usize, f64)]) -> Vec<[f64; 2]> {
    curve.iter().map(|&(k, v)| [k as f64, v]).collect()
}

/// A fixed (no drag or zoom) plot of pass@k over k = 1..`max_k`, from 0 to 1,
/// with whole-number k ticks labelled and the legend at the bottom right.
pub(super) fn passk_plot(id: &str, max_k: f64) -> Plot<'_> {
    let k_axis = AxisHints::new_x()
        .label("k")
        .label_spacing(16.0..=24.0)
        .formatter(|mark, _| {
            if mark.value.fract().abs() < 1e-9 && mark.value >= 1.0 {
                format!("{}", mark.value)
            } else {
                String::new()
            }
        });
    Plot::new(id)
        .height(size::CHART_HEIGHT)
        .include_y(0.0)
        .include_y(1.0)
        .include_x(1.0)
        .include_x(max_k.max(2.0))
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .custom_x_axes(vec![k_axis])
        .x_grid_spacer(k_marks)
        .legend(egui_plot::Legend::default().position(egui_plot::Corner::RightBottom))
}

/// Grid marks on whole k: every k when they are 8 points apart or more, and
/// labelled ones (1, 2, 5, 10, 20, … apart) at least 24 points apart.
fn k_marks(input: GridInput) -> Vec<GridMark> {
    // `base_step_size` is the k span of 8 points.
    let labelled = (1..)
        .flat_map(|exp| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(exp - 1)))
        .find(|&step| step >= 3.0 * input.base_step_size)
        .unwrap_or(1.0);
    // Minor marks on every k only when they are far enough apart to draw.
    let step = if input.base_step_size <= 1.0 {
        1.0
    } else {
        labelled
    };
    let low = (input.bounds.0.max(1.0) / step).ceil() * step;
    let mut marks = Vec::new();
    let mut k = low;
    while k <= input.bounds.1 {
        let step_size = if k % labelled == 0.0 { labelled } else { 1.0 };
        marks.push(GridMark {
            value: k,
            step_size,
        });
        k += step;
    }
    marks
}

/// Draws the pass@k curve, its 95% band and the mean score (values on hover).
fn show_curve(
    ui: &mut egui::Ui,
    curve: &[(usize, f64)],
    base: &[(usize, f64)],
    band: &[(usize, f64, f64)],
    mean: f64,
) {
    let tokens = Tokens::of(ui);
    let points = curve_points(curve);
    let base_points = curve_points(base);
    let max_k = curve.last().map_or(1.0, |&(k, _)| k as f64);
    passk_plot("passk", max_k)
        .label_formatter(|pos| match pos {
            HoverPosition::NearDataPoint {
                plot_name,
                position,
                ..
            } if *plot_name == PASS_AT_K_SERIES => {
                Some(format!("pass@{} = {:.4}", position.x.round(), position.y))
            }
            HoverPosition::NearDataPoint {
                plot_name,
                position,
                ..
            } if *plot_name == BASE_SERIES => Some(format!(
                "pass@{} = {:.4} on the base tests",
                position.x.round(),
                position.y
            )),
            HoverPosition::NearDataPoint {
                plot_name,
                position,
                ..
            } if *plot_name == MEAN_SCORE_SERIES => Some(format!("mean score = {:.4}", position.y)),
            _ => None,
        })
        .show(ui, |plot| {
            if band.len() >= 2 {
                plot.polygon(
                    egui_plot::Polygon::new(BAND_SERIES, PlotPoints::new(band_outline(band)))
                        .fill_color(tokens.curve.gamma_multiply(0.22))
                        .stroke(egui::Stroke::new(0.5, tokens.curve.gamma_multiply(0.5))),
                );
            }
            if !base_points.is_empty() {
                plot.line(
                    Line::new(BASE_SERIES, PlotPoints::new(base_points.clone()))
                        .color(tokens.ok)
                        .width(1.5),
                );
                plot.points(
                    Points::new(BASE_SERIES, PlotPoints::new(base_points))
                        .color(tokens.ok)
                        .shape(egui_plot::MarkerShape::Square)
                        .radius(3.0),
                );
            }
            if !points.is_empty() {
                plot.line(
                    Line::new(PASS_AT_K_SERIES, PlotPoints::new(points.clone()))
                        .color(tokens.curve)
                        .width(2.0),
                );
                plot.points(
                    Points::new(PASS_AT_K_SERIES, PlotPoints::new(points.clone()))
                        .color(tokens.curve)
                        .radius(3.5),
                );
                plot.line(
                    Line::new(
                        MEAN_SCORE_SERIES,
                        PlotPoints::new(vec![[1.0, mean], [max_k.max(2.0), mean]]),
                    )
                    .color(tokens.mean)
                    .style(egui_plot::LineStyle::dashed_dense()),
                );
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(bounds: (f64, f64), base_step_size: f64) -> Vec<(f64, f64)> {
        let input = GridInput {
            bounds,
            base_step_size,
        };
        k_marks(input)
            .iter()
            .map(|m| (m.value, m.step_size))
            .collect()
    }

    #[test]
    fn k_marks_fall_on_whole_k_and_label_a_readable_subset() {
        // Ten samples on a wide plot: every k is labelled.
        let all: Vec<_> = (1..=10).map(|k| (k as f64, 1.0)).collect();
        assert_eq!(marks((0.5, 10.4), 0.1), all);
        // 200 samples: minor marks on every k, labels every 5 (3 × 0.8 ≤ 5).
        let wide = marks((0.0, 200.0), 0.8);
        assert_eq!(wide.len(), 200);
        let labelled: Vec<f64> = wide.iter().filter(|m| m.1 > 1.0).map(|m| m.0).collect();
        assert_eq!(
            labelled,
            (1..=40).map(|i| i as f64 * 5.0).collect::<Vec<_>>()
        );
        // Zoomed far out: only the labelled marks, and no k below 1.
        let far = marks((-1e6, 1e6), 4000.0);
        assert!(far.iter().all(|m| m.0 >= 1.0 && m.1 == 20000.0), "{far:?}");
        assert_eq!(far.len(), 50);
    }
}

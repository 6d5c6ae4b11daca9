//! Design tokens: every colour and size the panels use, for dark and light themes.

use egui::Color32;

use crate::sandbox::Outcome;

/// The look of the app in one theme.
#[derive(Debug, Clone, Copy)]
pub struct Tokens {
    /// Fill of each outcome, in [`Outcome::ALL`] order.
    outcome: [Color32; 5],
    /// Text on an outcome fill.
    pub on_outcome: Color32,
    /// Colour of a passed assertion mark.
    pub ok: Color32,
    /// Colour of a failed assertion mark and of errors.
    pub bad: Color32,
    /// Subdued text (hints, units).
    pub weak: Color32,
    /// The pass@k curve.
    pub curve: Color32,
    /// The mean-score line.
    pub mean: Color32,
    /// Veil over the window while a file is dragged over it.
    pub overlay: Color32,
    /// Text on the veil.
    pub overlay_text: Color32,
    /// Flags (signs of gaming the grader).
    pub flag: Color32,
}

const DARK: Tokens = Tokens {
    outcome: [
        Color32::from_rgb(76, 175, 80),
        Color32::from_rgb(255, 167, 38),
        Color32::from_rgb(171, 130, 255),
        Color32::from_rgb(66, 165, 245),
        Color32::from_rgb(239, 83, 80),
    ],
    on_outcome: Color32::from_rgb(20, 20, 20),
    ok: Color32::from_rgb(102, 187, 106),
    bad: Color32::from_rgb(239, 83, 80),
    weak: Color32::from_gray(150),
    curve: Color32::from_rgb(66, 165, 245),
    mean: Color32::from_rgb(255, 202, 40),
    overlay: Color32::from_black_alpha(180),
    overlay_text: Color32::WHITE,
    flag: Color32::from_rgb(255, 112, 67),
};

const LIGHT: Tokens = Tokens {
    outcome: [
        Color32::from_rgb(46, 125, 50),
        Color32::from_rgb(230, 120, 0),
        Color32::from_rgb(106, 27, 154),
        Color32::from_rgb(21, 101, 192),
        Color32::from_rgb(198, 40, 40),
    ],
    on_outcome: Color32::WHITE,
    ok: Color32::from_rgb(46, 125, 50),
    bad: Color32::from_rgb(198, 40, 40),
    weak: Color32::from_gray(110),
    curve: Color32::from_rgb(21, 101, 192),
    mean: Color32::from_rgb(230, 120, 0),
    overlay: Color32::from_rgba_premultiplied(200, 200, 200, 200),
    overlay_text: Color32::BLACK,
    flag: Color32::from_rgb(191, 54, 12),
};

impl Tokens {
    /// The tokens for the current visuals of `ui`.
    pub fn of(ui: &egui::Ui) -> Tokens {
        if ui.visuals().dark_mode { DARK } else { LIGHT }
    }

    /// The fill colour of an outcome.
    pub fn outcome(&self, outcome: Outcome) -> Color32 {
        let i = outcome.index();
        self.outcome[i]
    }
}

/// Named sizes.
pub mod size {
    /// Height of a results-grid row beyond the body text height.
    pub const ROW_PADDING: f32 = 6.0;
    /// Default width of the right-hand charts panel.
    pub const CHARTS_WIDTH: f32 = 380.0;
    /// Default height of the detail panel.
    pub const DETAIL_HEIGHT: f32 = 300.0;
    /// Height of each chart.
    pub const CHART_HEIGHT: f32 = 190.0;
    /// Body text size (a projector-friendly default).
    pub const BODY_TEXT: f32 = 14.0;
}

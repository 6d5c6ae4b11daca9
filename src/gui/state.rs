//! What the app remembers between sessions (plain data, persisted through eframe
//! storage): settings, recent files and the theme.

use std::path::PathBuf;

use crate::workbench::Settings;

/// The storage key.
pub const STORAGE_KEY: &str = "execscope-state";
/// How many recent files are kept.
const RECENT_MAX: usize = 8;

/// Kinds of recent file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RecentKind {
    /// A task file.
    Tasks,
    /// A generations file.
    Generations,
    /// A run file.
    Run,
}

/// Light or dark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum ThemeChoice {
    /// Dark (the default: easiest on a projector in a dim room).
    #[default]
    Dark,
    /// Light.
    Light,
}

/// Everything persisted.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct AppState {
    /// Run settings.
    pub settings: Settings,
    /// Recently opened files, newest first.
    pub recent: Vec<(RecentKind, PathBuf)>,
    /// The theme.
    pub theme: ThemeChoice,
    /// The zoom factor (Ctrl +, Ctrl −, Ctrl 0), kept for the next start.
    pub zoom: f32,
}

impl Default for AppState {
    fn default() -> Self {
        AppState {
            settings: Settings::default(),
            recent: Vec::new(),
            theme: ThemeChoice::default(),
            zoom: 1.0,
        }
    }
}

/// The zoom factors the app accepts (egui's own keyboard range).
pub const ZOOM_RANGE: std::ops::RangeInclusive<f32> = 0.2..=5.0;

impl AppState {
    /// The remembered zoom, within [`ZOOM_RANGE`] (1 when the stored one is not a number).
    pub fn zoom(&self) -> f32 {
        if self.zoom.is_finite() {
            self.zoom.clamp(*ZOOM_RANGE.start(), *ZOOM_RANGE.end())
        } else {
            1.0
        }
    }

    /// Puts `path` at the front of the recent files.
    pub fn remember(&mut self, kind: RecentKind, path: PathBuf) {
        self.recent.retain(|(k, p)| !(*k == kind && *p == path));
        self.recent.insert(0, (kind, path));
        self.recent.truncate(RECENT_MAX);
    }
}

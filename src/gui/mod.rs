//! The desktop app (eframe, glow renderer): open task and generation files, set
//! the limits, run, watch results stream into the grid and the charts, inspect a
//! candidate, export. It renders the library's store and sends it commands; it
//! holds no evaluation logic of its own.

mod app;
mod audit;
mod calibration;
mod causes;
mod caveats;
mod charts;
mod columns;
mod command;
mod compare;
mod detail;
mod dialogs;
mod edit;
mod failure;
mod grid;
mod problems;
mod resume;
mod screenshot;
mod settings;
mod state;
mod status;
mod task_rows;
mod tasks;
mod theme;
mod toolbar;
mod ui_ext;
mod view;

use std::path::PathBuf;

use crate::workbench::Opening;

pub use app::{App, Calculator, DetailTab};
pub use command::{Command, Export, FileTarget};
pub use state::{AppState, ThemeChoice};
pub use task_rows::{Line, TaskRow};
pub use view::{Column, GridView};

/// How the app starts. With no file at all it opens the embedded demo set.
#[derive(Debug, Clone, Default)]
pub struct Launch {
    /// Task file to preload.
    pub tasks: Option<PathBuf>,
    /// Generations file to preload.
    pub generations: Option<PathBuf>,
    /// Run file (or another harness's result file) to open as a saved run.
    pub run_file: Option<PathBuf>,
    /// Run file to compare the results with (the Compare window's A).
    pub baseline: Option<PathBuf>,
    /// Start the run at once.
    pub run: bool,
    /// Save a screenshot here once the run is over, then exit.
    pub screenshot: Option<PathBuf>,
}

impl Launch {
    /// Opens the files of `opening` (from `execscope FILE...`).
    pub fn open(opening: Opening) -> Launch {
        match opening {
            Opening::Run(run) => Launch {
                run_file: Some(run),
                ..Launch::default()
            },
            Opening::Compare { baseline, run } => Launch {
                run_file: Some(run),
                baseline: Some(baseline),
                ..Launch::default()
            },
            Opening::Inputs { tasks, generations } => Launch {
                tasks,
                generations,
                ..Launch::default()
            },
        }
    }

    /// Whether it opens a task file and a generations file, or the demo set:
    /// something that can run.
    pub fn can_run(&self) -> bool {
        let files = [
            &self.tasks,
            &self.generations,
            &self.run_file,
            &self.baseline,
        ];
        files.iter().all(|f| f.is_none())
            || (self.tasks.is_some() && self.generations.is_some() && self.run_file.is_none())
    }
}

/// Why the window could not be shown.
#[derive(Debug, thiserror::Error)]
pub enum GuiError {
    /// Occurs when there is no display to open a window on.
    #[error(
        "no display to open a window on ({0}); evaluate headless with `execscope run --tasks F --generations G`"
    )]
    NoDisplay(String),
    /// Occurs when the `--screenshot` file could not be written.
    #[error("{0}")]
    Screenshot(String),
}

/// Opens the window and runs until it is closed.
pub fn run(launch: Launch) -> Result<(), GuiError> {
    if cfg!(target_os = "linux")
        && std::env::var_os("DISPLAY").is_none()
        && std::env::var_os("WAYLAND_DISPLAY").is_none()
    {
        return Err(GuiError::NoDisplay(
            "neither DISPLAY nor WAYLAND_DISPLAY is set".into(),
        ));
    }
    let screenshot = launch.screenshot.clone();
    let result_slot = std::sync::Arc::new(std::sync::Mutex::new(None));
    let slot = std::sync::Arc::clone(&result_slot);
    let options = eframe::NativeOptions {
        renderer: eframe::Renderer::Glow,
        viewport: egui::ViewportBuilder::default()
            .with_title("execscope")
            .with_app_id("execscope")
            .with_inner_size([1280.0, 800.0])
            .with_min_inner_size([900.0, 560.0])
            .with_drag_and_drop(true)
            .with_icon(window_icon()),
        persist_window: screenshot.is_none(),
        ..Default::default()
    };
    eframe::run_native(
        "execscope",
        options,
        Box::new(move |cc| {
            let app = App::new(cc, launch);
            if let Some(shot) = &app.screenshot {
                *slot.lock().map_err(|e| e.to_string())? =
                    Some(std::sync::Arc::clone(&shot.result));
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| GuiError::NoDisplay(e.to_string()))?;
    if let Some(path) = screenshot {
        let saved = result_slot
            .lock()
            .ok()
            .and_then(|s| s.clone())
            .and_then(|r| r.lock().ok().and_then(|g| g.clone()));
        return match saved {
            Some(Ok(_)) => Ok(()),
            Some(Err(e)) => Err(GuiError::Screenshot(e)),
            None => Err(GuiError::Screenshot(format!(
                "the window closed before {} was taken",
                path.display()
            ))),
        };
    }
    Ok(())
}

/// The window icon: `packaging/execscope-128.png`, embedded (a blank one if it
/// cannot be decoded, which the icon test rules out).
fn window_icon() -> egui::IconData {
    decode_icon(include_bytes!("../../packaging/execscope-128.png")).unwrap_or_default()
}

/// Decodes an 8-bit RGBA PNG into icon data.
fn decode_icon(bytes: &[u8]) -> Option<egui::IconData> {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().ok()?;
    let mut rgba = vec![0; reader.output_buffer_size()?];
    let frame = reader.next_frame(&mut rgba).ok()?;
    if frame.color_type != png::ColorType::Rgba || frame.bit_depth != png::BitDepth::Eight {
        return None;
    }
    rgba.truncate(frame.buffer_size());
    Some(egui::IconData {
        rgba,
        width: frame.width,
        height: frame.height,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_window_icon_decodes_to_a_square_rgba_image() {
        let icon = super::window_icon();
        assert_eq!((icon.width, icon.height), (128, 128));
        assert_eq!(icon.rgba.len(), 128 * 128 * 4);
        assert!(icon.rgba.chunks(4).any(|px| px[3] == 255));
    }
}

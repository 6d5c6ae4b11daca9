//! `--screenshot OUT.png`: once the run is over and the window has settled, grab
//! the window's pixels, save them as PNG and close.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Where the outcome of a screenshot lands: `Ok(path)` once saved.
pub type ScreenshotResult = Arc<Mutex<Option<Result<PathBuf, String>>>>;

/// Frames to draw after the run ends before the screenshot, so every panel has
/// laid itself out.
const SETTLE_FRAMES: u32 = 5;

/// The screenshot request and its outcome.
pub struct Screenshot {
    path: PathBuf,
    idle_frames: u32,
    requested: bool,
    /// `Some(Ok)` once saved, `Some(Err)` if saving failed.
    pub result: ScreenshotResult,
}

impl Screenshot {
    /// A screenshot to be saved to `path`.
    pub fn new(path: PathBuf) -> Screenshot {
        Screenshot {
            path,
            idle_frames: 0,
            requested: false,
            result: Arc::new(Mutex::new(None)),
        }
    }

    /// Called every frame; `idle` when no run is in progress.
    pub fn step(&mut self, ctx: &egui::Context, idle: bool) {
        if self.requested {
            return;
        }
        if !idle {
            self.idle_frames = 0;
            return;
        }
        self.idle_frames += 1;
        ctx.request_repaint();
        if self.idle_frames < SETTLE_FRAMES {
            return;
        }
        self.requested = true;
        let path = self.path.clone();
        let result = Arc::clone(&self.result);
        let close = ctx.clone();
        ctx.request_screenshot(move |image| {
            let saved = save_png(&path, &image).map(|()| path.clone());
            if let Ok(mut slot) = result.lock() {
                *slot = Some(saved);
            }
            close.send_viewport_cmd(egui::ViewportCommand::Close);
            close.request_repaint();
        });
    }
}

/// Writes an RGBA image as PNG.
pub fn save_png(path: &std::path::Path, image: &egui::ColorImage) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    let file = std::fs::File::create(path).map_err(|e| err(&e))?;
    let [w, h] = image.size;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), w as u32, h as u32);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| err(&e))?;
    let bytes: Vec<u8> = image.pixels.iter().flat_map(|p| p.to_array()).collect();
    writer.write_image_data(&bytes).map_err(|e| err(&e))?;
    writer.finish().map_err(|e| err(&e))
}

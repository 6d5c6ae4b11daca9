//! Native file dialogs (rfd; the xdg-desktop-portal backend on Linux, falling
//! back to zenity). Each dialog runs on its own thread so the window keeps
//! drawing; the chosen path comes back as a [`Command`].

use std::path::PathBuf;

use super::command::{Command, Export, FileTarget};

/// Dialogs in flight and the channel their answers come back on.
pub struct Dialogs {
    tx: flume::Sender<Command>,
    rx: flume::Receiver<Command>,
}

/// Why no dialog can be shown, if none can.
pub fn unavailable() -> Option<&'static str> {
    if cfg!(target_os = "linux") {
        let portal = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some();
        let zenity = std::env::var_os("PATH").is_some_and(|paths| {
            std::env::split_paths(&paths).any(|dir| dir.join("zenity").is_file())
        });
        if !portal && !zenity {
            return Some(
                "no file dialog is available here (no desktop portal on D-Bus and no zenity): \
                 drop files on the window or paste a path into the Open menu",
            );
        }
    }
    None
}

fn filters(dialog: rfd::FileDialog, target: FileTarget) -> rfd::FileDialog {
    match target {
        FileTarget::Tasks => dialog
            .set_title("Open a task file")
            .add_filter("Tasks (JSONL, JSON, gzip)", &["jsonl", "json", "gz"]),
        FileTarget::Generations => dialog
            .set_title("Open a generations file")
            .add_filter("Generations (JSONL, JSON, gzip)", &["jsonl", "json", "gz"]),
        FileTarget::Run => dialog
            .set_title("Open a run file")
            .add_filter("execscope run (JSON)", &["json", "gz"]),
        FileTarget::Baseline => dialog
            .set_title("Compare with a run file")
            .add_filter("execscope run (JSON)", &["json", "gz"]),
    }
    .add_filter("All files", &["*"])
}

impl Dialogs {
    /// No dialogs in flight.
    pub fn new() -> Dialogs {
        let (tx, rx) = flume::unbounded();
        Dialogs { tx, rx }
    }

    fn spawn(
        &self,
        ctx: &egui::Context,
        pick: impl FnOnce() -> Option<Command> + Send + 'static,
    ) -> Result<(), String> {
        if let Some(why) = unavailable() {
            return Err(why.to_owned());
        }
        let tx = self.tx.clone();
        let ctx = ctx.clone();
        std::thread::Builder::new()
            .name("execscope-dialog".into())
            .spawn(move || {
                if let Some(command) = pick() {
                    let _ = tx.send(command);
                    ctx.request_repaint();
                }
            })
            .map(|_| ())
            .map_err(|e| format!("cannot show a file dialog: {e}"))
    }

    /// Shows an open dialog for `target`.
    pub fn open(&self, ctx: &egui::Context, target: FileTarget) -> Result<(), String> {
        self.spawn(ctx, move || {
            let path: PathBuf = filters(rfd::FileDialog::new(), target).pick_file()?;
            Some(match target {
                FileTarget::Tasks => Command::LoadTasks(path),
                FileTarget::Generations => Command::LoadGenerations(path),
                FileTarget::Run => Command::OpenRun(path),
                FileTarget::Baseline => Command::OpenBaseline(path),
            })
        })
    }

    /// Shows a save dialog for `export`.
    pub fn save(&self, ctx: &egui::Context, export: Export) -> Result<(), String> {
        self.spawn(ctx, move || {
            let ext = export.extension();
            let path = rfd::FileDialog::new()
                .set_title(super::command::export_label(export).trim_end_matches('…'))
                .set_file_name(export.default_name())
                .add_filter(ext, &[ext])
                .save_file()?;
            Some(Command::Export(export, path))
        })
    }

    /// Shows a save dialog for the run file a run writes when it ends.
    pub fn save_run_to(&self, ctx: &egui::Context) -> Result<(), String> {
        self.spawn(ctx, move || {
            let path = rfd::FileDialog::new()
                .set_title("Run to a run file")
                .set_file_name(Export::RunFile.default_name())
                .add_filter("json", &["json"])
                .save_file()?;
            Some(Command::RunTo(path))
        })
    }

    /// Answers that came back since the last call.
    pub fn poll(&self) -> Vec<Command> {
        self.rx.try_iter().collect()
    }
}

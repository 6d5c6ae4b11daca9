//! Timeout calibration in the workbench: the loaded tasks' references timed in
//! the background, the per-task table kept, and the calibrated timeouts used
//! for the next run when the user says so.

use std::path::PathBuf;

use super::Workbench;
use crate::calibrate::Calibration;
use crate::engine::RunSettings;
use crate::generations;
use crate::plan::Plan;
use crate::sandbox::Interpreter;

/// Runs of each reference when the app calibrates.
pub const APP_REPEAT: usize = 3;

/// A calibration and whether the next run uses it.
#[derive(Debug, Default)]
pub struct Calibrating {
    /// The references are being timed.
    pub running: bool,
    /// The last calibration of the loaded tasks.
    pub result: Option<Calibration>,
    /// The next run uses its timeouts.
    pub use_for_runs: bool,
}

impl Workbench {
    /// Times the loaded tasks' references ([`APP_REPEAT`] runs each) under
    /// `settings`, in the background.
    pub fn calibrate(&mut self, settings: RunSettings) {
        match self.references() {
            Ok((plan, path, python)) => {
                self.loader
                    .calibrate(plan, path, APP_REPEAT, python, settings);
                self.calibration.running = true;
            }
            Err(why) => self.notify(format!("cannot calibrate: {why}"), true),
        }
    }

    /// The plan of the loaded tasks' references, their file and the
    /// interpreter, or why there is nothing to calibrate now.
    fn references(&self) -> Result<(Plan, PathBuf, Interpreter), String> {
        if self.calibration.running {
            return Err("a calibration is running".into());
        }
        let tasks = self.tasks.as_ref().ok_or("open a task file first")?;
        let python = self.python.interpreter()?;
        let references = generations::from_references(tasks);
        if references.items.is_empty() {
            return Err(format!(
                "{} has no reference solutions to time (HumanEval and MBPP files carry them)",
                tasks.path.display()
            ));
        }
        Ok((
            Plan::build(tasks, &references),
            tasks.path.clone(),
            python.clone(),
        ))
    }

    /// Takes the finished calibration.
    pub(super) fn calibrated(&mut self, result: Result<Calibration, String>) {
        self.calibration.running = false;
        match result {
            Ok(calibration) => {
                self.notify(
                    format!(
                        "calibrated {} tasks: {} at risk on this machine",
                        calibration.tasks.len(),
                        calibration.at_risk().count()
                    ),
                    false,
                );
                self.calibration.result = Some(calibration);
            }
            Err(e) => self.notify(format!("the calibration failed: {e}"), true),
        }
    }

    /// Forgets a calibration of other tasks than the loaded ones.
    pub(super) fn forget_stale_calibration(&mut self) {
        let loaded = self.tasks.as_ref().map(|t| t.path.display().to_string());
        if self
            .calibration
            .result
            .as_ref()
            .is_some_and(|c| Some(&c.tasks_file) != loaded.as_ref())
        {
            self.calibration.result = None;
            self.calibration.use_for_runs = false;
        }
    }

    /// `settings` with the calibrated timeouts, when the user chose them.
    pub(super) fn with_calibration(&self, mut settings: RunSettings) -> RunSettings {
        if let (true, Some(c)) = (self.calibration.use_for_runs, &self.calibration.result) {
            settings.timeouts = c.timeouts();
            settings.timeouts_from = Some(format!(
                "calibrated in the app on {} ({} runs each)",
                c.tasks_file, c.repeat
            ));
        }
        settings
    }
}

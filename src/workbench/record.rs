//! What the workbench writes: the run file of the results (from the records
//! of the run that made them, or of the run file they were opened from), the
//! exports, and the payload a candidate received.

use std::path::Path;

use super::Workbench;
use crate::passk;
use crate::report::{Export, ExportError, InputRecord, RunContext, RunFile, Source};
use crate::sandbox::{self, Limits};

impl Workbench {
    /// The ks reported for the current results.
    pub fn ks(&self) -> Vec<usize> {
        passk::default_ks(self.store.max_n())
    }

    /// The run file of the current results, or `None` before anything has run
    /// (there are no settings or interpreter to record then).
    pub fn run_file(&self, ks: &[usize]) -> Option<RunFile> {
        if let Some((_, opened)) = &self.opened_run {
            return Some(opened.clone().with_figures_of(&self.store, ks));
        }
        let end = self.last_run.as_ref()?;
        let record = |path: &Path, sha256: &str| InputRecord {
            path: path.display().to_string(),
            sha256: sha256.to_owned(),
        };
        let empty = InputRecord {
            path: String::new(),
            sha256: String::new(),
        };
        Some(RunFile::from_store(
            &self.store,
            &RunContext {
                settings: &end.settings,
                python: &end.python,
                tasks: self
                    .tasks
                    .as_ref()
                    .map_or(empty.clone(), |t| record(&t.path, &t.sha256)),
                generations: self
                    .generations
                    .as_ref()
                    .map_or(empty, |g| record(&g.path, &g.sha256)),
                ks,
                elapsed_s: end.elapsed.as_secs_f64(),
                cancelled: end.cancelled,
                skipped: self.tasks.as_ref().map_or(&[], |t| &t.skipped),
                missing: self.plan.as_ref().map_or(&[], |p| &p.missing),
                shard: None,
            },
        ))
    }

    /// The Markdown report's title: the file the results came from.
    pub fn title(&self) -> String {
        match (&self.opened_run, &self.generations) {
            (Some((p, _)), _) => format!("execscope: {}", p.display()),
            (None, Some(g)) => format!("execscope: {}", g.path.display()),
            (None, None) => "execscope".to_owned(),
        }
    }

    /// Writes export `what` of the current results to `path` (atomically).
    pub fn export(&self, what: Export, path: &Path) -> Result<(), ExportError> {
        let ks = self.ks();
        let run_file = match what {
            Export::RunFile => self.run_file(&ks),
            _ => None,
        };
        let title = self.title();
        let comparison = self.comparison();
        what.write(
            &Source {
                store: &self.store,
                ks: &ks,
                title: &title,
                run_file: run_file.as_ref(),
                changes: comparison.as_deref(),
            },
            path,
        )
    }

    /// The payload candidate `index` receives on stdin, with the limits of the
    /// last run (or `fallback` before any run), and the interpreter it goes to.
    pub fn payload_of(&self, index: usize, fallback: &Limits) -> Result<(String, String), String> {
        let program = self
            .program_of(index)
            .ok_or_else(|| format!("no candidate {index}"))?;
        let python = self.python.interpreter()?;
        let limits = self
            .last_run
            .as_ref()
            .map_or(fallback, |r| &r.settings.limits);
        Ok((
            python.executable.display().to_string(),
            sandbox::describe_payload(&program, limits, python),
        ))
    }
}

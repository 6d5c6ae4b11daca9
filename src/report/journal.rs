//! The journal: while a run is in progress, each finished candidate is appended
//! to `<run file>.partial.jsonl` as one JSON line and flushed, so a host that is
//! killed mid-run loses nothing it had collected, and `run --resume` can go on
//! from it ([`crate::resume`]). The journal is removed once the run file is
//! written.
//!
//! Its first line is a [`JournalHeader`]: what the run was (the inputs'
//! SHA-256, the interpreter, the settings that decide verdicts), so that a
//! resume with other inputs or settings is refused. Each further line is one
//! finished candidate ([`JournalEntry`]). A line that does not read back (the
//! host was killed while writing it) is dropped and its candidate runs again.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{InputRecord, PythonRecord, ShardRecord};
use crate::sandbox::CandidateResult;
use crate::store::Store;

/// The `journal` value of the header line this version writes and reads.
pub const JOURNAL_FORMAT: &str = "execscope-journal/2";

/// The first line of a journal: what must be the same for a run to go on
/// from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalHeader {
    /// Always [`JOURNAL_FORMAT`].
    pub journal: String,
    /// The task file (its path as given, and the SHA-256 of its bytes).
    pub tasks: InputRecord,
    /// The generations file.
    pub generations: InputRecord,
    /// The interpreter.
    pub python: PythonRecord,
    /// The slice of a sharded run.
    #[serde(default)]
    pub shard: Option<ShardRecord>,
    /// Candidates the run planned.
    pub planned: usize,
    /// Every setting that can change a verdict, by the run file's key (or
    /// the flag's name where the run file has none), as JSON values.
    pub settings: BTreeMap<String, serde_json::Value>,
}

/// One finished candidate as journalled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// Its task.
    pub task_id: String,
    /// Its sample number.
    pub sample: usize,
    /// Seconds the run had been going when it finished, over every session
    /// of a resumed run.
    pub at_s: f64,
    /// The exact bits of `result.score` (a JSON number need not read back
    /// to the same `f64`, and the figures must be those of an uninterrupted
    /// run to the last bit).
    pub score_bits: u64,
    /// Its result.
    pub result: CandidateResult,
}

impl JournalEntry {
    /// The result with its score exactly as it was journalled.
    pub fn into_result(self) -> CandidateResult {
        CandidateResult {
            score: f64::from_bits(self.score_bits),
            ..self.result
        }
    }
}

/// Occurs when a journal cannot be read or continued.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JournalError {
    /// Occurs when the journal cannot be read, created or written.
    #[error("{path}: {source}")]
    Io {
        /// The journal.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Occurs when the journal was written by an older execscope (before
    /// runs could be resumed), or is not a journal at all.
    #[error(
        "{path} cannot be resumed: {reason}; run without --resume to start over (it is replaced)"
    )]
    Layout {
        /// The journal.
        path: PathBuf,
        /// What is wrong with its first line.
        reason: String,
    },
}

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

    /// Creates (truncates) the journal of run file `run_file` and writes its
    /// header line.
    pub fn create(run_file: &Path, header: &JournalHeader) -> Result<Journal, JournalError> {
        let path = Self::path_for(run_file);
        let mut bytes = serde_json::to_vec(header).map_err(|e| io(&path, e))?;
        bytes.push(b'\n');
        super::write_atomic(&path, &bytes).map_err(|e| io(&path, e))?;
        Self::open_append(path)
    }

    /// Opens journal `read` for more candidates: appended to where it ends
    /// whole, or rewritten first (atomically) without the lines that did
    /// not read back, so that no new line follows a torn one.
    pub fn resume(read: &JournalRead) -> Result<Journal, JournalError> {
        let path = read.path.clone();
        if !read.dropped.is_empty() || !read.ends_whole {
            let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
            let mut kept = Vec::with_capacity(bytes.len());
            for &(start, end) in &read.whole_lines {
                kept.extend_from_slice(bytes.get(start..end).unwrap_or_default());
                kept.push(b'\n');
            }
            super::write_atomic(&path, &kept).map_err(|e| io(&path, e))?;
        }
        Self::open_append(path)
    }

    fn open_append(path: PathBuf) -> Result<Journal, JournalError> {
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        Ok(Journal {
            path,
            file: std::io::BufWriter::new(file),
        })
    }

    /// Appends candidate `index` of `store` (finished), which finished `at_s`
    /// seconds into the run, and flushes it to disk.
    pub fn append(&mut self, store: &Store, index: usize, at_s: f64) -> Result<(), JournalError> {
        let Some(c) = store.candidates.get(index) else {
            return Ok(());
        };
        let Some(result) = c.result.as_ref() else {
            return Ok(());
        };
        let entry = JournalEntry {
            task_id: store.task_id(c).to_owned(),
            sample: c.sample,
            at_s,
            score_bits: result.score.to_bits(),
            result: result.clone(),
        };
        let mut line = serde_json::to_vec(&entry).map_err(|e| io(&self.path, e))?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|()| self.file.flush())
            .map_err(|e| io(&self.path, e))
    }

    /// Removes the journal (the run file now holds everything).
    pub fn finish(self) {
        let Journal { path, file } = self;
        drop(file);
        let _ = std::fs::remove_file(path);
    }
}

fn io(path: &Path, e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> JournalError {
    JournalError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    }
}

/// A journal as read back.
#[derive(Debug, Clone)]
pub struct JournalRead {
    /// The journal.
    pub path: PathBuf,
    /// Its header; `None` when even the header line is torn (nothing ran).
    pub header: Option<JournalHeader>,
    /// The candidates that read back, with their line numbers.
    pub entries: Vec<(usize, JournalEntry)>,
    /// Line numbers of the lines that did not read back (torn by a kill, or
    /// damaged), dropped: their candidates run again.
    pub dropped: Vec<usize>,
    /// Whether the file ends with a whole line (its last byte a newline).
    pub ends_whole: bool,
    /// Byte ranges of the header and the entries that read back.
    whole_lines: Vec<(usize, usize)>,
}

/// Reads the journal at `path`: its header and every candidate that reads
/// back. A journal of an older layout (no header) is refused.
pub fn read_journal(path: &Path) -> Result<JournalRead, JournalError> {
    let bytes = std::fs::read(path).map_err(|source| JournalError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut read = JournalRead {
        path: path.to_path_buf(),
        header: None,
        entries: Vec::new(),
        dropped: Vec::new(),
        ends_whole: bytes.last().is_none_or(|&b| b == b'\n'),
        whole_lines: Vec::new(),
    };
    let mut start = 0;
    let mut lines = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            lines.push((start, i));
            start = i + 1;
        }
    }
    if start < bytes.len() {
        lines.push((start, bytes.len()));
    }
    let text = |&(s, e): &(usize, usize)| bytes.get(s..e).unwrap_or_default();
    let Some(first) = lines.first() else {
        return Ok(read);
    };
    match serde_json::from_slice::<serde_json::Value>(text(first)) {
        Err(_) if lines.len() == 1 && !read.ends_whole => {
            // Killed while writing the header: nothing ran.
            read.dropped.push(1);
            return Ok(read);
        }
        Err(e) => return Err(layout(path, format!("line 1 is not JSON ({e})"))),
        Ok(value) => read.header = Some(header_of(path, value)?),
    }
    read.whole_lines.push(*first);
    for (n, range) in lines.iter().enumerate().skip(1) {
        match serde_json::from_slice::<JournalEntry>(text(range)) {
            Ok(entry) => {
                read.entries.push((n + 1, entry));
                read.whole_lines.push(*range);
            }
            Err(_) => read.dropped.push(n + 1),
        }
    }
    Ok(read)
}

fn layout(path: &Path, reason: String) -> JournalError {
    JournalError::Layout {
        path: path.to_path_buf(),
        reason,
    }
}

fn header_of(path: &Path, value: serde_json::Value) -> Result<JournalHeader, JournalError> {
    match value.get("journal").and_then(|v| v.as_str()) {
        Some(JOURNAL_FORMAT) => serde_json::from_value(value)
            .map_err(|e| layout(path, format!("its header line is damaged ({e})"))),
        Some(other) => Err(layout(
            path,
            format!("its layout is {other:?}, this execscope reads {JOURNAL_FORMAT:?}"),
        )),
        None if value.get("task_id").is_some() => Err(layout(
            path,
            "it has no header line (it was written by an execscope from before runs could be \
             resumed, and does not say which inputs and settings it belongs to)"
                .into(),
        )),
        None => Err(layout(
            path,
            "its first line is not a journal header".into(),
        )),
    }
}

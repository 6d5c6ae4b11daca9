//! Where a lean-loaded run file keeps its candidates' large texts: each
//! candidate's byte range in the file, read back when it is opened
//! (`report::lean` finds the ranges).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// A candidate's large texts, as its run file records them.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(default)]
pub struct FullTexts {
    /// The raw generation.
    pub generation: String,
    /// The program that ran.
    pub code: String,
    /// Its test setup.
    pub setup: String,
    /// Captured stdout excerpt.
    pub stdout: String,
    /// Captured stderr excerpt.
    pub stderr: String,
}

/// Where each candidate's full record lies in its run file.
#[derive(Debug)]
pub struct Texts {
    path: PathBuf,
    /// Byte offset and length of each candidate's object, in file order.
    ranges: Vec<(u64, u32)>,
    /// The file as it was read: a row is not read back from a changed file.
    stamp: (u64, Option<SystemTime>),
    /// The last row read (a view shows one candidate at a time, every frame).
    last: Mutex<Option<(usize, Arc<FullTexts>)>>,
}

impl PartialEq for Texts {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && self.ranges == other.ranges
    }
}

impl Texts {
    /// The texts of the candidates at `ranges` (offset, length) of the file
    /// at `path` as it is now (`stamp`: its length and time).
    pub fn new(path: &Path, ranges: Vec<(u64, u32)>, stamp: (u64, Option<SystemTime>)) -> Texts {
        Texts {
            path: path.to_path_buf(),
            ranges,
            stamp,
            last: Mutex::new(None),
        }
    }

    /// Candidate `index`'s texts, read back from the file.
    pub fn row(&self, index: usize) -> Result<Arc<FullTexts>, String> {
        if let Ok(last) = self.last.lock() {
            if let Some((i, row)) = last.as_ref().filter(|(i, _)| *i == index) {
                debug_assert_eq!(*i, index);
                return Ok(Arc::clone(row));
            }
        }
        let &(offset, len) = self
            .ranges
            .get(index)
            .ok_or_else(|| format!("no candidate {index} in {}", self.path.display()))?;
        let changed = || {
            format!(
                "{} changed since it was opened; open it again to see this candidate's program and output",
                self.path.display()
            )
        };
        if stamp(&self.path).ok() != Some(self.stamp) {
            return Err(changed());
        }
        let mut file =
            File::open(&self.path).map_err(|e| format!("{}: {e}", self.path.display()))?;
        let mut bytes = vec![0u8; len as usize];
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(&mut bytes))
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        let row: FullTexts = serde_json::from_slice(&bytes).map_err(|_| changed())?;
        let row = Arc::new(row);
        if let Ok(mut last) = self.last.lock() {
            *last = Some((index, Arc::clone(&row)));
        }
        Ok(row)
    }
}

/// The length and modification time of the file at `path`.
pub(crate) fn stamp(path: &Path) -> std::io::Result<(u64, Option<SystemTime>)> {
    let meta = std::fs::metadata(path)?;
    Ok((meta.len(), meta.modified().ok()))
}

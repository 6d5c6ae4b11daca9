//! Where a lean-loaded run keeps its candidates' large texts: each
//! candidate's byte range in a run file, read back when it is opened or
//! written out (`report::lean` finds the ranges; a merge gathers them from
//! several files).

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

/// A file's length and modification time: a row is not read back from a
/// file that changed since it was opened.
type Stamp = (u64, Option<SystemTime>);

/// Where each candidate's full record lies.
#[derive(Debug)]
pub struct Texts {
    /// The run files, each as it was when read.
    files: Vec<(PathBuf, Stamp)>,
    /// Per candidate: its file, the byte offset and length of its object;
    /// `None` where the candidate's row holds its texts itself.
    ranges: Vec<Option<(u32, u64, u32)>>,
    /// The last row read (a view shows one candidate at a time, every frame).
    last: Mutex<Option<(usize, Arc<FullTexts>)>>,
}

impl PartialEq for Texts {
    fn eq(&self, other: &Self) -> bool {
        self.files == other.files && self.ranges == other.ranges
    }
}

impl Texts {
    /// The texts of the candidates at `ranges` (offset, length) of the file
    /// at `path` as it is now (`stamp`).
    pub fn new(path: &Path, ranges: Vec<(u64, u32)>, stamp: Stamp) -> Texts {
        Texts {
            files: vec![(path.to_path_buf(), stamp)],
            ranges: ranges.into_iter().map(|(o, l)| Some((0, o, l))).collect(),
            last: Mutex::new(None),
        }
    }

    /// The texts of candidates taken from several runs, in the order of
    /// `picks`: (that run's texts, or `None` where its rows hold their own;
    /// the candidate's index in it).
    pub fn gather<'a>(picks: impl IntoIterator<Item = (Option<&'a Texts>, usize)>) -> Texts {
        let mut files: Vec<(PathBuf, Stamp)> = Vec::new();
        let mut ranges = Vec::new();
        for (texts, index) in picks {
            let range = texts.and_then(|t| {
                let (file, offset, len) = t.ranges.get(index).copied().flatten()?;
                let source = &t.files[file as usize];
                let at = match files.iter().position(|f| f == source) {
                    Some(at) => at,
                    None => {
                        files.push(source.clone());
                        files.len() - 1
                    }
                };
                Some((at as u32, offset, len))
            });
            ranges.push(range);
        }
        Texts {
            files,
            ranges,
            last: Mutex::new(None),
        }
    }

    /// Whether candidate `index`'s texts are in a file (not in its row).
    pub fn has(&self, index: usize) -> bool {
        self.ranges.get(index).copied().flatten().is_some()
    }

    /// Candidate `index`'s texts, read back from its file.
    pub fn row(&self, index: usize) -> Result<Arc<FullTexts>, String> {
        if let Ok(last) = self.last.lock() {
            if let Some((_, row)) = last.as_ref().filter(|(i, _)| *i == index) {
                return Ok(Arc::clone(row));
            }
        }
        let row = Arc::new(self.reader().read(index)?);
        if let Ok(mut last) = self.last.lock() {
            *last = Some((index, Arc::clone(&row)));
        }
        Ok(row)
    }

    /// A reader that keeps the files open, for reading many rows in turn.
    pub fn reader(&self) -> Reader<'_> {
        Reader {
            texts: self,
            open: Vec::new(),
        }
    }
}

/// Reads rows of [`Texts`], each file opened and checked once.
pub struct Reader<'a> {
    texts: &'a Texts,
    open: Vec<Option<File>>,
}

impl Reader<'_> {
    /// Candidate `index`'s texts.
    pub fn read(&mut self, index: usize) -> Result<FullTexts, String> {
        let bytes = self.read_raw(index)?;
        serde_json::from_slice(&bytes).map_err(|_| self.changed(index))
    }

    /// Candidate `index`'s whole record, as its file holds it.
    pub fn read_raw(&mut self, index: usize) -> Result<Vec<u8>, String> {
        let Some((file, offset, len)) = self.texts.ranges.get(index).copied().flatten() else {
            return Err(format!("candidate {index} has no texts in a run file"));
        };
        let (path, was) = &self.texts.files[file as usize];
        if self.open.len() <= file as usize {
            self.open.resize_with(file as usize + 1, || None);
        }
        let handle = match &mut self.open[file as usize] {
            Some(handle) => handle,
            slot => {
                if stamp(path).ok().as_ref() != Some(was) {
                    return Err(self.changed(index));
                }
                slot.insert(File::open(path).map_err(|e| format!("{}: {e}", path.display()))?)
            }
        };
        let mut bytes = vec![0u8; len as usize];
        handle
            .seek(SeekFrom::Start(offset))
            .and_then(|_| handle.read_exact(&mut bytes))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(bytes)
    }

    /// The message for a row that cannot be read back as it was.
    pub fn changed(&self, index: usize) -> String {
        let file = self
            .texts
            .ranges
            .get(index)
            .copied()
            .flatten()
            .map_or(0, |r| r.0);
        format!(
            "{} changed since it was opened; open it again to see this candidate's program and output",
            self.texts.files[file as usize].0.display()
        )
    }
}

/// The length and modification time of the file at `path`.
pub(crate) fn stamp(path: &Path) -> std::io::Result<Stamp> {
    let meta = std::fs::metadata(path)?;
    Ok((meta.len(), meta.modified().ok()))
}

//! Files handed over from the shell or a file manager (`execscope FILE...`),
//! each judged by its content as the app's open and drop judge it: a run file
//! (or another harness's result file) opens as a run, two of them as a
//! comparison, and a task file and a generations file load together.
//!
//! ```no_run
//! use execscope::workbench::{Opening, opening};
//! match opening(&["a.execscope.json".into(), "b.execscope.json".into()]) {
//!     Ok(Opening::Compare { baseline, run }) => println!("{} against {}", run.display(), baseline.display()),
//!     Ok(other) => println!("{other:?}"),
//!     Err(e) => eprintln!("{e}"),
//! }
//! ```

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::input::{self, FileKind, InputError};

/// What the files given together open as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opening {
    /// One run file (or another harness's result file), shown as saved.
    Run(PathBuf),
    /// Two run files: the results on screen (B) compared with the baseline (A),
    /// in the order `execscope compare A B` takes them.
    Compare {
        /// The first file given: A.
        baseline: PathBuf,
        /// The second file given: B, on screen.
        run: PathBuf,
    },
    /// Inputs to evaluate: a task file, a generations file, or both.
    Inputs {
        /// The task file, if one was given.
        tasks: Option<PathBuf>,
        /// The generations file, if one was given.
        generations: Option<PathBuf>,
    },
}

/// Why the files cannot be opened together.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpeningError {
    /// Occurs when a file cannot be read or is none of the kinds the app opens;
    /// the message is the one the app's open shows.
    #[error(transparent)]
    File(#[from] InputError),
    /// Occurs when no file is given.
    #[error("no file to open")]
    Nothing,
    /// Occurs when the kinds do not go together (two task files, a run file
    /// with a task file, three run files).
    #[error("{0}")]
    Mixed(String),
}

/// Bytes at the start of a file where a run file's `format` key is looked for
/// (the run file writes it first; the MIME type's magic looks as far).
const HEAD_BYTES: usize = 256;

/// Whether the file begins as an execscope run file does: an object whose
/// first key is `format`, with a value starting `execscope-run` (gzip or not).
/// Only the first bytes are read, so a big run file is not parsed to be
/// recognised.
pub fn starts_as_run_file(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut raw = Vec::with_capacity(HEAD_BYTES);
    if file.take(HEAD_BYTES as u64).read_to_end(&mut raw).is_err() {
        return false;
    }
    let head = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::with_capacity(HEAD_BYTES);
        let Ok(file) = std::fs::File::open(path) else {
            return false;
        };
        let decoder = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file));
        // A short read is fine: only the start is looked at.
        let _ = decoder.take(HEAD_BYTES as u64).read_to_end(&mut out);
        out
    } else {
        raw
    };
    head_is_run_file(&head)
}

/// `{`, then `"format"`, `:` and a string starting `execscope-run`, with any
/// whitespace between (after a UTF-8 byte-order mark, if any).
fn head_is_run_file(head: &[u8]) -> bool {
    let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
    let mut rest = head;
    for token in [&b"{"[..], b"\"format\"", b":", b"\"execscope-run"] {
        let start = rest
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        match rest[start..].strip_prefix(token) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    true
}

/// What the file at `path` holds, judged as the app's open judges a dropped
/// file ([`input::sniff`]), with the same errors; a run file is recognised
/// from its first bytes.
pub fn kind_of(path: &Path) -> Result<FileKind, InputError> {
    if starts_as_run_file(path) {
        return Ok(FileKind::RunFile);
    }
    let text = input::read_text(path)?;
    input::sniff(path, &text)
}

/// Decides what `paths` open as, reading each to learn its kind.
pub fn opening(paths: &[PathBuf]) -> Result<Opening, OpeningError> {
    let mut runs: Vec<&PathBuf> = Vec::new();
    let mut tasks: Vec<&PathBuf> = Vec::new();
    let mut generations: Vec<&PathBuf> = Vec::new();
    for path in paths {
        match kind_of(path)? {
            FileKind::RunFile => runs.push(path),
            FileKind::Tasks => tasks.push(path),
            FileKind::Generations => generations.push(path),
        }
    }
    let show = |p: &PathBuf| p.display().to_string();
    if let (Some(run), Some(input)) = (runs.first(), tasks.first().or(generations.first())) {
        return Err(OpeningError::Mixed(format!(
            "{} is a run file and {} an input to evaluate: open a run file on its own, \
             or a task file with a generations file",
            show(run),
            show(input)
        )));
    }
    for (same, what) in [(&tasks, "task files"), (&generations, "generations files")] {
        if let [a, b, ..] = same.as_slice() {
            return Err(OpeningError::Mixed(format!(
                "{} and {} are both {what}: give one task file and one generations file",
                show(a),
                show(b)
            )));
        }
    }
    match runs.as_slice() {
        [] if tasks.is_empty() && generations.is_empty() => Err(OpeningError::Nothing),
        [] => Ok(Opening::Inputs {
            tasks: tasks.first().map(|p| p.to_path_buf()),
            generations: generations.first().map(|p| p.to_path_buf()),
        }),
        [run] => Ok(Opening::Run(run.to_path_buf())),
        [baseline, run] => Ok(Opening::Compare {
            baseline: baseline.to_path_buf(),
            run: run.to_path_buf(),
        }),
        more => Err(OpeningError::Mixed(format!(
            "{} run files given: one opens as a run, two as a comparison (the first is \
             the baseline); to join the parts of a sharded run use `execscope merge`",
            more.len()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::head_is_run_file;

    #[test]
    fn a_run_file_is_told_by_its_first_key_pretty_or_compact() {
        assert!(head_is_run_file(b"{\n  \"format\": \"execscope-run/1\",\n"));
        assert!(head_is_run_file(b"{\"format\":\"execscope-run/1\""));
        assert!(head_is_run_file(
            "\u{feff}{ \"format\" : \"execscope-run/2\"".as_bytes()
        ));
    }

    #[test]
    fn other_json_is_not_a_run_file() {
        assert!(!head_is_run_file(b"{\"task_id\": \"HumanEval/0\""));
        assert!(!head_is_run_file(b"{\"format\": \"other\"}"));
        assert!(!head_is_run_file(b"[{\"format\": \"execscope-run/1\"}]"));
        assert!(!head_is_run_file(b"{\n  \"form"));
        assert!(!head_is_run_file(b""));
    }
}

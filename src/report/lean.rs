//! Reading a big run file without holding it. The file is streamed once: each
//! candidate is parsed on its own and kept without its large texts (program,
//! generation, setup, stdout, stderr), whose place in the file is noted
//! instead; the rest of the document (settings, tasks, summary) is parsed as
//! usual. A candidate's texts are read back from the file when it is opened
//! ([`Texts::row`](crate::store::Texts::row)). A 200,000-candidate run file then takes a fraction of
//! its size in memory instead of several times it.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use super::runfile::{CandidateRow, RunFile};
use crate::store::Texts;

/// Reads the run file at `path` leaving its candidates' large texts in the
/// file (`run.texts`), or `None` where that cannot be done (gzip, another
/// harness's file, not a run file): the caller then reads it whole, which
/// gives those their own messages.
pub fn load(path: &Path) -> Option<Result<RunFile, String>> {
    let file = File::open(path).ok()?;
    let mut input = BufReader::with_capacity(1 << 20, file);
    let mut first = [0u8; 2];
    input.read_exact(&mut first).ok()?;
    input.seek(SeekFrom::Start(0)).ok()?;
    if first == [0x1f, 0x8b] {
        return None;
    }
    let stamp = crate::store::texts::stamp(path).ok()?;
    let mut scan = Scan::default();
    let mut buf = vec![0u8; 1 << 20];
    let mut offset = 0u64;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => return Some(Err(e.to_string())),
        };
        scan.feed(&buf[..n], offset);
        offset += n as u64;
    }
    let skeleton = String::from_utf8(scan.skeleton).ok()?;
    #[derive(serde::Deserialize)]
    struct Head {
        format: Option<String>,
    }
    let head = serde_json::from_str::<Head>(&skeleton).ok()?;
    if head.format.as_deref() != Some(super::runfile::FORMAT) {
        return None;
    }
    let mut run: RunFile = match serde_json::from_str(&skeleton) {
        Ok(run) => run,
        Err(e) => return Some(Err(format!("line {}: {e}", e.line()))),
    };
    if let Some(e) = scan.error {
        return Some(Err(e));
    }
    run.candidates = scan.rows;
    run.texts = Some(Arc::new(Texts::new(path, scan.ranges, stamp)));
    Some(Ok(run))
}

/// The streaming scan: JSON strings and nesting, enough to find the
/// top-level `candidates` array and each of its objects.
#[derive(Default)]
struct Scan {
    depth: u32,
    in_string: bool,
    escape: bool,
    /// At the top level, the next string is a key.
    expect_key: bool,
    key: Vec<u8>,
    capturing_key: bool,
    /// Inside the top-level `candidates` array.
    in_candidates: bool,
    /// The candidate object being read, and where it began.
    candidate: Vec<u8>,
    start: u64,
    line: usize,
    start_line: usize,
    /// The document without the candidates' objects (newlines kept, so a
    /// parse error's line is the file's).
    skeleton: Vec<u8>,
    rows: Vec<CandidateRow>,
    ranges: Vec<(u64, u32)>,
    error: Option<String>,
}

impl Scan {
    /// Scans `chunk`, which starts at byte `base` of the file. The inside of
    /// a string goes in one piece up to its next quote or backslash.
    fn feed(&mut self, chunk: &[u8], base: u64) {
        let mut i = 0;
        while i < chunk.len() {
            if self.in_string && !self.escape {
                let run = memchr::memchr2(b'"', b'\\', &chunk[i..]).unwrap_or(chunk.len() - i);
                if run > 0 {
                    let text = &chunk[i..i + run];
                    if self.in_candidates && self.depth > 2 {
                        self.candidate.extend_from_slice(text);
                    } else {
                        if self.capturing_key && self.key.len() < 64 {
                            self.key.extend(text.iter().take(64 - self.key.len()));
                        }
                        self.skeleton.extend_from_slice(text);
                    }
                    i += run;
                    continue;
                }
            }
            self.byte(chunk[i], base + i as u64);
            i += 1;
        }
    }

    fn byte(&mut self, b: u8, at: u64) {
        if b == b'\n' {
            self.line += 1;
        }
        let in_candidate = self.in_candidates
            && (self.depth > 2 || (self.depth == 2 && b == b'{' && !self.in_string));
        if self.in_string {
            if self.escape {
                self.escape = false;
            } else if b == b'\\' {
                self.escape = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.capturing_key {
                    self.capturing_key = false;
                }
            } else if self.capturing_key && self.key.len() < 64 {
                self.key.push(b);
            }
        } else {
            match b {
                b'"' => {
                    self.in_string = true;
                    if self.depth == 1 && self.expect_key {
                        self.capturing_key = true;
                        self.key.clear();
                    }
                }
                b'{' | b'[' => {
                    if self.depth == 1 && b == b'[' && self.key == b"candidates" {
                        self.in_candidates = true;
                    }
                    if self.in_candidates && self.depth == 2 && b == b'{' {
                        self.start = at;
                        self.start_line = self.line;
                        self.candidate.clear();
                    }
                    self.depth += 1;
                    self.expect_key = self.depth == 1 && b == b'{';
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.in_candidates && self.depth == 1 {
                        self.in_candidates = false;
                    }
                }
                b':' if self.depth == 1 => self.expect_key = false,
                b',' if self.depth == 1 => self.expect_key = true,
                _ => {}
            }
        }
        if in_candidate {
            self.candidate.push(b);
            if self.depth == 2 && !self.in_string && b == b'}' {
                self.finish_candidate(at);
            }
        } else if self.in_candidates && self.depth == 2 && b == b',' {
            // Between candidates: the skeleton's array stays empty.
        } else {
            self.skeleton.push(b);
        }
        if in_candidate && b == b'\n' {
            self.skeleton.push(b'\n');
        }
    }

    fn finish_candidate(&mut self, end: u64) {
        match serde_json::from_slice::<CandidateRow>(&self.candidate) {
            Ok(mut row) => {
                // Kept in the file; read back when the candidate is opened.
                row.code = String::new();
                row.generation = String::new();
                row.setup = String::new();
                row.stdout = String::new();
                row.stderr = String::new();
                self.rows.push(row);
                self.ranges
                    .push((self.start, (end + 1 - self.start) as u32));
            }
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(format!(
                        "line {}: candidate {}: {e}",
                        self.start_line + e.line(),
                        self.rows.len() + 1
                    ));
                }
            }
        }
    }
}

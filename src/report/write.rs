//! Writing a run file. Its keys keep DESIGN's order; a candidate whose texts
//! were left in a run file ([`super::lean`]) is read back and written whole,
//! one at a time, so saving or merging a big run never holds all its texts.

use std::io::Write;
use std::path::Path;

use serde::ser::{Error as _, SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use super::ExportError;
use super::runfile::{CandidateRow, RunFile};
use crate::store::Texts;

impl Serialize for RunFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let fields = 9 + usize::from(self.shard.is_some()) + usize::from(self.source.is_some());
        let mut st = s.serialize_struct("RunFile", fields)?;
        st.serialize_field("format", &self.format)?;
        st.serialize_field("settings", &self.settings)?;
        st.serialize_field("python", &self.python)?;
        st.serialize_field("inputs", &self.inputs)?;
        match &self.texts {
            Some(texts) => st.serialize_field(
                "candidates",
                &Whole {
                    rows: &self.candidates,
                    texts,
                },
            )?,
            None => st.serialize_field("candidates", &self.candidates)?,
        }
        st.serialize_field("tasks", &self.tasks)?;
        st.serialize_field("summary", &self.summary)?;
        st.serialize_field("skipped_tasks", &self.skipped_tasks)?;
        st.serialize_field("missing_generations", &self.missing_generations)?;
        match &self.shard {
            Some(shard) => st.serialize_field("shard", shard)?,
            None => st.skip_field("shard")?,
        }
        match &self.source {
            Some(source) => st.serialize_field("source", source)?,
            None => st.skip_field("source")?,
        }
        st.end()
    }
}

/// Rows some of whose texts are in run files: each written with them.
struct Whole<'a> {
    rows: &'a [CandidateRow],
    texts: &'a Texts,
}

impl Serialize for Whole<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.rows.len()))?;
        let mut reader = self.texts.reader();
        for (i, row) in self.rows.iter().enumerate() {
            // An edited candidate holds its own program.
            if row.edited || !row.code.is_empty() || !self.texts.has(i) {
                seq.serialize_element(row)?;
                continue;
            }
            // Left untouched since it was read: its record as the file has it.
            let raw = reader.read_raw(i).map_err(S::Error::custom)?;
            let raw = String::from_utf8(raw)
                .ok()
                .and_then(|text| serde_json::value::RawValue::from_string(text).ok())
                .ok_or_else(|| S::Error::custom(reader.changed(i)))?;
            seq.serialize_element(&raw)?;
        }
        seq.end()
    }
}

/// Writes `run` to `path` atomically (a temporary file renamed), as pretty
/// JSON streamed to the disk.
pub(super) fn save(run: &RunFile, path: &Path) -> Result<(), ExportError> {
    super::write_atomic_with(path, |out| {
        serde_json::to_writer_pretty(&mut *out, run).map_err(ExportError::encode)?;
        out.write_all(b"\n").map_err(|source| ExportError::Write {
            path: path.to_path_buf(),
            source,
        })
    })
}

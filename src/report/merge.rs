//! Merging the partial run files of a sharded run (`run --shard I/N`) into one:
//! they must belong together (the same inputs, settings and interpreter, the
//! same number of shards), overlap nowhere and leave nothing out. The merged
//! file is an ordinary run file, figures recomputed over every candidate.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use super::runfile::{CandidateRow, RunFile, SettingsRecord};

/// Why partial run files cannot be merged.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum MergeError {
    /// Occurs when no part is given.
    #[error("nothing to merge: give the partial run files of every shard")]
    Empty,
    /// Occurs when a part was not written with `--shard`.
    #[error("{0}: not a partial run file (it was not written by `execscope run --shard I/N`)")]
    NotAShard(PathBuf),
    /// Occurs when a part differs from the first in inputs, settings,
    /// interpreter or shard count.
    #[error("{path} does not belong with {first}: its {what} differ ({detail})")]
    Mismatch {
        /// The first part.
        first: PathBuf,
        /// The part that differs.
        path: PathBuf,
        /// What differs (`inputs`, `settings`, ...).
        what: &'static str,
        /// The two values.
        detail: String,
    },
    /// Occurs when two parts are the same shard, or hold the same candidate.
    #[error("{path}: {what} is also in {other}")]
    Overlap {
        /// The later part.
        path: PathBuf,
        /// The earlier part.
        other: PathBuf,
        /// What is there twice.
        what: String,
    },
    /// Occurs when shards or candidates are missing.
    #[error("incomplete: {0}")]
    Missing(String),
}

/// Settings that decide results: the worker count and the start-up mode only
/// change how fast a run goes, so parts may differ in them.
fn deciding(s: &SettingsRecord) -> SettingsRecord {
    SettingsRecord {
        workers: 0,
        fast_start: false,
        ..s.clone()
    }
}

/// Merges the partial run files `parts` (with their paths, for messages) and
/// reports pass@k at `ks`. Their candidates move into the merged file.
pub fn merge(mut parts: Vec<(PathBuf, RunFile)>, ks: &[usize]) -> Result<RunFile, MergeError> {
    check(&parts)?;
    let first = &parts[0].1;
    // Every part lists every task in task-file order: order candidates by it.
    let order: HashMap<&str, usize> = first
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.task_id.as_str(), i))
        .collect();
    let mut picks: Vec<(usize, usize)> = parts
        .iter()
        .enumerate()
        .flat_map(|(p, (_, part))| (0..part.candidates.len()).map(move |i| (p, i)))
        .collect();
    picks.sort_by_key(|&(p, i)| {
        let c = &parts[p].1.candidates[i];
        (order.get(c.task_id.as_str()).copied(), c.sample)
    });
    // Parts read lean keep their texts in their files until the merged
    // file is written.
    let texts = parts.iter().any(|(_, p)| p.texts.is_some()).then(|| {
        std::sync::Arc::new(crate::store::Texts::gather(
            picks.iter().map(|&(p, i)| (parts[p].1.texts.as_deref(), i)),
        ))
    });
    let elapsed_s = parts
        .iter()
        .map(|(_, p)| p.summary.elapsed_s)
        .fold(0.0, f64::max);
    let mut rows: Vec<Vec<Option<CandidateRow>>> = parts
        .iter_mut()
        .map(|(_, p)| {
            std::mem::take(&mut p.candidates)
                .into_iter()
                .map(Some)
                .collect()
        })
        .collect();
    let mut whole = parts.swap_remove(0).1;
    whole.candidates = picks
        .iter()
        .filter_map(|&(p, i)| rows[p][i].take())
        .collect();
    whole.texts = texts;
    whole.summary.elapsed_s = elapsed_s;
    whole.summary.cancelled = false;
    whole.shard = None;
    // The rows move into a store for the figures and back: a big merge holds
    // its candidates once.
    let rows = std::mem::take(&mut whole.candidates);
    let store = super::convert::store_of(&whole.tasks, rows.into_iter(), whole.texts.clone());
    let mut whole = whole.figures_of(&store, ks);
    whole.candidates = super::convert::rows_of(store);
    Ok(whole)
}

/// That `parts` belong together, overlap nowhere and leave nothing out.
fn check(parts: &[(PathBuf, RunFile)]) -> Result<(), MergeError> {
    let (first_path, first) = parts.first().ok_or(MergeError::Empty)?;
    let first_shard = first
        .shard
        .ok_or_else(|| MergeError::NotAShard(first_path.clone()))?;
    let mut seen_shards: HashMap<usize, &PathBuf> = HashMap::new();
    let mut seen: HashMap<(&str, usize), &PathBuf> = HashMap::new();
    for (path, part) in parts {
        let shard = part
            .shard
            .ok_or_else(|| MergeError::NotAShard(path.clone()))?;
        let mismatch = |what: &'static str, detail: String| MergeError::Mismatch {
            first: first_path.clone(),
            path: path.clone(),
            what,
            detail,
        };
        if part.inputs.tasks.sha256 != first.inputs.tasks.sha256
            || part.inputs.generations.sha256 != first.inputs.generations.sha256
        {
            return Err(mismatch(
                "inputs",
                format!(
                    "tasks {} vs {}, generations {} vs {}",
                    part.inputs.tasks.sha256,
                    first.inputs.tasks.sha256,
                    part.inputs.generations.sha256,
                    first.inputs.generations.sha256
                ),
            ));
        }
        if deciding(&part.settings) != deciding(&first.settings) {
            return Err(mismatch(
                "settings",
                format!("{:?} vs {:?}", part.settings, first.settings),
            ));
        }
        if part.python.version != first.python.version {
            return Err(mismatch(
                "Python versions",
                format!("{} vs {}", part.python.version, first.python.version),
            ));
        }
        if (shard.count, shard.jobs) != (first_shard.count, first_shard.jobs) {
            return Err(mismatch(
                "shard counts",
                format!(
                    "{}/{} of {} candidates vs {}/{} of {}",
                    shard.index,
                    shard.count,
                    shard.jobs,
                    first_shard.index,
                    first_shard.count,
                    first_shard.jobs
                ),
            ));
        }
        if let Some(other) = seen_shards.insert(shard.index, path) {
            return Err(MergeError::Overlap {
                path: path.clone(),
                other: other.clone(),
                what: format!("shard {}/{}", shard.index, shard.count),
            });
        }
        for c in &part.candidates {
            if let Some(other) = seen.insert((c.task_id.as_str(), c.sample), path) {
                return Err(MergeError::Overlap {
                    path: path.clone(),
                    other: other.clone(),
                    what: format!("sample {} of task {:?}", c.sample, c.task_id),
                });
            }
        }
    }
    let absent: BTreeSet<usize> = (1..=first_shard.count)
        .filter(|i| !seen_shards.contains_key(i))
        .collect();
    if !absent.is_empty() {
        let list: Vec<String> = absent
            .iter()
            .map(|i| format!("{i}/{}", first_shard.count))
            .collect();
        return Err(MergeError::Missing(format!(
            "no part for shard {}",
            list.join(", ")
        )));
    }
    if seen.len() != first_shard.jobs {
        return Err(MergeError::Missing(format!(
            "the parts hold {} of the run's {} candidates (a shard stopped early?)",
            seen.len(),
            first_shard.jobs
        )));
    }

    Ok(())
}

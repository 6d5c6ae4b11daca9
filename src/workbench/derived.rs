//! Figures derived from the results (summary, curve, per-task statistics,
//! intervals, failure causes, the comparison with a baseline), computed once per store
//! revision so that drawing a frame never rescans 100,000 candidates.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::passk;
use crate::report::{Comparison, Figures, Paired, RunFile, Verdicts};
use crate::store::{Cause, Store, Summary, TaskStats};

/// Points at which the curve's confidence band is computed.
const BAND_POINTS: usize = 24;

/// Figures derived from the store.
#[derive(Debug, Clone)]
pub struct Derived {
    /// The ks reported.
    pub ks: Vec<usize>,
    /// Data-set summary at `ks`.
    pub summary: Summary,
    /// pass@k for every k.
    pub curve: Vec<(usize, f64)>,
    /// pass@k for every k over the base tests alone, where candidates have a
    /// base verdict (evalplus); empty otherwise.
    pub base_curve: Vec<(usize, f64)>,
    /// Per-task statistics at `ks`.
    pub tasks: Vec<TaskStats>,
    /// 95% bootstrap interval of each reported pass@k (once no run is going on).
    pub intervals: BTreeMap<usize, (f64, f64)>,
    /// The 95% band of the curve, (k, low, high) (once no run is going on).
    pub band: Vec<(usize, f64, f64)>,
    /// Every failure's cause, by count (once no run is going on).
    pub causes: Vec<Cause>,
    /// Candidates whose hand-edited result was kept.
    pub edited: usize,
}

impl Derived {
    /// The figures of `store`. The bootstraps are left out while a run is
    /// `live`: they would cost a few milliseconds on every frame that brings
    /// results.
    pub fn of(store: &Store, live: bool) -> Derived {
        let ks = passk::default_ks(store.max_n());
        Derived {
            summary: store.summary(&ks),
            curve: store.curve(),
            base_curve: store
                .base_counts()
                .map(|c| passk::curve(&c))
                .unwrap_or_default(),
            tasks: store.task_stats(&ks),
            intervals: if live {
                BTreeMap::new()
            } else {
                store.intervals(&ks)
            },
            band: if live {
                Vec::new()
            } else {
                store.band(BAND_POINTS)
            },
            causes: if live { Vec::new() } else { store.causes() },
            edited: store.edited(),
            ks,
        }
    }

    /// The comparison of `baseline` (A) with these figures (B).
    pub fn compare_with(&self, baseline: &RunFile, store: &Store) -> Comparison {
        let verdicts = Verdicts::of_store(store, None);
        Comparison::between(
            &Figures::of_run(baseline),
            &Figures::of_stats(&self.tasks, &self.summary, &self.causes, verdicts),
        )
    }
}

/// A saved run to compare the results with.
#[derive(Debug, Clone)]
pub struct Baseline {
    /// Where it was read from.
    pub path: PathBuf,
    /// The run.
    pub run: RunFile,
    /// Its pass@k curve.
    pub curve: Vec<(usize, f64)>,
}

impl Baseline {
    /// Reads the run file at `path`.
    pub fn open(path: &Path) -> Result<Baseline, String> {
        let run = RunFile::load_lean(path).map_err(|e| e.to_string())?;
        Ok(Baseline::of(path, run))
    }

    /// The baseline of `run`, read from `path`.
    pub fn of(path: &Path, run: RunFile) -> Baseline {
        let counts: Vec<(usize, usize)> = run.tasks.iter().map(|t| (t.n, t.c)).collect();
        Baseline {
            path: path.to_path_buf(),
            curve: passk::curve(&counts),
            run,
        }
    }
}

/// The derived figures and the comparison, with what they were computed from.
pub(super) struct Cache {
    /// (store revision, live, baseline generation) they belong to.
    key: Option<(u64, bool, u64)>,
    pub derived: Arc<Derived>,
    pub comparison: Option<Arc<Comparison>>,
    /// The paired test of the comparison (once no run is going on).
    pub paired: Arc<[Paired]>,
}

impl Cache {
    /// The figures of an empty store.
    pub fn new() -> Cache {
        Cache {
            key: None,
            derived: Arc::new(Derived::of(&Store::default(), false)),
            comparison: None,
            paired: Arc::from([]),
        }
    }

    /// Recomputes what `key` makes stale.
    pub fn refresh(&mut self, key: (u64, bool, u64), store: &Store, baseline: Option<&Baseline>) {
        if self.key == Some(key) {
            return;
        }
        if self
            .key
            .is_none_or(|(r, live, _)| (r, live) != (key.0, key.1))
        {
            self.derived = Arc::new(Derived::of(store, key.1));
        }
        self.comparison = baseline.map(|b| Arc::new(self.derived.compare_with(&b.run, store)));
        // Like the intervals, the resampling waits for the end of a run.
        self.paired = match &self.comparison {
            Some(cmp) if !key.1 => cmp.paired().into(),
            _ => Arc::from([]),
        };
        self.key = Some(key);
    }
}

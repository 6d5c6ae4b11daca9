//! The results grid's view model: sort column and direction, outcome and
//! flagged filters, text search, selection, and the cached list of visible rows (rebuilt only when the
//! store or the view changes, so a 100,000-row grid costs nothing per frame).

use std::cmp::Ordering;
use std::collections::HashSet;
use std::time::{Duration, Instant};

pub use super::columns::Column;
use super::columns::natural_cmp;
use super::task_rows::{self, Line, TaskRow};

use crate::sandbox::Outcome;
use crate::store::{Store, signature};
use crate::workbench::Progress;

/// How often the visible rows are rebuilt while results stream in.
const LIVE_REFRESH: Duration = Duration::from_millis(250);

/// The grid's view state.
#[derive(Debug, Clone)]
pub struct GridView {
    /// Sort column.
    pub sort: Column,
    /// Ascending?
    pub ascending: bool,
    /// Outcomes shown; all true shows everything, including unfinished rows.
    pub shown: [bool; 5],
    /// Only candidates with at least one flag.
    pub flagged_only: bool,
    /// Only the harness faults, or only the flaky candidates.
    pub only: Option<Only>,
    /// Only the failures of this cause (its signature).
    pub cause: Option<String>,
    /// Case-insensitive text searched in task id, detail, failure and flags.
    pub search: String,
    /// Selected candidate (index into the store).
    pub selected: Option<usize>,
    /// Visible candidate indices, in display order.
    pub rows: Vec<usize>,
    /// One row per task (expanding to its samples) instead of one per candidate.
    pub by_task: bool,
    /// Tasks (store indices) whose samples are shown under them.
    pub expanded: HashSet<usize>,
    /// The tasks of the visible candidates, in display order (when `by_task`).
    pub tasks: Vec<TaskRow>,
    /// The grid's lines (when `by_task`).
    pub lines: Vec<Line>,
    seen_revision: u64,
    dirty: bool,
    refreshed: Option<Instant>,
}

impl Default for GridView {
    fn default() -> Self {
        GridView {
            sort: Column::Task,
            ascending: true,
            shown: [true; 5],
            flagged_only: false,
            only: None,
            cause: None,
            search: String::new(),
            selected: None,
            rows: Vec::new(),
            by_task: false,
            expanded: HashSet::new(),
            tasks: Vec::new(),
            lines: Vec::new(),
            seen_revision: u64::MAX,
            dirty: true,
            refreshed: None,
        }
    }
}

impl GridView {
    /// Clicking a header: sort by it, or flip the direction if it already is.
    pub fn click_header(&mut self, column: Column) {
        if self.sort == column {
            self.ascending = !self.ascending;
        } else {
            self.sort = column;
            self.ascending = true;
        }
        self.dirty = true;
    }

    /// Shows only `outcome`, or everything when it already was the only one.
    pub fn focus(&mut self, outcome: Outcome) {
        let i = outcome.index();
        let only = self.shown.iter().enumerate().all(|(j, s)| *s == (j == i));
        self.shown = if only {
            [true; 5]
        } else {
            std::array::from_fn(|j| j == i)
        };
        self.dirty = true;
    }

    /// Toggles one outcome.
    pub fn toggle(&mut self, outcome: Outcome) {
        let i = outcome.index();
        self.shown[i] = !self.shown[i];
        self.dirty = true;
    }

    /// Shows only `which` candidates, or everything again.
    pub fn focus_only(&mut self, which: Only) {
        self.only = (self.only != Some(which)).then_some(which);
        self.dirty = true;
    }

    /// Shows only the failures of cause `signature`, or everything again.
    pub fn focus_cause(&mut self, signature: String) {
        self.cause = (self.cause.as_ref() != Some(&signature)).then_some(signature);
        self.dirty = true;
    }

    /// Shows only flagged candidates, or everything again.
    pub fn toggle_flagged(&mut self) {
        self.flagged_only = !self.flagged_only;
        self.dirty = true;
    }

    /// One row per task, or one per candidate.
    pub fn set_by_task(&mut self, on: bool) {
        self.by_task = on;
        self.dirty = true;
    }

    /// Shows task `task`'s samples under it, or hides them.
    pub fn toggle_task(&mut self, task: usize) {
        if !self.expanded.remove(&task) {
            self.expanded.insert(task);
        }
        self.dirty = true;
    }

    /// Expands every shown task, or none.
    pub fn expand_all(&mut self, on: bool) {
        self.expanded = if on {
            self.tasks.iter().map(|t| t.task).collect()
        } else {
            HashSet::new()
        };
        self.dirty = true;
    }

    /// How many lines the grid draws.
    pub fn line_count(&self) -> usize {
        if self.by_task {
            self.lines.len()
        } else {
            self.rows.len()
        }
    }

    /// The grid's line `i`.
    pub fn line(&self, i: usize) -> Line {
        if self.by_task {
            self.lines[i]
        } else {
            Line::Candidate(self.rows[i])
        }
    }

    /// Whether every outcome is shown.
    pub fn shows_all(&self) -> bool {
        self.shown.iter().all(|s| *s)
    }

    /// Marks the rows for rebuilding (search text changed).
    pub fn invalidate(&mut self) {
        self.dirty = true;
    }

    /// Rebuilds the rows if the store or the view changed. While `live` (a run in
    /// progress) store changes are picked up at most four times a second.
    pub fn refresh(&mut self, store: &Store, progress: &[Progress], revision: u64, live: bool) {
        let stale = revision != self.seen_revision;
        let throttled = live && self.refreshed.is_some_and(|t| t.elapsed() < LIVE_REFRESH);
        if !(self.dirty || stale && !throttled) {
            return;
        }
        self.seen_revision = revision;
        self.dirty = false;
        self.refreshed = Some(Instant::now());
        let needle = self.search.trim().to_lowercase();
        let all = self.shows_all();
        let mut rows: Vec<usize> = (0..store.candidates.len())
            .filter(|&i| {
                let c = &store.candidates[i];
                let shown = match &c.result {
                    Some(r) => {
                        self.shown[r.outcome.index()]
                            && (!self.flagged_only || !r.flags.is_empty())
                            && match self.only {
                                None => true,
                                Some(Only::Faults) => r.fault.is_some(),
                                Some(Only::Flaky) => r.is_flaky(),
                            }
                            && self.cause.as_ref().is_none_or(|cause| {
                                signature(store.task_id(c), r).as_ref() == Some(cause)
                            })
                    }
                    None => {
                        all && !self.flagged_only && self.only.is_none() && self.cause.is_none()
                    }
                };
                shown
                    && (needle.is_empty()
                        || store.task_id(c).to_lowercase().contains(&needle)
                        || c.result.as_ref().is_some_and(|r| {
                            r.explanation().to_lowercase().contains(&needle)
                                || r.flags.iter().any(|f| f.contains(&needle))
                        }))
            })
            .collect();
        if self.sort == Column::Detail {
            // Each row's text made once, not at every comparison.
            // (Unfinished rows last either way.)
            let mut keyed: Vec<(bool, String, usize)> = rows
                .into_iter()
                .map(|i| match store.candidates[i].result.as_ref() {
                    Some(r) => (false, r.explanation().into_owned(), i),
                    None => (true, String::new(), i),
                })
                .collect();
            keyed.sort_by(|a, b| {
                let text = if self.ascending {
                    a.1.cmp(&b.1)
                } else {
                    b.1.cmp(&a.1)
                };
                a.0.cmp(&b.0).then(text).then(a.2.cmp(&b.2))
            });
            rows = keyed.into_iter().map(|(_, _, i)| i).collect();
        } else {
            let key = |i: &usize, j: &usize| compare(store, progress, self.sort, *i, *j);
            rows.sort_by(|i, j| if self.ascending { key(i, j) } else { key(j, i) }.then(i.cmp(j)));
        }
        self.rows = rows;
        if self.by_task {
            self.tasks = task_rows::group(store, &self.rows, self.sort, self.ascending);
            self.lines = task_rows::lines(&self.tasks, |t| self.expanded.contains(&t));
        } else {
            self.tasks.clear();
            self.lines.clear();
        }
    }
}

fn compare(store: &Store, progress: &[Progress], column: Column, i: usize, j: usize) -> Ordering {
    let (a, b) = (&store.candidates[i], &store.candidates[j]);
    let (ra, rb) = (a.result.as_ref(), b.result.as_ref());
    let by_task = || a.task.cmp(&b.task).then(a.sample.cmp(&b.sample));
    // Unfinished rows sort after finished ones, running before queued.
    let pending = |k: usize| match progress.get(k) {
        Some(Progress::Running) => 1,
        Some(Progress::Queued) => 2,
        _ => 0,
    };
    let unfinished = pending(i).cmp(&pending(j));
    match column {
        Column::Task => natural_cmp(store.task_id(a), store.task_id(b)).then(by_task()),
        Column::Sample => a.sample.cmp(&b.sample).then(by_task()),
        _ if ra.is_none() || rb.is_none() => unfinished.then(by_task()),
        Column::Outcome => ra.map(|r| r.outcome).cmp(&rb.map(|r| r.outcome)),
        Column::Score => ra
            .map(|r| r.score)
            .partial_cmp(&rb.map(|r| r.score))
            .unwrap_or(Ordering::Equal),
        Column::Passed => ra
            .map(|r| (r.passed, r.total))
            .cmp(&rb.map(|r| (r.passed, r.total))),
        Column::Duration => ra.map(|r| r.duration_ms).cmp(&rb.map(|r| r.duration_ms)),
        Column::Flags => ra.map(|r| &r.flags).cmp(&rb.map(|r| &r.flags)),
        Column::Detail => ra
            .map(|r| r.explanation())
            .cmp(&rb.map(|r| r.explanation())),
    }
}

/// The Compare window's own state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompareView {
    /// Show only tasks whose verdict changed.
    pub changed_only: bool,
    /// The disagreement shown side by side (an index into the audit's list).
    pub disagreement: Option<usize>,
}

impl Default for CompareView {
    fn default() -> Self {
        CompareView {
            changed_only: true,
            disagreement: None,
        }
    }
}

/// A narrowing of the grid the caveats banner offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Only {
    /// Results that are harness faults.
    Faults,
    /// Candidates whose rechecks disagree.
    Flaky,
}

//! The grid's "one row per task" mode: each task as one row (its outcomes,
//! score, pass@k and main failure cause), expanding to the samples the
//! filters show.

use std::cmp::Ordering;
use std::collections::HashMap;

use egui::{RichText, Sense};

use super::columns::{Column, natural_cmp};
use super::theme::Tokens;
use crate::sandbox::Outcome;
use crate::store::{Store, TaskStats, signature};

/// One task of the grid, over all its finished samples.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRow {
    /// The task (index into the store's tasks).
    pub task: usize,
    /// Finished samples by outcome (`Outcome::index`).
    pub outcomes: [usize; 5],
    /// Samples not finished yet.
    pub pending: usize,
    /// Mean score of the finished samples.
    pub mean_score: f64,
    /// Mean duration of the finished samples, in ms.
    pub mean_ms: u64,
    /// Finished samples with a flag.
    pub flagged: usize,
    /// The most common failure cause and how many samples it covers.
    pub cause: Option<(String, usize)>,
    /// The samples the filters show (candidate indices), in display order.
    pub members: Vec<usize>,
}

impl TaskRow {
    /// Finished samples.
    pub fn finished(&self) -> usize {
        self.outcomes.iter().sum()
    }

    /// "7 pass, 3 timeout": the outcomes it has, in the outcome order.
    pub fn outcome_text(&self) -> String {
        let mut parts: Vec<String> = Outcome::ALL
            .iter()
            .filter(|o| self.outcomes[o.index()] > 0)
            .map(|o| format!("{} {}", self.outcomes[o.index()], o.as_str()))
            .collect();
        if self.pending > 0 {
            parts.push(format!("{} to run", self.pending));
        }
        parts.join(", ")
    }

    /// The row's detail: outcomes, main cause, then pass@k (the first k
    /// only when `short`).
    pub fn detail(&self, stats: Option<&TaskStats>, short: bool) -> String {
        let mut text = self.outcome_text();
        if let Some((cause, n)) = &self.cause {
            text.push_str(&format!(" · mostly {cause} ({n})"));
        }
        if let Some(stats) = stats {
            let shown = if short { 1 } else { usize::MAX };
            for (k, v) in stats.pass_at_k.iter().take(shown) {
                text.push_str(&format!(" · pass@{k} {v:.3}"));
            }
        }
        text
    }
}

/// A line of the grid: a task, or one of its samples under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// A task row (index into the grid's task rows).
    Task(usize),
    /// A candidate (index into the store).
    Candidate(usize),
}

/// The tasks of the shown candidates `rows` (already filtered and sorted), sorted by
/// `sort`'s figure for a whole task.
pub fn group(store: &Store, rows: &[usize], sort: Column, ascending: bool) -> Vec<TaskRow> {
    let mut by_task: Vec<Option<TaskRow>> = vec![None; store.tasks.len()];
    for &i in rows {
        let task = store.candidates[i].task;
        if let Some(slot) = by_task.get_mut(task) {
            slot.get_or_insert_with(|| summarise(store, task))
                .members
                .push(i);
        }
    }
    let mut tasks: Vec<TaskRow> = by_task.into_iter().flatten().collect();
    let id = |t: &TaskRow| store.tasks[t.task].id.as_str();
    tasks.sort_by(|a, b| {
        let order = compare(sort, a, b);
        let order = if ascending { order } else { order.reverse() };
        order.then_with(|| natural_cmp(id(a), id(b)))
    });
    tasks
}

/// The grid's lines: each task, then its shown samples when it is expanded.
pub fn lines(tasks: &[TaskRow], expanded: impl Fn(usize) -> bool) -> Vec<Line> {
    let mut lines = Vec::new();
    for (i, t) in tasks.iter().enumerate() {
        lines.push(Line::Task(i));
        if expanded(t.task) {
            lines.extend(t.members.iter().map(|&c| Line::Candidate(c)));
        }
    }
    lines
}

/// Task `task`'s figures over all its samples (no members yet).
fn summarise(store: &Store, task: usize) -> TaskRow {
    let mut row = TaskRow {
        task,
        outcomes: [0; 5],
        pending: 0,
        mean_score: 0.0,
        mean_ms: 0,
        flagged: 0,
        cause: None,
        members: Vec::new(),
    };
    let (mut score, mut ms) = (0.0, 0u64);
    let mut causes: HashMap<String, usize> = HashMap::new();
    let task_id = store.tasks[task].id.as_str();
    for c in store.candidates.iter().filter(|c| c.task == task) {
        let Some(r) = &c.result else {
            row.pending += 1;
            continue;
        };
        row.outcomes[r.outcome.index()] += 1;
        score += r.score;
        ms += r.duration_ms;
        row.flagged += usize::from(!r.flags.is_empty());
        if let Some(s) = signature(task_id, r) {
            *causes.entry(s).or_default() += 1;
        }
    }
    let n = row.finished();
    if n > 0 {
        row.mean_score = score / n as f64;
        row.mean_ms = ms / n as u64;
    }
    row.cause = causes
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)));
    row
}

/// Orders two tasks by a column's figure for a whole task.
fn compare(sort: Column, a: &TaskRow, b: &TaskRow) -> Ordering {
    let share = |t: &TaskRow| t.outcomes[Outcome::Pass.index()] as f64 / t.finished().max(1) as f64;
    match sort {
        Column::Task => Ordering::Equal,
        Column::Sample => a.finished().cmp(&b.finished()),
        Column::Outcome => share(a).total_cmp(&share(b)),
        Column::Score => a.mean_score.total_cmp(&b.mean_score),
        Column::Passed => a.outcomes[0].cmp(&b.outcomes[0]),
        Column::Duration => a.mean_ms.cmp(&b.mean_ms),
        Column::Flags => a.flagged.cmp(&b.flagged),
        Column::Detail => a.cause.cmp(&b.cause),
    }
}

/// Draws a task row's cells (a click on the row is the caller's).
pub(super) fn task_cells(
    row: &mut egui_extras::TableRow<'_, '_>,
    tokens: Tokens,
    task_id: &str,
    t: &TaskRow,
    stats: Option<&TaskStats>,
    expanded: bool,
) {
    let arrow = if expanded { "⏷" } else { "⏵" };
    row.col(|ui| {
        ui.label(RichText::new(format!("{arrow} {task_id}")).strong());
    });
    row.col(|ui| {
        ui.label(t.finished().to_string());
    });
    row.col(|ui| {
        outcome_bar(ui, tokens, t).on_hover_text(t.outcome_text());
    });
    row.col(|ui| {
        ui.label(format!("{:.2}", t.mean_score));
    });
    row.col(|ui| {
        ui.label(format!("{}/{}", t.outcomes[0], t.finished()));
    });
    row.col(|ui| {
        ui.label(t.mean_ms.to_string());
    });
    row.col(|ui| {
        if t.flagged > 0 {
            ui.label(RichText::new(format!("⚑ {}", t.flagged)).color(tokens.flag));
        }
    });
    row.col(|ui| {
        ui.label(t.detail(stats, true));
    });
    row.response().on_hover_text(t.detail(stats, false));
}

/// The task's samples as one bar split by outcome.
fn outcome_bar(ui: &mut egui::Ui, tokens: Tokens, t: &TaskRow) -> egui::Response {
    let height = ui.text_style_height(&egui::TextStyle::Body) * 0.8;
    let (rect, response) = ui.allocate_exact_size(egui::vec2(110.0, height), Sense::hover());
    let total = (t.finished() + t.pending).max(1) as f32;
    let mut x = rect.left();
    let segments = Outcome::ALL
        .iter()
        .map(|o| (t.outcomes[o.index()], tokens.outcome(*o)))
        .chain([(t.pending, tokens.weak.gamma_multiply(0.4))]);
    for (count, color) in segments.filter(|(n, _)| *n > 0) {
        let width = rect.width() * count as f32 / total;
        let segment =
            egui::Rect::from_min_size(egui::pos2(x, rect.top()), egui::vec2(width, rect.height()));
        ui.painter().rect_filled(segment, 0.0, color);
        x += width;
    }
    response
}

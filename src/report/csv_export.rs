//! CSV exports (RFC 4180 through the `csv` crate): one row per candidate (its
//! flags space-separated, why it failed in a line, `true` when a kept
//! edit by hand replaced its result), one row per task
//! with a pass@k column for each requested k, one row per k for the data set
//! (pass@k with its 95% interval), and one row per failure cause.

use super::ExportError;
use crate::store::Store;

/// Column names of the per-candidate CSV.
pub const CANDIDATE_COLUMNS: [&str; 12] = [
    "task_id",
    "sample",
    "outcome",
    "score",
    "passed",
    "total",
    "duration_ms",
    "detail",
    "per_assertion",
    "flags",
    "failure",
    "edited",
];

/// The bytes of a CSV filled by `fill`.
pub(super) fn to_bytes(
    fill: impl FnOnce(&mut csv::Writer<Vec<u8>>) -> csv::Result<()>,
) -> Result<Vec<u8>, ExportError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    fill(&mut w).map_err(ExportError::encode)?;
    w.into_inner()
        .map_err(|e| ExportError::encode(e.into_error()))
}

/// The per-candidate CSV of finished candidates, as bytes.
pub fn candidates_csv(store: &Store) -> Result<Vec<u8>, ExportError> {
    to_bytes(|w| {
        w.write_record(CANDIDATE_COLUMNS)?;
        for c in &store.candidates {
            let Some(r) = &c.result else { continue };
            let marks: String = r
                .per_assertion
                .iter()
                .map(|p| if *p { '1' } else { '0' })
                .collect();
            w.write_record([
                store.task_id(c).to_owned(),
                c.sample.to_string(),
                r.outcome.as_str().to_owned(),
                format!("{:.4}", r.score),
                r.passed.to_string(),
                r.total.to_string(),
                r.duration_ms.to_string(),
                r.detail.clone(),
                marks,
                r.flags.join(" "),
                r.failure.as_ref().map(|f| f.summary()).unwrap_or_default(),
                if r.edited { "true" } else { "" }.to_owned(),
            ])?;
        }
        Ok(())
    })
}

/// The per-task CSV (task_id, n, c, mean_score, pass@k...), as bytes. A k that is
/// undefined for a task (k > n) is an empty cell.
pub fn tasks_csv(store: &Store, ks: &[usize]) -> Result<Vec<u8>, ExportError> {
    to_bytes(|w| {
        let mut header: Vec<String> = ["task_id", "n", "c", "mean_score"]
            .map(String::from)
            .to_vec();
        header.extend(ks.iter().map(|k| format!("pass@{k}")));
        w.write_record(&header)?;
        for t in store.task_stats(ks) {
            let mut row = vec![
                t.task_id,
                t.n.to_string(),
                t.c.to_string(),
                format!("{:.4}", t.mean_score),
            ];
            row.extend(ks.iter().map(|k| {
                t.pass_at_k
                    .get(k)
                    .map(|v| format!("{v:.4}"))
                    .unwrap_or_default()
            }));
            w.write_record(&row)?;
        }
        Ok(())
    })
}

/// The data-set CSV: one row per k with pass@k, its 95% bootstrap interval and
/// the number of tasks it is averaged over (those with n >= k); ks undefined
/// for every task are left out.
pub fn summary_csv(store: &Store, ks: &[usize]) -> Result<Vec<u8>, ExportError> {
    let summary = store.summary(ks);
    let intervals = store.intervals(ks);
    let counts = store.counts();
    to_bytes(|w| {
        w.write_record(["k", "pass_at_k", "ci95_low", "ci95_high", "tasks"])?;
        for (k, v) in &summary.pass_at_k {
            let (lo, hi) = intervals.get(k).copied().unwrap_or((*v, *v));
            let tasks = counts.iter().filter(|&&(n, _)| n >= *k).count();
            w.write_record([
                k.to_string(),
                format!("{v:.4}"),
                format!("{lo:.4}"),
                format!("{hi:.4}"),
                tasks.to_string(),
            ])?;
        }
        Ok(())
    })
}

/// The failure causes, by count: signature, outcome, candidates, tasks, share
/// of the failures, and an example (task id and sample).
pub fn causes_csv(store: &Store) -> Result<Vec<u8>, ExportError> {
    let causes = store.causes();
    let failures = crate::store::Cause::failures(&causes);
    to_bytes(|w| {
        w.write_record([
            "signature",
            "outcome",
            "candidates",
            "tasks",
            "share",
            "example_task_id",
            "example_sample",
        ])?;
        for c in &causes {
            w.write_record([
                c.signature.clone(),
                c.outcome.as_str().to_owned(),
                c.candidates.to_string(),
                c.tasks.to_string(),
                format!("{:.4}", c.candidates as f64 / failures.max(1) as f64),
                c.example.task_id.clone(),
                c.example.sample.to_string(),
            ])?;
        }
        Ok(())
    })
}

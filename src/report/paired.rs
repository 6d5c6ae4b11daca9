//! Paired comparison of two runs over the tasks both have: for each k both
//! report, the difference of pass@k (B − A), a 95% paired bootstrap interval
//! over tasks and a two-sided p-value from a paired permutation test (the A
//! and B labels of each task swapped at random). Both are seeded, so the same
//! runs always give the same figures.

use serde::Serialize;

use super::Comparison;
use crate::passk::{self, SplitMix64};

/// Resamples of the bootstrap and of the permutation test.
pub const PAIRED_RESAMPLES: usize = 10_000;
/// Their seed.
pub const PAIRED_SEED: u64 = 0x9a1e_d0c0_ffee_5eed;
/// The significance level the verdict in words uses.
pub const ALPHA: f64 = 0.05;

/// The paired comparison at one k.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paired {
    /// The k.
    pub k: usize,
    /// Tasks both runs have with at least k samples each.
    pub tasks: usize,
    /// A's pass@k over those tasks.
    pub a: f64,
    /// B's pass@k over those tasks.
    pub b: f64,
    /// `b - a`.
    pub difference: f64,
    /// 95% paired bootstrap interval of the difference.
    pub ci95: (f64, f64),
    /// Two-sided p-value of the paired permutation test.
    pub p_value: f64,
    /// Resamples of each.
    pub resamples: usize,
}

impl Paired {
    /// Whether the difference is distinguishable from noise at [`ALPHA`].
    pub fn significant(&self) -> bool {
        self.p_value < ALPHA
    }

    /// The verdict in words.
    pub fn verdict(&self) -> String {
        if self.significant() {
            format!(
                "B is {} than A at pass@{}: the difference is distinguishable from noise at {ALPHA} (p = {:.4})",
                if self.difference > 0.0 {
                    "better"
                } else {
                    "worse"
                },
                self.k,
                self.p_value
            )
        } else {
            format!(
                "no distinguishable difference at pass@{} (p = {:.4} >= {ALPHA}): the difference could be noise",
                self.k, self.p_value
            )
        }
    }
}

impl Comparison {
    /// The paired comparison at every k both runs report.
    pub fn paired(&self) -> Vec<Paired> {
        self.pass_at_k
            .iter()
            .filter(|(_, (a, b))| a.is_some() && b.is_some())
            .filter_map(|(&k, _)| {
                let (a, b): (Vec<f64>, Vec<f64>) = self
                    .tasks
                    .iter()
                    .filter_map(|t| {
                        let ((na, ca, _), (nb, cb, _)) = (t.a?, t.b?);
                        Some((passk::pass_at_k(na, ca, k)?, passk::pass_at_k(nb, cb, k)?))
                    })
                    .unzip();
                paired_test(&a, &b, PAIRED_RESAMPLES, PAIRED_SEED).map(
                    |(difference, ci95, p_value)| Paired {
                        k,
                        tasks: a.len(),
                        a: mean(&a),
                        b: mean(&b),
                        difference,
                        ci95,
                        p_value,
                        resamples: PAIRED_RESAMPLES,
                    },
                )
            })
            .collect()
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The paired difference `mean(b) - mean(a)` of per-task values, its 95%
/// bootstrap interval (tasks resampled with replacement) and the two-sided
/// p-value of the permutation test that swaps each task's pair at random;
/// `None` without tasks.
pub fn paired_test(
    a: &[f64],
    b: &[f64],
    resamples: usize,
    seed: u64,
) -> Option<(f64, (f64, f64), f64)> {
    if a.is_empty() || a.len() != b.len() || resamples == 0 {
        return None;
    }
    let t = a.len();
    let d: Vec<f64> = b.iter().zip(a).map(|(b, a)| b - a).collect();
    let difference = mean(b) - mean(a);
    let mut rng = SplitMix64(seed);
    let ci95 = passk::bootstrap_mean(&d, resamples, &mut rng)?;
    // Ties count as at least as extreme (a rounding error's worth of slack),
    // so identical runs give p = 1.
    let observed = mean(&d).abs() - 1e-12;
    let mut extreme = 0usize;
    for _ in 0..resamples {
        let mut sum = 0.0;
        let mut bits = 0u64;
        for (i, v) in d.iter().enumerate() {
            if i % 64 == 0 {
                bits = rng.next_u64();
            }
            sum += if bits & 1 == 1 { -v } else { *v };
            bits >>= 1;
        }
        if (sum / t as f64).abs() >= observed {
            extreme += 1;
        }
    }
    let p_value = (extreme + 1) as f64 / (resamples + 1) as f64;
    Some((difference, ci95, p_value))
}

/// The `format` value of `compare --json` files.
pub const COMPARE_FORMAT: &str = "execscope-compare/1";

/// A comparison's figures as `compare --json` writes them.
#[derive(Serialize)]
struct CompareRecord<'a> {
    format: &'static str,
    /// pass@k by k: `[A, B]`, `null` where a run does not report that k.
    pass_at_k: &'a std::collections::BTreeMap<usize, (Option<f64>, Option<f64>)>,
    mean_score: (f64, f64),
    flagged: (usize, usize),
    /// Tasks per change (`improved`, `regressed`, `unchanged`, `only_a`, `only_b`).
    changes: std::collections::BTreeMap<&'static str, usize>,
    /// The paired comparison at each k both runs report.
    paired: Vec<Paired>,
    resamples: usize,
    seed: u64,
    /// Candidates both runs judged (same task id and sample).
    matched: usize,
    /// How outcomes were compared (see [`super::Audit`]).
    compared_as: &'static str,
    /// How many candidates the runs judged differently, and which.
    disagreement_count: usize,
    disagreements: &'a [super::Disagreement],
}

/// The JSON of `cmp` (the keys are listed in the README).
pub(super) fn compare_json(cmp: &Comparison) -> Result<Vec<u8>, super::ExportError> {
    let record = CompareRecord {
        format: COMPARE_FORMAT,
        pass_at_k: &cmp.pass_at_k,
        mean_score: cmp.mean_score,
        flagged: cmp.flagged,
        changes: cmp
            .counts()
            .into_iter()
            .map(|(c, n)| (c.as_str(), n))
            .collect(),
        paired: cmp.paired(),
        resamples: PAIRED_RESAMPLES,
        seed: PAIRED_SEED,
        matched: cmp.audit.matched,
        compared_as: cmp.audit.compared_as,
        disagreement_count: cmp.audit.disagreements.len(),
        disagreements: &cmp.audit.disagreements,
    };
    let mut out = serde_json::to_vec_pretty(&record).map_err(super::ExportError::encode)?;
    out.push(b'\n');
    Ok(out)
}

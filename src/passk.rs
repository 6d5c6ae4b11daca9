//! The unbiased pass@k estimator (Chen et al., 2021) in its numerically stable
//! product form, data-set aggregation and the curve across k.

/// pass@k for one task with `n` samples of which `c` passed:
/// `1 - C(n-c, k) / C(n, k)`, computed as `1 - prod_{i=n-c+1}^{n} (1 - k/i)`.
///
/// `None` when `k` is 0 or larger than `n` (undefined, never reported as a number);
/// 1 when `n - c < k`.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    if k == 0 || k > n {
        return None;
    }
    let c = c.min(n);
    if n - c < k {
        return Some(1.0);
    }
    let kf = k as f64;
    let prod: f64 = ((n - c + 1)..=n).map(|i| 1.0 - kf / i as f64).product();
    Some(1.0 - prod)
}

/// The data set's pass@k: the mean over tasks with `n >= k` of their pass@k, given
/// `(n, c)` per task. `None` when no task has `k` samples.
pub fn dataset_pass_at_k(counts: &[(usize, usize)], k: usize) -> Option<f64> {
    let values: Vec<f64> = counts
        .iter()
        .filter_map(|&(n, c)| pass_at_k(n, c, k))
        .collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// The curve `(k, pass@k)` for k = 1..=min(n) over tasks that have samples.
pub fn curve(counts: &[(usize, usize)]) -> Vec<(usize, f64)> {
    let Some(min_n) = counts.iter().map(|&(n, _)| n).filter(|&n| n > 0).min() else {
        return Vec::new();
    };
    (1..=min_n)
        .filter_map(|k| dataset_pass_at_k(counts, k).map(|v| (k, v)))
        .collect()
}

/// Resamples drawn for a bootstrap interval.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;
/// The seed of the bootstrap, fixed so intervals are reproducible.
pub const BOOTSTRAP_SEED: u64 = 0x5eed_e8ec_5c0b_e000;

/// A 95% bootstrap interval for the data set's pass@k: tasks (with `n >= k`) are
/// resampled with replacement `resamples` times with a seeded generator, and the
/// 2.5th and 97.5th percentiles of the resampled means are returned. `None` when
/// no task has `k` samples.
pub fn bootstrap_interval(
    counts: &[(usize, usize)],
    k: usize,
    resamples: usize,
    seed: u64,
) -> Option<(f64, f64)> {
    let values: Vec<f64> = counts
        .iter()
        .filter_map(|&(n, c)| pass_at_k(n, c, k))
        .collect();
    bootstrap_mean(&values, resamples, &mut SplitMix64(seed))
}

/// The 2.5th and 97.5th percentiles of the means of `resamples` resamples of
/// `values` (with replacement) drawn from `rng`; `None` without values.
pub fn bootstrap_mean(
    values: &[f64],
    resamples: usize,
    rng: &mut SplitMix64,
) -> Option<(f64, f64)> {
    if values.is_empty() || resamples == 0 {
        return None;
    }
    let t = values.len();
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| (0..t).map(|_| values[rng.below(t)]).sum::<f64>() / t as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((q * (resamples - 1) as f64).round() as usize).min(resamples - 1)];
    Some((at(0.025), at(0.975)))
}

/// A small, seedable generator (SplitMix64), enough for resampling.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// The k values reported by default: 1, 10 and 100 where some task has that many
/// samples.
pub fn default_ks(max_n: usize) -> Vec<usize> {
    [1, 10, 100]
        .into_iter()
        .filter(|&k| k <= max_n.max(1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn matches_hand_computed_binomials() {
        // n=5, c=2, k=1: 1 - C(3,1)/C(5,1) = 1 - 3/5 = 0.4
        assert!(close(pass_at_k(5, 2, 1).unwrap(), 0.4));
        // n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10 = 0.7
        assert!(close(pass_at_k(5, 2, 2).unwrap(), 0.7));
        // n=10, c=3, k=5: 1 - C(7,5)/C(10,5) = 1 - 21/252
        assert!(close(pass_at_k(10, 3, 5).unwrap(), 1.0 - 21.0 / 252.0));
        // n=200, c=1, k=1 = 1/200
        assert!(close(pass_at_k(200, 1, 1).unwrap(), 0.005));
    }

    #[test]
    fn is_one_when_every_draw_must_contain_a_pass() {
        assert_eq!(pass_at_k(5, 5, 1), Some(1.0));
        assert_eq!(pass_at_k(5, 5, 5), Some(1.0));
        assert_eq!(pass_at_k(5, 3, 3), Some(1.0));
    }

    #[test]
    fn is_zero_without_passes_and_undefined_beyond_n() {
        assert_eq!(pass_at_k(5, 0, 3), Some(0.0));
        assert_eq!(pass_at_k(5, 2, 6), None);
        assert_eq!(pass_at_k(5, 2, 0), None);
        assert_eq!(pass_at_k(0, 0, 1), None);
    }

    #[test]
    fn stays_accurate_for_large_n() {
        // C(n-c,k)/C(n,k) overflows as a ratio of factorials; the product does not.
        let v = pass_at_k(1000, 10, 100).unwrap();
        let exact: f64 = (0..10)
            .map(|i| (900.0 - i as f64) / (1000.0 - i as f64))
            .product();
        assert!((v - (1.0 - exact)).abs() < 1e-12, "{v}");
    }

    #[test]
    fn bootstrap_intervals_are_reproducible_and_contain_the_estimate() {
        let counts: Vec<(usize, usize)> = (0..50).map(|i| (10, i % 11)).collect();
        let est = dataset_pass_at_k(&counts, 1).unwrap();
        let (lo, hi) = bootstrap_interval(&counts, 1, 2000, 7).unwrap();
        assert!(lo < est && est < hi, "{lo} {est} {hi}");
        assert_eq!(bootstrap_interval(&counts, 1, 2000, 7), Some((lo, hi)));
        assert_ne!(bootstrap_interval(&counts, 1, 2000, 8), Some((lo, hi)));
        // Identical tasks leave nothing to resample: a zero-width interval.
        let (zlo, zhi) = bootstrap_interval(&[(5, 2); 20], 2, 500, 1).unwrap();
        assert!(close(zlo, 0.7) && close(zhi, 0.7), "{zlo} {zhi}");
        assert_eq!(bootstrap_interval(&counts, 11, 100, 1), None);
        // More tasks, a narrower interval.
        let many: Vec<(usize, usize)> = (0..2000).map(|i| (10, i % 11)).collect();
        let (mlo, mhi) = bootstrap_interval(&many, 1, 2000, 7).unwrap();
        assert!(mhi - mlo < (hi - lo) / 3.0, "{mlo}..{mhi} vs {lo}..{hi}");
    }

    #[test]
    fn data_set_mean_skips_tasks_with_too_few_samples() {
        let counts = [(10, 5), (10, 0), (3, 3)];
        assert!(close(
            dataset_pass_at_k(&counts, 1).unwrap(),
            (0.5 + 0.0 + 1.0) / 3.0
        ));
        let p5 = pass_at_k(10, 5, 5).unwrap();
        assert!(close(dataset_pass_at_k(&counts, 5).unwrap(), p5 / 2.0));
        assert_eq!(dataset_pass_at_k(&counts, 11), None);
        assert_eq!(curve(&counts).len(), 3);
        assert_eq!(default_ks(10), vec![1, 10]);
        assert_eq!(default_ks(1), vec![1]);
    }
}

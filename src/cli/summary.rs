//! The progress bar on stderr and the summary table on stdout.

use std::io::Write;
use std::time::Duration;

use execscope::sandbox::{Interpreter, Outcome};
use execscope::store::Store;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// One factory for the run's progress bar (hidden with `--quiet` or when stderr
/// is not a terminal).
pub fn progress_bar(total: u64, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(total),
        if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        },
    );
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {pos}/{len} {per_sec} ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Prints outcome counts, mean score and pass@k.
pub fn print(
    store: &Store,
    ks: &[usize],
    elapsed: Duration,
    python: &Interpreter,
) -> std::io::Result<()> {
    let s = store.summary(ks);
    let mut out = std::io::stdout().lock();
    let secs = elapsed.as_secs_f64();
    writeln!(
        out,
        "{} candidates from {} tasks in {:.1} s ({:.0} candidates/s), python {}",
        s.candidates,
        store.tasks.len(),
        secs,
        if secs > 0.0 {
            s.candidates as f64 / secs
        } else {
            0.0
        },
        python.version
    )?;
    writeln!(out)?;
    writeln!(out, "{:<16}{:>8}{:>9}", "outcome", "count", "share")?;
    for o in Outcome::ALL {
        let n = s.outcomes.get(&o).copied().unwrap_or(0);
        let share = if s.candidates > 0 {
            100.0 * n as f64 / s.candidates as f64
        } else {
            0.0
        };
        writeln!(out, "{:<16}{:>8}{:>8.1}%", o.as_str(), n, share)?;
    }
    writeln!(out)?;
    writeln!(out, "{:<16}{:>8.4}", "mean score", s.mean_score)?;
    let intervals = store.intervals(ks);
    for k in ks {
        match s.pass_at_k.get(k) {
            Some(v) => match intervals.get(k) {
                Some((lo, hi)) => writeln!(
                    out,
                    "{:<16}{:>8.4}   95% CI [{lo:.4}, {hi:.4}]",
                    format!("pass@{k}"),
                    v
                )?,
                None => writeln!(out, "{:<16}{:>8.4}", format!("pass@{k}"), v)?,
            },
            None => writeln!(out, "{:<16}{:>8}", format!("pass@{k}"), "n/a")?,
        }
    }
    Ok(())
}

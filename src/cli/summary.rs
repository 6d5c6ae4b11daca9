//! The progress bar on stderr and the summary table on stdout.

use std::io::Write;
use std::time::Duration;

use execscope::sandbox::{Interpreter, Outcome};
use execscope::store::{Cause, Store};
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
        let share = s.share(o);
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
    if let Some(line) = s.flagged_line() {
        writeln!(out)?;
        writeln!(out, "{line}")?;
    }
    for line in s.caveats.warnings() {
        writeln!(out)?;
        writeln!(out, "warning: {line}")?;
    }
    if let Some(line) = execscope::store::edited_line(store.edited()) {
        writeln!(out)?;
        writeln!(out, "warning: {line}")?;
    }
    print_causes(&mut out, store)
}

/// The five most common failure causes, with their share of the failures.
fn print_causes(out: &mut impl Write, store: &Store) -> std::io::Result<()> {
    let causes = store.causes();
    let failures = Cause::failures(&causes);
    if failures == 0 {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(
        out,
        "top failure causes ({} causes of {failures} failures):",
        causes.len()
    )?;
    for c in causes.iter().take(5) {
        writeln!(
            out,
            "{:>6} {:>5.1}% {:>4} task{}  {}",
            c.candidates,
            c.percent_of(failures),
            c.tasks,
            if c.tasks == 1 { " " } else { "s" },
            execscope::sandbox::printable(&c.signature)
        )?;
    }
    Ok(())
}

/// `execscope merge`: joins the partial run files of a sharded run.
pub fn merge(
    parts: &[std::path::PathBuf],
    output: &std::path::Path,
    k: Option<&[u32]>,
) -> anyhow::Result<std::process::ExitCode> {
    use execscope::report::{self, RunFile};
    let mut loaded = Vec::with_capacity(parts.len());
    for path in parts {
        let run = RunFile::load_lean(path).map_err(|e| super::BadInput(e.to_string()))?;
        loaded.push((path.clone(), run));
    }
    // The ks are chosen from the whole run, not from one part's n.
    let max_n = {
        let mut n: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (_, run) in &loaded {
            for c in &run.candidates {
                *n.entry(c.task_id.as_str()).or_default() += 1;
            }
        }
        n.values().copied().max().unwrap_or(0)
    };
    let ks: Vec<usize> = match k {
        Some(ks) => ks.iter().map(|&k| k as usize).collect(),
        None => execscope::passk::default_ks(max_n),
    };
    let merged = report::merge(loaded, &ks).map_err(|e| super::BadInput(e.to_string()))?;
    merged.save(output)?;
    let python = execscope::sandbox::Interpreter {
        executable: merged.python.executable.clone().into(),
        version: merged.python.version.clone(),
        sys_path: Vec::new(),
        harness_code: Default::default(),
        candidate_code: Default::default(),
    };
    let elapsed = std::time::Duration::from_secs_f64(merged.summary.elapsed_s);
    print(&merged.into_store(), &ks, elapsed, &python)?;
    eprintln!(
        "execscope: {} parts merged into {}",
        parts.len(),
        output.display()
    );
    Ok(std::process::ExitCode::SUCCESS)
}

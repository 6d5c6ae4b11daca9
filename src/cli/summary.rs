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
    Ok(())
}

/// `execscope compare A B`: pass@k side by side, then the tasks that changed.
pub fn compare(
    a: &std::path::Path,
    b: &std::path::Path,
    csv: Option<&std::path::Path>,
) -> anyhow::Result<std::process::ExitCode> {
    use execscope::report::{Change, Comparison, Export, Outputs, RunFile, Source};
    let outputs = Outputs::prepare(csv.map(|p| (Export::Changes, p.to_path_buf())))
        .map_err(|e| super::BadInput(e.to_string()))?;
    let load = |p: &std::path::Path| RunFile::load(p).map_err(|e| super::BadInput(e.to_string()));
    let (ra, rb) = (load(a)?, load(b)?);
    let cmp = Comparison::new(&ra, &rb);
    let mut out = std::io::stdout().lock();
    writeln!(out, "A: {}\nB: {}\n", a.display(), b.display())?;
    writeln!(out, "{:<16}{:>10}{:>10}{:>10}", "", "A", "B", "B - A")?;
    let (ma, mb) = cmp.mean_score;
    writeln!(
        out,
        "{:<16}{ma:>10.4}{mb:>10.4}{:>+10.4}",
        "mean score",
        mb - ma
    )?;
    for (k, (va, vb)) in &cmp.pass_at_k {
        let show = |v: &Option<f64>| v.map(|v| format!("{v:.4}")).unwrap_or_else(|| "n/a".into());
        let delta = match (va, vb) {
            (Some(x), Some(y)) => format!("{:+.4}", y - x),
            _ => String::new(),
        };
        writeln!(
            out,
            "{:<16}{:>10}{:>10}{delta:>10}",
            format!("pass@{k}"),
            show(va),
            show(vb)
        )?;
    }
    let (fa, fb) = cmp.flagged;
    writeln!(
        out,
        "{:<16}{fa:>10}{fb:>10}{:>+10}",
        "flagged",
        fb as i64 - fa as i64
    )?;
    writeln!(out)?;
    let counts = cmp.counts();
    for change in [
        Change::Improved,
        Change::Regressed,
        Change::Unchanged,
        Change::OnlyA,
        Change::OnlyB,
    ] {
        writeln!(
            out,
            "{:<16}{:>10}",
            change.as_str(),
            counts.get(&change).copied().unwrap_or(0)
        )?;
    }
    for change in [Change::Regressed, Change::Improved] {
        let tasks: Vec<&str> = cmp
            .tasks
            .iter()
            .filter(|t| t.change == change)
            .map(|t| t.task_id.as_str())
            .collect();
        if !tasks.is_empty() {
            writeln!(out, "\n{} ({}):", change.as_str(), tasks.len())?;
            for t in cmp.tasks.iter().filter(|t| t.change == change) {
                let (a, b) = (t.a.unwrap_or_default(), t.b.unwrap_or_default());
                writeln!(
                    out,
                    "  {:<24} passes {}/{} -> {}/{}, mean score {:.2} -> {:.2}",
                    t.task_id, a.1, a.0, b.1, b.0, a.2, b.2
                )?;
            }
        }
    }
    let no_results = Store::default();
    let source = Source {
        changes: Some(&cmp),
        ..Source::of_store(&no_results, &[])
    };
    for (export, path, result) in outputs.write_all(&source) {
        result?;
        eprintln!("execscope: {} written to {}", export.what(), path.display());
    }
    Ok(std::process::ExitCode::SUCCESS)
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
        let run = RunFile::load(path).map_err(|e| super::BadInput(e.to_string()))?;
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
    let merged = report::merge(&loaded, &ks).map_err(|e| super::BadInput(e.to_string()))?;
    merged.save(output)?;
    let python = execscope::sandbox::Interpreter {
        executable: merged.python.executable.clone().into(),
        version: merged.python.version.clone(),
        sys_path: Vec::new(),
        harness_code: Default::default(),
    };
    let store = merged.to_store();
    print(
        &store,
        &ks,
        std::time::Duration::from_secs_f64(merged.summary.elapsed_s),
        &python,
    )?;
    eprintln!(
        "execscope: {} parts merged into {}",
        parts.len(),
        output.display()
    );
    Ok(std::process::ExitCode::SUCCESS)
}

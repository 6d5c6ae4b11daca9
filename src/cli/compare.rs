//! `execscope compare A B`: pass@k side by side, the paired difference with its
//! interval and p-value, the tasks that changed, then the candidates the two
//! runs judged differently (the verdict audit).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use execscope::report::{Change, Comparison, Export, Outputs, RunFile, Source};
use execscope::store::Store;

use super::BadInput;

pub fn compare(
    a: &Path,
    b: &Path,
    csv: Option<&Path>,
    json: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let planned: Vec<(Export, PathBuf)> = [(Export::Changes, csv), (Export::CompareJson, json)]
        .into_iter()
        .filter_map(|(e, p)| p.map(|p| (e, p.to_path_buf())))
        .collect();
    let outputs = Outputs::prepare(planned).map_err(|e| BadInput(e.to_string()))?;
    let load = |p: &Path| RunFile::load_lean(p).map_err(|e| BadInput(e.to_string()));
    let (ra, rb) = (load(a)?, load(b)?);
    let cmp = Comparison::new(&ra, &rb);
    let mut out = std::io::stdout().lock();
    writeln!(out, "A: {}\nB: {}\n", a.display(), b.display())?;
    figures(&mut out, &cmp)?;
    paired(&mut out, &cmp)?;
    changes(&mut out, &cmp)?;
    audit(&mut out, &cmp)?;
    let no_results = Store::default();
    let source = Source {
        changes: Some(&cmp),
        ..Source::of_store(&no_results, &[])
    };
    for (export, path, result) in outputs.write_all(&source) {
        result?;
        eprintln!("execscope: {} written to {}", export.what(), path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// pass@k, mean score and flags side by side, and the causes that changed.
fn figures(out: &mut impl Write, cmp: &Comparison) -> std::io::Result<()> {
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
    if !cmp.causes.is_empty() {
        writeln!(out, "failure causes that grew or shrank (A -> B):")?;
        for c in cmp.causes.iter().take(8) {
            writeln!(out, "  {:>18}  {}", c.arrow(), c.signature)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// The paired difference over shared tasks at each k both runs report.
fn paired(out: &mut impl Write, cmp: &Comparison) -> std::io::Result<()> {
    let paired = cmp.paired();
    if paired.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "paired over shared tasks (95% bootstrap interval, permutation test, {} resamples each):",
        execscope::report::PAIRED_RESAMPLES
    )?;
    for p in &paired {
        writeln!(
            out,
            "  pass@{:<4} {} tasks: A {:.4}, B {:.4}, B - A {:+.4}  95% CI [{:+.4}, {:+.4}]  p = {:.4}",
            p.k, p.tasks, p.a, p.b, p.difference, p.ci95.0, p.ci95.1, p.p_value
        )?;
        writeln!(out, "  {}", p.verdict())?;
    }
    writeln!(out)
}

/// How many tasks changed each way, then the changed ones.
fn changes(out: &mut impl Write, cmp: &Comparison) -> std::io::Result<()> {
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
    Ok(())
}

/// The verdict audit: how many candidates both runs judged, and each one
/// they judged differently (the first 20).
fn audit(out: &mut impl Write, cmp: &Comparison) -> std::io::Result<()> {
    let audit = &cmp.audit;
    writeln!(
        out,
        "\nverdicts: {} candidates in both, compared as {}: {} disagreements",
        audit.matched,
        audit.compared_as,
        audit.disagreements.len()
    )?;
    for d in audit.disagreements.iter().take(20) {
        let which = if d.verdict == "base" {
            " (base tests)"
        } else {
            ""
        };
        writeln!(
            out,
            "  {} #{}{which}: A {}, B {}",
            d.task_id, d.sample, d.a, d.b
        )?;
    }
    if audit.disagreements.len() > 20 {
        writeln!(out, "  ... (all of them in --json)")?;
    }
    Ok(())
}

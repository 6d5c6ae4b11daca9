//! `execscope calibrate`: time every task's reference on this machine, list
//! the tasks at risk, suggest a timeout for each, write them for `run
//! --timeouts`.

use std::io::Write;
use std::process::ExitCode;

use execscope::calibrate::{AT_RISK_SHARE, Calibration, RULE};
use execscope::plan::Plan;
use execscope::report::{check_writable, write_atomic};
use execscope::sandbox::Interpreter;

use super::{BadInput, CalibrateArgs, load, run};

pub fn calibrate(args: &CalibrateArgs) -> anyhow::Result<ExitCode> {
    let mut run_args = args.run.clone();
    if run_args.tasks.is_none() {
        return Err(BadInput("calibrate needs --tasks".into()).into());
    }
    let others = [&run_args.csv, &run_args.task_csv, &run_args.summary_csv]
        .into_iter()
        .chain([
            &run_args.results_jsonl,
            &run_args.markdown,
            &run_args.timeouts,
        ]);
    if others.into_iter().any(Option::is_some) || run_args.shard.is_some() || run_args.resume {
        return Err(BadInput("calibrate writes only --json (the calibration file)".into()).into());
    }
    // The tasks' own references, unless --generations names others.
    run_args.reference |= run_args.generations.is_none();
    let (tasks, gens) = load::inputs(&run_args)?;
    let plan = Plan::build(&tasks, &gens);
    load::check_plan(&plan, run_args.allow_bad_tasks)?;
    if let Some(path) = &run_args.json {
        // Fail before the runs, not after.
        check_writable(path).map_err(|e| BadInput(e.to_string()))?;
    }
    let python = Interpreter::resolve(&run_args.python)?;
    let settings = run::settings(&run_args).run_settings();
    eprintln!(
        "execscope: timing {} reference(s) {} time(s) each, python {}",
        plan.jobs.len(),
        args.repeat,
        python.version
    );
    let calibration =
        Calibration::measure(&plan, &tasks.path, args.repeat as usize, &python, &settings)?;
    print(&calibration)?;
    if let Some(path) = &run_args.json {
        write_atomic(path, &calibration.to_json()?)?;
        eprintln!("execscope: calibration written to {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The at-risk tasks in full, then a line for the others.
fn print(calibration: &Calibration) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let at_risk: Vec<_> = calibration.at_risk().collect();
    writeln!(
        out,
        "{} tasks timed, {} at risk on this machine (the reference fails, times out, or needs more than {:.0}% of its timeout)\n",
        calibration.tasks.len(),
        at_risk.len(),
        AT_RISK_SHARE * 100.0
    )?;
    writeln!(
        out,
        "{:<24}{:>11}{:>11}{:>10}{:>10}{:>9}{:>11}  why",
        "task", "wall med", "wall max", "cpu med", "cpu max", "share", "suggested"
    )?;
    let ms = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.0} ms"));
    let shown = if at_risk.is_empty() { 5 } else { at_risk.len() };
    for t in calibration.tasks.iter().take(shown) {
        writeln!(
            out,
            "{:<24}{:>11}{:>11}{:>10}{:>10}{:>8.0}%{:>9.1} s  {}",
            t.task_id,
            ms(Some(t.median_wall_ms)),
            ms(Some(t.worst_wall_ms)),
            ms(t.median_cpu_ms),
            ms(t.worst_cpu_ms),
            t.share * 100.0,
            t.suggested_timeout_s,
            t.at_risk.as_deref().unwrap_or("")
        )?;
    }
    if calibration.tasks.len() > shown {
        writeln!(
            out,
            "... {} more, each under {:.0}% of its timeout",
            calibration.tasks.len() - shown,
            AT_RISK_SHARE * 100.0
        )?;
    }
    writeln!(out, "\nsuggested timeout: {RULE}")
}

//! `execscope show RUN.json TASK [SAMPLE]`: why candidates failed, in a
//! terminal, in doctest's Expected/Got form. What the candidate wrote is
//! printed with its control characters escaped.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use execscope::report::{CandidateRow, RunFile};
use execscope::sandbox::{Outcome, printable};

use super::BadInput;

pub fn show(run: &Path, task: &str, sample: Option<usize>) -> anyhow::Result<ExitCode> {
    // A big run keeps its programs in the file: read back only those shown.
    let file = RunFile::load_lean(run).map_err(|e| BadInput(e.to_string()))?;
    let rows: Vec<CandidateRow> = file
        .candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.task_id == task && sample.is_none_or(|s| c.sample == s))
        .map(|(i, c)| {
            let mut row = c.clone();
            if let Some(texts) = &file.texts {
                let texts = texts.row(i).map_err(BadInput)?;
                row.code = texts.code.clone();
            }
            Ok(row)
        })
        .collect::<Result<_, BadInput>>()?;
    if rows.is_empty() {
        let what = match sample {
            Some(s) => format!("no sample {s} of task {task:?}"),
            None => format!("no task {task:?}"),
        };
        return Err(BadInput(format!("{}: {what} in the run", run.display())).into());
    }
    let mut out = std::io::stdout().lock();
    if let Some(source) = &file.source {
        writeln!(
            out,
            "read from {}'s {} (nothing re-run; unknown: {})\n",
            source.harness,
            source.layout,
            source.unknown.join(", ")
        )?;
    }
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_row(&mut out, row, file.source.is_none())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn write_row(out: &mut impl Write, row: &CandidateRow, counted: bool) -> std::io::Result<()> {
    // Another harness's result file records no assertion counts.
    let counts = if counted {
        format!(" ({}/{} assertions)", row.passed, row.total)
    } else {
        String::new()
    };
    writeln!(
        out,
        "{} sample {}: {}{counts}",
        printable(&row.task_id),
        row.sample,
        row.outcome.as_str(),
    )?;
    if let Some(base) = row.base {
        writeln!(out, "  base tests: {}", base.outcome.as_str())?;
    }
    if row.integrity == Some(execscope::sandbox::Integrity::InProcess) {
        writeln!(
            out,
            "  integrity: in-process (its unittest suite ran in the candidate's own process, which could have forged this verdict)"
        )?;
    }
    if row.outcome == Outcome::Pass {
        return Ok(());
    }
    match &row.failure {
        Some(failure) => {
            for line in failure.lines() {
                writeln!(out, "  {line}")?;
            }
            if let Some(n) = failure.program_line {
                let text = row.code.lines().nth((n as usize).saturating_sub(1));
                if let Some(text) = text {
                    writeln!(out, "  {n:>4} | {}", printable(text.trim_end()))?;
                }
            }
        }
        None => writeln!(out, "  {}", printable(&row.detail))?,
    }
    if let Some(overflow) = &row.overflow {
        writeln!(out, "  {}", overflow.describe())?;
    }
    Ok(())
}

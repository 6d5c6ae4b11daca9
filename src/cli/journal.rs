//! The journal of `execscope run --json RUN.json`: started with the run, or
//! read back and gone on from with `--resume`.

use execscope::plan::Plan;
use execscope::report::{Export, Journal, JournalHeader, Outputs, read_journal};
use execscope::resume::Resumption;

use super::{BadInput, RunArgs};

/// The journal to append to (none without a run file) and where the run
/// starts from.
pub fn open(
    args: &RunArgs,
    outputs: &Outputs,
    plan: &Plan,
    header: &JournalHeader,
) -> anyhow::Result<(Option<Journal>, Resumption)> {
    let Some(run_file) = outputs.path(Export::RunFile) else {
        return Ok((None, Resumption::fresh(plan)));
    };
    let path = Journal::path_for(run_file);
    let exists = path.exists();
    if args.resume && exists {
        let read = read_journal(&path).map_err(|e| BadInput(e.to_string()))?;
        let resumption =
            Resumption::from_journal(plan, &read, header).map_err(|e| BadInput(e.to_string()))?;
        if read.header.is_some() {
            let torn = match read.dropped.len() {
                0 => String::new(),
                n => format!(
                    "; {n} line(s) that did not read back dropped (line {}), their candidates run again",
                    join(&read.dropped)
                ),
            };
            eprintln!(
                "execscope: resuming from {}: {} of {} candidates judged already, {} to run{torn}",
                path.display(),
                resumption.judged,
                plan.jobs.len(),
                resumption.remaining().len()
            );
            return Ok((Some(Journal::resume(&read)?), resumption));
        }
        eprintln!(
            "execscope: {} holds no finished candidate (its first line is torn): starting from the beginning",
            path.display()
        );
    } else if args.resume {
        eprintln!(
            "execscope: no journal at {}: starting from the beginning",
            path.display()
        );
    } else if exists {
        eprintln!(
            "execscope: replacing the journal of an earlier, interrupted run at {} (run with --resume to go on from it instead)",
            path.display()
        );
    }
    Ok((
        Some(Journal::create(run_file, header)?),
        Resumption::fresh(plan),
    ))
}

fn join(lines: &[usize]) -> String {
    let shown: Vec<String> = lines.iter().take(5).map(usize::to_string).collect();
    let more = if lines.len() > 5 { ", ..." } else { "" };
    format!("{}{more}", shown.join(", "))
}

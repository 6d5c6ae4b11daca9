//! `execscope [FILE...]`: the desktop app, with the files given opened by
//! their content (a run file as a run, two run files as a comparison, a task
//! file and a generations file together), as the file manager's
//! `Exec=execscope %F` hands them over. The headless build has no window: it
//! prints a run file's summary, compares two, and says how to evaluate inputs.

use std::process::ExitCode;

use execscope::workbench::{Opening, opening};

use super::{BadInput, Cli};

/// What the files given open as; `None` when there are none (the flags or
/// the demo set decide).
fn opened_files(cli: &Cli) -> anyhow::Result<Option<Opening>> {
    if cli.files.is_empty() {
        return Ok(None);
    }
    let opening = opening(&cli.files).map_err(|e| BadInput(e.to_string()))?;
    Ok(Some(opening))
}

#[cfg(feature = "gui")]
pub fn desktop(cli: Cli) -> anyhow::Result<ExitCode> {
    use execscope::gui::Launch;
    let launch = match opened_files(&cli)? {
        Some(opening) => Launch::open(opening),
        None if cli.tasks.is_some() != cli.generations.is_some() => {
            return Err(BadInput(
                "--tasks and --generations go together (or give neither for the demo set)".into(),
            )
            .into());
        }
        None => Launch {
            tasks: cli.tasks,
            generations: cli.generations,
            ..Launch::default()
        },
    };
    if cli.run && !launch.can_run() {
        return Err(BadInput(
            "--run needs a task file and a generations file (a run file opens as it was saved)"
                .into(),
        )
        .into());
    }
    let screenshot = cli.screenshot.clone();
    // A screenshot of inputs waits for their run; of a run file, for its load.
    let run = cli.run || (screenshot.is_some() && launch.can_run());
    execscope::gui::run(Launch {
        run,
        screenshot: cli.screenshot,
        ..launch
    })?;
    if let Some(path) = screenshot {
        eprintln!("execscope: screenshot saved to {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "gui"))]
pub fn desktop(cli: Cli) -> anyhow::Result<ExitCode> {
    let opened = opened_files(&cli)?;
    if opened.is_some() && (cli.screenshot.is_some() || cli.run) {
        return Err(BadInput(
            "this is the headless build: no window to run in or to take a screenshot of".into(),
        )
        .into());
    }
    match opened {
        Some(Opening::Run(path)) => headless::summary(&path),
        Some(Opening::Compare { baseline, run }) => {
            super::compare::compare(&baseline, &run, None, None)
        }
        Some(Opening::Inputs { tasks, generations }) => {
            let flag = |name: &str, p: Option<std::path::PathBuf>| {
                p.map(|p| format!(" --{name} {}", p.display()))
                    .unwrap_or_else(|| format!(" --{name} …"))
            };
            Err(BadInput(format!(
                "this is the headless build (no desktop app); evaluate them with\n  \
                 execscope run{}{}",
                flag("tasks", tasks),
                flag("generations", generations)
            ))
            .into())
        }
        None => {
            eprintln!(
                "execscope: this is the headless build (no desktop app); evaluate with\n  \
                 execscope run [--tasks F --generations G]   (no files: the embedded demo set)"
            );
            Ok(ExitCode::from(2))
        }
    }
}

#[cfg(not(feature = "gui"))]
mod headless {
    use std::path::Path;
    use std::process::ExitCode;
    use std::time::Duration;

    use execscope::report::RunFile;
    use execscope::sandbox::Interpreter;

    use super::BadInput;

    /// Prints a run file's summary as `execscope run` prints it at the end.
    pub fn summary(path: &Path) -> anyhow::Result<ExitCode> {
        let run = RunFile::load_lean(path).map_err(|e| BadInput(e.to_string()))?;
        println!("{}", path.display());
        if let Some(source) = &run.source {
            println!(
                "read from {}'s {} (nothing re-run; unknown: {})",
                source.harness,
                source.layout,
                source.unknown.join(", ")
            );
        }
        let max_n = run.tasks.iter().map(|t| t.n).max().unwrap_or(0);
        let ks = execscope::passk::default_ks(max_n);
        let python = Interpreter {
            executable: run.python.executable.clone().into(),
            version: run.python.version.clone(),
            sys_path: Vec::new(),
            harness_code: Default::default(),
            candidate_code: Default::default(),
        };
        let elapsed = Duration::from_secs_f64(run.summary.elapsed_s);
        super::super::summary::print(&run.into_store(), &ks, elapsed, &python)?;
        Ok(ExitCode::SUCCESS)
    }
}

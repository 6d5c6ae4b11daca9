//! Slow work off the caller's thread: resolving the interpreter (it starts
//! Python twice), reading files (a 100 MB gzip takes seconds), timing
//! references and running an edited program. Each job runs
//! on a thread of its own and its result comes back through a channel; the
//! waker tells the app to look.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Baseline;
use crate::calibrate::Calibration;
use crate::engine::{RunSettings, Waker};
use crate::generations::{self, GenerationSet};
use crate::input::{self, FileKind};
use crate::plan::{Plan, Program};
use crate::report::RunFile;
use crate::sandbox::{CandidateResult, Interpreter, Runner};
use crate::spec::{self, TaskSet};

/// What a file is opened as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A task file.
    Tasks,
    /// A generations file.
    Generations,
    /// A saved run, for inspection.
    Run,
    /// A saved run to compare the results with.
    Baseline,
    /// Whatever its content shows (a dropped file).
    Any,
}

/// A file read and parsed.
pub enum Opened {
    /// A task file.
    Tasks(TaskSet),
    /// A generations file.
    Generations(GenerationSet),
    /// A saved run.
    Run(Box<RunFile>),
    /// A saved run to compare with.
    Baseline(Box<Baseline>),
}

impl Opened {
    /// The target it was opened as (`Any` resolved to what the file is).
    pub fn target(&self) -> Target {
        match self {
            Opened::Tasks(_) => Target::Tasks,
            Opened::Generations(_) => Target::Generations,
            Opened::Run(_) => Target::Run,
            Opened::Baseline(_) => Target::Baseline,
        }
    }
}

/// The interpreter, as far as it is known.
#[derive(Debug, Clone)]
pub enum Python {
    /// Being resolved from this command.
    Resolving(String),
    /// Found.
    Ready(Interpreter),
    /// Not usable, and why.
    Failed(String),
}

impl Python {
    /// The interpreter, or why there is none (yet).
    pub fn interpreter(&self) -> Result<&Interpreter, String> {
        match self {
            Python::Ready(p) => Ok(p),
            Python::Resolving(c) => Err(format!("looking for the interpreter `{c}`…")),
            Python::Failed(e) => Err(e.clone()),
        }
    }

    /// Whether it is still being resolved.
    pub fn is_resolving(&self) -> bool {
        matches!(self, Python::Resolving(_))
    }
}

/// A finished job.
pub(super) enum Done {
    /// Interpreter request `ticket` resolved.
    Python {
        ticket: u64,
        result: Result<Interpreter, String>,
    },
    /// A file read.
    File {
        path: PathBuf,
        result: Result<Opened, String>,
    },
    /// The references timed.
    Calibration(Result<Calibration, String>),
    /// An edited program of candidate `index` run.
    Rerun {
        index: usize,
        code: String,
        result: Result<Box<CandidateResult>, String>,
    },
}

/// The jobs in flight.
pub(super) struct Loader {
    tx: flume::Sender<Done>,
    rx: flume::Receiver<Done>,
    pending: usize,
    tickets: u64,
    waker: Option<Waker>,
}

impl Loader {
    pub fn new() -> Loader {
        let (tx, rx) = flume::unbounded();
        Loader {
            tx,
            rx,
            pending: 0,
            tickets: 0,
            waker: None,
        }
    }

    pub fn set_waker(&mut self, waker: Waker) {
        self.waker = Some(waker);
    }

    /// Whether a job is still running.
    pub fn is_busy(&self) -> bool {
        self.pending > 0
    }

    /// The ticket of the newest interpreter request.
    pub fn newest_ticket(&self) -> u64 {
        self.tickets
    }

    /// Resolves interpreter `command`; returns the request's ticket.
    pub fn resolve(&mut self, command: &str) -> u64 {
        self.tickets += 1;
        let (ticket, command) = (self.tickets, command.to_owned());
        self.spawn(move || Done::Python {
            ticket,
            result: Interpreter::resolve(&command).map_err(|e| e.to_string()),
        });
        ticket
    }

    /// Reads `path` as `target`.
    pub fn open(&mut self, target: Target, path: PathBuf) {
        self.spawn(move || Done::File {
            result: read(target, &path),
            path,
        });
    }

    /// Times the references of `plan` `repeat` times under `settings`.
    pub fn calibrate(
        &mut self,
        plan: Plan,
        tasks_file: PathBuf,
        repeat: usize,
        python: Interpreter,
        settings: RunSettings,
    ) {
        self.spawn(move || {
            Done::Calibration(
                Calibration::measure(&plan, &tasks_file, repeat, &python, &settings)
                    .map_err(|e| e.to_string()),
            )
        });
    }

    /// Runs `program` (candidate `index`'s, edited) once in a fresh
    /// interpreter under `settings`, through the judge.
    pub fn rerun(
        &mut self,
        index: usize,
        program: Program,
        timeout: Duration,
        python: Interpreter,
        settings: RunSettings,
    ) {
        self.spawn(move || {
            let result = Runner::new(&python, &settings.limits, false)
                .strict(settings.strict_integrity)
                .run(timeout, &program, None, &|| {})
                .map(Box::new)
                .map_err(|e| e.to_string());
            Done::Rerun {
                index,
                code: program.code,
                result,
            }
        });
    }

    fn spawn(&mut self, job: impl FnOnce() -> Done + Send + 'static) {
        self.pending += 1;
        let (tx, waker) = (self.tx.clone(), self.waker.clone());
        std::thread::spawn(move || {
            let _ = tx.send(job());
            if let Some(wake) = waker {
                wake();
            }
        });
    }

    /// A finished job, if any; with `block`, waits for one while any runs.
    pub fn next(&mut self, block: bool) -> Option<Done> {
        if self.pending == 0 {
            return None;
        }
        let done = if block {
            self.rx.recv().ok()
        } else {
            self.rx.try_recv().ok()
        };
        if done.is_some() {
            self.pending -= 1;
        }
        done
    }
}

/// Reads and parses the file at `path` as `target`, reading it once.
fn read(target: Target, path: &Path) -> Result<Opened, String> {
    Ok(match target {
        Target::Tasks => Opened::Tasks(spec::load_tasks(path).map_err(message)?),
        Target::Generations => {
            Opened::Generations(generations::load_generations(path).map_err(message)?)
        }
        Target::Run => Opened::Run(Box::new(RunFile::load_lean(path).map_err(message)?)),
        Target::Baseline => Opened::Baseline(Box::new(Baseline::open(path)?)),
        // A run file is known by its first bytes: not parsed twice.
        Target::Any if super::opening::starts_as_run_file(path) => {
            Opened::Run(Box::new(RunFile::load_lean(path).map_err(message)?))
        }
        Target::Any => {
            let raw = input::read_bytes(path).map_err(message)?;
            let sha256 = input::sha256_hex(&raw);
            let text = input::decode_text(path, raw).map_err(message)?;
            match input::sniff(path, &text).map_err(message)? {
                FileKind::Tasks => {
                    Opened::Tasks(spec::tasks_from_text(path, sha256, &text).map_err(message)?)
                }
                FileKind::Generations => Opened::Generations(
                    generations::generations_from_text(path, sha256, &text).map_err(message)?,
                ),
                FileKind::RunFile => {
                    // Read again leaving the candidates' texts in the file.
                    drop(text);
                    Opened::Run(Box::new(RunFile::load_lean(path).map_err(message)?))
                }
            }
        }
    })
}

/// An error as the notice that shows it.
fn message(e: impl std::fmt::Display) -> String {
    e.to_string()
}

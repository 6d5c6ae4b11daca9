//! The loaded inputs, the plan, the results store and the running engine: the
//! app's runtime model. It calls the library only; it draws nothing.

use super::compare::Baseline;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::engine::{self, EngineEvent, EngineHandle, RunSettings, Waker};
use crate::generations::{self, GenerationSet};
use crate::input::InputError;
use crate::passk;
use crate::plan::Plan;
use crate::report::{self, InputRecord, RunContext, RunFile};
use crate::sandbox::Interpreter;
use crate::spec::{self, TaskSet};
use crate::store::{Store, Summary, TaskStats};
use crate::{demo, plan};

use super::command::Export;

/// Where a candidate is in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Not started.
    Queued,
    /// Its process is running.
    Running,
    /// Finished (the store has its result).
    Done,
}

/// A message for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The text.
    pub text: String,
    /// Whether it reports a failure.
    pub error: bool,
}

/// A run in progress.
struct ActiveRun {
    handle: EngineHandle,
    events: flume::Receiver<EngineEvent>,
    started: Instant,
    settings: RunSettings,
    python: Interpreter,
    /// The user asked it to stop.
    cancelled_by_user: bool,
}

/// How the last run ended.
#[derive(Debug, Clone)]
pub struct RunEnd {
    /// Wall-clock time.
    pub elapsed: Duration,
    /// Stopped before every candidate ran.
    pub cancelled: bool,
    /// The settings it used.
    pub settings: RunSettings,
    /// The interpreter it used.
    pub python: Interpreter,
}

/// Figures derived from the store, recomputed only when it changes.
#[derive(Debug, Clone, Default)]
pub struct Derived {
    /// The store revision they belong to, and whether a run was going on.
    revision: Option<(u64, bool)>,
    /// The ks reported.
    pub ks: Vec<usize>,
    /// Data-set summary at `ks`.
    pub summary: Option<Summary>,
    /// pass@k for every k.
    pub curve: Vec<(usize, f64)>,
    /// Per-task statistics at `ks`.
    pub tasks: Vec<TaskStats>,
    /// 95% bootstrap interval of each reported pass@k (once no run is going on).
    pub intervals: std::collections::BTreeMap<usize, (f64, f64)>,
    /// The 95% band of the curve, (k, low, high) (once no run is going on).
    pub band: Vec<(usize, f64, f64)>,
}

/// Points at which the curve's confidence band is computed.
const BAND_POINTS: usize = 24;

/// The app's runtime model.
pub struct Session {
    /// Loaded task file.
    pub tasks: Option<TaskSet>,
    /// Loaded generations file.
    pub generations: Option<GenerationSet>,
    /// A saved run being inspected (its candidates live in `store`).
    pub opened_run: Option<(PathBuf, RunFile)>,
    /// Jobs for the loaded inputs.
    pub plan: Option<Arc<Plan>>,
    /// Every candidate and its result.
    pub store: Store,
    /// Per-candidate progress, parallel to `store.candidates`.
    pub progress: Vec<Progress>,
    /// Finished candidates.
    pub done: usize,
    /// Bumped whenever `store` changes, so views can cache.
    pub revision: u64,
    /// The resolved interpreter, or why it could not be resolved.
    pub python: Result<Interpreter, String>,
    /// Messages for the user, newest last.
    pub notices: Vec<Notice>,
    /// Run the valid records although some are invalid.
    pub run_valid_anyway: bool,
    /// How the last run ended.
    pub last_run: Option<RunEnd>,
    run: Option<ActiveRun>,
    derived: Arc<Derived>,
    /// A saved run the results on screen are compared with.
    pub baseline: Option<Baseline>,
}

impl Session {
    /// An empty session using interpreter command `python`.
    pub fn new(python: &str) -> Session {
        Session {
            tasks: None,
            generations: None,
            opened_run: None,
            plan: None,
            store: Store::default(),
            progress: Vec::new(),
            done: 0,
            revision: 0,
            python: Interpreter::resolve(python).map_err(|e| e.to_string()),
            notices: Vec::new(),
            run_valid_anyway: false,
            last_run: None,
            run: None,
            derived: Arc::default(),
            baseline: None,
        }
    }

    /// Summary, curve and per-task figures of the current results (cached per
    /// store revision, so drawing a frame does not rescan 100,000 candidates).
    pub fn derived(&mut self) -> Arc<Derived> {
        let key = (self.revision, self.is_running());
        if self.derived.revision != Some(key) {
            let ks = self.ks();
            // The bootstraps wait for the end of a run: they would cost a few
            // milliseconds on every frame that brings results.
            let settled = !key.1;
            self.derived = Arc::new(Derived {
                revision: Some(key),
                summary: Some(self.store.summary(&ks)),
                curve: self.store.curve(),
                tasks: self.store.task_stats(&ks),
                intervals: if settled {
                    self.store.intervals(&ks)
                } else {
                    Default::default()
                },
                band: if settled {
                    self.store.band(BAND_POINTS)
                } else {
                    Vec::new()
                },
                ks,
            });
        }
        Arc::clone(&self.derived)
    }

    /// Resolves the interpreter command again.
    pub fn detect_python(&mut self, command: &str) {
        self.python = Interpreter::resolve(command).map_err(|e| e.to_string());
    }

    /// Adds a message for the user.
    pub fn notify(&mut self, text: impl Into<String>, error: bool) {
        self.notices.push(Notice {
            text: text.into(),
            error,
        });
        if self.notices.len() > 6 {
            self.notices.remove(0);
        }
    }

    /// Loads the embedded demo set.
    pub fn load_demo(&mut self) {
        match (demo::tasks(), demo::generations()) {
            (Ok(t), Ok(g)) => {
                self.tasks = Some(t);
                self.generations = Some(g);
                self.opened_run = None;
                self.rebuild();
            }
            (Err(e), _) | (_, Err(e)) => self.notify(e.to_string(), true),
        }
    }

    /// Loads a task file; true on success.
    pub fn load_tasks(&mut self, path: &Path) -> bool {
        match spec::load_tasks(path) {
            Ok(set) => {
                if self.opened_run.take().is_some() || self.is_demo() {
                    self.generations = None;
                }
                self.tasks = Some(set);
                self.rebuild();
                true
            }
            Err(e) => {
                self.notify(e.to_string(), true);
                false
            }
        }
    }

    /// Loads a generations file; true on success.
    pub fn load_generations(&mut self, path: &Path) -> bool {
        match generations::load_generations(path) {
            Ok(set) => {
                if self.opened_run.take().is_some() || self.is_demo() {
                    self.tasks = None;
                }
                self.generations = Some(set);
                self.rebuild();
                true
            }
            Err(e) => {
                self.notify(e.to_string(), true);
                false
            }
        }
    }

    /// Opens a saved run for inspection; true on success.
    pub fn open_run(&mut self, path: &Path) -> bool {
        match RunFile::load(path) {
            Ok(mut file) => {
                self.store = file.to_store();
                file.candidates = Vec::new();
                self.progress = vec![Progress::Done; self.store.candidates.len()];
                self.done = self.store.candidates.len();
                self.tasks = None;
                self.generations = None;
                self.plan = None;
                self.last_run = None;
                self.opened_run = Some((path.to_path_buf(), file));
                self.revision += 1;
                true
            }
            Err(e) => {
                self.notify(e.to_string(), true);
                false
            }
        }
    }

    /// Whether the inputs are the embedded demo.
    pub fn is_demo(&self) -> bool {
        self.tasks
            .as_ref()
            .is_some_and(|t| t.path == Path::new(demo::TASKS_NAME))
    }

    fn rebuild(&mut self) {
        self.plan = match (&self.tasks, &self.generations) {
            (Some(t), Some(g)) => Some(Arc::new(Plan::build(t, g))),
            _ => None,
        };
        self.reset_results();
        self.last_run = None;
    }

    fn reset_results(&mut self) {
        self.store = self
            .plan
            .as_deref()
            .map(Store::from_plan)
            .unwrap_or_default();
        self.progress = vec![Progress::Queued; self.store.candidates.len()];
        self.done = 0;
        self.revision += 1;
    }

    /// Every problem with the loaded inputs.
    pub fn problems(&self) -> Vec<&InputError> {
        let mut all: Vec<&InputError> = Vec::new();
        if let Some(t) = &self.tasks {
            all.extend(&t.errors);
        }
        if let Some(g) = &self.generations {
            all.extend(&g.errors);
        }
        if let Some(p) = &self.plan {
            all.extend(&p.problems);
        }
        all
    }

    /// Why Run is not possible now, or `None` when it is.
    pub fn cannot_run(&self) -> Option<String> {
        if self.run.is_some() {
            return Some("a run is in progress".into());
        }
        if self.opened_run.is_some() {
            return Some(
                "this is a saved run; open its task and generation files to run it again".into(),
            );
        }
        let Some(plan) = &self.plan else {
            return Some(match (&self.tasks, &self.generations) {
                (None, _) => "open a task file first".into(),
                (_, None) => "open a generations file first".into(),
                _ => "nothing to run".into(),
            });
        };
        if plan.jobs.is_empty() {
            return Some("no generation matches an executable task".into());
        }
        if !self.problems().is_empty() && !self.run_valid_anyway {
            return Some(
                "the inputs have problems: fix them, or tick \"Run the valid records anyway\""
                    .into(),
            );
        }
        if let Err(e) = &self.python {
            return Some(e.clone());
        }
        None
    }

    /// Starts a run with `settings`; the engine calls `waker` after every event.
    pub fn start(&mut self, settings: RunSettings, waker: Waker) {
        if let Some(why) = self.cannot_run() {
            self.notify(format!("cannot run: {why}"), true);
            return;
        }
        let (Some(plan), Ok(python)) = (self.plan.clone(), self.python.clone()) else {
            return;
        };
        self.reset_results();
        self.last_run = None;
        let (tx, rx) = flume::unbounded();
        match engine::start(plan, python.clone(), settings.clone(), tx, waker) {
            Ok(handle) => {
                self.run = Some(ActiveRun {
                    handle,
                    events: rx,
                    started: Instant::now(),
                    settings,
                    python,
                    cancelled_by_user: false,
                })
            }
            Err(e) => self.notify(format!("cannot start the run: {e}"), true),
        }
    }

    /// Stops the running candidates.
    pub fn cancel(&mut self) {
        if let Some(run) = &mut self.run {
            run.cancelled_by_user = true;
            run.handle.cancel();
        }
    }

    /// Whether a run is in progress.
    pub fn is_running(&self) -> bool {
        self.run.is_some()
    }

    /// Seconds since the run started.
    pub fn running_for(&self) -> Option<Duration> {
        self.run.as_ref().map(|r| r.started.elapsed())
    }

    /// Applies pending engine events for at most `budget`; true if some remain.
    pub fn drain(&mut self, budget: Duration) -> bool {
        let start = Instant::now();
        loop {
            let Some(run) = &self.run else { return false };
            let Ok(event) = run.events.try_recv() else {
                return false;
            };
            self.apply(event);
            if start.elapsed() > budget {
                return true;
            }
        }
    }

    fn apply(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::Started { job } => {
                if let Some(p) = self.progress.get_mut(job) {
                    *p = Progress::Running;
                }
            }
            EngineEvent::Finished { job, result } => {
                self.store.record(job, result);
                if let Some(p) = self.progress.get_mut(job) {
                    *p = Progress::Done;
                }
                self.done += 1;
                self.revision += 1;
            }
            EngineEvent::Progress { .. } => {}
            EngineEvent::Failed { message } => {
                self.notify(format!("the run stopped: {message}"), true)
            }
            EngineEvent::Done { elapsed, cancelled } => {
                if let Some(run) = self.run.take() {
                    for p in &mut self.progress {
                        if *p == Progress::Running {
                            *p = Progress::Queued;
                        }
                    }
                    run.handle.join();
                    let planned = self.store.candidates.len();
                    if self.done < planned && !run.cancelled_by_user {
                        self.notify(
                            format!(
                                "the run stopped early: {} of {planned} candidates have results",
                                self.done
                            ),
                            true,
                        );
                    } else {
                        self.notify(
                            format!(
                                "{} {} of {planned} candidates in {:.1} s",
                                if cancelled { "cancelled after" } else { "ran" },
                                self.done,
                                elapsed.as_secs_f64()
                            ),
                            false,
                        );
                    }
                    self.last_run = Some(RunEnd {
                        elapsed,
                        cancelled,
                        settings: run.settings,
                        python: run.python,
                    });
                }
            }
        }
    }

    /// The ks reported for the current results.
    pub fn ks(&self) -> Vec<usize> {
        passk::default_ks(self.store.max_n())
    }

    /// Writes an export of the current results.
    pub fn export(&self, what: Export, path: &Path) -> Result<(), String> {
        let ks = self.ks();
        let result = match what {
            Export::CandidatesCsv => report::write_candidates_csv(&self.store, path),
            Export::TasksCsv => report::write_tasks_csv(&self.store, &ks, path),
            Export::SummaryCsv => report::write_summary_csv(&self.store, &ks, path),
            Export::RunFile => self.run_file(&ks).save(path),
            Export::HumanEvalResults => report::write_human_eval_results(&self.store, path),
            Export::Changes => {
                let Some(baseline) = &self.baseline else {
                    return Err("nothing to compare: open a baseline run first".into());
                };
                let cmp = report::Comparison::new(&baseline.run, &self.run_file(&ks));
                cmp.csv(path)
                    .and_then(|bytes| report::write_atomic(path, &bytes))
            }
            Export::Markdown => {
                let title = match (&self.opened_run, &self.generations) {
                    (Some((p, _)), _) => format!("execscope: {}", p.display()),
                    (None, Some(g)) => format!("execscope: {}", g.path.display()),
                    (None, None) => "execscope".to_owned(),
                };
                report::write_markdown(&self.store, &ks, &title, path)
            }
        };
        result.map_err(|e| e.to_string())
    }

    /// The run file of the current results.
    pub fn run_file(&self, ks: &[usize]) -> RunFile {
        if let Some((_, opened)) = &self.opened_run {
            let mut file = RunFile::from_store(
                &self.store,
                &RunContext {
                    settings: &RunSettings::default(),
                    python: &Interpreter {
                        executable: PathBuf::from(&opened.python.executable),
                        version: opened.python.version.clone(),
                        sys_path: Vec::new(),
                        harness_code: Default::default(),
                    },
                    tasks: opened.inputs.tasks.clone(),
                    generations: opened.inputs.generations.clone(),
                    ks,
                    elapsed_s: opened.summary.elapsed_s,
                    cancelled: opened.summary.cancelled,
                    skipped: &opened.skipped_tasks,
                    missing: &opened.missing_generations,
                    shard: None,
                },
            );
            file.settings = opened.settings.clone();
            return file;
        }
        let record = |path: Option<(&Path, &str)>| InputRecord {
            path: path
                .map(|(p, _)| p.display().to_string())
                .unwrap_or_default(),
            sha256: path.map(|(_, s)| s.to_owned()).unwrap_or_default(),
        };
        let fallback_python = Interpreter {
            executable: PathBuf::new(),
            version: String::new(),
            sys_path: Vec::new(),
            harness_code: Default::default(),
        };
        let (settings, python, elapsed, cancelled) = match &self.last_run {
            Some(end) => (
                end.settings.clone(),
                &end.python,
                end.elapsed,
                end.cancelled,
            ),
            None => (
                RunSettings::default(),
                self.python.as_ref().unwrap_or(&fallback_python),
                Duration::ZERO,
                true,
            ),
        };
        let skipped = self
            .tasks
            .as_ref()
            .map(|t| t.skipped.clone())
            .unwrap_or_default();
        let missing = self
            .plan
            .as_ref()
            .map(|p| p.missing.clone())
            .unwrap_or_default();
        RunFile::from_store(
            &self.store,
            &RunContext {
                settings: &settings,
                python,
                tasks: record(
                    self.tasks
                        .as_ref()
                        .map(|t| (t.path.as_path(), t.sha256.as_str())),
                ),
                generations: record(
                    self.generations
                        .as_ref()
                        .map(|g| (g.path.as_path(), g.sha256.as_str())),
                ),
                ks,
                elapsed_s: elapsed.as_secs_f64(),
                cancelled,
                skipped: &skipped,
                missing: &missing,
                shard: None,
            },
        )
    }

    /// The program a candidate ran, rebuilt for display (setup, code, assertions).
    pub fn program_of(&self, index: usize) -> Option<plan::Program> {
        let c = self.store.candidates.get(index)?;
        let task = self.store.tasks.get(c.task)?;
        Some(plan::Program {
            setup: c.setup.clone(),
            code: c.code.clone(),
            assertions: task.assertions.clone().into(),
        })
    }
}

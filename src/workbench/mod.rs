//! The workbench: everything a session of the app holds apart from drawing.
//! The loaded inputs, the plan, the running engine and its events, the results
//! store and the figures derived from it, a baseline run to compare with, the
//! messages for the user and the exports. The desktop app is this plus panels
//! that draw it and push commands; the CLI and the tests drive it directly.
//!
//! Slow work (resolving the interpreter, reading files) runs on threads of its
//! own; [`Workbench::update`] applies what has finished, and
//! [`Workbench::wait_idle`] waits for everything (the CLI, tests).
//!
//! ```no_run
//! use execscope::workbench::{Settings, Target, Workbench};
//! let mut bench = Workbench::new("python3");
//! bench.open(Target::Tasks, "HumanEval.jsonl.gz".into());
//! bench.open(Target::Generations, "samples.jsonl".into());
//! bench.wait_idle();
//! bench.start(Settings::default().run_settings(), std::sync::Arc::new(|| {}));
//! bench.wait_idle();
//! println!("pass@1 = {:?}", bench.derived().summary.pass_at_k.get(&1));
//! ```

mod calibration;
mod derived;
mod edit;
mod journal;
mod loader;
mod opening;
mod record;
mod run;
mod settings;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use calibration::{APP_REPEAT, Calibrating};
pub use derived::{Baseline, Derived};
pub use edit::{Edit, EditState, Edits};
pub use journal::ResumeOffer;
pub use loader::{Opened, Python, Target};
pub use opening::{Opening, OpeningError, kind_of, opening, starts_as_run_file};
pub use run::{Progress, RunEnd};
pub use settings::{Settings, timeout};

use crate::demo;
use crate::engine::Waker;
use crate::generations::GenerationSet;
use crate::input::InputError;
use crate::plan::Plan;
use crate::report::{Comparison, Paired, RunFile};
use crate::spec::TaskSet;
use crate::store::Store;

/// Most messages kept for the user.
const NOTICES_KEPT: usize = 6;

/// A message for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The text.
    pub text: String,
    /// Whether it reports a failure.
    pub error: bool,
}

/// What [`Workbench::update`] did.
#[derive(Debug, Default)]
pub struct Update {
    /// Files opened since the last update, with what they were opened as.
    pub opened: Vec<(Target, PathBuf)>,
    /// Engine events are still waiting (call again soon).
    pub more: bool,
}

/// A session: inputs, plan, run, results, derived figures, baseline, notices.
pub struct Workbench {
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
    /// The interpreter.
    pub python: Python,
    /// Messages for the user, newest last.
    pub notices: Vec<Notice>,
    /// Run the valid records although some are invalid.
    pub run_valid_anyway: bool,
    /// How the last run ended.
    pub last_run: Option<RunEnd>,
    /// Timeout calibration of the loaded tasks.
    pub calibration: Calibrating,
    baseline: Option<Baseline>,
    /// Bumped whenever the baseline changes.
    baseline_generation: u64,
    run: Option<run::ActiveRun>,
    requested: Option<run::Requested>,
    /// Edits of candidates' programs (see [`Edits`]).
    pub edits: Edits,
    cache: derived::Cache,
    loader: loader::Loader,
}

impl Workbench {
    /// An empty workbench; interpreter command `python` is resolved in the
    /// background.
    pub fn new(python: &str) -> Workbench {
        let mut bench = Workbench {
            tasks: None,
            generations: None,
            opened_run: None,
            plan: None,
            store: Store::default(),
            progress: Vec::new(),
            done: 0,
            revision: 0,
            python: Python::Resolving(python.to_owned()),
            notices: Vec::new(),
            run_valid_anyway: false,
            last_run: None,
            calibration: Calibrating::default(),
            baseline: None,
            baseline_generation: 0,
            run: None,
            requested: None,
            edits: Edits::default(),
            cache: derived::Cache::new(),
            loader: loader::Loader::new(),
        };
        bench.detect_python(python);
        bench
    }

    /// Called whenever background work finishes (the app passes a repaint).
    pub fn set_waker(&mut self, waker: Waker) {
        self.loader.set_waker(waker);
    }

    /// Applies finished background work and engine events (for at most
    /// `budget`), then brings the derived figures up to date.
    pub fn update(&mut self, budget: Duration) -> Update {
        let mut update = Update::default();
        while let Some(done) = self.loader.next(false) {
            self.finish_job(done, &mut update);
        }
        update.more = self.drain(budget);
        self.refresh();
        update
    }

    /// Waits until no background work and no run is going on, applying
    /// everything; returns the files opened meanwhile.
    pub fn wait_idle(&mut self) -> Vec<(Target, PathBuf)> {
        let mut update = Update::default();
        while let Some(done) = self.loader.next(true) {
            self.finish_job(done, &mut update);
        }
        while self.wait_for_event() {}
        self.refresh();
        update.opened
    }

    /// Whether background work (resolving, reading) is going on.
    pub fn is_busy(&self) -> bool {
        self.loader.is_busy()
    }

    fn finish_job(&mut self, done: loader::Done, update: &mut Update) {
        match done {
            loader::Done::Python { ticket, result } => {
                if ticket == self.loader.newest_ticket() {
                    self.python = match result {
                        Ok(p) => Python::Ready(p),
                        Err(e) => Python::Failed(e),
                    };
                    self.start_requested();
                }
            }
            loader::Done::File { path, result } => match result {
                Ok(opened) => {
                    update.opened.push((opened.target(), path.clone()));
                    self.apply_opened(opened, path);
                }
                Err(e) => self.notify(e, true),
            },
            loader::Done::Calibration(result) => self.calibrated(result),
            loader::Done::Rerun {
                index,
                code,
                result,
            } => self.edit_ran(index, code, result),
        }
    }

    /// Summary, curve, per-task figures and intervals of the current results,
    /// as of the last [`Workbench::update`].
    pub fn derived(&self) -> Arc<Derived> {
        Arc::clone(&self.cache.derived)
    }

    /// The comparison of the baseline (A) with the current results (B), as of
    /// the last [`Workbench::update`].
    pub fn comparison(&self) -> Option<Arc<Comparison>> {
        self.cache.comparison.clone()
    }

    /// The paired test of that comparison at each k both report (empty while
    /// a run is going on).
    pub fn paired(&self) -> Arc<[Paired]> {
        Arc::clone(&self.cache.paired)
    }

    /// Brings the derived figures up to date with the store and the baseline.
    pub fn refresh(&mut self) {
        let key = (self.revision, self.is_running(), self.baseline_generation);
        self.cache.refresh(key, &self.store, self.baseline.as_ref());
    }

    /// Resolves interpreter command `command` again (in the background).
    pub fn detect_python(&mut self, command: &str) {
        self.python = Python::Resolving(command.to_owned());
        self.loader.resolve(command);
    }

    /// Adds a message for the user.
    pub fn notify(&mut self, text: impl Into<String>, error: bool) {
        self.notices.push(Notice {
            text: text.into(),
            error,
        });
        if self.notices.len() > NOTICES_KEPT {
            self.notices.remove(0);
        }
    }

    /// Reads `path` as `target` in the background.
    pub fn open(&mut self, target: Target, path: PathBuf) {
        self.loader.open(target, path);
    }

    /// Loads the embedded demo set (small and in memory: at once).
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

    fn apply_opened(&mut self, opened: Opened, path: PathBuf) {
        match opened {
            Opened::Tasks(set) => {
                if self.opened_run.take().is_some() || self.is_demo() {
                    self.generations = None;
                }
                self.tasks = Some(set);
                self.rebuild();
            }
            Opened::Generations(set) => {
                if self.opened_run.take().is_some() || self.is_demo() {
                    self.tasks = None;
                }
                self.generations = Some(set);
                self.rebuild();
            }
            Opened::Run(file) => {
                let mut file = *file;
                self.store = file.take_store();
                self.edits.clear();
                self.progress = vec![Progress::Done; self.store.candidates.len()];
                self.done = self.store.candidates.len();
                self.tasks = None;
                self.generations = None;
                self.plan = None;
                self.last_run = None;
                self.opened_run = Some((path, file));
                self.revision += 1;
            }
            Opened::Baseline(baseline) => self.set_baseline(Some(*baseline)),
        }
    }

    /// The saved run the results are compared with.
    pub fn baseline(&self) -> Option<&Baseline> {
        self.baseline.as_ref()
    }

    /// Compares the results with `baseline` from now on (`None`: stop).
    pub fn set_baseline(&mut self, baseline: Option<Baseline>) {
        self.baseline = baseline;
        self.baseline_generation += 1;
    }

    /// The harness whose result file is open, when the results on screen are
    /// another harness's verdicts (nothing was run here).
    pub fn foreign(&self) -> Option<&crate::report::ForeignSource> {
        self.opened_run
            .as_ref()
            .and_then(|(_, f)| f.source.as_ref())
    }

    /// Whether the inputs are the embedded demo.
    pub fn is_demo(&self) -> bool {
        self.tasks
            .as_ref()
            .is_some_and(|t| t.path == Path::new(demo::TASKS_NAME))
    }

    fn rebuild(&mut self) {
        self.forget_stale_calibration();
        self.plan = match (&self.tasks, &self.generations) {
            (Some(t), Some(g)) => Some(Arc::new(Plan::build(t, g))),
            _ => None,
        };
        self.reset_results();
        self.last_run = None;
    }

    fn reset_results(&mut self) {
        self.edits.clear();
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
        if self.is_running() {
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
        self.python.interpreter().err()
    }
}

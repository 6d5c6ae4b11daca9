//! Run control: start, cancel, and the engine's events applied to the store.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Workbench;
use super::journal::Journalled;
use crate::engine::{self, EngineEvent, EngineHandle, RunSettings, Waker};
use crate::recheck;
use crate::resume::Resumption;
use crate::sandbox::Interpreter;

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

/// A run in progress.
pub(super) struct ActiveRun {
    handle: EngineHandle,
    events: flume::Receiver<EngineEvent>,
    started: Instant,
    settings: RunSettings,
    python: Interpreter,
    waker: Waker,
    /// The user asked it to stop.
    cancelled_by_user: bool,
    /// Rechecking: the candidate each of the engine's jobs rechecks, and how
    /// the run itself ended.
    rechecking: Option<(Vec<usize>, Duration, bool)>,
    /// Written to a run file, with a journal beside it.
    journalled: Option<Journalled>,
}

/// A run asked for while the interpreter was still being resolved.
pub(super) struct Requested {
    settings: RunSettings,
    waker: Waker,
}

impl Workbench {
    /// Starts a run with `settings`; the engine calls `waker` after every event.
    /// Asked while the interpreter is still being resolved, the run starts as
    /// soon as it is found.
    pub fn start(&mut self, settings: RunSettings, waker: Waker) {
        self.start_from(settings, waker, None);
    }

    /// Starts a run, or goes on with one (`resumed`: the candidates judged
    /// already, and the journal and run file it is written to).
    pub(super) fn start_from(
        &mut self,
        settings: RunSettings,
        waker: Waker,
        resumed: Option<(Resumption, Journalled)>,
    ) {
        if self.python.is_resolving() && self.run.is_none() && resumed.is_none() {
            self.requested = Some(Requested { settings, waker });
            return;
        }
        if let Some(why) = self.cannot_run() {
            self.notify(format!("cannot run: {why}"), true);
            return;
        }
        let (Some(plan), Ok(python)) = (self.plan.clone(), self.python.interpreter()) else {
            return;
        };
        let python = python.clone();
        let mut settings = self.with_calibration(settings);
        if let Some(line) = settings.settle_for(&plan) {
            self.notify(line, false);
        }
        let missing = crate::environment::probe(&plan, &python);
        for line in crate::environment::lines(&missing, &python) {
            self.notify(line, false);
        }
        let deciders = crate::integrity::Deciders::of(&plan);
        if deciders.in_process > 0 {
            let line = crate::integrity::describe(&settings.limits, Some(deciders));
            self.notify(line, false);
        }
        self.reset_results();
        self.last_run = None;
        let mut journalled = None;
        let mut jobs = plan;
        if let Some((resumption, j)) = resumed {
            jobs = resumption.rest(&jobs);
            self.done = resumption.judged;
            for (p, c) in self.progress.iter_mut().zip(&resumption.store.candidates) {
                if c.result.is_some() {
                    *p = Progress::Done;
                }
            }
            self.store = resumption.store;
            journalled = Some(j);
        }
        let (tx, rx) = flume::unbounded();
        match engine::start(
            jobs,
            python.clone(),
            settings.clone(),
            tx,
            Arc::clone(&waker),
        ) {
            Ok(handle) => {
                self.run = Some(ActiveRun {
                    handle,
                    events: rx,
                    started: Instant::now(),
                    settings,
                    python,
                    waker,
                    cancelled_by_user: false,
                    rechecking: None,
                    journalled,
                })
            }
            Err(e) => self.notify(format!("cannot start the run: {e}"), true),
        }
    }

    /// Starts the run asked for while the interpreter was being resolved.
    pub(super) fn start_requested(&mut self) {
        if let Some(Requested { settings, waker }) = self.requested.take() {
            self.start(settings, waker);
        }
    }

    /// Stops the running candidates (or a run waiting for the interpreter).
    pub fn cancel(&mut self) {
        self.requested = None;
        if let Some(run) = &mut self.run {
            run.cancelled_by_user = true;
            run.handle.cancel();
        }
    }

    /// Whether a run is in progress (or asked for and waiting for the
    /// interpreter).
    pub fn is_running(&self) -> bool {
        self.run.is_some() || self.requested.is_some()
    }

    /// Time since the run started.
    pub fn running_for(&self) -> Option<Duration> {
        self.run.as_ref().map(|r| r.started.elapsed())
    }

    /// Applies pending engine events for at most `budget`; true if some remain.
    pub(super) fn drain(&mut self, budget: Duration) -> bool {
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

    /// Waits for the next engine event and applies it; false once no run is
    /// going on.
    pub(super) fn wait_for_event(&mut self) -> bool {
        let Some(run) = &self.run else { return false };
        match run.events.recv() {
            Ok(event) => self.apply(event),
            Err(_) => {
                self.run = None;
                return false;
            }
        }
        true
    }

    /// The candidate the engine's job `job` is.
    fn candidate_of(&self, job: usize) -> usize {
        self.run
            .as_ref()
            .and_then(|r| r.journalled.as_ref())
            .map_or(job, |j| j.jobs.get(job).copied().unwrap_or(usize::MAX))
    }

    fn apply(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::Started { job } => {
                if self.run.as_ref().is_some_and(|r| r.rechecking.is_some()) {
                    return;
                }
                let job = self.candidate_of(job);
                if let Some(p) = self.progress.get_mut(job) {
                    *p = Progress::Running;
                }
            }
            EngineEvent::Finished { job, result } => {
                if let Some((targets, ..)) = self.run.as_ref().and_then(|r| r.rechecking.as_ref()) {
                    if let Some(&index) = targets.get(job) {
                        recheck::record(&mut self.store, index, result.outcome);
                        self.revision += 1;
                    }
                    return;
                }
                let job = self.candidate_of(job);
                self.store.record(job, *result);
                if let Some(p) = self.progress.get_mut(job) {
                    *p = Progress::Done;
                }
                self.done += 1;
                self.revision += 1;
                if let Some(run) = self.run.as_mut() {
                    if let Some(j) = run.journalled.as_mut() {
                        let at_s = j.earlier_s + run.started.elapsed().as_secs_f64();
                        if let Err(e) = j.journal.append(&self.store, job, at_s) {
                            run.journalled = None;
                            self.notify(format!("the journal could not be written: {e}"), true);
                        }
                    }
                }
            }
            EngineEvent::Progress { .. } => {}
            EngineEvent::Failed { message } => {
                self.notify(format!("the run stopped: {message}"), true)
            }
            EngineEvent::Done { elapsed, cancelled } => self.finish(elapsed, cancelled),
        }
    }

    /// The rechecks the settings ask for, once the run itself has ended;
    /// false when there are none to run.
    fn start_rechecks(&mut self, elapsed: Duration, cancelled: bool) -> bool {
        let Some(run) = self.run.as_mut() else {
            return false;
        };
        let Some(plan) = self.plan.as_deref() else {
            return false;
        };
        if cancelled || run.rechecking.is_some() {
            return false;
        }
        let Some((rechecks, targets)) = recheck::plan(plan, &self.store, &run.settings) else {
            return false;
        };
        let (tx, rx) = flume::unbounded();
        let started = engine::start(
            Arc::new(rechecks),
            run.python.clone(),
            run.settings.clone(),
            tx,
            Arc::clone(&run.waker),
        );
        match started {
            Ok(handle) => {
                std::mem::replace(&mut run.handle, handle).join();
                run.events = rx;
                run.rechecking = Some((targets, elapsed, cancelled));
                true
            }
            Err(e) => {
                self.notify(format!("cannot start the rechecks: {e}"), true);
                false
            }
        }
    }

    fn finish(&mut self, elapsed: Duration, cancelled: bool) {
        if self.start_rechecks(elapsed, cancelled) {
            return;
        }
        let Some(run) = self.run.take() else { return };
        // After rechecks, the run's own time and ending are what count.
        let (elapsed, cancelled) = match &run.rechecking {
            Some((_, elapsed, cancelled)) => (*elapsed, *cancelled || run.cancelled_by_user),
            None => (elapsed, cancelled),
        };
        // A resumed run's time is that of every session.
        let earlier = run.journalled.as_ref().map_or(0.0, |j| j.earlier_s);
        let elapsed = elapsed + Duration::from_secs_f64(earlier.max(0.0));
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
        if let Some(journalled) = run.journalled {
            self.finish_journalled(journalled, cancelled);
        }
    }
}

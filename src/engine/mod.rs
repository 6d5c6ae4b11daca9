//! The engine: a pool of worker threads that takes the jobs of a [`Plan`] in
//! the order of a [`Schedule`], runs each in the sandbox and reports over a
//! `flume` channel. A waker is called after every send (the GUI passes
//! `request_repaint`). Cancelling kills the running children at once. Results
//! depend neither on the worker count nor on the order.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::plan::{Plan, Tests};
use crate::sandbox::{CancelToken, CandidateResult, Interpreter, Runner, SandboxError};
use crate::schedule::Schedule;
use crate::store::Store;

mod settings;

pub use settings::{MAX_SUITE_TIMEOUT_S, MAX_WORKERS, RunSettings, default_workers};

/// What the engine reports while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineEvent {
    /// Job `job` started.
    Started {
        /// Index into the plan's jobs.
        job: usize,
    },
    /// Job `job` finished with `result`.
    Finished {
        /// Index into the plan's jobs.
        job: usize,
        /// Its result.
        result: Box<CandidateResult>,
    },
    /// `done` of `total` jobs have finished.
    Progress {
        /// Finished jobs.
        done: usize,
        /// All jobs.
        total: usize,
    },
    /// The host could not run candidates (interpreter vanished, out of processes);
    /// the run stops.
    Failed {
        /// What went wrong.
        message: String,
    },
    /// The run ended; sent exactly once, last.
    Done {
        /// Wall-clock time of the run.
        elapsed: Duration,
        /// Whether it was cancelled (or stopped by a failure) before all jobs ran.
        cancelled: bool,
    },
}

/// Something to call after every event, so a UI can wake up.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// A running engine.
pub struct EngineHandle {
    cancel: Arc<CancelToken>,
    threads: Vec<JoinHandle<()>>,
}

impl EngineHandle {
    /// Stops the run: running candidates are killed, queued ones never start.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Waits for every worker to exit.
    pub fn join(self) {
        for t in self.threads {
            let _ = t.join();
        }
    }
}

/// A counting semaphore: how many candidates may run at full priority at once.
struct Permits {
    free: Mutex<usize>,
    freed: Condvar,
}

impl Permits {
    /// Waits for a permit; false once the run is cancelled.
    fn acquire(&self, cancel: &CancelToken) -> bool {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if cancel.is_cancelled() {
                return false;
            }
            if *free > 0 {
                *free -= 1;
                return true;
            }
            free = self
                .freed
                .wait_timeout(free, Duration::from_millis(20))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    fn release(&self) {
        *self.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.freed.notify_one();
    }
}

/// Extra threads per worker, for candidates that handed their worker's place
/// on (long runners, usually about to time out, and ones that mostly wait).
const THREADS_PER_WORKER: usize = 8;

struct Shared {
    plan: Arc<Plan>,
    settings: RunSettings,
    events: flume::Sender<EngineEvent>,
    waker: Waker,
    cancel: Arc<CancelToken>,
    schedule: Mutex<Schedule>,
    done: AtomicUsize,
    live: AtomicUsize,
    permits: Permits,
    runner: Runner,
    started: Instant,
    /// Where the reference outputs of tasks that are inputs are kept
    /// ([`crate::expected`]), and whether this run recorded some.
    expected_cache: Option<std::path::PathBuf>,
    recorded: AtomicBool,
}

impl Shared {
    fn send(&self, event: EngineEvent) {
        // A dropped receiver means nobody listens any more: stop quietly.
        if self.events.send(event).is_err() {
            self.cancel.cancel();
        }
        (self.waker)();
    }

    fn lock_schedule(&self) -> std::sync::MutexGuard<'_, Schedule> {
        self.schedule.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn timeout_for(&self, task: usize) -> Duration {
        let Some(task) = self.plan.tasks.get(task) else {
            return self.settings.timeout_for(None, None);
        };
        match &task.tests {
            // evalplus's time for the task's inputs (each has its own limit).
            Tests::Inputs(io) => io.timeout().unwrap_or(crate::expected::RECORD_TIMEOUT),
            // LiveCodeBench's global limit (each test has its own).
            Tests::Stdio(stdio) => stdio.timeout(),
            Tests::Suite(_) => self.settings.suite_timeout_for(&task.id),
            Tests::Assertions => self.settings.timeout_for(Some(&task.id), task.timeout_s),
        }
    }

    /// Why candidates of `task` cannot be judged, when its tests are inputs
    /// whose reference outputs could not be recorded (recorded now if they
    /// are not yet).
    fn unjudgeable(&self, task: usize) -> Result<Option<String>, SandboxError> {
        let Some(task) = self.plan.tasks.get(task) else {
            return Ok(None);
        };
        let Tests::Inputs(io) = &task.tests else {
            return Ok(None);
        };
        let fresh = io.expected.get().is_none();
        let recorded = crate::expected::ensure(task, &self.runner, Some(&self.cancel))?;
        if fresh && recorded.is_ok() {
            self.recorded.store(true, Ordering::SeqCst);
        }
        Ok(recorded.err())
    }

    fn work(&self) {
        let total = self.plan.jobs.len();
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.work_loop(total)));
        if let Err(panic) = outcome {
            // Results already sent are kept; the run stops with an explanation.
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            self.cancel.cancel();
            self.send(EngineEvent::Failed {
                message: format!("a worker crashed: {why}"),
            });
        }
        if self.live.fetch_sub(1, Ordering::SeqCst) == 1 {
            if let Some(file) = self.expected_cache.as_ref() {
                if self.recorded.load(Ordering::SeqCst) {
                    crate::expected::save(file, &self.plan);
                }
            }
            let cancelled = self.done.load(Ordering::SeqCst) < total;
            self.send(EngineEvent::Done {
                elapsed: self.started.elapsed(),
                cancelled,
            });
        }
    }

    fn finished(&self, job: usize, mut result: CandidateResult, total: usize) {
        if self.settings.strict_integrity {
            crate::sandbox::flags::apply_strict(&mut result);
        }
        self.send(EngineEvent::Finished {
            job,
            result: Box::new(result),
        });
        let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        self.send(EngineEvent::Progress { done, total });
    }

    fn work_loop(&self, total: usize) {
        let runner = &self.runner;
        loop {
            if !self.permits.acquire(&self.cancel) {
                break;
            }
            // The permit is given back when the candidate ends or hands it on.
            let held = AtomicBool::new(true);
            let give_back = || {
                if held.swap(false, Ordering::SeqCst) {
                    self.permits.release();
                }
            };
            let next = self.lock_schedule().take();
            let Some((index, job)) = next.and_then(|i| Some((i, self.plan.jobs.get(i)?))) else {
                give_back();
                break;
            };
            // A long runner hands its place on, and its task's other samples,
            // likely long too, go next (each still waits for a place).
            let hand_off = || {
                self.lock_schedule().hurry(job.task);
                give_back();
            };
            self.send(EngineEvent::Started { job: index });
            let total_assertions = self
                .plan
                .tasks
                .get(job.task)
                .map_or(0, |t| t.assertions.len());
            let outcome = match &job.program {
                Err(why) => Ok(CandidateResult::not_run(why, total_assertions)),
                Ok(program) => match self.unjudgeable(job.task) {
                    Ok(Some(why)) => Ok(CandidateResult::harness_fault(&why, total_assertions)),
                    Ok(None) => runner.run(
                        self.timeout_for(job.task),
                        program,
                        Some(&self.cancel),
                        &hand_off,
                    ),
                    Err(e) => Err(e),
                },
            };
            give_back();
            match outcome {
                Ok(result) => self.finished(index, result, total),
                Err(SandboxError::Cancelled) => break,
                // A fault of the host while running this candidate (it could
                // not be started, supervised or confined) is its result: the
                // run goes on and the candidate is not missing from it.
                Err(e) => self.finished(
                    index,
                    CandidateResult::harness_fault(&e.to_string(), total_assertions),
                    total,
                ),
            }
        }
    }
}

/// Starts running `plan` on background threads. Events arrive on `events`; the
/// last one is always [`EngineEvent::Done`].
pub fn start(
    plan: Arc<Plan>,
    python: Interpreter,
    settings: RunSettings,
    events: flume::Sender<EngineEvent>,
    waker: Waker,
) -> Result<EngineHandle, SandboxError> {
    if settings.require_confinement {
        let missing = settings.limits.confinement().missing();
        if !missing.is_empty() {
            return Err(SandboxError::ConfinementMissing(missing.join(", ")));
        }
    }
    if settings.strict_integrity {
        let missing = crate::integrity::missing(&settings.limits);
        if !missing.is_empty() {
            return Err(SandboxError::IntegrityMissing(missing.join("; ")));
        }
    }
    let cancel = Arc::new(CancelToken::new()?);
    let workers = settings.workers.max(1);
    let threads = (workers * THREADS_PER_WORKER).min(plan.jobs.len().max(1));
    let runner = Runner::new(&python, &settings.limits, settings.fast_start)
        .strict(settings.strict_integrity);
    let job_tasks: Vec<usize> = plan.jobs.iter().map(|j| j.task).collect();
    let schedule = Schedule::new(&job_tasks, plan.tasks.len());
    let expected_cache = crate::expected::from_cache(&plan, &python);
    crate::environment::probe(&plan, &python);
    let shared = Arc::new(Shared {
        expected_cache,
        recorded: AtomicBool::new(false),
        plan,
        runner,
        settings,
        events,
        waker,
        cancel: Arc::clone(&cancel),
        schedule: Mutex::new(schedule),
        done: AtomicUsize::new(0),
        live: AtomicUsize::new(threads),
        permits: Permits {
            free: Mutex::new(workers),
            freed: Condvar::new(),
        },
        started: Instant::now(),
    });
    let count = threads;
    let mut threads = Vec::with_capacity(count);
    for i in 0..count {
        let worker = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name(format!("execscope-worker-{i}"))
            .spawn(move || worker.work());
        match spawned {
            Ok(t) => threads.push(t),
            Err(e) => {
                cancel.cancel();
                // Workers that never started still count down so `Done` is sent.
                for _ in i..count {
                    if shared.live.fetch_sub(1, Ordering::SeqCst) == 1 {
                        shared.send(EngineEvent::Done {
                            elapsed: shared.started.elapsed(),
                            cancelled: true,
                        });
                    }
                }
                for t in threads {
                    let _ = t.join();
                }
                return Err(SandboxError::Spawn(e));
            }
        }
    }
    Ok(EngineHandle { cancel, threads })
}

/// What a finished blocking run produced.
#[derive(Debug, Clone)]
pub struct Completed {
    /// Every candidate with its result.
    pub store: Store,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// A host failure that stopped the run early, if any.
    pub failure: Option<String>,
}

/// Runs `plan` to the end on the calling thread's behalf, calling `on_event` for
/// every event once it is recorded in the store (the CLI drives its progress bar
/// and its journal from it).
pub fn run_blocking(
    plan: &Arc<Plan>,
    python: &Interpreter,
    settings: &RunSettings,
    mut on_event: impl FnMut(&EngineEvent, &Store),
) -> Result<Completed, SandboxError> {
    let (tx, rx) = flume::unbounded();
    let handle = start(
        Arc::clone(plan),
        python.clone(),
        settings.clone(),
        tx,
        Arc::new(|| {}),
    )?;
    let mut store = Store::from_plan(plan);
    let mut failure = None;
    let mut elapsed = Duration::ZERO;
    for event in rx.iter() {
        match &event {
            EngineEvent::Finished { job, result } => store.record(*job, (**result).clone()),
            EngineEvent::Failed { message } => failure = Some(message.clone()),
            EngineEvent::Done { elapsed: e, .. } => elapsed = *e,
            EngineEvent::Started { .. } | EngineEvent::Progress { .. } => {}
        }
        on_event(&event, &store);
        if matches!(event, EngineEvent::Done { .. }) {
            break;
        }
    }
    handle.join();
    Ok(Completed {
        store,
        elapsed,
        failure,
    })
}

//! Running candidates: each as a candidate process (a fresh interpreter, or
//! in the fast-start mode a fresh child of a warm one) and a judge (a fresh
//! child of a warm judge server). Warm servers are kept in pools shared by
//! every thread using the runner: one is started when none is idle, and one
//! that died is replaced, so there are as many as candidates ever ran at once.

use std::io;
use std::sync::Mutex;
use std::time::Duration;

use super::forkserver::{ForkServer, Role};
use super::job::Job;
use super::pair;
use super::process::before_running;
use super::{CancelToken, CandidateResult, Interpreter, Limits, SandboxError};
use crate::plan::Program;

/// Where a [`Spawner`] takes requests: each brings the channel for its answer.
type Requests = flume::Sender<flume::Sender<Result<ForkServer, SandboxError>>>;

/// Starts fork servers on one thread that lives as long as the pool: a
/// server's parent-death signal fires when the *thread* that started it ends,
/// and pooled servers outlive the worker threads that use them.
struct Spawner {
    requests: Requests,
    thread: std::thread::JoinHandle<()>,
}

impl Spawner {
    fn new(python: &Interpreter, limits: &Limits, role: Role) -> io::Result<Spawner> {
        let (requests, incoming) =
            flume::unbounded::<flume::Sender<Result<ForkServer, SandboxError>>>();
        let (python, limits) = (python.clone(), limits.clone());
        let thread = std::thread::Builder::new()
            .name("execscope-servers".into())
            .spawn(move || {
                for reply in incoming.iter() {
                    // Only launched here: the worker waits for it to load, so
                    // servers asked for at once load side by side. A worker
                    // that stopped waiting drops its server here.
                    let _ = reply.send(ForkServer::launch(&python, &limits, role));
                }
            })?;
        Ok(Spawner { requests, thread })
    }
}

/// The warm servers of one role.
struct Pool {
    role: Role,
    idle: Mutex<Vec<ForkServer>>,
    spawner: Mutex<Option<Spawner>>,
}

impl Pool {
    fn new(role: Role) -> Pool {
        Pool {
            role,
            idle: Mutex::new(Vec::new()),
            spawner: Mutex::new(None),
        }
    }

    /// An idle server, or a new one once it has loaded.
    fn take(&self, python: &Interpreter, limits: &Limits) -> Result<ForkServer, SandboxError> {
        if let Some(server) = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            return Ok(server);
        }
        let requests = {
            let mut slot = self.spawner.lock().unwrap_or_else(|e| e.into_inner());
            let spawner = match &mut *slot {
                Some(spawner) => spawner,
                empty => empty.insert(Spawner::new(python, limits, self.role)?),
            };
            spawner.requests.clone()
        };
        // The lock is not held while the server loads.
        let (reply, answer) = flume::bounded(1);
        let gone = || SandboxError::Spawn(io::Error::other("the server-starting thread ended"));
        requests.send(reply).map_err(|_| gone())?;
        let server = answer.recv().map_err(|_| gone())??;
        server.ready(python)?;
        Ok(server)
    }

    fn give_back(&self, server: ForkServer) {
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(server);
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Servers first (each is killed and reaped), then the thread that started them.
        self.idle
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        if let Some(spawner) = self
            .spawner
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            drop(spawner.requests);
            let _ = spawner.thread.join();
        }
    }
}

/// Runs candidates, each as a candidate process and a judge.
pub struct Runner {
    python: Interpreter,
    limits: Limits,
    fast_start: bool,
    strict: bool,
    judges: Pool,
    candidates: Pool,
}

impl Runner {
    /// A runner for candidates under `limits`; `fast_start` forks candidate
    /// processes from warm interpreters instead of starting fresh ones.
    pub fn new(python: &Interpreter, limits: &Limits, fast_start: bool) -> Runner {
        Runner {
            python: python.clone(),
            limits: limits.clone(),
            fast_start,
            strict: false,
            judges: Pool::new(Role::Judge),
            candidates: Pool::new(Role::Candidate),
        }
    }

    /// With strict integrity: a program name that hides a builtin or a module
    /// the tests use is not bound; the tests get the real one.
    pub fn strict(mut self, strict: bool) -> Runner {
        self.strict = strict;
        self
    }

    /// Runs one candidate (see [`run_candidate`](super::run_candidate)),
    /// calling `on_hand_off` once it no longer needs its worker's place (it
    /// mostly waits, or it has had its full-priority CPU time and was lowered
    /// in priority); the engine then lets another one start.
    ///
    /// `Err` only for host problems (cannot spawn) and cancellation; anything
    /// the candidate does is an `Ok` result with one of the five outcomes.
    pub fn run(
        &self,
        timeout: Duration,
        program: &Program,
        cancel: Option<&CancelToken>,
        on_hand_off: &dyn Fn(),
    ) -> Result<CandidateResult, SandboxError> {
        let job = Job {
            program,
            timeout,
            cancel,
            on_hand_off,
            strict: self.strict,
        };
        if let Some(early) = before_running(&job)? {
            return Ok(early);
        }
        let judge = self.judges.take(&self.python, &self.limits)?;
        let fresh = !self.fast_start || pair::in_container(&self.limits, program);
        let server = match fresh {
            false => Some(self.candidates.take(&self.python, &self.limits)?),
            true => None,
        };
        let (result, usable) =
            pair::run(&self.python, &self.limits, &job, &judge, server.as_ref())?;
        if usable.judge {
            self.judges.give_back(judge);
        }
        if let Some(server) = server.filter(|_| usable.candidate) {
            self.candidates.give_back(server);
        }
        Ok(result)
    }
}

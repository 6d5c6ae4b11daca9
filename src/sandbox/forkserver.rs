//! The fast-start mode: one warm interpreter per worker that has loaded the
//! harness (and a few common modules) once and forks a fresh child per
//! candidate. The child gets what a fresh interpreter gets: its own session and
//! process group, its own temporary directory, the same resource limits,
//! denylist, guard and envelope, and the same harness code path. The host
//! supervises it with the same poll loop, and the server reaps a child only when
//! the host says so, so killing the child's group never races a reused pid.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::capture::Stream;
use super::confine;
use super::job::Job;
use super::limits::{self, ChildSetup};
use super::process;
use super::supervise::{self, Exit, Input, Pipes, Watch};
use super::sys::{self, monotonic_ns, pipe_cloexec};
use super::verdict::{self, Times};
use super::{CancelToken, CandidateResult, Interpreter, Limits, SandboxError};
use super::{payload, reaper, spawn};
use crate::plan::Program;

/// Modules a fork server imports once, so its children do not pay for them:
/// what HumanEval and MBPP programs import most. One that would load a denied
/// module is left out, so such an import fails as it would in a fresh interpreter.
pub const PRELOADED_MODULES: [&str; 11] = [
    "typing",
    "collections",
    "re",
    "math",
    "itertools",
    "functools",
    "heapq",
    "bisect",
    "string",
    "operator",
    "copy",
];

/// How long a fork server may take to load before it is given up on.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// One warm interpreter that forks a child per candidate.
pub struct ForkServer {
    pid: libc::pid_t,
    commands: OwnedFd,
    control: OwnedFd,
    stdout: OwnedFd,
    stderr: OwnedFd,
    envelope: OwnedFd,
    home: tempfile::TempDir,
}

fn unusable(python: &Interpreter, reason: String) -> SandboxError {
    SandboxError::InterpreterUnusable {
        command: python.executable.display().to_string(),
        reason,
    }
}

impl ForkServer {
    /// Starts a server and sends it its set-up, without waiting for it to load
    /// (see [`ForkServer::ready`]), so several can load at once.
    fn launch(python: &Interpreter, limits: &Limits) -> Result<ForkServer, SandboxError> {
        if !cfg!(target_os = "linux") {
            return Err(unusable(
                python,
                "the fast-start mode needs Linux (waitid without reaping)".into(),
            ));
        }
        let home = tempfile::Builder::new()
            .prefix("execscope-server-")
            .tempdir()?;
        let (envelope_r, envelope_w) = pipe_cloexec()?;
        let (control_r, control_w) = pipe_cloexec()?;
        let confine = process::confinement(limits, python, home.path(), true)?;
        let child_confinement = confine::child_field(limits, confine.as_ref(), limits::RULESET_FD);
        let setup = ChildSetup::server(
            limits,
            envelope_w.as_raw_fd(),
            control_w.as_raw_fd(),
            confine,
        );
        let child = spawn::start_harness(python, &["serve"], home.path(), setup).map_err(|e| {
            SandboxError::Spawn(io::Error::new(
                e.kind(),
                format!("{}: {e}", python.executable.display()),
            ))
        })?;
        drop((envelope_w, control_w));
        let pid = child.pid;
        sys::set_nonblocking(control_r.as_raw_fd());
        let server = ForkServer {
            pid,
            commands: child.stdin,
            control: control_r,
            stdout: child.stdout,
            stderr: child.stderr,
            envelope: envelope_r,
            home,
        };
        let flags = payload::flags(limits);
        let init = payload::fields(&[
            python.sys_path.join("\n").as_bytes(),
            limits.denylist.join("\n").as_bytes(),
            flags.as_bytes(),
            PRELOADED_MODULES.join("\n").as_bytes(),
            &child_confinement,
        ]);
        let mut hello = format!("{}\n", init.len()).into_bytes();
        hello.extend_from_slice(&init);
        server
            .send(&process::child_input(python, hello))
            .map_err(|e| unusable(python, format!("the fast-start server did not start: {e}")))?;
        Ok(server)
    }

    /// Waits until a launched server has loaded; why not, with its stderr.
    fn ready(&self, python: &Interpreter) -> Result<(), SandboxError> {
        self.await_ready().map_err(|why| {
            let mut err = Stream::new();
            let mut buf = [0u8; 4096];
            err.pump(self.stderr.as_raw_fd(), 4096, &mut buf);
            let stderr = String::from_utf8_lossy(&err.excerpt).trim().to_owned();
            unusable(
                python,
                format!("the fast-start server did not start ({why}): {stderr}"),
            )
        })
    }

    /// Writes all of `data` to the server's command channel.
    fn send(&self, mut data: &[u8]) -> io::Result<()> {
        let fd = self.commands.as_raw_fd();
        // SAFETY: fcntl on a descriptor we own: blocking writes for commands.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
        while !data.is_empty() {
            match sys::write_fd(fd, data) {
                Ok(n) => data = &data[n..],
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Waits for the server's `ready` line.
    fn await_ready(&self) -> Result<(), String> {
        let fd: RawFd = self.control.as_raw_fd();
        let deadline = Instant::now() + START_TIMEOUT;
        let mut got = Vec::new();
        let mut buf = [0u8; 256];
        while !got.ends_with(b"\n") {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err("it took too long to load".into());
            }
            let mut pfd = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let rc = unsafe { libc::poll(&mut pfd, 1, left.as_millis() as libc::c_int) };
            if rc <= 0 {
                continue;
            }
            match sys::read_fd(fd, &mut buf) {
                Ok(0) => return Err("it exited".into()),
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e)
                    if e.kind() == io::ErrorKind::Interrupted
                        || e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        if got == b"ready\n" {
            Ok(())
        } else {
            Err(format!("it said {:?}", String::from_utf8_lossy(&got)))
        }
    }

    /// Runs one candidate in a fresh child of the server. The flag is false
    /// when the server can no longer be used (it died, or was killed because it
    /// did not fork in time) and must be replaced.
    fn run(
        &mut self,
        python: &Interpreter,
        limits: &Limits,
        job: &Job<'_>,
    ) -> Result<(CandidateResult, bool), SandboxError> {
        if let Some(early) = process::before_running(job)? {
            return Ok((early, true));
        }
        // Whatever processes of the last candidate wrote after it was read.
        for fd in [&self.stdout, &self.stderr, &self.envelope] {
            supervise::discard(fd.as_raw_fd());
        }
        let keys = payload::Keys::new(job.program);
        // The candidate works in the server's directory, the only one its
        // confinement lets it write, emptied after each candidate.
        let dir = self.home.path();
        let rlimits: String = limits::rlimits(limits, job.timeout)
            .iter()
            .map(|(r, soft, hard)| format!("{r} {soft} {hard}\n"))
            .collect();
        let dir_text = dir.to_string_lossy().into_owned();
        let mut frame = payload::fields(&[&rlimits, &dir_text]);
        frame.extend_from_slice(&payload::encode(&keys, job.program, limits, python));
        let mut command = format!("run {}\n", frame.len()).into_bytes();
        command.extend_from_slice(&frame);

        let t_begin = monotonic_ns();
        let started = Instant::now();
        let exit = Exit::Server {
            control: self.control.as_raw_fd(),
            server: self.pid,
        };
        let pipes = Pipes {
            stdout: self.stdout.as_raw_fd(),
            stderr: self.stderr.as_raw_fd(),
            envelope: self.envelope.as_raw_fd(),
        };
        let watch = Watch {
            cap: limits.output_cap,
            started,
            timeout: job.timeout,
            cancel: job.cancel,
            on_hand_off: job.on_hand_off,
            disk: limits.disk_bytes.map(|limit| (dir, limit)),
        };
        let input = Some(Input::Borrowed(self.commands.as_raw_fd()));
        let observed = supervise::supervise(&exit, input, &command, &pipes, &watch);
        let t_reaped = monotonic_ns();
        let duration_ms = started.elapsed().as_millis() as u64;
        let mut usable = false;
        if let Ok(obs) = &observed {
            usable = !obs.server_lost && obs.status.is_some();
            if let Some(pid) = obs.pgid {
                usable = usable && self.send(b"reap\n").is_ok();
                reaper::finished(pid);
            }
        }
        reaper::empty_dir(dir);
        let observed = observed.map_err(process::stop_error)?;
        let times = Times {
            begin: t_begin,
            spawned: observed.forked_ns.unwrap_or(t_reaped),
            reaped: t_reaped,
            duration_ms,
        };
        let result = verdict::interpret(&observed, &keys, job, limits, &times);
        Ok((result, usable))
    }
}

impl Drop for ForkServer {
    fn drop(&mut self) {
        sys::kill_group(self.pid);
        spawn::wait(self.pid);
        reaper::finished(self.pid);
    }
}

/// Where a [`Spawner`] takes requests: each brings the channel for its answer.
type Requests = flume::Sender<flume::Sender<Result<ForkServer, SandboxError>>>;

/// Starts fork servers on one thread that lives as long as the [`Runner`]: a
/// server's parent-death signal fires when the *thread* that started it ends,
/// and pooled servers outlive the worker threads that use them.
struct Spawner {
    requests: Requests,
    thread: std::thread::JoinHandle<()>,
}

impl Spawner {
    fn new(python: &Interpreter, limits: &Limits) -> io::Result<Spawner> {
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
                    let _ = reply.send(ForkServer::launch(&python, &limits));
                }
            })?;
        Ok(Spawner { requests, thread })
    }

    fn start(requests: &Requests, python: &Interpreter) -> Result<ForkServer, SandboxError> {
        let (reply, answer) = flume::bounded(1);
        let gone = || SandboxError::Spawn(io::Error::other("the server-starting thread ended"));
        requests.send(reply).map_err(|_| gone())?;
        let server = answer.recv().map_err(|_| gone())??;
        server.ready(python)?;
        Ok(server)
    }
}

/// Runs candidates, each in a fresh interpreter or (fast start) in a fresh
/// child of a warm one. Warm servers are kept in a pool shared by every thread
/// using the runner: one is started when none is idle, and one that died is
/// replaced, so there are as many as candidates ever ran at once.
pub struct Runner {
    python: Interpreter,
    limits: Limits,
    fast_start: bool,
    idle: Mutex<Vec<ForkServer>>,
    spawner: Mutex<Option<Spawner>>,
}

impl Runner {
    /// A runner for candidates under `limits`.
    pub fn new(python: &Interpreter, limits: &Limits, fast_start: bool) -> Runner {
        Runner {
            python: python.clone(),
            limits: limits.clone(),
            fast_start,
            idle: Mutex::new(Vec::new()),
            spawner: Mutex::new(None),
        }
    }

    fn new_server(&self) -> Result<ForkServer, SandboxError> {
        let requests = {
            let mut slot = self.spawner.lock().unwrap_or_else(|e| e.into_inner());
            let spawner = match &mut *slot {
                Some(spawner) => spawner,
                empty => empty.insert(Spawner::new(&self.python, &self.limits)?),
            };
            spawner.requests.clone()
        };
        // The lock is not held while the server loads.
        Spawner::start(&requests, &self.python)
    }

    /// Runs one candidate (see [`run_candidate`](super::run_candidate)),
    /// calling `on_hand_off` once it no longer needs its worker's place (it
    /// mostly waits, or it has had its full-priority CPU time and was lowered
    /// in priority); the engine then lets another one start.
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
        };
        if !self.fast_start {
            return process::run_fresh(&self.python, &self.limits, &job);
        }
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut server = match idle {
            Some(server) => server,
            None => self.new_server()?,
        };
        let (result, usable) = server.run(&self.python, &self.limits, &job)?;
        if usable {
            self.idle
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(server);
        }
        Ok(result)
    }
}

impl Drop for Runner {
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

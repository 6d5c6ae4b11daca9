//! Spawning one candidate and supervising it from a single poll loop: payload out
//! on stdin, stdout and stderr streamed against the cap, the envelope read from
//! descriptor 3, the exit seen through a pidfd (Linux) or a short poll, the
//! deadline and the cancel pipe watched. Every exit path kills the whole process
//! group before reaping, so nothing the candidate started outlives it.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::cancel::owned;
use super::limits::ChildSetup;
use super::{
    CancelToken, CandidateResult, HARNESS, Interpreter, Limits, Outcome, SandboxError, Timing,
};
use super::{payload, reaper};
use crate::plan::Program;

/// Bytes of each of stdout and stderr kept for display.
pub const EXCERPT_BYTES: usize = 16 * 1024;
/// Most bytes accepted on the envelope channel.
const ENVELOPE_MAX: usize = 1 << 20;
/// How long output is still collected after the child exits.
const DRAIN_GRACE: Duration = Duration::from_millis(200);
/// A candidate still running after this long is lowered to [`DEMOTED_NICE`], so
/// one stuck in a loop until its timeout does not hold a core the others need.
const DEMOTE_AFTER: Duration = Duration::from_secs(1);
/// The niceness of a long runner.
const DEMOTED_NICE: libc::c_int = 19;
/// Poll slice where the exit cannot be watched through a pidfd.
const EXIT_POLL: Duration = Duration::from_millis(2);

/// A pipe whose ends are close-on-exec.
pub(crate) fn pipe_cloexec() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    // SAFETY: `fds` is a valid two-element buffer.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    // SAFETY: `fds` is a valid two-element buffer; flags are set right after.
    let rc = unsafe {
        let rc = libc::pipe(fds.as_mut_ptr());
        if rc == 0 {
            libc::fcntl(fds[0], libc::F_SETFD, libc::FD_CLOEXEC);
            libc::fcntl(fds[1], libc::F_SETFD, libc::FD_CLOEXEC);
        }
        rc
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((owned(fds[0]), owned(fds[1])))
}

/// CLOCK_MONOTONIC in nanoseconds, the clock the harness stamps with.
pub(crate) fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

fn set_nonblocking(fd: RawFd) {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
}

fn kill_group(pgid: libc::pid_t) {
    // SAFETY: plain syscall; an already-empty group yields ESRCH, which is fine.
    unsafe { libc::killpg(pgid, libc::SIGKILL) };
}

/// Opens a pidfd for `pid` where the kernel has them.
fn pidfd(pid: libc::pid_t) -> Option<OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd >= 0 {
            return Some(owned(fd as RawFd));
        }
    }
    let _ = pid;
    None
}

/// Whether `pid` has exited, without reaping it (so its group id stays reserved).
fn has_exited(pid: libc::pid_t) -> bool {
    // SAFETY: `info` is a valid out-pointer; WNOWAIT leaves the child waitable.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let rc = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        rc == 0 && info.si_pid() != 0
    }
}

/// One captured output stream.
struct Stream {
    open: bool,
    total: u64,
    excerpt: Vec<u8>,
}

impl Stream {
    fn new() -> Self {
        Stream {
            open: true,
            total: 0,
            excerpt: Vec::new(),
        }
    }

    /// Reads what is available; false at end of stream.
    fn pump(&mut self, reader: &mut impl Read, keep: usize, buf: &mut [u8]) {
        loop {
            match reader.read(buf) {
                Ok(0) => {
                    self.open = false;
                    return;
                }
                Ok(n) => {
                    self.total += n as u64;
                    let room = keep.saturating_sub(self.excerpt.len());
                    self.excerpt.extend_from_slice(&buf[..n.min(room)]);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(_) => {
                    self.open = false;
                    return;
                }
            }
        }
    }

    fn text(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.excerpt).into_owned();
        if self.total > self.excerpt.len() as u64 {
            s.push_str(&format!(
                "\n[... {} more bytes not shown]",
                self.total - self.excerpt.len() as u64
            ));
        }
        s
    }
}

fn spawn(python: &Interpreter, dir: &std::path::Path, setup: ChildSetup) -> io::Result<Child> {
    let mut cmd = Command::new(&python.executable);
    cmd.args(["-s", "-S", "-B", "-c", HARNESS])
        .env_clear()
        .env("PYTHONHASHSEED", "0")
        .env("PYTHONIOENCODING", "utf-8")
        .env("LANG", "C.UTF-8")
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", dir)
        .env("TMPDIR", dir)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: `ChildSetup::apply` only makes async-signal-safe calls.
    unsafe {
        cmd.pre_exec(move || setup.apply());
    }
    reaper::spawn_registered(|| cmd.spawn(), |c: &Child| c.id() as i32)
}

/// Everything the poll loop observed.
struct Observed {
    stdout: Stream,
    stderr: Stream,
    envelope: Vec<u8>,
    timed_out: bool,
    overflow: bool,
    status: Option<std::process::ExitStatus>,
}

/// Runs one candidate to completion and maps what happened to a result.
///
/// `Err` only for host problems (cannot spawn) and cancellation; anything the
/// candidate does is an `Ok` result with one of the five outcomes.
pub fn run_candidate(
    python: &Interpreter,
    limits: &Limits,
    timeout: Duration,
    program: &Program,
    cancel: Option<&CancelToken>,
) -> Result<CandidateResult, SandboxError> {
    run_candidate_yielding(python, limits, timeout, program, cancel, &|| {})
}

/// [`run_candidate`], calling `on_demote` if the candidate runs long enough to be
/// lowered in priority (the engine then lets another candidate start).
pub fn run_candidate_yielding(
    python: &Interpreter,
    limits: &Limits,
    timeout: Duration,
    program: &Program,
    cancel: Option<&CancelToken>,
    on_demote: &dyn Fn(),
) -> Result<CandidateResult, SandboxError> {
    let total = program.assertions.len();
    if total == 0 {
        return Ok(CandidateResult::not_run("no assertions", 0));
    }
    if cancel.is_some_and(CancelToken::is_cancelled) {
        return Err(SandboxError::Cancelled);
    }
    let token = payload::token();
    let input = payload::encode(&token, program, limits, python);
    let dir = tempfile::Builder::new().prefix("execscope-").tempdir()?;

    let t_begin = monotonic_ns();
    let started = Instant::now();
    let (envelope_r, envelope_w) = pipe_cloexec()?;
    let setup = ChildSetup::new(limits, timeout, envelope_w.as_raw_fd());
    let mut child = spawn(python, dir.path(), setup).map_err(|e| {
        SandboxError::Spawn(io::Error::new(
            e.kind(),
            format!("{}: {e}", python.executable.display()),
        ))
    })?;
    drop(envelope_w);
    let t_spawned = monotonic_ns();

    let watch = Watch {
        cap: limits.output_cap,
        deadline: started + timeout,
        demote_at: started + DEMOTE_AFTER,
        cancel,
        on_demote,
    };
    let observed = supervise(&mut child, envelope_r, &input, &watch);
    let t_reaped = monotonic_ns();
    let duration_ms = started.elapsed().as_millis() as u64;
    reaper::finished(child.id() as i32);
    reaper::remove_dir(dir);
    let observed = observed?;

    let timing = |stamps: [u64; 3]| {
        // On a loaded machine the harness may start before the parent thread
        // notes that the spawn returned: start-up then counts from the earlier.
        let spawned = t_spawned.min(stamps[0]);
        (t_begin <= stamps[0] && stamps[0] <= stamps[2] && stamps[2] <= t_reaped).then(|| Timing {
            spawn_us: (spawned - t_begin) / 1000,
            startup_us: (stamps[0] - spawned) / 1000,
            candidate_us: (stamps[2] - stamps[0]) / 1000,
            teardown_us: (t_reaped - stamps[2]) / 1000,
        })
    };
    let mut result = CandidateResult {
        outcome: Outcome::Error,
        score: 0.0,
        passed: 0,
        total: total as u32,
        per_assertion: vec![false; total],
        detail: String::new(),
        duration_ms,
        stdout: observed.stdout.text(),
        stderr: observed.stderr.text(),
        timing: None,
    };
    if observed.overflow {
        result.detail = "output overflow".into();
    } else if observed.timed_out {
        result.outcome = Outcome::Timeout;
        result.detail = format!("timed out after {:.1} s", timeout.as_secs_f64());
    } else if let Some(env) = payload::parse(&observed.envelope, &token) {
        if env.per_assertion.len() == total
            || env.outcome != Outcome::Pass && env.outcome != Outcome::AssertionFail
        {
            result.timing = timing(env.stamps);
            result.outcome = env.outcome;
            result.detail = env.detail;
            if matches!(env.outcome, Outcome::Pass | Outcome::AssertionFail) {
                result.passed = env.passed;
                result.per_assertion = env.per_assertion;
                result.score = f64::from(env.passed) / total as f64;
            }
        } else {
            result.detail = "malformed result envelope".into();
        }
    } else {
        let (outcome, detail) = without_envelope(observed.status, &result.stderr, limits);
        result.outcome = outcome;
        result.detail = detail;
    }
    Ok(result)
}

/// Outcome and detail of a candidate that ended without a result.
fn without_envelope(
    status: Option<std::process::ExitStatus>,
    stderr: &str,
    limits: &Limits,
) -> (Outcome, String) {
    let Some(status) = status else {
        return (Outcome::Error, "ended without a result".into());
    };
    if let Some(code) = status.code() {
        return (
            Outcome::Error,
            format!("exited with status {code} before reporting a result"),
        );
    }
    let signal = status.signal().unwrap_or(0);
    if signal == libc::SIGXCPU && limits.cpu_backstop {
        return (Outcome::Timeout, "CPU time limit".into());
    }
    if limits.memory_bytes.is_some()
        && (stderr.contains("MemoryError") || stderr.contains("Cannot allocate memory"))
    {
        return (Outcome::Error, "memory limit".into());
    }
    let name = match signal {
        libc::SIGKILL => " (SIGKILL)",
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGABRT => " (SIGABRT)",
        libc::SIGBUS => " (SIGBUS)",
        libc::SIGFPE => " (SIGFPE)",
        libc::SIGILL => " (SIGILL)",
        libc::SIGTERM => " (SIGTERM)",
        libc::SIGXFSZ => " (SIGXFSZ: file size limit)",
        libc::SIGXCPU => " (SIGXCPU)",
        _ => "",
    };
    (
        Outcome::Error,
        format!("killed by signal {signal}{name} before reporting a result"),
    )
}

/// What the poll loop watches for besides the pipes.
struct Watch<'a> {
    /// Output cap per stream.
    cap: u64,
    /// When the candidate times out.
    deadline: Instant,
    /// When a still-running candidate is lowered in priority.
    demote_at: Instant,
    /// Run-wide cancellation.
    cancel: Option<&'a CancelToken>,
    /// Called once, when the candidate is lowered in priority.
    on_demote: &'a dyn Fn(),
}

fn supervise(
    child: &mut Child,
    envelope_r: OwnedFd,
    input: &[u8],
    watch: &Watch<'_>,
) -> Result<Observed, SandboxError> {
    let Watch {
        cap,
        deadline,
        demote_at,
        cancel,
        on_demote,
    } = *watch;
    let pid = child.id() as libc::pid_t;
    let mut stdin = child.stdin.take();
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let mut envelope = std::fs::File::from(envelope_r);
    for fd in [
        stdin.as_ref().map(|s| s.as_raw_fd()),
        stdout.as_ref().map(|s| s.as_raw_fd()),
        stderr.as_ref().map(|s| s.as_raw_fd()),
        Some(envelope.as_raw_fd()),
    ]
    .into_iter()
    .flatten()
    {
        set_nonblocking(fd);
    }
    let exit_fd = pidfd(pid);
    let mut obs = Observed {
        stdout: Stream::new(),
        stderr: Stream::new(),
        envelope: Vec::new(),
        timed_out: false,
        overflow: false,
        status: None,
    };
    let mut envelope_open = true;
    let mut written = 0usize;
    let mut exited_at: Option<Instant> = None;
    let mut killed = false;
    let mut demoted = false;
    let mut buf = vec![0u8; 64 * 1024];

    loop {
        let now = Instant::now();
        if exited_at.is_none() && !killed && now >= deadline {
            obs.timed_out = true;
            kill_group(pid);
            killed = true;
        }
        if !demoted && exited_at.is_none() && !killed && now >= demote_at {
            // A long runner keeps its wall clock but yields the CPU to the others.
            // SAFETY: lowering the priority of our own child's group.
            unsafe { libc::setpriority(libc::PRIO_PGRP, pid as libc::id_t, DEMOTED_NICE) };
            demoted = true;
            on_demote();
        }
        let wait_until = match exited_at {
            Some(t) => t + DRAIN_GRACE,
            None if killed => now + Duration::from_secs(5),
            None if !demoted => deadline.min(demote_at),
            None => deadline,
        };
        if exited_at.is_some()
            && (now >= wait_until || (!obs.stdout.open && !obs.stderr.open && !envelope_open))
        {
            break;
        }
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(6);
        let mut slot = |fd: RawFd, events: libc::c_short| {
            fds.push(libc::pollfd {
                fd,
                events,
                revents: 0,
            });
            fds.len() - 1
        };
        let i_in = stdin.as_ref().map(|s| slot(s.as_raw_fd(), libc::POLLOUT));
        let i_out = stdout
            .as_ref()
            .filter(|_| obs.stdout.open)
            .map(|s| slot(s.as_raw_fd(), libc::POLLIN));
        let i_err = stderr
            .as_ref()
            .filter(|_| obs.stderr.open)
            .map(|s| slot(s.as_raw_fd(), libc::POLLIN));
        let i_env = envelope_open.then(|| slot(envelope.as_raw_fd(), libc::POLLIN));
        let i_exit = match (&exit_fd, exited_at) {
            (Some(fd), None) => Some(slot(fd.as_raw_fd(), libc::POLLIN)),
            _ => None,
        };
        let i_cancel = cancel.map(|c| slot(c.fd(), libc::POLLIN));
        let mut wait = wait_until.saturating_duration_since(now);
        if exit_fd.is_none() && exited_at.is_none() {
            wait = wait.min(EXIT_POLL);
        }
        let ms = wait.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
        // SAFETY: `fds` is a valid array of pollfd of the given length.
        let rc = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
        if rc < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            kill_group(pid);
            let _ = child.wait();
            return Err(SandboxError::Spawn(err));
        }
        let ready = |i: Option<usize>| i.is_some_and(|i| fds[i].revents != 0);

        if ready(i_cancel) {
            kill_group(pid);
            let _ = child.wait();
            return Err(SandboxError::Cancelled);
        }
        if ready(i_in) {
            if let Some(w) = stdin.as_mut() {
                match w.write(&input[written..]) {
                    Ok(n) => written += n,
                    Err(e)
                        if e.kind() == io::ErrorKind::WouldBlock
                            || e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => written = input.len(),
                }
            }
            if written >= input.len() {
                stdin = None;
            }
        }
        if ready(i_out) {
            if let Some(r) = stdout.as_mut() {
                obs.stdout.pump(r, EXCERPT_BYTES, &mut buf);
            }
        }
        if ready(i_err) {
            if let Some(r) = stderr.as_mut() {
                obs.stderr.pump(r, EXCERPT_BYTES, &mut buf);
            }
        }
        if !obs.overflow && (obs.stdout.total > cap || obs.stderr.total > cap) {
            obs.overflow = true;
            if !killed {
                kill_group(pid);
                killed = true;
            }
        }
        if ready(i_env) {
            let mut env_stream = Stream {
                open: true,
                total: obs.envelope.len() as u64,
                excerpt: std::mem::take(&mut obs.envelope),
            };
            env_stream.pump(&mut envelope, ENVELOPE_MAX, &mut buf);
            envelope_open = env_stream.open;
            obs.envelope = env_stream.excerpt;
        }
        if exited_at.is_none() && (ready(i_exit) || (exit_fd.is_none() && has_exited(pid))) {
            // The child is a zombie: its group id cannot be reused yet, so
            // killing the group reaches exactly what it left behind.
            kill_group(pid);
            exited_at = Some(Instant::now());
        }
    }
    kill_group(pid);
    drop(stdin);
    obs.status = child.wait().ok();
    Ok(obs)
}

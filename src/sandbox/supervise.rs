//! Supervising one candidate's two processes from a single poll loop: the
//! candidate process (its payload written out, stdout and stderr streamed
//! against the cap, its directory against the disk limit, its CPU time for
//! the demotion) and its judge (the verdict read from its pipe), the deadline
//! and the cancel pipe for both. The end of each is seen directly (a pidfd, or
//! `waitid` polling, for our own child) or through the lines of the fork
//! server it came from. Once the judge has ended the candidate process is
//! killed: it has nothing left to answer. Every way out kills both groups.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use super::CancelToken;
use super::capture::{EXCERPT_BYTES, Stream, overflowed};
use super::disk::{DISK_CHECK_EVERY, over_disk_limit};
use super::pacing::{CHECK_EVERY, DEMOTED_NICE, FULL_PRIORITY_SHARE, lower_priority, pace, usage};
use super::sys::{has_exited, kill_group, monotonic_ns, set_nonblocking, write_fd};

/// Most bytes accepted on the verdict pipe (a reference's recorded outputs
/// on every input of a task come this way).
const VERDICT_MAX: usize = 64 << 20;
/// How long output is still collected after both processes ended.
const DRAIN_GRACE: Duration = Duration::from_millis(200);
/// How long a candidate may take to end by itself once its judge is done
/// (it leaves on the judge's hang-up; one that ended on its own is told
/// apart from one the host killed by its status, which takes a moment to
/// arrive from a fork server).
const EXIT_GRACE: Duration = Duration::from_millis(250);
/// Poll slice where the exit cannot be watched through a pidfd.
const EXIT_POLL: Duration = Duration::from_millis(2);

/// How the end of a process is seen.
pub(super) enum Exit {
    /// Our own child, process-group leader `pid`: through a pidfd where the
    /// kernel has them, else by polling `waitid`.
    Child {
        /// The child (and its process group).
        pid: libc::pid_t,
        /// Readable once the child has exited.
        pidfd: Option<OwnedFd>,
    },
    /// A fork server's child: the server sends `pid N` once it has forked and
    /// `exit N` or `signal N` once the child has ended (and waits to reap it).
    Server {
        /// The server's channel.
        control: RawFd,
        /// The server's own process group, killed when it misbehaves.
        server: libc::pid_t,
    },
}

/// One of a candidate's two processes, as the loop sees it.
pub(super) struct Side {
    exit: Exit,
    /// Its process group, once known.
    pub pgid: Option<libc::pid_t>,
    /// Its raw wait status, once it ended.
    pub status: Option<libc::c_int>,
    /// When its server said it had forked (monotonic ns).
    pub forked_ns: Option<u64>,
    /// Its fork server died or sent something it should not have.
    pub server_lost: bool,
    /// The host killed it while it was still running.
    pub killed: bool,
    ended: bool,
    lines: Vec<u8>,
}

impl Side {
    pub fn new(exit: Exit) -> Side {
        let pgid = match &exit {
            Exit::Child { pid, .. } => Some(*pid),
            Exit::Server { .. } => None,
        };
        Side {
            exit,
            pgid,
            status: None,
            forked_ns: None,
            server_lost: false,
            killed: false,
            ended: false,
            lines: Vec::new(),
        }
    }

    /// Kills what can be killed: its group, or (before its server has said
    /// which process it is) the server itself.
    pub fn kill(&mut self) {
        self.killed |= !self.ended;
        match (self.pgid, &self.exit) {
            (Some(pgid), _) => kill_group(pgid),
            (None, Exit::Server { server, .. }) => kill_group(*server),
            (None, Exit::Child { .. }) => {}
        }
    }

    fn watched_fd(&self) -> Option<RawFd> {
        match &self.exit {
            _ if self.ended => None,
            Exit::Child { pidfd, .. } => pidfd.as_ref().map(AsRawFd::as_raw_fd),
            Exit::Server { control, .. } => Some(*control),
        }
    }

    fn polled(&self) -> bool {
        !self.ended && matches!(self.exit, Exit::Child { pidfd: None, .. })
    }

    /// Looks at what its exit channel says; true when it has just ended.
    fn look(&mut self, ready: bool, killed: bool, buf: &mut [u8]) -> bool {
        if self.ended {
            return false;
        }
        self.ended = match &self.exit {
            Exit::Child { pid, pidfd } => ready || (pidfd.is_none() && has_exited(*pid)),
            Exit::Server { control, .. } if ready => {
                let control = *control;
                self.read_lines(control, killed, buf)
            }
            Exit::Server { .. } => false,
        };
        self.ended
    }

    fn read_lines(&mut self, control: RawFd, killed: bool, buf: &mut [u8]) -> bool {
        let mut s = Stream::new();
        s.excerpt = std::mem::take(&mut self.lines);
        s.pump(control, 4096, u64::MAX, buf);
        self.lines = s.excerpt;
        // End of file: the server died (or was killed with its group).
        let mut lost = !s.open;
        while let Some(nl) = self.lines.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.lines.drain(..=nl).collect();
            match server_line(&line[..nl]) {
                Some(ServerLine::Pid(pid)) if self.pgid.is_none() => {
                    // The server numbers it in its own pid namespace.
                    let host_pid = match self.exit {
                        Exit::Server { server, .. } => super::reaper::child_of_server(server, pid),
                        Exit::Child { .. } => Some(pid),
                    };
                    let Some(pid) = host_pid else {
                        lost = true;
                        continue;
                    };
                    self.pgid = Some(pid);
                    self.forked_ns = Some(monotonic_ns());
                    if killed {
                        kill_group(pid);
                    }
                }
                Some(ServerLine::Status(status))
                    if self.pgid.is_some() && self.status.is_none() =>
                {
                    self.status = Some(status);
                }
                _ => lost = true,
            }
        }
        self.server_lost |= lost || self.lines.len() >= 4096;
        self.server_lost || self.status.is_some()
    }
}

/// Where the candidate's payload goes when it was started fresh: its stdin,
/// closed once the payload is written.
pub(super) type Input = OwnedFd;

/// What the poll loop watches for besides the pipes.
pub(super) struct Watch<'a> {
    /// Output cap per stream.
    pub cap: u64,
    /// When the candidate started (the deadline and demotion count from it).
    pub started: Instant,
    /// Wall-clock timeout.
    pub timeout: Duration,
    /// Run-wide cancellation.
    pub cancel: Option<&'a CancelToken>,
    /// Called once, when the candidate gives its worker place to the next one:
    /// it mostly waits, or it has had its full-priority CPU time.
    pub on_hand_off: &'a dyn Fn(),
    /// The candidate's directory and the most bytes it may hold.
    pub disk: Option<(&'a std::path::Path, u64)>,
}

/// Everything the poll loop observed.
pub(super) struct Observed {
    pub stdout: Stream,
    pub stderr: Stream,
    pub verdict: Vec<u8>,
    pub timed_out: bool,
    /// Which stream crossed the output cap, and how much was read.
    pub overflow: Option<super::Overflow>,
    /// The candidate's directory grew past the disk limit.
    pub disk_full: bool,
    /// CPU time the candidate process used, read when it ended (before reaping).
    pub cpu: Option<Duration>,
}

/// The host's ends of the pipes of one candidate.
pub(super) struct Pipes {
    /// The candidate process's stdout and stderr.
    pub stdout: RawFd,
    pub stderr: RawFd,
    /// The judge's verdict.
    pub verdict: RawFd,
}

/// Why the loop stopped early.
pub(super) enum Stop {
    /// The run was cancelled; both processes are dead.
    Cancelled,
    /// `poll` itself failed.
    Poll(io::Error),
}

/// Parses one status line of a fork server.
enum ServerLine {
    Pid(libc::pid_t),
    Status(libc::c_int),
}

fn server_line(line: &[u8]) -> Option<ServerLine> {
    let text = std::str::from_utf8(line).ok()?;
    let (word, n) = text.split_once(' ')?;
    let n: i32 = n.parse().ok()?;
    match word {
        "pid" if n > 1 => Some(ServerLine::Pid(n)),
        // A raw wait status: the exit code in the second byte, or the signal.
        "exit" if (0..=255).contains(&n) => Some(ServerLine::Status(n << 8)),
        "signal" if (1..=127).contains(&n) => Some(ServerLine::Status(n)),
        _ => None,
    }
}

/// Runs the poll loop until both processes have ended and their output is read.
pub(super) fn supervise(
    candidate: &mut Side,
    judge: &mut Side,
    mut input: Option<Input>,
    payload: &[u8],
    pipes: &Pipes,
    watch: &Watch<'_>,
) -> Result<Observed, Stop> {
    let deadline = watch.started + watch.timeout;
    let full_priority_cpu = watch.timeout / FULL_PRIORITY_SHARE;
    let mut check_at = watch.started + CHECK_EVERY;
    let mut disk_at = watch.started + DISK_CHECK_EVERY;
    for fd in [pipes.stdout, pipes.stderr, pipes.verdict]
        .into_iter()
        .chain(input.as_ref().map(AsRawFd::as_raw_fd))
    {
        set_nonblocking(fd);
    }
    let mut obs = Observed {
        stdout: Stream::new(),
        stderr: Stream::new(),
        verdict: Vec::new(),
        timed_out: false,
        overflow: None,
        disk_full: false,
        cpu: None,
    };
    let mut verdict = Stream::new();
    let mut written = 0usize;
    let mut both_ended_at: Option<Instant> = None;
    let mut judge_ended_at: Option<Instant> = None;
    let mut killed = false;
    let mut candidate_killed = false;
    let mut demoted = false;
    let mut handed_off = false;
    let mut buf = vec![0u8; 64 * 1024];
    let kill_both = |c: &mut Side, j: &mut Side| {
        c.kill();
        j.kill();
    };

    loop {
        let now = Instant::now();
        let running = !candidate.ended && !killed;
        let both_ended = candidate.ended && judge.ended;
        if !killed && !both_ended && now >= deadline {
            obs.timed_out = true;
            kill_both(candidate, judge);
            killed = true;
        }
        if let Some((dir, limit)) = watch.disk {
            if running && now >= disk_at {
                disk_at = now + DISK_CHECK_EVERY;
                if over_disk_limit(dir, candidate.pgid, limit) {
                    obs.disk_full = true;
                    kill_both(candidate, judge);
                    killed = true;
                }
            }
        }
        if !demoted && running && now >= check_at {
            check_at = match candidate.pgid {
                Some(pgid) => {
                    let elapsed = now.saturating_duration_since(watch.started);
                    let mut used = usage(pgid, elapsed);
                    // Its judge works for it: what the judge computes (a
                    // candidate may send answers that are slow to decode)
                    // counts as the candidate's, awake and CPU alike.
                    if let Some(judge_cpu) = judge.pgid.and_then(super::pacing::process_cpu) {
                        used.cpu += judge_cpu;
                        used.awake = used.awake.max(used.cpu);
                    }
                    let step = pace(elapsed, used, full_priority_cpu, handed_off);
                    if step.demote {
                        // A long runner keeps its wall clock but yields the CPU.
                        lower_priority(pgid, DEMOTED_NICE);
                        if let Some(judge) = judge.pgid {
                            lower_priority(judge, DEMOTED_NICE);
                        }
                        demoted = true;
                    }
                    if step.hand_off {
                        handed_off = true;
                        (watch.on_hand_off)();
                    }
                    now + step.next_look
                }
                // A fork server's child not reported yet.
                None => now + Duration::from_millis(10),
            };
        }
        // The judge is done: the candidate process has nothing left to answer.
        if judge.ended && !candidate.ended && !candidate_killed {
            let t = *judge_ended_at.get_or_insert(now);
            if now >= t + EXIT_GRACE {
                candidate.kill();
                candidate_killed = true;
            }
        }
        if candidate.ended && judge.ended {
            let t = *both_ended_at.get_or_insert(now);
            let all_closed = !obs.stdout.open && !obs.stderr.open && !verdict.open;
            if all_closed || now >= t + DRAIN_GRACE {
                break;
            }
        }
        let wait_until = match both_ended_at {
            Some(t) => t + DRAIN_GRACE,
            None if killed => now + Duration::from_secs(5),
            None if !demoted && running => deadline.min(check_at),
            None => deadline,
        };
        let wait_until = match watch.disk {
            Some(_) if running => wait_until.min(disk_at),
            _ => wait_until,
        };
        let wait_until = match judge_ended_at {
            Some(t) if !candidate_killed && !candidate.ended => wait_until.min(t + EXIT_GRACE),
            _ => wait_until,
        };
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(7);
        let mut slot = |fd: RawFd, events: libc::c_short| {
            fds.push(libc::pollfd {
                fd,
                events,
                revents: 0,
            });
            fds.len() - 1
        };
        let i_in = input.as_ref().map(|i| slot(i.as_raw_fd(), libc::POLLOUT));
        let i_out = obs.stdout.open.then(|| slot(pipes.stdout, libc::POLLIN));
        let i_err = obs.stderr.open.then(|| slot(pipes.stderr, libc::POLLIN));
        let i_verdict = verdict.open.then(|| slot(pipes.verdict, libc::POLLIN));
        let i_candidate = candidate.watched_fd().map(|fd| slot(fd, libc::POLLIN));
        let i_judge = judge.watched_fd().map(|fd| slot(fd, libc::POLLIN));
        let i_cancel = watch.cancel.map(|c| slot(c.fd(), libc::POLLIN));
        let mut wait = wait_until.saturating_duration_since(now);
        if candidate.polled() || judge.polled() {
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
            kill_both(candidate, judge);
            return Err(Stop::Poll(err));
        }
        let ready = |i: Option<usize>| i.is_some_and(|i| fds[i].revents != 0);

        if ready(i_cancel) {
            kill_both(candidate, judge);
            return Err(Stop::Cancelled);
        }
        if ready(i_in) {
            if let Some(fd) = input.as_ref() {
                match write_fd(fd.as_raw_fd(), &payload[written..]) {
                    Ok(n) => written += n,
                    Err(e)
                        if e.kind() == io::ErrorKind::WouldBlock
                            || e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => written = payload.len(),
                }
            }
            if written >= payload.len() {
                input = None;
            }
        }
        // Each read stops once the cap is crossed, so the candidate is
        // stopped within one read (64 KiB) of crossing it.
        if ready(i_out) {
            obs.stdout
                .pump(pipes.stdout, EXCERPT_BYTES, watch.cap, &mut buf);
        }
        if ready(i_err) {
            obs.stderr
                .pump(pipes.stderr, EXCERPT_BYTES, watch.cap, &mut buf);
        }
        if obs.overflow.is_none() {
            obs.overflow = overflowed(&obs.stdout, &obs.stderr, watch.cap);
            if obs.overflow.is_some() {
                // Nothing more is read: what is still in the pipes goes with them.
                obs.stdout.open = false;
                obs.stderr.open = false;
                if !killed {
                    kill_both(candidate, judge);
                    killed = true;
                }
            }
        }
        if ready(i_verdict) {
            verdict.pump(pipes.verdict, VERDICT_MAX, u64::MAX, &mut buf);
        }
        if candidate.look(ready(i_candidate), killed || candidate_killed, &mut buf) {
            // A zombie now (and a fork server does not reap its child before
            // we say so): the group id cannot be reused yet, so killing the
            // group reaches exactly what the candidate left behind.
            obs.cpu = candidate.pgid.and_then(super::pacing::process_cpu);
            candidate.kill();
        }
        if judge.look(ready(i_judge), killed, &mut buf) {
            judge.kill();
        }
    }
    kill_both(candidate, judge);
    // What it wrote just before it ended counts too.
    if let Some((dir, limit)) = watch.disk {
        obs.disk_full |= over_disk_limit(dir, candidate.pgid, limit);
    }
    obs.verdict = verdict.excerpt;
    Ok(obs)
}

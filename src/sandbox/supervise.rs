//! Supervising one running candidate from a single poll loop, whichever way it
//! was started: the payload written out, stdout and stderr streamed against the
//! cap, the envelope read from descriptor 3, the deadline, the demotion and the
//! cancel pipe watched, and the end seen either directly (a pidfd, or `waitid`
//! polling, for our own child) or through the status lines a fork server sends.
//! Every way out kills the candidate's whole process group.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use super::CancelToken;
use super::capture::{EXCERPT_BYTES, Stream};
use super::disk::{DISK_CHECK_EVERY, over_disk_limit};
use super::pacing::{CHECK_EVERY, DEMOTED_NICE, FULL_PRIORITY_SHARE, lower_priority, usage};
use super::sys::{has_exited, kill_group, monotonic_ns, read_fd, set_nonblocking, write_fd};

/// Most bytes accepted on the envelope channel.
const ENVELOPE_MAX: usize = 1 << 20;
/// How long output is still collected after our own child exits.
const DRAIN_GRACE: Duration = Duration::from_millis(200);
/// Poll slice where the exit cannot be watched through a pidfd.
const EXIT_POLL: Duration = Duration::from_millis(2);

/// How the end of the candidate is seen.
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
        /// The server's status channel.
        control: RawFd,
        /// The server's own process group, killed when it misbehaves.
        server: libc::pid_t,
    },
}

/// Where the payload goes.
pub(super) enum Input {
    /// Our child's stdin, closed once the payload is written.
    Owned(OwnedFd),
    /// A fork server's command channel, left open.
    Borrowed(RawFd),
}

impl Input {
    fn fd(&self) -> RawFd {
        match self {
            Input::Owned(fd) => fd.as_raw_fd(),
            Input::Borrowed(fd) => *fd,
        }
    }
}

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
    pub envelope: Vec<u8>,
    pub timed_out: bool,
    pub overflow: bool,
    /// The candidate's directory grew past the disk limit.
    pub disk_full: bool,
    /// The raw wait status, where known.
    pub status: Option<libc::c_int>,
    /// The candidate's process group, where known.
    pub pgid: Option<libc::pid_t>,
    /// When the harness's `pid` line arrived (fork server only), monotonic ns.
    pub forked_ns: Option<u64>,
    /// The fork server died or sent something it should not have.
    pub server_lost: bool,
    /// CPU time the candidate used, read when it ended (before reaping).
    pub cpu: Option<Duration>,
}

/// The pipes of one candidate.
pub(super) struct Pipes {
    pub stdout: RawFd,
    pub stderr: RawFd,
    pub envelope: RawFd,
}

/// Why the loop stopped early.
pub(super) enum Stop {
    /// The run was cancelled; the candidate is dead.
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

/// Runs the poll loop until the candidate has ended and its output is read.
pub(super) fn supervise(
    exit: &Exit,
    mut input: Option<Input>,
    payload: &[u8],
    pipes: &Pipes,
    watch: &Watch<'_>,
) -> Result<Observed, Stop> {
    let deadline = watch.started + watch.timeout;
    let full_priority_cpu = watch.timeout / FULL_PRIORITY_SHARE;
    let mut check_at = watch.started + CHECK_EVERY;
    let mut disk_at = watch.started + DISK_CHECK_EVERY;
    let persistent = matches!(exit, Exit::Server { .. });
    for fd in [
        input.as_ref().map(Input::fd),
        Some(pipes.stdout),
        Some(pipes.stderr),
        Some(pipes.envelope),
    ]
    .into_iter()
    .flatten()
    {
        set_nonblocking(fd);
    }
    let mut obs = Observed {
        stdout: Stream::new(),
        stderr: Stream::new(),
        envelope: Vec::new(),
        timed_out: false,
        overflow: false,
        disk_full: false,
        status: None,
        pgid: match exit {
            Exit::Child { pid, .. } => Some(*pid),
            Exit::Server { .. } => None,
        },
        forked_ns: None,
        server_lost: false,
        cpu: None,
    };
    let mut envelope = Stream::new();
    let mut control_buf: Vec<u8> = Vec::new();
    let mut written = 0usize;
    let mut exited_at: Option<Instant> = None;
    let mut killed = false;
    let mut demoted = false;
    let mut handed_off = false;
    let mut buf = vec![0u8; 64 * 1024];
    // Kills what can be killed: the candidate's group, or (before the fork
    // server has said which process it is) the server itself.
    let kill = |obs: &Observed| match (obs.pgid, exit) {
        (Some(pgid), _) => kill_group(pgid),
        (None, Exit::Server { server, .. }) => kill_group(*server),
        (None, Exit::Child { .. }) => {}
    };

    loop {
        let now = Instant::now();
        let running = exited_at.is_none() && !killed;
        if running && now >= deadline {
            obs.timed_out = true;
            kill(&obs);
            killed = true;
        }
        if let Some((dir, limit)) = watch.disk {
            if running && now >= disk_at {
                disk_at = now + DISK_CHECK_EVERY;
                if over_disk_limit(dir, obs.pgid, limit) {
                    obs.disk_full = true;
                    kill(&obs);
                    killed = true;
                }
            }
        }
        if !demoted && running && now >= check_at {
            check_at = match obs.pgid {
                Some(pgid) => {
                    let elapsed = now.saturating_duration_since(watch.started);
                    let used = usage(pgid, elapsed);
                    if used.cpu >= full_priority_cpu {
                        // A long runner keeps its wall clock but yields the CPU.
                        lower_priority(pgid, DEMOTED_NICE);
                        demoted = true;
                    }
                    // Asleep (neither running nor waiting for a CPU) for more
                    // than half of its time: it mostly waits.
                    let asleep = elapsed.saturating_sub(used.awake);
                    if !handed_off && (demoted || asleep * 2 > elapsed) {
                        handed_off = true;
                        (watch.on_hand_off)();
                    }
                    // It cannot reach its full-priority CPU time sooner.
                    let to_full = full_priority_cpu.saturating_sub(used.cpu);
                    now + to_full.clamp(Duration::from_millis(10), CHECK_EVERY)
                }
                // A fork server's child not reported yet.
                None => now + Duration::from_millis(10),
            };
        }
        if let Some(t) = exited_at {
            let all_closed = !obs.stdout.open && !obs.stderr.open && !envelope.open;
            if persistent || all_closed || now >= t + DRAIN_GRACE {
                break;
            }
        }
        let wait_until = match exited_at {
            Some(t) => t + DRAIN_GRACE,
            None if killed => now + Duration::from_secs(5),
            None if !demoted => deadline.min(check_at),
            None => deadline,
        };
        let wait_until = match watch.disk {
            Some(_) if exited_at.is_none() && !killed => wait_until.min(disk_at),
            _ => wait_until,
        };
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(6);
        let mut slot = |fd: RawFd, events: libc::c_short| {
            fds.push(libc::pollfd {
                fd,
                events,
                revents: 0,
            });
            fds.len() - 1
        };
        let i_in = input.as_ref().map(|i| slot(i.fd(), libc::POLLOUT));
        let i_out = obs.stdout.open.then(|| slot(pipes.stdout, libc::POLLIN));
        let i_err = obs.stderr.open.then(|| slot(pipes.stderr, libc::POLLIN));
        let i_env = envelope.open.then(|| slot(pipes.envelope, libc::POLLIN));
        let i_exit = match (exit, exited_at) {
            (
                Exit::Child {
                    pidfd: Some(fd), ..
                },
                None,
            ) => Some(slot(fd.as_raw_fd(), libc::POLLIN)),
            (Exit::Server { control, .. }, None) => Some(slot(*control, libc::POLLIN)),
            _ => None,
        };
        let i_cancel = watch.cancel.map(|c| slot(c.fd(), libc::POLLIN));
        let mut wait = wait_until.saturating_duration_since(now);
        let polled_exit = matches!(exit, Exit::Child { pidfd: None, .. });
        if polled_exit && exited_at.is_none() {
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
            kill(&obs);
            return Err(Stop::Poll(err));
        }
        let ready = |i: Option<usize>| i.is_some_and(|i| fds[i].revents != 0);

        if ready(i_cancel) {
            kill(&obs);
            return Err(Stop::Cancelled);
        }
        if ready(i_in) {
            if let Some(i) = input.as_ref() {
                match write_fd(i.fd(), &payload[written..]) {
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
        if ready(i_out) {
            obs.stdout.pump(pipes.stdout, EXCERPT_BYTES, &mut buf);
        }
        if ready(i_err) {
            obs.stderr.pump(pipes.stderr, EXCERPT_BYTES, &mut buf);
        }
        if !obs.overflow && (obs.stdout.total > watch.cap || obs.stderr.total > watch.cap) {
            obs.overflow = true;
            if !killed {
                kill(&obs);
                killed = true;
            }
        }
        if ready(i_env) {
            envelope.pump(pipes.envelope, ENVELOPE_MAX, &mut buf);
        }
        if exited_at.is_some() {
            continue;
        }
        let ended = match exit {
            Exit::Child { pid, pidfd } => ready(i_exit) || (pidfd.is_none() && has_exited(*pid)),
            Exit::Server { control, .. } if ready(i_exit) => {
                let mut s = Stream::new();
                s.excerpt = std::mem::take(&mut control_buf);
                s.pump(*control, 4096, &mut buf);
                control_buf = s.excerpt;
                // End of file: the server died (or was killed with its group).
                let mut lost = !s.open;
                while let Some(nl) = control_buf.iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = control_buf.drain(..=nl).collect();
                    match server_line(&line[..nl]) {
                        Some(ServerLine::Pid(pid)) if obs.pgid.is_none() => {
                            obs.pgid = Some(pid);
                            obs.forked_ns = Some(monotonic_ns());
                            if killed {
                                kill_group(pid);
                            }
                        }
                        Some(ServerLine::Status(status))
                            if obs.pgid.is_some() && obs.status.is_none() =>
                        {
                            obs.status = Some(status);
                        }
                        _ => lost = true,
                    }
                }
                obs.server_lost |= lost || control_buf.len() >= 4096;
                obs.server_lost || obs.status.is_some()
            }
            Exit::Server { .. } => false,
        };
        if ended {
            // Our own child is a zombie now (and a fork server does not reap its
            // child before we say so): the group id cannot be reused yet, so
            // killing the group reaches exactly what the candidate left behind.
            obs.cpu = obs.pgid.and_then(super::pacing::process_cpu);
            kill(&obs);
            if persistent {
                // The server holds the pipes open: what the candidate wrote is
                // in them already; read it and stop.
                obs.stdout.pump(pipes.stdout, EXCERPT_BYTES, &mut buf);
                obs.stderr.pump(pipes.stderr, EXCERPT_BYTES, &mut buf);
                envelope.pump(pipes.envelope, ENVELOPE_MAX, &mut buf);
            }
            exited_at = Some(Instant::now());
        }
    }
    kill(&obs);
    // What it wrote just before it ended counts too.
    if let Some((dir, limit)) = watch.disk {
        obs.disk_full |= over_disk_limit(dir, obs.pgid, limit);
    }
    obs.envelope = envelope.excerpt;
    Ok(obs)
}

/// Reads and throws away whatever is waiting on `fd` (left there by processes
/// of an earlier candidate that were killed after its output was read).
pub(super) fn discard(fd: RawFd) {
    set_nonblocking(fd);
    let mut buf = [0u8; 16 * 1024];
    while let Ok(n) = read_fd(fd, &mut buf) {
        if n == 0 {
            break;
        }
    }
}

//! Fork servers: warm interpreters that have loaded the harness (and a few
//! common modules) once and fork a fresh child per candidate. Every judge
//! comes from one (it runs no candidate code, so a warm parent is safe to
//! reuse); in the fast-start mode every candidate process does too. A child
//! gets what a fresh process gets: its own session and process group, its
//! own descriptors (sent with the command, so nothing one child does to them
//! reaches the next), the same resource limits and confinement. The server
//! reaps a child only when the host says so, so killing the child's group
//! never races a reused pid. The protocol is in `wire.rs`.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use super::capture::Stream;
use super::confine;
use super::limits::{self, ChildSetup};
use super::process;
use super::sys::{self, socketpair_cloexec};
use super::{Interpreter, Limits, SandboxError};
use super::{reaper, spawn, wire};

/// Modules a candidate server imports once, so its children do not pay for
/// them: what HumanEval and MBPP programs import most. One that would load a
/// denied module is left out, so such an import fails as it would in a fresh
/// interpreter.
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

/// What a judge server imports once: what the judge itself uses and what
/// tests import most.
const JUDGE_MODULES: [&str; 11] = [
    "json",
    "ast",
    "dis",
    "collections",
    "fractions",
    "decimal",
    "re",
    "math",
    "copy",
    "random",
    "typing",
];

/// How long a fork server may take to load before it is given up on.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// What a server's children are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// Candidate processes (the fast-start mode).
    Candidate,
    /// Judges.
    Judge,
}

impl Role {
    fn word(self) -> &'static str {
        match self {
            Role::Candidate => "candidate",
            Role::Judge => "judge",
        }
    }
}

/// One warm interpreter that forks a child per candidate.
pub(super) struct ForkServer {
    pid: libc::pid_t,
    /// The host's end of the server's socket (commands, descriptors, lines).
    channel: OwnedFd,
    stderr: OwnedFd,
    /// Its stdout, held so that its writes never fail.
    _stdout: OwnedFd,
    home: tempfile::TempDir,
    /// Its pids group (it and the one child it runs at a time), removed
    /// once it is reaped.
    #[cfg(target_os = "linux")]
    _group: Option<super::confine::Group>,
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
    pub fn launch(
        python: &Interpreter,
        limits: &Limits,
        role: Role,
    ) -> Result<ForkServer, SandboxError> {
        if !cfg!(target_os = "linux") {
            return Err(unusable(
                python,
                "fork servers need Linux (waitid without reaping)".into(),
            ));
        }
        let home = tempfile::Builder::new()
            .prefix("execscope_server_")
            .tempdir()?;
        let (ours, theirs) = socketpair_cloexec()?;
        let confine = process::confinement(limits, python, home.path(), true)?;
        // A candidate process confines itself further (see `ChildSetup::server`);
        // a judge runs no candidate code and keeps its server's confinement.
        let child_confinement = match role {
            Role::Candidate => confine::child_field(limits, confine.as_ref(), limits::RULESET_FD),
            Role::Judge => Vec::new(),
        };
        let children_confine = role == Role::Candidate;
        #[cfg(target_os = "linux")]
        let group = match limits
            .threads
            .and_then(|max| super::confine::Group::new(max + 1))
        {
            Some(group) => Some(group.map_err(SandboxError::Confinement)?),
            None => None,
        };
        #[cfg(target_os = "linux")]
        let setup = ChildSetup::server(limits, confine, children_confine)
            .in_group(group.as_ref().map(super::confine::Group::procs));
        // Its children work in its directory, a sized tmpfs where the kernel
        // gives one (a judge runs the task's tests: bounded too).
        let setup = setup.with_disk(limits, home.path());
        #[cfg(not(target_os = "linux"))]
        let setup = ChildSetup::server(limits, confine, children_confine);
        let args = ["serve", role.word()];
        let child = spawn::start_harness(python, &args, home.path(), setup, Some(theirs))?;
        sys::set_nonblocking(ours.as_raw_fd());
        let server = ForkServer {
            pid: child.pid,
            channel: ours,
            stderr: child.stderr,
            _stdout: child.stdout,
            home,
            #[cfg(target_os = "linux")]
            _group: group,
        };
        let (denylist, preload) = match role {
            Role::Candidate => (limits.denylist.join("\n"), PRELOADED_MODULES.join("\n")),
            Role::Judge => (String::new(), JUDGE_MODULES.join("\n")),
        };
        let init = wire::fields(&[
            python.sys_path.join("\n").as_bytes(),
            denylist.as_bytes(),
            wire::Switches::of(limits).words().as_bytes(),
            preload.as_bytes(),
            &child_confinement,
        ]);
        server
            .send(&process::child_input(
                python,
                process::Harness::Server,
                wire::sized(&init),
            ))
            .map_err(|e| unusable(python, format!("a fork server did not start: {e}")))?;
        Ok(server)
    }

    /// Waits until a launched server has loaded; why not, with its stderr.
    pub fn ready(&self, python: &Interpreter) -> Result<(), SandboxError> {
        self.await_ready().map_err(|why| {
            let mut err = Stream::new();
            let mut buf = [0u8; 4096];
            sys::set_nonblocking(self.stderr.as_raw_fd());
            err.pump(self.stderr.as_raw_fd(), 4096, u64::MAX, &mut buf);
            let stderr = String::from_utf8_lossy(&err.excerpt).trim().to_owned();
            unusable(
                python,
                format!("a fork server did not start ({why}): {stderr}"),
            )
        })
    }

    /// Writes all of `data` to the server's channel.
    fn send(&self, data: &[u8]) -> io::Result<()> {
        sys::set_blocking(self.channel.as_raw_fd());
        sys::write_all_fd(self.channel.as_raw_fd(), data)
    }

    /// Waits for the server's `ready` line.
    fn await_ready(&self) -> Result<(), String> {
        let fd: RawFd = self.channel.as_raw_fd();
        sys::set_nonblocking(fd);
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

    /// Has the server fork a child with `fds` and the run frame `body`
    /// (rlimits and directory are put in front).
    pub fn start(&self, fds: &[RawFd], rlimits: &[limits::Rlimit], body: &[u8]) -> io::Result<()> {
        let rlimits: String = rlimits
            .iter()
            .map(|(r, soft, hard)| format!("{r} {soft} {hard}\n"))
            .collect();
        let dir = self.home.path().to_string_lossy().into_owned();
        let mut frame = wire::fields(&[&rlimits, &dir]);
        frame.extend_from_slice(body);
        sys::set_blocking(self.channel.as_raw_fd());
        sys::send_with_fds(self.channel.as_raw_fd(), b'R', fds)?;
        sys::write_all_fd(self.channel.as_raw_fd(), &wire::sized(&frame))?;
        sys::set_nonblocking(self.channel.as_raw_fd());
        Ok(())
    }

    /// Lets the server reap its child; false when it can no longer be used.
    pub fn reap(&self) -> bool {
        self.send(b"K").is_ok()
    }

    /// The channel the poll loop reads the server's lines from.
    pub fn channel(&self) -> RawFd {
        self.channel.as_raw_fd()
    }

    /// The server's process (and group).
    pub fn pid(&self) -> libc::pid_t {
        self.pid
    }

    /// The directory its children work in, emptied after each.
    pub fn home(&self) -> &std::path::Path {
        self.home.path()
    }

    /// The same directory as the host reaches what its children see there:
    /// through the server's own mount namespace, where a tmpfs may cover it.
    pub fn children_dir(&self) -> std::path::PathBuf {
        let inside = std::path::PathBuf::from(format!("/proc/{}/root", self.pid));
        inside.join(
            self.home
                .path()
                .strip_prefix("/")
                .unwrap_or(self.home.path()),
        )
    }
}

impl Drop for ForkServer {
    fn drop(&mut self) {
        sys::kill_group(self.pid);
        spawn::wait(self.pid);
        reaper::finished(self.pid);
    }
}

//! One candidate as two confined processes: the candidate process, which runs
//! the program and answers calls (a fresh interpreter, or a fast-start
//! server's child), and its judge (a judge server's child), which runs the
//! tests and writes the verdict. The only channel between them is a socket
//! pair made here for this candidate; the host believes the judge's pipe
//! alone, and watches the candidate process for its output, its limits and
//! how it ended.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Instant;

use super::confine::Prepared;
use super::container::Container;
use super::forkserver::ForkServer;
use super::job::Job;
use super::limits::{self, ChildSetup};
use super::process::{self, child_input, confinement};
use super::supervise::{self, Exit, Pipes, Side, Watch};
use super::sys::{self, monotonic_ns, pipe_cloexec, socketpair_cloexec};
use super::verdict::{self, Times};
use super::{CandidateResult, Interpreter, Limits, SandboxError, reaper, spawn, wire};

/// Whether `program` runs in a container under `limits`: a unittest suite,
/// where this kernel gives containers (see `container.rs`). Such a candidate
/// starts fresh in both modes: a fork server's child cannot enter the
/// namespaces.
pub(super) fn in_container(limits: &Limits, program: &crate::plan::Program) -> bool {
    matches!(program.tests, crate::plan::Tests::Suite(_)) && limits.confinement().suite_container
}

/// Whether the servers a candidate used can serve the next one.
pub(super) struct Usable {
    pub judge: bool,
    pub candidate: bool,
}

/// The candidate process once started, and what the host holds of it.
struct Started {
    exit: Exit,
    stdin: Option<OwnedFd>,
    stdout: OwnedFd,
    stderr: OwnedFd,
    /// A fresh candidate's directory.
    dir: Option<Dir>,
}

/// A fresh candidate's directory: its own (removed afterwards), or its
/// thread's (emptied afterwards).
enum Dir {
    Own(tempfile::TempDir),
    Shared(std::path::PathBuf),
}

impl Dir {
    fn path(&self) -> &std::path::Path {
        match self {
            Dir::Own(d) => d.path(),
            Dir::Shared(p) => p,
        }
    }
}

/// Runs `job`: the candidate process fresh (`server` None) or from `server`,
/// the judge from `judge`.
pub(super) fn run(
    python: &Interpreter,
    limits: &Limits,
    job: &Job<'_>,
    judge: &ForkServer,
    server: Option<&ForkServer>,
) -> Result<(CandidateResult, Usable), SandboxError> {
    let (call_candidate, call_judge) = socketpair_cloexec()?;
    let (verdict_r, verdict_w) = pipe_cloexec()?;
    let payload = wire::CandidatePayload::of(job.program, limits, python).encode();
    let rlimits = limits::rlimits(limits, job.timeout);
    let t_begin = monotonic_ns();
    let started = Instant::now();
    let candidate = match server {
        None => start_fresh(python, limits, job, call_candidate)?,
        Some(server) => {
            let (stdout_r, stdout_w) = pipe_cloexec()?;
            let (stderr_r, stderr_w) = pipe_cloexec()?;
            let fds = [
                stdout_w.as_raw_fd(),
                stderr_w.as_raw_fd(),
                call_candidate.as_raw_fd(),
            ];
            server
                .start(&fds, &rlimits, &payload)
                .map_err(lost_server)?;
            // Only the candidate process holds its end now: the judge sees
            // the end of the stream once it is gone.
            drop(call_candidate);
            Started {
                exit: Exit::Server {
                    control: server.channel(),
                    server: server.pid(),
                },
                stdin: None,
                stdout: stdout_r,
                stderr: stderr_r,
                dir: None,
            }
        }
    };
    let t_spawned = monotonic_ns();
    let judge_body = wire::JudgePayload::of(job.program, job.strict).encode();
    let fds = [verdict_w.as_raw_fd(), call_judge.as_raw_fd()];
    let judge_started = judge.start(&fds, &rlimits, &judge_body);
    drop((verdict_w, call_judge));
    let input = match server {
        None => child_input(python, process::Harness::Candidate, payload),
        Some(_) => Vec::new(),
    };
    let mut candidate_side = Side::new(candidate.exit);
    let mut judge_side = Side::new(Exit::Server {
        control: judge.channel(),
        server: judge.pid(),
    });
    if let Err(e) = judge_started {
        candidate_side.kill();
        judge_side.kill();
        finish(&candidate_side, candidate.dir, server, judge);
        return Err(lost_server(e));
    }
    // The host's watchdog measures the directory only where it is no tmpfs
    // (which the kernel bounds).
    let watched = !limits.confinement().disk_tmpfs;
    let dir = candidate
        .dir
        .as_ref()
        .map(|d| d.path())
        .or(server.map(ForkServer::home))
        .filter(|_| watched);
    let watch = Watch {
        cap: limits.output_cap,
        started,
        timeout: job.timeout,
        cancel: job.cancel,
        on_hand_off: job.on_hand_off,
        disk: dir.zip(limits.disk_bytes),
    };
    let pipes = Pipes {
        stdout: candidate.stdout.as_raw_fd(),
        stderr: candidate.stderr.as_raw_fd(),
        verdict: verdict_r.as_raw_fd(),
    };
    let observed = supervise::supervise(
        &mut candidate_side,
        &mut judge_side,
        candidate.stdin,
        &input,
        &pipes,
        &watch,
    );
    if server.is_none() {
        if let Some(pid) = candidate_side.pgid {
            candidate_side.status = spawn::wait(pid);
        }
    }
    let t_reaped = monotonic_ns();
    let duration_ms = started.elapsed().as_millis() as u64;
    let usable = Usable {
        judge: !judge_side.server_lost && judge_side.status.is_some(),
        candidate: !candidate_side.server_lost && candidate_side.status.is_some(),
    };
    let usable = finish_with(&candidate_side, candidate.dir, server, judge, usable);
    let observed = observed.map_err(process::stop_error)?;
    let times = Times {
        begin: t_begin,
        spawned: candidate_side.forked_ns.unwrap_or(t_spawned),
        reaped: t_reaped,
        duration_ms,
    };
    let result = verdict::interpret(&observed, &candidate_side, &judge_side, job, limits, &times);
    Ok((result, usable))
}

/// Starts the candidate process as a fresh interpreter with the call channel
/// on descriptor 3.
fn start_fresh(
    python: &Interpreter,
    limits: &Limits,
    job: &Job<'_>,
    call: OwnedFd,
) -> Result<Started, SandboxError> {
    let place = super::workspace::place(limits);
    let (dir, own) = match &place.dir {
        Some(dir) => (Dir::Shared(dir.clone()), dir.clone()),
        None => {
            let dir = tempfile::Builder::new()
                .prefix(super::workspace::DIR_PREFIX)
                .tempdir()?;
            let path = dir.path().to_path_buf();
            (Dir::Own(dir), path)
        }
    };
    let container = in_container(limits, job.program)
        .then(|| Container::new(&own, limits.disk_bytes, limits.network))
        .flatten();
    let confine = match container {
        Some(_) => Prepared::container(&limits.confinement(), python, &own, place.memory_bounded)
            .map(Some)
            .map_err(SandboxError::Confinement)?,
        None => confinement(limits, python, &own, false)?,
    };
    let mut setup = ChildSetup::candidate(limits, job.timeout, call.as_raw_fd(), confine);
    if !place.grouped {
        setup = setup.in_group(super::workspace::candidate_group(limits)?);
    }
    if let Some(container) = container {
        setup = setup.in_container(container);
    } else if !place.tmpfs {
        setup = setup.with_disk(limits, &own);
    }
    let child = spawn::start_harness(python, &[], &own, setup, None)?;
    Ok(Started {
        exit: Exit::Child {
            pid: child.pid,
            pidfd: sys::pidfd(child.pid),
        },
        stdin: child.stdin,
        stdout: child.stdout,
        stderr: child.stderr,
        dir: Some(dir),
    })
}

fn lost_server(e: io::Error) -> SandboxError {
    SandboxError::Spawn(io::Error::new(
        e.kind(),
        format!("a fork server stopped taking commands: {e}"),
    ))
}

/// Clean-up after a candidate whose run could not start.
fn finish(candidate: &Side, dir: Option<Dir>, server: Option<&ForkServer>, judge: &ForkServer) {
    let usable = Usable {
        judge: false,
        candidate: false,
    };
    if server.is_none() {
        if let Some(pid) = candidate.pgid {
            spawn::wait(pid);
        }
    }
    finish_with(candidate, dir, server, judge, usable);
}

/// Reaps both processes (the servers' children through their servers),
/// sweeps up what the candidate left and empties the directories.
fn finish_with(
    candidate: &Side,
    dir: Option<Dir>,
    server: Option<&ForkServer>,
    judge: &ForkServer,
    mut usable: Usable,
) -> Usable {
    if usable.judge {
        usable.judge = judge.reap();
    }
    if let Some(server) = server {
        if usable.candidate {
            usable.candidate = server.reap();
        }
        reaper::empty_dir(&server.children_dir());
    }
    reaper::empty_dir(&judge.children_dir());
    if let Some(pid) = candidate.pgid {
        reaper::finished(pid);
    }
    match dir {
        Some(Dir::Own(dir)) => reaper::remove_dir(dir),
        Some(Dir::Shared(path)) => reaper::empty_dir(&path),
        None => {}
    }
    usable
}

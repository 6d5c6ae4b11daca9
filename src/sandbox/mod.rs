//! The sandbox: one fresh Python interpreter per candidate, started directly with
//! the embedded harness (`assets/harness/`) and a payload on stdin, a wall-clock
//! timeout, a streaming output cap and an import denylist. Whatever a candidate
//! does ends in one of the five [`Outcome`]s; the host never panics or hangs.

mod cancel;
mod capture;
pub mod confine;
mod container;
mod disk;
mod failure;
pub mod flags;
mod forkserver;
mod interpreter;
mod job;
mod limits;
pub mod missing;
mod namespaces;
mod pacing;
mod pair;
mod process;
mod reaper;
mod result;
mod runner;
mod spawn;
mod supervise;
mod sys;
mod verdict;
mod wire;
mod workspace;

use std::time::Duration;

pub use cancel::CancelToken;
pub use container::container_isolation;
pub use failure::{Failure, printable};
pub use forkserver::PRELOADED_MODULES;
pub use interpreter::Interpreter;
pub use namespaces::{DISK_ENTRIES, disk_isolation, network_isolation};
pub use process::run_candidate;
pub use result::{BaseVerdict, CandidateResult, Fault, Integrity, Outcome, Overflow, Timing};
pub use runner::Runner;

/// The exact payloads the two processes receive for `program`, shown to
/// users: the candidate process's (the program; no test) and the judge's
/// (the tests).
pub fn describe_payload(
    program: &crate::plan::Program,
    limits: &Limits,
    python: &Interpreter,
) -> String {
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    format!(
        "# the candidate process (its stdin)\n{}\n\n# the judge\n{}",
        text(wire::CandidatePayload::of(program, limits, python).encode()),
        text(wire::JudgePayload::of(program, false).encode())
    )
}

/// The candidate process's harness, embedded at build time: what a fresh
/// interpreter loads for each candidate (none of the judge's code).
pub const CANDIDATE_HARNESS: &str = concat!(
    include_str!("../../assets/harness/core.py"),
    include_str!("../../assets/harness/codec.py"),
    include_str!("../../assets/harness/bridge.py"),
    include_str!("../../assets/harness/graph.py"),
    include_str!("../../assets/harness/ungraph.py"),
    include_str!("../../assets/harness/talk.py"),
    include_str!("../../assets/harness/denylist.py"),
    include_str!("../../assets/harness/candidate.py"),
    include_str!("../../assets/harness/suite_watch.py"),
    include_str!("../../assets/harness/suite.py"),
    include_str!("../../assets/harness/stdio.py"),
    include_str!("../../assets/harness/main.py"),
);

/// The whole harness program, embedded at build time: what a fork server
/// loads (a candidate server's children take the candidate's path, a judge
/// server's the judge's).
pub const HARNESS: &str = concat!(
    include_str!("../../assets/harness/core.py"),
    include_str!("../../assets/harness/codec.py"),
    include_str!("../../assets/harness/bridge.py"),
    include_str!("../../assets/harness/graph.py"),
    include_str!("../../assets/harness/ungraph.py"),
    include_str!("../../assets/harness/talk.py"),
    include_str!("../../assets/harness/denylist.py"),
    include_str!("../../assets/harness/candidate.py"),
    include_str!("../../assets/harness/suite_watch.py"),
    include_str!("../../assets/harness/suite.py"),
    include_str!("../../assets/harness/stdio.py"),
    include_str!("../../assets/harness/judge.py"),
    include_str!("../../assets/harness/suite_verdict.py"),
    include_str!("../../assets/harness/explain.py"),
    include_str!("../../assets/harness/proxies.py"),
    include_str!("../../assets/harness/names.py"),
    include_str!("../../assets/harness/io.py"),
    include_str!("../../assets/harness/stdio_verdict.py"),
    include_str!("../../assets/harness/child_confine.py"),
    include_str!("../../assets/harness/server.py"),
    include_str!("../../assets/harness/main.py"),
);

/// Default wall-clock timeout per candidate.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3);
/// Largest timeout a task may ask for.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(30);
/// Default cap on each of stdout and stderr, in bytes (256 KiB).
pub const DEFAULT_OUTPUT_CAP: u64 = 262_144;
/// Modules denied by default (each also denies its submodules).
pub const DEFAULT_DENYLIST: [&str; 8] = [
    "subprocess",
    "socket",
    "shutil",
    "requests",
    "urllib",
    "ctypes",
    "http.client",
    "asyncio.subprocess",
];

/// Default address-space limit (2 GiB).
pub const DEFAULT_MEMORY_LIMIT: u64 = 2 << 30;
/// Default largest file a candidate may write (16 MiB).
pub const DEFAULT_FILE_SIZE_LIMIT: u64 = 16 << 20;
/// Default most bytes a candidate may keep in its directory (64 MiB).
pub const DEFAULT_DISK_LIMIT: u64 = 64 << 20;
/// Default most live threads and processes of a candidate.
pub const DEFAULT_THREADS: u64 = 256;
/// Default most open file descriptors.
pub const DEFAULT_OPEN_FILES: u64 = 256;

/// Limits applied to every candidate.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Wall-clock timeout from spawn.
    pub timeout: Duration,
    /// Cap on each of stdout and stderr in bytes; crossing it kills the candidate.
    pub output_cap: u64,
    /// Denied modules (each also denies its submodules); empty disables the hook.
    pub denylist: Vec<String>,
    /// Address-space limit in bytes (`RLIMIT_AS`); `None` leaves it unlimited.
    pub memory_bytes: Option<u64>,
    /// Largest file the candidate may write (`RLIMIT_FSIZE`); `None`: unlimited.
    pub file_size_bytes: Option<u64>,
    /// Most open file descriptors (`RLIMIT_NOFILE`); `None`: inherited.
    pub open_files: Option<u64>,
    /// A CPU-seconds limit just above the timeout (`RLIMIT_CPU`) and no core dumps.
    pub cpu_backstop: bool,
    /// The process guard: `os.fork`, `os.setsid`, `os.kill`, `os.exec*`,
    /// `os.posix_spawn*`, ... raise, and `pty`, `resource`, `_socket` and
    /// `_posixsubprocess` cannot be imported.
    pub process_guard: bool,
    /// Run in a fresh network namespace with only a loopback that is down (where
    /// the kernel allows it; see [`network_isolation`]).
    pub no_network: bool,
    /// Kernel confinement (Landlock, seccomp, no privileges; see [`confine`]).
    pub confine: bool,
    /// Let candidates use the network (sockets, TCP) under confinement.
    pub network: bool,
    /// Most bytes a candidate may keep in its directory at once; past it the
    /// candidate is killed (`error`, `disk limit`). `None`: unbounded.
    pub disk_bytes: Option<u64>,
    /// Most live threads and processes a candidate may have, bounded by the
    /// kernel (see [`confine::ThreadBound`]); past it a new thread cannot
    /// start. `None`: unbounded.
    pub threads: Option<u64>,
}

impl Limits {
    /// The confinement these limits ask for, as this kernel gives it.
    pub fn confinement(&self) -> confine::Status {
        let mut status = confine::Status::probe(self.confine, self.network);
        status.thread_limit = self.threads;
        status.disk_tmpfs &= self.disk_bytes.is_some();
        status
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: DEFAULT_TIMEOUT,
            output_cap: DEFAULT_OUTPUT_CAP,
            denylist: DEFAULT_DENYLIST.iter().map(|s| s.to_string()).collect(),
            memory_bytes: Some(DEFAULT_MEMORY_LIMIT),
            file_size_bytes: Some(DEFAULT_FILE_SIZE_LIMIT),
            open_files: Some(DEFAULT_OPEN_FILES),
            cpu_backstop: true,
            process_guard: true,
            no_network: false,
            confine: true,
            network: false,
            disk_bytes: Some(DEFAULT_DISK_LIMIT),
            threads: Some(DEFAULT_THREADS),
        }
    }
}

/// Problems with the host side of the sandbox (not with a candidate).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// Occurs when the interpreter command cannot be started at all.
    #[error(
        "cannot start the Python interpreter {command:?}: {error} (install python3 or set the interpreter with --python)"
    )]
    InterpreterNotFound {
        /// The command that was tried.
        command: String,
        /// Why it failed.
        error: std::io::Error,
    },
    /// Occurs when the interpreter starts but does not describe itself.
    #[error("{command:?} is not a usable Python 3 interpreter: {reason}")]
    InterpreterUnusable {
        /// The command that was tried.
        command: String,
        /// What went wrong.
        reason: String,
    },
    /// Occurs when creating a candidate process or its pipes fails (out of file
    /// descriptors or processes, temp directory not writable).
    #[error("cannot start a candidate process: {0}")]
    Spawn(#[from] std::io::Error),
    /// Occurs when the kernel refuses to set up the confinement it reported
    /// (a path of the policy cannot be ruled on).
    #[error(
        "cannot confine a candidate: {0} (run with confinement off to evaluate without it, at your own risk)"
    )]
    Confinement(std::io::Error),
    /// Occurs when every confinement layer is required and this system lacks
    /// some.
    #[error(
        "confinement is required but this system lacks: {0} (a newer Linux kernel has every layer; drop --require-confinement to run with what is here)"
    )]
    ConfinementMissing(String),
    /// Occurs when strict integrity is asked for where a candidate could read
    /// its own memory.
    #[error(
        "strict integrity is asked for but the verdict cannot be guarded here: it needs {0} (drop --strict-integrity to run with flags only)"
    )]
    IntegrityMissing(String),
    /// Occurs when the run was cancelled before the candidate finished.
    #[error("cancelled")]
    Cancelled,
}

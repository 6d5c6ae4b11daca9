//! Starting the harness in a new process: the interpreter with our flags, a
//! cleaned environment, piped stdio and the [`ChildSetup`] applied before exec.
//!
//! On Linux the child is made with `clone(CLONE_VM | CLONE_VFORK)`, as glibc's
//! `posix_spawn` does: it borrows the host's address space until it execs, so
//! nothing of the host's memory is copied (a `fork` copies the page tables, and
//! the exec then throws the copy away: about 5% of a default-mode run's CPU).
//! Where the set-up must not share the address space (entering a user
//! namespace refuses a process that shares its memory) the same child code
//! runs in a copy of it (`clone(CLONE_VFORK)`). Either way the seccomp filter
//! is loaded last, just before the exec it allows. Off Linux the child is
//! forked by `std::process::Command`.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::limits::ChildSetup;
use super::process::{Harness, PYTHON_FLAGS, harness_program};
use super::sys::{pipe_cloexec, read_fd};
use super::{Interpreter, reaper};

/// A started child: its process id and our ends of its stdio.
pub(super) struct Started {
    pub pid: libc::pid_t,
    /// Our end of its stdin, unless it was given one.
    pub stdin: Option<OwnedFd>,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
}

/// The cleaned environment of a child whose home and temp dir is `dir`,
/// with `python_dir` first on PATH where given (a container's, see
/// [`container::python_dir`](super::container::python_dir)).
fn environment(dir: &Path, python_dir: Option<&Path>) -> [(&'static str, OsString); 6] {
    let mut path = OsString::new();
    if let Some(own) = python_dir {
        path.push(own);
        path.push(":");
    }
    path.push("/usr/bin:/bin");
    [
        ("PYTHONHASHSEED", "0".into()),
        ("PYTHONIOENCODING", "utf-8".into()),
        ("LANG", "C.UTF-8".into()),
        ("PATH", path),
        ("HOME", dir.into()),
        ("TMPDIR", dir.into()),
    ]
}

/// Starts `python` on the harness (`-c` program, then `args`) in `dir`, with
/// `setup` applied in the child, and registers it with the reaper. An error
/// names the interpreter. Its stdin
/// is `stdin` when given (a fork server's socket), else a pipe whose other
/// end is returned.
pub(super) fn start_harness(
    python: &Interpreter,
    args: &[&str],
    dir: &Path,
    setup: ChildSetup,
    stdin: Option<OwnedFd>,
) -> io::Result<Started> {
    let (stdin_r, stdin_w) = match stdin {
        Some(fd) => (fd, None),
        None => pipe_cloexec().map(|(r, w)| (r, Some(w)))?,
    };
    let (stdout_r, stdout_w) = pipe_cloexec()?;
    let (stderr_r, stderr_w) = pipe_cloexec()?;
    let mut argv: Vec<&OsStr> = vec![python.executable.as_os_str()];
    argv.extend(PYTHON_FLAGS.iter().map(OsStr::new));
    let which = if args.is_empty() {
        Harness::Candidate
    } else {
        Harness::Server
    };
    argv.extend([OsStr::new("-c"), OsStr::new(harness_program(python, which))]);
    argv.extend(args.iter().map(OsStr::new));
    let child_ends = [stdin_r, stdout_w, stderr_w];
    let pid = reaper::spawn_registered(
        || {
            #[cfg(target_os = "linux")]
            return clone_vfork(&python.executable, &argv, dir, setup, &child_ends);
            #[cfg(not(target_os = "linux"))]
            fork_exec(&python.executable, &argv, dir, setup, child_ends)
        },
        |&pid| pid,
    )
    .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", python.executable.display())))?;
    Ok(Started {
        pid,
        stdin: stdin_w,
        stdout: stdout_r,
        stderr: stderr_r,
    })
}

/// Waits for child `pid` to end; its raw wait status.
pub(super) fn wait(pid: libc::pid_t) -> Option<i32> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid on our own child with a valid status pointer.
        let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
        if rc == pid {
            return Some(status);
        }
        if rc == -1 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        return None;
    }
}

/// The portable path: `Command` forks, applies `setup`, execs.
#[cfg(not(target_os = "linux"))]
fn fork_exec(
    program: &Path,
    argv: &[&OsStr],
    dir: &Path,
    setup: ChildSetup,
    [stdin, stdout, stderr]: [OwnedFd; 3],
) -> io::Result<libc::pid_t> {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(program);
    cmd.args(&argv[1..])
        .env_clear()
        .envs(environment(dir, None))
        .current_dir(dir)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr);
    // SAFETY: `ChildSetup::apply` only makes async-signal-safe calls.
    unsafe {
        cmd.pre_exec(move || setup.apply());
    }
    // The child is waited for by pid (see [`wait`]), not through `Child`.
    Ok(cmd.spawn()?.id() as libc::pid_t)
}

fn c_string(s: &OsStr) -> io::Result<CString> {
    CString::new(s.as_bytes()).map_err(|_| io::Error::other("a NUL byte in an argument"))
}

/// What the cloned child needs, all prepared by the parent.
#[cfg(target_os = "linux")]
struct Plan<'a> {
    setup: &'a ChildSetup,
    program: &'a CString,
    argv: &'a [*const libc::c_char],
    envp: &'a [*const libc::c_char],
    dir: &'a CString,
    /// The seccomp filter, loaded just before exec.
    filter: Option<&'a [libc::sock_filter]>,
    /// Where the child writes its errno when something fails before exec
    /// (close-on-exec: the host reads nothing when the exec succeeded).
    report: RawFd,
}

/// Bytes of stack the cloned child runs on (it only makes system calls).
#[cfg(target_os = "linux")]
const CHILD_STACK: usize = 256 * 1024;

/// One worker thread's stack for its cloned children, with a guard page at the
/// bottom. A thread is suspended while its child uses it, so one is enough.
#[cfg(target_os = "linux")]
struct ChildStack(*mut libc::c_void);

#[cfg(target_os = "linux")]
impl ChildStack {
    fn new() -> io::Result<ChildStack> {
        // SAFETY: an anonymous private mapping; the lowest page becomes the guard.
        unsafe {
            let base = libc::mmap(
                std::ptr::null_mut(),
                CHILD_STACK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            );
            if base == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            libc::mprotect(base, 4096, libc::PROT_NONE);
            Ok(ChildStack(base))
        }
    }

    fn top(&self) -> *mut libc::c_void {
        // SAFETY: one past the end of the mapping; the stack grows down from it.
        unsafe { self.0.cast::<u8>().add(CHILD_STACK).cast() }
    }
}

#[cfg(target_os = "linux")]
impl Drop for ChildStack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, no longer used by any child.
        unsafe { libc::munmap(self.0, CHILD_STACK) };
    }
}

#[cfg(target_os = "linux")]
fn clone_vfork(
    program: &Path,
    argv: &[&OsStr],
    dir: &Path,
    setup: ChildSetup,
    child_ends: &[OwnedFd; 3],
) -> io::Result<libc::pid_t> {
    thread_local! {
        static STACK: std::cell::RefCell<Option<ChildStack>> = const { std::cell::RefCell::new(None) };
    }
    let exe = program;
    let program = c_string(program.as_os_str())?;
    let argv = argv
        .iter()
        .map(|a| c_string(a))
        .collect::<io::Result<Vec<_>>>()?;
    let python_dir = setup
        .is_container()
        .then(|| super::container::python_dir(exe))
        .flatten();
    let envp = environment(dir, python_dir.as_deref())
        .iter()
        .map(|(k, v)| {
            let mut pair = OsString::from(k);
            pair.push("=");
            pair.push(v);
            c_string(&pair)
        })
        .collect::<io::Result<Vec<_>>>()?;
    let dir = c_string(dir.as_os_str())?;
    let pointers = |strings: &[CString]| -> Vec<*const libc::c_char> {
        let mut p: Vec<_> = strings.iter().map(|s| s.as_ptr()).collect();
        p.push(std::ptr::null());
        p
    };
    let (argv_p, envp_p) = (pointers(&argv), pointers(&envp));
    let setup = setup.with_stdio(child_ends.each_ref().map(AsRawFd::as_raw_fd));
    let filter = setup.filter(program.as_ptr());
    let (report_r, report_w) = pipe_cloexec()?;
    let plan = Plan {
        setup: &setup,
        program: &program,
        argv: &argv_p,
        envp: &envp_p,
        dir: &dir,
        filter: filter.as_deref(),
        report: report_w.as_raw_fd(),
    };
    // Sharing the host's memory is cheaper; a set-up that enters a user
    // namespace gets a copy instead (the kernel refuses it otherwise).
    let share = if setup.shares_memory_safely() {
        libc::CLONE_VM
    } else {
        0
    };
    STACK.with_borrow_mut(|slot| {
        if slot.is_none() {
            *slot = Some(ChildStack::new()?);
        }
        let top = slot
            .as_ref()
            .map(ChildStack::top)
            .ok_or_else(|| io::Error::other("no stack for the child"))?;
        // SAFETY: all signals are blocked in this thread while the child shares
        // its memory (all but glibc's two internal ones, which only glibc sends,
        // to the host's own threads), so no handler runs on the child's stack; the
        // child resets dispositions and the mask before exec. CLONE_VFORK keeps
        // this thread (and `plan`) suspended until the child execs or exits.
        let (pid, spawn_error) = unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
            let pid = libc::clone(
                child_main,
                top,
                share | setup.clone_flags() | libc::CLONE_VFORK | libc::SIGCHLD,
                std::ptr::from_ref(&plan).cast_mut().cast(),
            );
            let spawn_error = io::Error::last_os_error();
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            (pid, spawn_error)
        };
        if pid == -1 {
            return Err(spawn_error);
        }
        // The child has exec'd or exited (CLONE_VFORK): its end is closed.
        drop(report_w);
        let mut errno = [0u8; 4];
        match read_fd(report_r.as_raw_fd(), &mut errno) {
            Ok(4) => {
                wait(pid);
                Err(io::Error::from_raw_os_error(i32::from_ne_bytes(errno)))
            }
            _ => Ok(pid),
        }
    })
}

/// The cloned child: set up, exec; on failure report errno and exit.
#[cfg(target_os = "linux")]
extern "C" fn child_main(plan: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `plan` points at the parent's `Plan` (or its copy), alive while
    // the parent is suspended; only async-signal-safe calls on memory prepared
    // before the clone.
    unsafe {
        let plan = &*plan.cast::<Plan>();
        // Out of the way of the descriptors the set-up places (0 to 5).
        let report = libc::fcntl(plan.report, libc::F_DUPFD_CLOEXEC, 64);
        let errno = match prepare_and_exec(plan) {
            Err(e) => e.raw_os_error().unwrap_or(libc::EINVAL),
            Ok(()) => libc::EINVAL,
        };
        let bytes = errno.to_ne_bytes();
        libc::write(report, bytes.as_ptr().cast(), bytes.len());
        libc::_exit(127)
    }
}

/// Runs in the cloned child; returns only if something failed.
#[cfg(target_os = "linux")]
unsafe fn prepare_and_exec(plan: &Plan) -> io::Result<()> {
    // SAFETY: the child's own signal table and mask (no CLONE_SIGHAND), then
    // the set-up and exec, all system calls on prepared data.
    unsafe {
        // As `Command` does: handlers back to the default, SIGPIPE too (the
        // Rust runtime ignores it), other ignored signals stay ignored.
        for signal in 1..=64 {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut old) != 0 {
                continue;
            }
            if old.sa_sigaction != libc::SIG_DFL
                && (old.sa_sigaction != libc::SIG_IGN || signal == libc::SIGPIPE)
            {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, std::ptr::null_mut());
            }
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        plan.setup.apply()?;
        if libc::chdir(plan.dir.as_ptr()) == -1 {
            return Err(io::Error::last_os_error());
        }
        if let Some(filter) = plan.filter {
            super::confine::install_filter(filter)?;
        }
        libc::execve(
            plan.program.as_ptr(),
            plan.argv.as_ptr(),
            plan.envp.as_ptr(),
        );
        Err(io::Error::last_os_error())
    }
}

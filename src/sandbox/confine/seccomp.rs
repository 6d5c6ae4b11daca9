//! The system-call filter: a classic BPF program, written out here so every
//! decision can be read in one place, and loaded with `seccomp(2)` in the child
//! just before it execs (fresh) or before any candidate code (fast start).
//!
//! Shape: a foreign architecture (i386 through `int 0x80`) kills the process;
//! on x86_64 an x32 system call number (bit 30 set, which a filter written for
//! x86_64 numbers would otherwise wave through) is refused; then each denied
//! call returns an error (`EPERM`, so Python raises `PermissionError`, and
//! `ENOSYS` for `clone3`, so the C library falls back to `clone`, which the
//! filter can inspect); everything else is allowed. Calls decided by number
//! alone let the kernel cache the verdict, so allowed calls cost nothing.

use std::io;

/// What the filter lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rules {
    /// New processes (`clone` without `CLONE_THREAD`): only a fork server.
    pub fork: bool,
    /// The one `execve` allowed: its path argument must be this exact
    /// pointer (the host's copy of the interpreter's path, used by the child
    /// before it execs). `None`: no exec at all.
    pub exec_path: Option<u64>,
    /// Sockets beyond `AF_UNIX` streams, and `connect`.
    pub network: bool,
    /// Signals need filtering here (no Landlock signal scope on this kernel):
    /// only `kill(0, sig)` (its own process group) and thread signals.
    pub filter_signals: bool,
}

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

/// Whether this build can filter system calls (the architecture is known).
pub const SUPPORTED: bool = cfg!(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
));

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_KILL_PROCESS: u32 = 0x8000_0000;
const RET_ERRNO: u32 = 0x0005_0000;

// Classic BPF opcodes.
const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
const JSET_K: u16 = 0x45;
const AND_K: u16 = 0x54;
const RET_K: u16 = 0x06;

// Offsets in `struct seccomp_data` (little endian: low word first).
const NR: u32 = 0;
const ARCH: u32 = 4;
const fn arg_lo(i: u32) -> u32 {
    16 + 8 * i
}
const fn arg_hi(i: u32) -> u32 {
    20 + 8 * i
}

const X32_SYSCALL_BIT: u32 = 0x4000_0000;
const NAMESPACE_FLAGS: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWCGROUP) as u32;

/// The extended-attribute calls of Linux 6.13 (`setxattrat`, `removexattrat`),
/// the same numbers on x86_64 and aarch64, not yet in `libc`.
const SETXATTRAT: libc::c_long = 463;
const REMOVEXATTRAT: libc::c_long = 466;

/// Calls refused outright, with `EPERM`: other processes (tracing, their
/// memory, their limits through handles), the kernel's global state (mounts,
/// namespaces, modules, keys, clocks, BPF, perf), ways around this filter
/// (io_uring), System V and POSIX message IPC shared with the user's desktop,
/// and changing modes, owners, times and extended attributes (Landlock has
/// no right for these, so they would reach files outside the candidate's
/// directory).
fn denied() -> Vec<libc::c_long> {
    use libc::*;
    let mut calls = vec![
        SYS_ptrace,
        SYS_process_vm_readv,
        SYS_process_vm_writev,
        SYS_process_madvise,
        SYS_pidfd_getfd,
        SYS_kcmp,
        SYS_migrate_pages,
        SYS_move_pages,
        SYS_mount,
        SYS_umount2,
        SYS_pivot_root,
        SYS_chroot,
        SYS_unshare,
        SYS_setns,
        SYS_fsopen,
        SYS_fsconfig,
        SYS_fsmount,
        SYS_fspick,
        SYS_move_mount,
        SYS_open_tree,
        SYS_mount_setattr,
        SYS_open_by_handle_at,
        SYS_keyctl,
        SYS_add_key,
        SYS_request_key,
        SYS_bpf,
        SYS_perf_event_open,
        SYS_userfaultfd,
        SYS_kexec_load,
        SYS_kexec_file_load,
        SYS_init_module,
        SYS_finit_module,
        SYS_delete_module,
        SYS_personality,
        SYS_io_uring_setup,
        SYS_io_uring_enter,
        SYS_io_uring_register,
        SYS_swapon,
        SYS_swapoff,
        SYS_reboot,
        SYS_acct,
        SYS_quotactl,
        SYS_settimeofday,
        SYS_clock_settime,
        SYS_clock_adjtime,
        SYS_adjtimex,
        SYS_syslog,
        SYS_vhangup,
        SYS_fanotify_init,
        SYS_execveat,
        SYS_fchmod,
        SYS_fchmodat,
        SYS_fchmodat2,
        SYS_fchown,
        SYS_fchownat,
        SYS_utimensat,
        SYS_setxattr,
        SYS_lsetxattr,
        SYS_fsetxattr,
        SYS_removexattr,
        SYS_lremovexattr,
        SYS_fremovexattr,
        SETXATTRAT,
        REMOVEXATTRAT,
        SYS_shmget,
        SYS_shmat,
        SYS_shmctl,
        SYS_shmdt,
        SYS_msgget,
        SYS_msgsnd,
        SYS_msgrcv,
        SYS_msgctl,
        SYS_semget,
        SYS_semop,
        SYS_semtimedop,
        SYS_semctl,
        SYS_mq_open,
        SYS_mq_unlink,
        SYS_mq_timedsend,
        SYS_mq_timedreceive,
        SYS_mq_notify,
        SYS_mq_getsetattr,
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        SYS_fork,
        SYS_vfork,
        SYS_uselib,
        SYS_iopl,
        SYS_ioperm,
        SYS_chmod,
        SYS_chown,
        SYS_lchown,
        SYS_utime,
        SYS_utimes,
        SYS_futimesat,
    ]);
    calls
}

/// Calls that may only act on the calling process (argument `pid` must be 0):
/// resource limits, scheduling and I/O priority of the same user's other
/// processes (the host among them) are out of reach.
fn own_process_only() -> [(libc::c_long, u32); 6] {
    use libc::*;
    [
        (SYS_prlimit64, 0),
        (SYS_sched_setaffinity, 0),
        (SYS_sched_setscheduler, 0),
        (SYS_sched_setparam, 0),
        (SYS_sched_setattr, 0),
        (SYS_setpriority, 1),
    ]
}

/// A classic BPF program under construction.
#[derive(Default)]
struct Program(Vec<libc::sock_filter>);

impl Program {
    fn op(&mut self, code: u16, k: u32, jt: u8, jf: u8) -> &mut Self {
        self.0.push(libc::sock_filter { code, jt, jf, k });
        self
    }
    fn load(&mut self, offset: u32) -> &mut Self {
        self.op(LD_W_ABS, offset, 0, 0)
    }
    fn ret(&mut self, value: u32) -> &mut Self {
        self.op(RET_K, value, 0, 0)
    }
    fn errno(&mut self, errno: i32) -> &mut Self {
        self.ret(RET_ERRNO | (errno as u32 & 0xffff))
    }
    /// If the number loaded is `nr`, run `block` (which must end in a return).
    fn on_call(&mut self, nr: libc::c_long, block: impl FnOnce(&mut Program)) -> &mut Self {
        let mut inner = Program::default();
        block(&mut inner);
        // Every block ends in a return, so a skipped block leaves the number
        // loaded for the checks after it. Blocks are a few instructions long.
        let skip = u8::try_from(inner.0.len()).unwrap_or(u8::MAX);
        debug_assert!(inner.0.len() < usize::from(u8::MAX));
        self.op(JEQ_K, nr as u32, 0, skip);
        self.0.extend(inner.0);
        self
    }
    fn deny(&mut self, nr: libc::c_long, errno: i32) -> &mut Self {
        self.on_call(nr, |p| {
            p.errno(errno);
        })
    }
}

/// The filter for `rules`.
pub(crate) fn program(rules: &Rules) -> Vec<libc::sock_filter> {
    use libc::*;
    let mut p = Program::default();
    p.load(ARCH)
        .op(JEQ_K, AUDIT_ARCH, 1, 0)
        .ret(RET_KILL_PROCESS);
    p.load(NR);
    if cfg!(target_arch = "x86_64") {
        p.op(JGE_K, X32_SYSCALL_BIT, 0, 1).errno(EPERM);
    }
    p.deny(SYS_clone3, ENOSYS);
    for nr in denied() {
        p.deny(nr, EPERM);
    }
    p.on_call(SYS_clone, |b| {
        b.load(arg_lo(0))
            .op(JSET_K, NAMESPACE_FLAGS, 0, 1)
            .errno(EPERM);
        if !rules.fork {
            b.op(JSET_K, CLONE_THREAD as u32, 1, 0).errno(EPERM);
        }
        b.ret(RET_ALLOW);
    });
    p.on_call(SYS_execve, |b| match rules.exec_path {
        Some(ptr) => {
            b.load(arg_lo(0))
                .op(JEQ_K, ptr as u32, 0, 3)
                .load(arg_hi(0))
                .op(JEQ_K, (ptr >> 32) as u32, 0, 1)
                .ret(RET_ALLOW)
                .errno(EPERM);
        }
        None => {
            b.errno(EPERM);
        }
    });
    for (nr, arg) in own_process_only() {
        p.on_call(nr, |b| {
            b.load(arg_lo(arg))
                .op(JEQ_K, 0, 1, 0)
                .errno(EPERM)
                .ret(RET_ALLOW);
        });
    }
    if !rules.network {
        p.on_call(SYS_socket, |b| {
            b.load(arg_lo(0))
                .op(JEQ_K, AF_UNIX as u32, 1, 0)
                .errno(EPERM)
                .load(arg_lo(1))
                .op(AND_K, 0xf, 0, 0)
                .op(JEQ_K, SOCK_STREAM as u32, 2, 0)
                .op(JEQ_K, SOCK_SEQPACKET as u32, 1, 0)
                .errno(EPERM)
                .ret(RET_ALLOW);
        });
        p.on_call(SYS_socketpair, |b| {
            b.load(arg_lo(0))
                .op(JEQ_K, AF_UNIX as u32, 1, 0)
                .errno(EPERM)
                .ret(RET_ALLOW);
        });
        p.deny(SYS_connect, EPERM);
    }
    if rules.filter_signals {
        p.on_call(SYS_kill, |b| {
            b.load(arg_lo(0))
                .op(JEQ_K, 0, 1, 0)
                .errno(EPERM)
                .ret(RET_ALLOW);
        });
        for nr in [
            SYS_tkill,
            SYS_rt_sigqueueinfo,
            SYS_rt_tgsigqueueinfo,
            SYS_pidfd_send_signal,
        ] {
            p.deny(nr, EPERM);
        }
    }
    p.ret(RET_ALLOW);
    p.0
}

/// Loads `filter` on the calling thread (no_new_privs must be set).
///
/// # Safety
/// Async-signal-safe: one system call on memory the caller keeps alive.
pub(crate) unsafe fn install(filter: &[libc::sock_filter]) -> io::Result<()> {
    let prog = libc::sock_fprog {
        len: filter.len() as libc::c_ushort,
        filter: filter.as_ptr().cast_mut(),
    };
    // SAFETY: a valid program description for the duration of the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0u32,
            &prog,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The filter as bytes (`struct sock_filter` in the machine's order), for a
/// fork server's children, which load it themselves.
pub(crate) fn to_bytes(filter: &[libc::sock_filter]) -> Vec<u8> {
    let mut out = Vec::with_capacity(filter.len() * 8);
    for f in filter {
        out.extend_from_slice(&f.code.to_ne_bytes());
        out.push(f.jt);
        out.push(f.jf);
        out.extend_from_slice(&f.k.to_ne_bytes());
    }
    out
}

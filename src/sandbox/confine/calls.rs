//! The system-call policy: which calls a candidate may not make at all, and
//! which only on itself. `seccomp.rs` turns it into a filter.

/// Namespace flags, refused in `clone` even for threads.
pub(super) const NAMESPACE_FLAGS: u32 = (libc::CLONE_NEWNS
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
/// watches on files others open too (`inotify`, `fanotify`: a candidate
/// running beside it could signal through which system file it opens),
/// memory files (`memfd_create`: files in RAM that no disk limit sees),
/// and changing modes, owners, times and extended attributes (Landlock has
/// no right for these, so they would reach files outside the candidate's
/// directory); among them those a container allows (below).
pub(super) fn denied() -> Vec<libc::c_long> {
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
        SYS_inotify_init1,
        SYS_inotify_add_watch,
        SYS_fchown,
        SYS_fchownat,
        SYS_memfd_create,
        SYS_memfd_secret,
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([SYS_uselib, SYS_iopl, SYS_ioperm, SYS_chown, SYS_lchown]);
    calls.extend(allowed_in_container());
    calls.extend(allowed_in_bounded_container());
    calls
}

/// Denied calls every container allows (a suite candidate's world of its
/// own, see `sandbox/container.rs`): mode, time and attribute changes, since
/// everything it can write is its own tmpfs and the rest is mounted
/// read-only (`EROFS`).
pub(super) fn allowed_in_container() -> Vec<libc::c_long> {
    use libc::*;
    let mut calls = vec![
        SYS_fchmod,
        SYS_fchmodat,
        SYS_fchmodat2,
        SYS_utimensat,
        SYS_setxattr,
        SYS_lsetxattr,
        SYS_fsetxattr,
        SYS_removexattr,
        SYS_lremovexattr,
        SYS_fremovexattr,
        SETXATTRAT,
        REMOVEXATTRAT,
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([SYS_chmod, SYS_utime, SYS_utimes, SYS_futimesat]);
    calls
}

/// Denied calls a container allows where its memory is bounded as a whole
/// (a memory control group): new processes and exec, since its children
/// keep every confinement, count in its bounds and die with it; System V
/// and POSIX message IPC, since it has an IPC namespace of its own whose
/// memory the group counts.
pub(super) fn allowed_in_bounded_container() -> Vec<libc::c_long> {
    use libc::*;
    let mut calls = vec![
        SYS_execveat,
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
    calls.extend([SYS_fork, SYS_vfork]);
    calls
}

/// Calls that may only act on the calling process (argument `pid` must be 0):
/// resource limits, scheduling and I/O priority of the same user's other
/// processes (the host among them) are out of reach.
pub(super) fn own_process_only() -> [(libc::c_long, u32); 6] {
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

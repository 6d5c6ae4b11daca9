//! The filter run through a small classic-BPF interpreter: its decision for
//! every call number and for the argument checks.

use super::*;

/// Runs `prog` on one call (classic BPF, the instructions used here).
fn run(prog: &[libc::sock_filter], arch: u32, nr: u32, args: [u64; 6]) -> u32 {
    let word = |offset: u32| -> u32 {
        match offset {
            NR => nr,
            ARCH => arch,
            o if o >= 16 => {
                let arg = args[((o - 16) / 8) as usize];
                if (o - 16) % 8 == 0 {
                    arg as u32
                } else {
                    (arg >> 32) as u32
                }
            }
            _ => panic!("load at {offset}"),
        }
    };
    let (mut pc, mut acc) = (0usize, 0u32);
    loop {
        let i = prog[pc];
        pc += 1;
        let jump = |taken: bool| if taken { i.jt as usize } else { i.jf as usize };
        match i.code {
            LD_W_ABS => acc = word(i.k),
            AND_K => acc &= i.k,
            JA => pc += i.k as usize,
            JEQ_K => pc += jump(acc == i.k),
            JGE_K => pc += jump(acc >= i.k),
            JGT_K => pc += jump(acc > i.k),
            JSET_K => pc += jump(acc & i.k != 0),
            RET_K => return i.k,
            code => panic!("opcode {code:#x}"),
        }
    }
}

fn call(prog: &[libc::sock_filter], nr: libc::c_long, args: [u64; 6]) -> u32 {
    run(prog, AUDIT_ARCH, nr as u32, args)
}

const DENIED: u32 = RET_ERRNO | libc::EPERM as u32;

#[test]
fn every_denied_call_is_refused_and_every_other_number_allowed() {
    let rules = Rules {
        fork: false,
        exec_path: None,
        network: false,
        filter_signals: false,
        fd_passing: true,
        container: false,
        processes: false,
    };
    let prog = program(&rules);
    let decided: Vec<u32> = actions(&rules).iter().map(|(nr, _)| *nr).collect();
    for nr in denied() {
        assert_eq!(call(&prog, nr, [0; 6]), DENIED, "call {nr}");
    }
    assert_eq!(
        call(&prog, libc::SYS_clone3, [0; 6]),
        RET_ERRNO | libc::ENOSYS as u32
    );
    for nr in 0..600u32 {
        if !decided.contains(&nr) {
            assert_eq!(run(&prog, AUDIT_ARCH, nr, [0; 6]), RET_ALLOW, "call {nr}");
        }
    }
    assert_eq!(
        run(&prog, 0x4000_0003, 1, [0; 6]),
        RET_KILL_PROCESS,
        "foreign arch"
    );
    if cfg!(target_arch = "x86_64") {
        assert_eq!(run(&prog, AUDIT_ARCH, X32_SYSCALL_BIT | 39, [0; 6]), DENIED);
    }
}

#[test]
fn a_fork_servers_child_adds_no_fork_and_no_exec_and_nothing_else() {
    let prog = child_program();
    let thread = (libc::CLONE_VM | libc::CLONE_THREAD) as u64;
    assert_eq!(
        call(&prog, libc::SYS_clone, [thread, 0, 0, 0, 0, 0]),
        RET_ALLOW
    );
    assert_eq!(
        call(
            &prog,
            libc::SYS_clone,
            [libc::SIGCHLD as u64, 0, 0, 0, 0, 0]
        ),
        DENIED
    );
    assert_eq!(call(&prog, libc::SYS_execve, [1, 0, 0, 0, 0, 0]), DENIED);
    for nr in [
        libc::SYS_read,
        libc::SYS_write,
        libc::SYS_openat,
        libc::SYS_exit_group,
    ] {
        assert_eq!(call(&prog, nr, [0; 6]), RET_ALLOW);
    }
    assert!(prog.len() < 16, "{} instructions", prog.len());
}

#[test]
fn argument_checks_decide_clone_exec_sockets_and_other_processes() {
    use libc::*;
    let ptr = 0x7f12_3456_789a_u64;
    let server = program(&Rules {
        fork: true,
        exec_path: Some(ptr),
        network: false,
        filter_signals: true,
        fd_passing: true,
        container: false,
        processes: false,
    });
    let child = program(&Rules {
        fork: false,
        exec_path: None,
        network: false,
        filter_signals: true,
        fd_passing: true,
        container: false,
        processes: false,
    });
    let open = program(&Rules {
        fork: false,
        exec_path: None,
        network: true,
        filter_signals: false,
        fd_passing: true,
        container: false,
        processes: false,
    });
    let thread = (CLONE_VM | CLONE_THREAD | CLONE_SIGHAND) as u64;
    let fork = SIGCHLD as u64;
    let stream = (SOCK_STREAM | SOCK_CLOEXEC) as u64;
    let (unix, inet) = (AF_UNIX as u64, AF_INET as u64);
    const SUCCEED: u32 = RET_ERRNO;
    let cases: [(&[libc::sock_filter], libc::c_long, [u64; 2], u32); 27] = [
        (&child, SYS_clone, [thread, 0], RET_ALLOW),
        (&child, SYS_clone, [fork, 0], DENIED),
        (&server, SYS_clone, [fork, 0], RET_ALLOW),
        (&server, SYS_clone, [CLONE_NEWUSER as u64 | fork, 0], DENIED),
        (&server, SYS_execve, [ptr, 0], RET_ALLOW),
        (&server, SYS_execve, [ptr + 8, 0], DENIED),
        (&server, SYS_execve, [ptr ^ (1 << 40), 0], DENIED),
        (&child, SYS_execve, [ptr, 0], DENIED),
        (&child, SYS_socket, [unix, stream], RET_ALLOW),
        (&child, SYS_socket, [unix, SOCK_DGRAM as u64], DENIED),
        (&child, SYS_socket, [inet, stream], DENIED),
        (&child, SYS_connect, [3, 0], DENIED),
        (&child, SYS_prlimit64, [0, 7], RET_ALLOW),
        (&child, SYS_prlimit64, [1234, 7], DENIED),
        (&child, SYS_setpriority, [0, 0], RET_ALLOW),
        (&child, SYS_setpriority, [0, 1234], DENIED),
        (&child, SYS_kill, [0, 9], RET_ALLOW),
        (&child, SYS_kill, [1234, 9], DENIED),
        (&open, SYS_socket, [inet, stream], RET_ALLOW),
        (&open, SYS_connect, [3, 0], RET_ALLOW),
        (&open, SYS_kill, [1234, 9], RET_ALLOW),
        (&child, SYS_bind, [3, 0], DENIED),
        (&open, SYS_bind, [3, 0], RET_ALLOW),
        (&child, SYS_flock, [3, LOCK_EX as u64], SUCCEED),
        (&child, SYS_fcntl, [3, F_SETLK as u64], SUCCEED),
        (&child, SYS_fcntl, [3, F_OFD_SETLKW as u64], SUCCEED),
        (&child, SYS_fcntl, [3, F_GETFL as u64], RET_ALLOW),
    ];
    for (i, (prog, nr, [a, b], want)) in cases.into_iter().enumerate() {
        assert_eq!(
            call(prog, nr, [a, b, 0, 0, 0, 0]),
            want,
            "case {i}: call {nr}"
        );
    }
}

#[test]
fn a_container_allows_modes_and_times_and_with_a_memory_bound_processes() {
    use libc::*;
    let rules = |processes| Rules {
        fork: false,
        exec_path: None,
        network: false,
        filter_signals: false,
        fd_passing: true,
        container: true,
        processes,
    };
    let (bounded, unbounded) = (program(&rules(true)), program(&rules(false)));
    let fork = SIGCHLD as u64;
    for nr in super::allowed_in_container() {
        assert_eq!(call(&unbounded, nr, [0; 6]), RET_ALLOW, "call {nr}");
    }
    for nr in super::allowed_in_bounded_container() {
        assert_eq!(call(&unbounded, nr, [0; 6]), DENIED, "call {nr}");
        assert_eq!(call(&bounded, nr, [0; 6]), RET_ALLOW, "call {nr}");
    }
    assert_eq!(call(&unbounded, SYS_clone, [fork, 0, 0, 0, 0, 0]), DENIED);
    assert_eq!(call(&unbounded, SYS_execve, [1, 0, 0, 0, 0, 0]), DENIED);
    assert_eq!(call(&bounded, SYS_clone, [fork, 0, 0, 0, 0, 0]), RET_ALLOW);
    assert_eq!(call(&bounded, SYS_execve, [1, 0, 0, 0, 0, 0]), RET_ALLOW);
    let new_ns = (CLONE_NEWNS as u64) | fork;
    assert_eq!(call(&bounded, SYS_clone, [new_ns, 0, 0, 0, 0, 0]), DENIED);
    let (inet, unix) = (AF_INET as u64, AF_UNIX as u64);
    let (stream, dgram) = (SOCK_STREAM as u64, SOCK_DGRAM as u64);
    let cases = [
        (&bounded, SYS_socket, [inet, stream], RET_ALLOW),
        (&bounded, SYS_socket, [AF_INET6 as u64, stream], RET_ALLOW),
        (&bounded, SYS_socket, [inet, dgram], DENIED),
        (&bounded, SYS_socket, [unix, stream], DENIED),
        (&bounded, SYS_socket, [AF_NETLINK as u64, dgram], DENIED),
        (&bounded, SYS_socketpair, [unix, stream], RET_ALLOW),
        (&bounded, SYS_socketpair, [unix, dgram], DENIED),
        (&bounded, SYS_connect, [3, 0], RET_ALLOW),
        (&bounded, SYS_bind, [3, 0], RET_ALLOW),
        (&unbounded, SYS_socket, [inet, stream], DENIED),
        (&unbounded, SYS_connect, [3, 0], DENIED),
    ];
    for (i, (prog, nr, [a, b], want)) in cases.into_iter().enumerate() {
        assert_eq!(call(prog, nr, [a, b, 0, 0, 0, 0]), want, "case {i}");
    }
    for nr in [
        SYS_mount,
        SYS_unshare,
        SYS_setns,
        SYS_ptrace,
        SYS_fchownat,
        SYS_memfd_create,
    ] {
        assert_eq!(call(&bounded, nr, [0; 6]), DENIED, "call {nr}");
    }
}

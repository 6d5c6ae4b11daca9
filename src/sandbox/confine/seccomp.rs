//! The system-call filter: the policy of `calls.rs` as a classic BPF program,
//! written out here so every instruction can be read, and loaded with
//! `seccomp(2)` in the child just before it execs (fresh) or before any
//! candidate code (fast start).
//!
//! Shape: a foreign architecture (i386 through `int 0x80`) kills the process;
//! on x86_64 an x32 system call number (bit 30 set, which a filter written for
//! x86_64 numbers would otherwise wave through) is refused; then each denied
//! call returns an error (`EPERM`, so Python raises `PermissionError`, and
//! `ENOSYS` for `clone3`, so the C library falls back to `clone`, which the
//! filter can inspect); everything else is allowed. Calls decided by number
//! alone let the kernel cache the verdict, so allowed calls cost nothing.

use std::io;

use super::calls::{
    NAMESPACE_FLAGS, allowed_in_bounded_container, allowed_in_container, denied, own_process_only,
};

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
    /// Descriptors may be sent over a socket (`sendmsg`): only where the
    /// candidate's directory is a sized tmpfs, which counts a file in flight
    /// like any other; the host's watchdog could not see one.
    pub fd_passing: bool,
    /// A suite candidate's container (see `sandbox/container.rs`): the
    /// calls of [`allowed_in_container`].
    pub container: bool,
    /// A container whose memory is bounded as a whole: new processes, any
    /// exec, the calls of [`allowed_in_bounded_container`], and TCP on its
    /// own loopback (see [`loopback_sockets`]).
    pub processes: bool,
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
const JGT_K: u16 = 0x25;
const JSET_K: u16 = 0x45;
const AND_K: u16 = 0x54;
const RET_K: u16 = 0x06;
const JA: u16 = 0x05;

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
/// What the filter does with one system call number.
enum Action {
    /// Fails with this errno.
    Errno(i32),
    /// Runs this block, which inspects the arguments and ends in a return.
    Block(Vec<libc::sock_filter>),
}

fn op(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}
fn load(offset: u32) -> libc::sock_filter {
    op(LD_W_ABS, offset, 0, 0)
}
fn ret(value: u32) -> libc::sock_filter {
    op(RET_K, value, 0, 0)
}
fn errno(errno: i32) -> libc::sock_filter {
    ret(RET_ERRNO | (errno as u32 & 0xffff))
}

/// A block allowing the call only when argument `arg` is 0 (itself).
fn own_process(arg: u32) -> Vec<libc::sock_filter> {
    vec![
        load(arg_lo(arg)),
        op(JEQ_K, 0, 1, 0),
        errno(libc::EPERM),
        ret(RET_ALLOW),
    ]
}

/// Every call number the filter decides on, with what it does; the rest are
/// allowed.
fn actions(rules: &Rules) -> Vec<(u32, Action)> {
    use libc::*;
    let mut out: Vec<(libc::c_long, Action)> = vec![(SYS_clone3, Action::Errno(ENOSYS))];
    let mut relaxed = Vec::new();
    if rules.container {
        relaxed.extend(allowed_in_container());
    }
    if rules.processes {
        relaxed.extend(allowed_in_bounded_container());
    }
    out.extend(
        denied()
            .into_iter()
            .filter(|nr| !relaxed.contains(nr))
            .map(|nr| (nr, Action::Errno(EPERM))),
    );
    let mut clone = vec![
        load(arg_lo(0)),
        op(JSET_K, NAMESPACE_FLAGS, 0, 1),
        errno(EPERM),
    ];
    if !rules.fork && !rules.processes {
        clone.extend([op(JSET_K, CLONE_THREAD as u32, 1, 0), errno(EPERM)]);
    }
    clone.push(ret(RET_ALLOW));
    out.push((SYS_clone, Action::Block(clone)));
    match (rules.processes, rules.exec_path) {
        (true, _) => {}
        (false, Some(ptr)) => out.push((
            SYS_execve,
            Action::Block(vec![
                load(arg_lo(0)),
                op(JEQ_K, ptr as u32, 0, 3),
                load(arg_hi(0)),
                op(JEQ_K, (ptr >> 32) as u32, 0, 1),
                ret(RET_ALLOW),
                errno(EPERM),
            ]),
        )),
        (false, None) => out.push((SYS_execve, Action::Errno(EPERM))),
    }
    for (nr, arg) in own_process_only() {
        out.push((nr, Action::Block(own_process(arg))));
    }
    if rules.processes && !rules.network {
        out.extend(loopback_sockets());
    } else if !rules.network {
        out.push((SYS_socket, Action::Block(unix_streams_only())));
        out.push((
            SYS_socketpair,
            Action::Block(vec![
                load(arg_lo(0)),
                op(JEQ_K, AF_UNIX as u32, 1, 0),
                errno(EPERM),
                ret(RET_ALLOW),
            ]),
        ));
        out.push((SYS_connect, Action::Errno(EPERM)));
        // An abstract socket name is one for the whole network namespace:
        // binding one would tell a candidate running at the same time.
        out.push((SYS_bind, Action::Errno(EPERM)));
    }
    if !rules.fd_passing {
        out.push((SYS_sendmsg, Action::Errno(EPERM)));
        out.push((SYS_sendmmsg, Action::Errno(EPERM)));
    }
    // Locks on files several candidates can read would tell one about the
    // other: they succeed and do nothing (a candidate is one process, so
    // its own locks have nothing to exclude).
    out.push((SYS_flock, Action::Errno(0)));
    let mut fcntl = vec![load(arg_lo(1))];
    for cmd in [F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW] {
        fcntl.push(op(JEQ_K, cmd as u32, 0, 1));
        fcntl.push(errno(0));
    }
    fcntl.push(ret(RET_ALLOW));
    out.push((SYS_fcntl, Action::Block(fcntl)));
    if rules.filter_signals {
        out.push((SYS_kill, Action::Block(own_process(0))));
        for nr in [
            SYS_tkill,
            SYS_rt_sigqueueinfo,
            SYS_rt_tgsigqueueinfo,
            SYS_pidfd_send_signal,
        ] {
            out.push((nr, Action::Errno(EPERM)));
        }
    }
    let mut out: Vec<(u32, Action)> = out.into_iter().map(|(nr, a)| (nr as u32, a)).collect();
    out.sort_by_key(|(nr, _)| *nr);
    out.dedup_by_key(|(nr, _)| *nr);
    out
}

/// The sockets of a container with its own network namespace: TCP
/// (`AF_INET`, `AF_INET6` streams) and connected `AF_UNIX` stream pairs
/// only. No unconnected `AF_UNIX` socket, so nothing can connect to a
/// socket file of the host's (its view of the filesystem is the host's,
/// read-only, and connecting is no write); no datagrams, whose buffers no
/// memory group counts. `connect` and `bind` are allowed: what they can
/// reach is its own loopback.
fn loopback_sockets() -> Vec<(libc::c_long, Action)> {
    use libc::*;
    vec![
        (
            SYS_socket,
            Action::Block(vec![
                load(arg_lo(0)),
                op(JEQ_K, AF_INET as u32, 2, 0),
                op(JEQ_K, AF_INET6 as u32, 1, 0),
                errno(EPERM),
                load(arg_lo(1)),
                op(AND_K, 0xf, 0, 0),
                op(JEQ_K, SOCK_STREAM as u32, 1, 0),
                errno(EPERM),
                ret(RET_ALLOW),
            ]),
        ),
        (SYS_socketpair, Action::Block(unix_streams_only())),
    ]
}

/// A block allowing `socket` or `socketpair` only for `AF_UNIX` streams
/// (`SOCK_STREAM`, `SOCK_SEQPACKET`).
fn unix_streams_only() -> Vec<libc::sock_filter> {
    use libc::*;
    vec![
        load(arg_lo(0)),
        op(JEQ_K, AF_UNIX as u32, 1, 0),
        errno(EPERM),
        load(arg_lo(1)),
        op(AND_K, 0xf, 0, 0),
        op(JEQ_K, SOCK_STREAM as u32, 2, 0),
        op(JEQ_K, SOCK_SEQPACKET as u32, 1, 0),
        errno(EPERM),
        ret(RET_ALLOW),
    ]
}

/// A jump to block `usize`, patched once the blocks are laid out.
type Fixups = Vec<(usize, usize)>;

/// Consecutive numbers refused with the same errno, as one range; each
/// block stays a number of its own. The kernel compiles the program and runs
/// it once per call number when it is loaded, so its length is paid by every
/// spawn.
fn ranges(calls: Vec<(u32, Action)>) -> Vec<(u32, u32, Action)> {
    let mut out: Vec<(u32, u32, Action)> = Vec::new();
    for (nr, action) in calls {
        if let (Some((_, hi, Action::Errno(last))), Action::Errno(e)) = (out.last_mut(), &action) {
            if *hi + 1 == nr && last == e {
                *hi = nr;
                continue;
            }
        }
        out.push((nr, nr, action));
    }
    out
}

/// Emits a binary search over `calls` (sorted ranges of numbers) into
/// `out`: every path ends in a return or a jump to a block after about
/// log2(n) comparisons (a linear chain cost about 190 microseconds to load).
fn search(
    calls: &[(u32, u32, Action)],
    first_block: usize,
    out: &mut Vec<libc::sock_filter>,
    fixups: &mut Fixups,
) {
    const LEAF: usize = 3;
    if calls.len() <= LEAF {
        for (i, (lo, hi, action)) in calls.iter().enumerate() {
            if lo == hi {
                out.push(op(JEQ_K, *lo, 0, 1));
            } else {
                // Within [lo, hi]: numbers below lo skip both, above hi one.
                out.push(op(JGE_K, *lo, 0, 2));
                out.push(op(JGT_K, *hi, 1, 0));
            }
            match action {
                Action::Errno(e) => out.push(errno(*e)),
                Action::Block(_) => {
                    fixups.push((out.len(), first_block + i));
                    out.push(op(JA, 0, 0, 0));
                }
            }
        }
        out.push(ret(RET_ALLOW));
        return;
    }
    let mid = calls.len() / 2;
    // Numbers at or above the middle range go right: `jge` falls through to
    // a jump over the left half (which may be longer than a conditional jump).
    out.push(op(JGE_K, calls[mid].0, 0, 1));
    let over_left = out.len();
    out.push(op(JA, 0, 0, 0));
    search(&calls[..mid], first_block, out, fixups);
    out[over_left].k = (out.len() - over_left - 1) as u32;
    search(&calls[mid..], first_block + mid, out, fixups);
}

/// The architecture checks every filter starts with, the number loaded.
fn prologue() -> Vec<libc::sock_filter> {
    let mut p = vec![
        load(ARCH),
        op(JEQ_K, AUDIT_ARCH, 1, 0),
        ret(RET_KILL_PROCESS),
        load(NR),
    ];
    if cfg!(target_arch = "x86_64") {
        p.extend([op(JGE_K, X32_SYSCALL_BIT, 0, 1), errno(libc::EPERM)]);
    }
    p
}

/// The filter for `rules`.
pub(crate) fn program(rules: &Rules) -> Vec<libc::sock_filter> {
    let mut p = prologue();
    let calls = ranges(actions(rules));
    let mut fixups = Fixups::new();
    search(&calls, 0, &mut p, &mut fixups);
    // The blocks, after the search; each jump to one is patched to reach it.
    let mut starts = Vec::with_capacity(calls.len());
    for (_, _, action) in &calls {
        starts.push(p.len());
        if let Action::Block(block) = action {
            p.extend_from_slice(block);
        }
    }
    for (at, block) in fixups {
        p[at].k = (starts[block] - at - 1) as u32;
    }
    p
}

/// What a fork server's child adds to the filter it inherits from its server
/// (which refuses everything else): no new processes and no exec at all.
pub(crate) fn child_program() -> Vec<libc::sock_filter> {
    let mut p = prologue();
    p.extend([
        op(JEQ_K, libc::SYS_clone as u32, 0, 2),
        load(arg_lo(0)),
        op(JSET_K, libc::CLONE_THREAD as u32, 2, 1),
        op(JEQ_K, libc::SYS_execve as u32, 0, 1),
        errno(libc::EPERM),
        ret(RET_ALLOW),
    ]);
    p
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

#[cfg(test)]
#[path = "seccomp_tests.rs"]
mod tests;

//! Tests that change process-wide state (a descriptor left open across exec,
//! an ignored and a blocked signal) to check that none of it reaches a
//! candidate. They run in a binary of their own: in the main one, every
//! candidate other tests start meanwhile would inherit that state.

// Tests may panic on what they set up themselves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod util;

use std::time::Duration;

use execscope::sandbox::{Limits, Outcome};

use util::{MODES, python, run_code_in};

/// What a candidate process sees of how it was started: its descriptors, its
/// signal mask and ignored signals, its session, its working directory.
const START_STATE: &str = "import os
fds = sorted(int(fd) for fd in os.listdir('/proc/self/fd'))
status = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)
print(fds)
print(status['SigBlk'].strip(), status['SigIgn'].strip())
print(os.getsid(0) == os.getpid() == os.getpgid(0), os.getcwd() == os.environ['HOME'])
";

#[test]
fn a_candidate_starts_with_a_clean_slate_of_descriptors_and_signals() {
    // A descriptor the host leaves open across exec, and a blocked and an
    // ignored signal in the spawning thread: none of it may reach a candidate.
    let file = std::fs::File::open("/proc/self/status").unwrap();
    // SAFETY: dup of a valid descriptor; closed at the end of the test.
    let leaked = unsafe { libc::dup(std::os::fd::AsRawFd::as_raw_fd(&file)) };
    assert!(leaked > 0);
    // SAFETY: setting SIGUSR2 to ignored; restored below.
    let ignored_before = unsafe { libc::signal(libc::SIGUSR2, libc::SIG_IGN) };
    // A plainly started interpreter (Command without set-up) for comparison.
    let plain = std::process::Command::new(&python().executable)
        .args(["-S", "-c", START_STATE])
        .env("HOME", "/")
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let plain = String::from_utf8_lossy(&plain.stdout).into_owned();
    let plain_signals = plain.lines().nth(1).unwrap().to_owned();
    // SAFETY: blocking SIGUSR1 in this test's own thread; unblocked below.
    let blocked = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGUSR1);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    };
    // The candidate reads its own `/proc/self`, which confinement hides; the
    // confined candidate's descriptors are checked in `confinement`.
    let unconfined = Limits {
        confine: false,
        ..Limits::default()
    };
    for fast in MODES {
        let r = run_code_in(fast, START_STATE, &unconfined, Duration::from_secs(3));
        assert_eq!(r.outcome, Outcome::Pass, "fast start {fast}: {r:?}");
        let lines: Vec<&str> = r.stdout.lines().collect();
        // The standard streams, the result channel, and listdir's own descriptor.
        assert_eq!(
            lines[0], "[0, 1, 2, 3, 4]",
            "fast start {fast}: descriptors"
        );
        // Nothing blocked; ignored what python itself ignores (SIGPIPE,
        // SIGXFSZ) plus what the host ignored (SIGUSR2, as an exec inherits).
        let (blk, ign) = lines[1].split_once(' ').unwrap();
        let (plain_blk, plain_ign) = plain_signals.split_once(' ').unwrap();
        assert_eq!(
            blk, "0000000000000000",
            "fast start {fast}: blocked signals"
        );
        assert_eq!(blk, plain_blk);
        // The standard signals only: glibc's own spawn leaves its internal
        // real-time signals ignored. (A fork server may have been started
        // before SIGUSR2 was ignored.)
        let usr2 = 1u64 << (libc::SIGUSR2 - 1);
        let standard = (1u64 << 31) - 1;
        let mask = u64::from_str_radix(ign, 16).unwrap();
        let plain_mask = u64::from_str_radix(plain_ign, 16).unwrap();
        assert_eq!(
            mask & standard & !usr2,
            plain_mask & standard & !usr2,
            "fast start {fast}: ignored signals"
        );
        assert!(fast || mask & usr2 != 0, "an ignored signal is inherited");
        assert_eq!(
            lines[2], "True True",
            "fast start {fast}: session leader in its own dir"
        );
    }
    // SAFETY: undoing the changes above.
    unsafe {
        libc::signal(libc::SIGUSR2, ignored_before);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &blocked, std::ptr::null_mut());
        libc::close(leaked);
    }
}

//! Nothing one candidate does reaches another, and the host stays bounded
//! whatever a candidate sends, judged by effect in both modes: a fast-start
//! candidate that poisons its descriptors, two candidates running at once
//! that try to sense each other, and floods that must cost the host little.

use std::time::{Duration, Instant};

use execscope::sandbox::{Limits, Outcome, Runner};

use crate::util::{MODES, program, python};

#[test]
fn a_fast_start_candidate_that_poisons_its_descriptors_breaks_nothing_for_the_next() {
    // Non-blocking, 4 KiB pipes on stdout, stderr and the call channel: once
    // these were the fork server's own, shared by every later child.
    let poison = "import os, fcntl
for fd in (1, 2, 3):
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
        fcntl.fcntl(fd, 1031, 4096)
    except OSError:
        pass
";
    let many: Vec<String> = (0..120)
        .map(|i| format!("add({i}, 1) == {}", i + 1))
        .collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let honest = "def add(a, b):\n    return a + b\n";
    let loud = "import sys\nsys.stderr.write('x' * 150_000)\ndef add(a, b):\n    return a + b\n";
    for fast in MODES {
        // One runner, one candidate at a time: the same servers serve all three.
        let runner = Runner::new(python(), &Limits::default(), fast);
        let run = |code: &str, assertions: &[&str]| {
            runner
                .run(
                    Duration::from_secs(10),
                    &program(code, assertions),
                    None,
                    &|| {},
                )
                .unwrap()
        };
        run(&format!("{poison}{honest}"), &["add(1, 2) == 3"]);
        let r = run(honest, &many);
        assert_eq!(r.outcome, Outcome::Pass, "fast start {fast}: {r:?}");
        assert_eq!(r.passed, 120);
        let r = run(loud, &["add(1, 2) == 3"]);
        assert_eq!(r.outcome, Outcome::Pass, "fast start {fast}: {r:?}");
        assert!(r.flags.is_empty(), "{r:?}");
    }
}

#[test]
fn candidates_running_at_once_cannot_sense_each_other() {
    // One takes an abstract socket name and locks a file both can read; the
    // other, started while the first holds them, looks for both.
    let holder = "import socket, fcntl, os, time
held = []
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind('\\0execscope-sense')
    held.append('bound')
except OSError as e:
    held.append('bind: ' + type(e).__name__)
f = open(os.__file__)
fcntl.flock(f, fcntl.LOCK_EX)
fcntl.lockf(f, fcntl.LOCK_EX)
open('held', 'w').close()
time.sleep(1.5)
print(held)
";
    let seeker = "import socket, fcntl, os, time
time.sleep(0.5)
seen = []
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind('\\0execscope-sense')
except OSError as e:
    seen.append('name taken' if e.errno == 98 else 'no bind')
f = open(os.__file__)
try:
    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError:
    seen.append('locked')
print('SEEN' if 'name taken' in seen or 'locked' in seen else 'nothing', seen)
";
    // The kernel's layers alone: the denylist would refuse `socket` first.
    let limits = Limits {
        denylist: Vec::new(),
        process_guard: false,
        ..Limits::default()
    };
    for fast in MODES {
        let runner = Runner::new(python(), &limits, fast);
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| {
                runner
                    .run(
                        Duration::from_secs(10),
                        &program(holder, &["True"]),
                        None,
                        &|| {},
                    )
                    .unwrap()
            });
            let b = s.spawn(|| {
                runner
                    .run(
                        Duration::from_secs(10),
                        &program(seeker, &["True"]),
                        None,
                        &|| {},
                    )
                    .unwrap()
            });
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!(a.outcome, Outcome::Pass, "fast start {fast}: {a:?}");
        assert_eq!(b.outcome, Outcome::Pass, "fast start {fast}: {b:?}");
        assert!(
            b.stdout.starts_with("nothing"),
            "fast start {fast}: {b:?} (holder: {a:?})"
        );
    }
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    // SAFETY: getrusage fills a valid out-pointer.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_THREAD, &mut u);
        u
    };
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(us(usage.ru_utime) + us(usage.ru_stime))
}

#[test]
fn floods_of_messages_and_a_huge_detail_cost_the_host_little() {
    // 100,000 small messages on the call channel, a million-character
    // exception message, and output up to the cap: the detail the host keeps
    // is bounded, and the host's own CPU for the whole candidate is small.
    let code = "import os
def add(a, b):
    frame = lambda d: len(d).to_bytes(8, 'big') + d
    notes = b''.join(frame(b'[\"ok\", %d, []]' % i) for i in range(100_000))
    try:
        os.write(3, notes)
    except OSError:
        pass
    raise ValueError('x' * 1_000_020)
";
    for fast in MODES {
        let runner = Runner::new(python(), &Limits::default(), fast);
        // Warm the servers first, so only the candidate is measured.
        runner
            .run(
                Duration::from_secs(10),
                &program("", &["True"]),
                None,
                &|| {},
            )
            .unwrap();
        let (cpu, wall) = (thread_cpu(), Instant::now());
        let r = runner
            .run(
                Duration::from_secs(10),
                &program(code, &["add(1, 2) == 3", "add(2, 2) == 4"]),
                None,
                &|| {},
            )
            .unwrap();
        let (cpu, wall) = (thread_cpu() - cpu, wall.elapsed());
        assert_ne!(r.outcome, Outcome::Pass, "{r:?}");
        assert!(r.detail.len() <= 16 * 1024, "{}", r.detail.len());
        eprintln!("fast start {fast}: the host's CPU for the flood {cpu:?} ({wall:?} wall)");
        assert!(
            cpu < Duration::from_millis(50),
            "fast start {fast}: {cpu:?}"
        );
    }
}

#[test]
fn under_proc_a_candidate_opens_only_its_own_descriptors_interpreter_and_directory() {
    // What `/proc` and `/dev/fd` give it: its own pipes again (which it holds
    // anyway), the interpreter (which it may read anyway) and its own
    // directory. Nothing of the host, of another process, or of its own
    // memory, limits or environment.
    let code = "import os
for p in ['/proc/self/fd/1', '/dev/fd/1', '/proc/self/exe', '/proc/self/cwd', '/dev/fd/3',
          '/proc/self/status', '/proc/self/maps', '/proc/self/mem', '/proc/self/fd',
          '/proc/self/environ', '/proc/self/root', '/proc/1/status', '/proc/%d/status' % os.getppid(),
          '/proc/cpuinfo', '/proc/thread-self/status', '/proc/self/net/unix', '/dev/shm',
          '/sys/fs/cgroup', '/proc/self/root/etc/passwd']:
    try:
        if os.path.isdir(p):
            os.listdir(p)
        else:
            os.close(os.open(p, os.O_RDONLY | os.O_NONBLOCK))
        print('open', p)
    except OSError:
        pass
";
    for fast in MODES {
        let r = crate::confinement::attack(fast, code);
        let opened: Vec<&str> = r.stdout.lines().collect();
        assert_eq!(
            opened,
            [
                "open /proc/self/fd/1",
                "open /dev/fd/1",
                "open /proc/self/exe",
                "open /proc/self/cwd"
            ],
            "fast start {fast}: {r:?}"
        );
    }
}

#[test]
fn reading_a_file_leaves_no_access_time_for_another_candidate_to_read() {
    // A file's access time was a mark one candidate left and a later one
    // read (relatime updates it when older than the file's change). Set it
    // old, have a candidate read the file, and look.
    let module = python().sys_path.iter().find_map(|p| {
        let path = std::path::Path::new(p).join("colorsys.py");
        path.is_file().then_some(path)
    });
    let Some(path) = module else {
        eprintln!("notice: no colorsys.py in the interpreter's path; skipping");
        return;
    };
    if !Limits::default().confinement().disk_tmpfs || unsafe { libc::geteuid() } != 0 {
        eprintln!("notice: candidates have no mount namespace of their own to read noatime here");
        return;
    }
    let atime = || std::fs::metadata(&path).unwrap().accessed().unwrap();
    let code = format!("open({:?}, 'rb').read()\n", path.display().to_string());
    for fast in MODES {
        let old = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        std::fs::File::options()
            .write(false)
            .read(true)
            .open(&path)
            .unwrap()
            .set_times(std::fs::FileTimes::new().set_accessed(old))
            .unwrap();
        let r = Runner::new(python(), &Limits::default(), fast)
            .run(
                Duration::from_secs(10),
                &program(&code, &["True"]),
                None,
                &|| {},
            )
            .unwrap();
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
        assert_eq!(atime(), old, "fast start {fast}: the read left its mark");
    }
}

/// Starts threads in bursts for three seconds: each burst moves the process
/// and thread id counter of its pid namespace by a hundred.
const ID_SENDER: &str = "import threading, time
def send(seconds):
    end = time.time() + seconds
    while time.time() < end:
        burst = [threading.Thread(target=int) for _ in range(100)]
        for t in burst:
            t.start()
        for t in burst:
            t.join()
";

/// Watches the ids of the threads it starts, one at a time: true when
/// something else moved the counter between two of them.
const ID_RECEIVER: &str = "import threading, time
def received():
    seen = []
    note = lambda: seen.append(threading.get_native_id())
    end = time.time() + 2
    while time.time() < end:
        t = threading.Thread(target=note)
        t.start()
        t.join()
        time.sleep(0.01)
    return sum(1 for a, b in zip(seen, seen[1:]) if b - a > 1) > 5
";

#[test]
fn fast_start_candidates_running_at_once_pass_nothing_through_process_or_thread_ids() {
    // A fast-start candidate's process and thread ids are its server's pid
    // namespace's (one per server, which runs one candidate at a time). A
    // fresh candidate still shares the host's: the route is open there, as
    // the README says, until a small init can be its namespace's first
    // process (the candidate itself there would outlive the signals it sends
    // itself); that half shows the receiver notices.
    let limits = Limits::default();
    let timeout = Duration::from_secs(10);
    for fast in MODES {
        let received = std::thread::scope(|s| {
            let sender = s.spawn(|| {
                let code = format!("{ID_SENDER}send(3)\n");
                crate::util::run_code_in(fast, &code, &limits, timeout)
            });
            std::thread::sleep(Duration::from_millis(300));
            let receiver = program(ID_RECEIVER, &["received()"]);
            let r = crate::util::run_mode(fast, &receiver, &limits, timeout);
            assert_eq!(sender.join().unwrap().outcome, Outcome::Pass);
            r
        });
        let closed = fast;
        assert_eq!(
            received.outcome == Outcome::AssertionFail,
            closed,
            "fast start {fast}: {received:?}"
        );
        // The receiver notices a sender in its own namespace: its own thread.
        let both = format!(
            "{ID_SENDER}{ID_RECEIVER}threading.Thread(target=send, args=(3,), daemon=True).start()\n"
        );
        let r = crate::util::run_mode(fast, &program(&both, &["received()"]), &limits, timeout);
        assert_eq!(r.outcome, Outcome::Pass, "fast start {fast}: {r:?}");
    }
}

//! The adversarial suite: one test per attack a model-written candidate could make
//! on the host. Each must end in one of the five outcomes, in bounded time, with
//! the host unharmed and nothing left running.

use std::time::{Duration, Instant};

use execscope::sandbox::{Limits, Outcome};

use crate::containment::unguarded;
use crate::util::{MODES, is_running, run, run_code_in, run_with};

fn pids(stdout: &str) -> Vec<i32> {
    stdout
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

fn assert_all_gone(pids: &[i32]) {
    std::thread::sleep(Duration::from_millis(100));
    let alive: Vec<i32> = pids.iter().copied().filter(|p| is_running(*p)).collect();
    assert!(alive.is_empty(), "still running: {alive:?}");
}

#[test]
fn a_fork_bomb_is_refused_by_the_guard() {
    let start = Instant::now();
    let r = run("import os\nwhile True:\n    os.fork()\n", &["True"]);
    assert_eq!(r.outcome, Outcome::Error);
    assert!(r.detail.contains("denied: os.fork"), "{}", r.detail);
    assert!(start.elapsed() < Duration::from_secs(3));
}

#[test]
fn a_bounded_fork_bomb_without_the_guard_leaves_nothing_behind() {
    // 2^5 = 32 processes, each printing its pid and sleeping.
    let code = "import os, sys, time\nfor _ in range(5):\n    os.fork()\nprint(os.getpid(), flush=True)\ntime.sleep(30)\n";
    for fast in MODES {
        let r = run_code_in(fast, code, &unguarded(), Duration::from_millis(1500));
        assert_eq!(r.outcome, Outcome::Timeout);
        let pids = pids(&r.stdout);
        assert_eq!(pids.len(), 32, "fast start {fast}: {}", r.stdout);
        assert_all_gone(&pids);
    }
}

#[test]
fn a_double_forked_daemon_in_its_own_session_does_not_survive() {
    let code = "import os, time
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.write(w, str(os.getpid()).encode())
        os.close(w)
        for fd in (0, 1, 2):
            os.close(fd)
        time.sleep(60)
    os._exit(0)
os.close(w)
print(os.read(r, 64).decode(), flush=True)
";
    for fast in MODES {
        let start = Instant::now();
        let r = run_code_in(fast, code, &unguarded(), Duration::from_secs(3));
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "fast start {fast}: {:?}",
            start.elapsed()
        );
        assert_all_gone(&pids(&r.stdout));
    }
}

#[test]
fn a_setsid_escape_is_refused_by_the_guard_and_contained_without_it() {
    let r = run("import os\nos.setsid()\n", &["True"]);
    assert!(r.detail.contains("denied: os.setsid"), "{}", r.detail);
    let code = "import os, time\npid = os.fork()\nif pid == 0:\n    os.setsid()\n    time.sleep(60)\nprint(pid, flush=True)\n";
    for fast in MODES {
        let r = run_code_in(fast, code, &unguarded(), Duration::from_secs(3));
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
        assert_all_gone(&pids(&r.stdout));
    }
}

#[test]
fn a_memory_bomb_ends_as_a_memory_limit_error() {
    let start = Instant::now();
    for code in [
        "x = bytearray(8 << 30)\n",
        "chunks = []\nwhile True:\n    chunks.append(bytearray(64 << 20))\n",
        "def f():\n    return [0] * (4 << 30)\n",
    ] {
        // A generous clock: allocating gigabytes is slow on a loaded machine.
        let r = run_with(
            code,
            &["f() is None"],
            &Limits::default(),
            Duration::from_secs(20),
        );
        assert_eq!(r.outcome, Outcome::Error, "{code}: {r:?}");
        assert_eq!(r.detail, "memory limit", "{code}");
    }
    assert!(start.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_disk_filler_stops_at_the_file_size_limit() {
    let code =
        "with open('big.bin', 'wb') as f:\n    while True:\n        f.write(b'\\0' * (1 << 20))\n";
    let r = run(code, &["True"]);
    assert_eq!(r.outcome, Outcome::Error);
    assert!(r.detail.contains("File too large"), "{}", r.detail);
}

#[test]
fn the_c_modules_under_the_denylist_are_denied_too() {
    for (code, needle) in [
        ("import _socket\n", "denied: _socket"),
        ("import _posixsubprocess\n", "denied: _posixsubprocess"),
        ("import posix\nposix.system('true')\n", "denied: os.system"),
        ("import pty\n", "denied: pty"),
        ("import resource\n", "denied: resource"),
        (
            "import os\nos.execv('/bin/true', ['true'])\n",
            "denied: os.execv",
        ),
        (
            "import os\nos.posix_spawn('/bin/true', ['true'], {})\n",
            "denied: os.posix_spawn",
        ),
        (
            "import os\nos.spawnv(os.P_WAIT, '/bin/true', ['true'])\n",
            "denied: os.fork",
        ),
    ] {
        let r = run(code, &["True"]);
        assert_eq!(r.outcome, Outcome::Error, "{code}");
        assert!(r.detail.contains(needle), "{code}: {}", r.detail);
    }
}

#[test]
fn the_candidate_sees_none_of_the_hosts_environment() {
    let r = run(
        "import os\nprint(sorted(os.environ))\nprint(os.environ['HOME'] == os.getcwd())\n",
        &["True"],
    );
    let mut lines = r.stdout.lines();
    let keys = lines.next().unwrap();
    assert_eq!(
        keys,
        "['HOME', 'LANG', 'PATH', 'PYTHONHASHSEED', 'PYTHONIOENCODING', 'TMPDIR']"
    );
    assert_eq!(
        lines.next(),
        Some("True"),
        "HOME is the candidate's own temp dir"
    );
    for (key, _) in std::env::vars() {
        if ![
            "HOME",
            "LANG",
            "PATH",
            "PYTHONHASHSEED",
            "PYTHONIOENCODING",
            "TMPDIR",
        ]
        .contains(&key.as_str())
        {
            assert!(!keys.contains(&format!("'{key}'")), "{key} leaked");
        }
    }
}

#[test]
fn signals_to_the_host_are_refused() {
    for code in [
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n",
        "import os, signal\nos.killpg(os.getpgid(os.getppid()), signal.SIGKILL)\n",
        "import os, signal\nsignal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGKILL)\n",
    ] {
        let r = run(code, &["True"]);
        assert_eq!(r.outcome, Outcome::Error, "{code}");
        assert!(r.detail.contains("denied: os."), "{code}: {}", r.detail);
    }
    // This test process is the host: it is still here.
}

#[test]
fn redirecting_the_standard_streams_changes_nothing() {
    let code = "import os\nf = os.open('out.txt', os.O_WRONLY | os.O_CREAT)\nos.dup2(f, 1)\nos.dup2(f, 2)\nprint('hidden')\n";
    let r = run(code, &["True"]);
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
    let r = run("import os\nos.close(3)\n", &["True"]);
    assert_eq!(
        r.outcome,
        Outcome::Error,
        "closing the result channel is no pass: {r:?}"
    );
}

#[test]
fn replacing_sys_stdout_cannot_break_the_report() {
    let code = "import sys\nclass Bad:\n    def write(self, s):\n        raise RuntimeError('no')\n    def flush(self):\n        raise RuntimeError('no')\nsys.stdout = Bad()\nsys.stderr = Bad()\n";
    let r = run(code, &["1 == 1", "1 == 2"]);
    assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
    assert_eq!(r.per_assertion, vec![true, false]);
}

#[test]
fn deep_recursion_ends_as_an_error() {
    let r = run("def f(n):\n    return f(n + 1)\nf(0)\n", &["True"]);
    assert_eq!(r.outcome, Outcome::Error);
    assert!(r.detail.starts_with("RecursionError"), "{}", r.detail);
    // Past the default limit: whatever gives first (the recursion limit, memory,
    // the C stack or the clock), the host only sees an outcome.
    let code = "import sys\nsys.setrecursionlimit(10 ** 8)\ndef f(n):\n    return f(n + 1)\nf(0)\n";
    for fast in MODES {
        let start = Instant::now();
        let r = run_code_in(fast, code, &Limits::default(), Duration::from_secs(5));
        assert!(
            matches!(r.outcome, Outcome::Error | Outcome::Timeout),
            "{r:?}"
        );
        assert!(
            start.elapsed() < Duration::from_secs(7),
            "fast start {fast}: {:?}",
            start.elapsed()
        );
    }
}

#[test]
fn a_huge_single_line_is_an_output_overflow() {
    let start = Instant::now();
    let r = run_with(
        "import sys\nsys.stdout.write('x' * 50_000_000)\n",
        &["True"],
        &Limits::default(),
        Duration::from_secs(20),
    );
    assert_eq!(r.detail, "output overflow");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn slow_output_just_under_the_cap_passes() {
    let code = "import sys, time\nfor _ in range(50):\n    sys.stdout.write('y' * 5000)\n    sys.stdout.flush()\n    time.sleep(0.01)\n";
    let r = run(code, &["True"]);
    assert_eq!(r.outcome, Outcome::Pass, "{}", r.detail);
}

#[test]
fn the_cpu_backstop_is_a_kernel_limit_just_above_the_timeout() {
    // What the kernel holds the candidate to, read from its own /proc entry
    // (unconfined: confinement hides /proc/self).
    let code = "print([l for l in open('/proc/self/limits') if l.startswith('Max cpu time')][0].split()[3:5])\n";
    let unconfined = Limits {
        confine: false,
        ..Limits::default()
    };
    for fast in MODES {
        let r = run_code_in(fast, code, &unconfined, Duration::from_secs(1));
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
        assert_eq!(r.stdout.trim(), "['3', '4']", "fast start {fast}");
        let off = Limits {
            cpu_backstop: false,
            ..unconfined.clone()
        };
        let r = run_code_in(fast, code, &off, Duration::from_secs(1));
        assert_eq!(
            r.stdout.trim(),
            "['unlimited', 'unlimited']",
            "fast start {fast}"
        );
    }
}

#[test]
fn a_candidate_that_lowers_its_own_cpu_limit_is_an_error_before_the_wall_clock() {
    // The candidate lowers its own CPU limit to one second and burns: the
    // kernel's SIGXCPU, not the 10 s wall clock, ends it; and as it is not
    // the host's limit that it reached, it is an error, not a timeout.
    let code = "import resource\n_, hard = resource.getrlimit(resource.RLIMIT_CPU)\nresource.setrlimit(resource.RLIMIT_CPU, (1, hard))\nwhile True:\n    pass\n";
    let open = Limits {
        confine: false,
        process_guard: false,
        ..Limits::default()
    };
    let start = Instant::now();
    let r = run_with(code, &["True"], &open, Duration::from_secs(10));
    assert_eq!(r.outcome, Outcome::Error, "{r:?}");
    assert!(
        r.detail.starts_with("killed by signal 24 (SIGXCPU)"),
        "{r:?}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "the wall clock ended it"
    );
    // Without the backstop the host does not count the signal as a timeout.
    let off = Limits {
        cpu_backstop: false,
        ..open
    };
    let r = run_with(code, &["True"], &off, Duration::from_secs(10));
    assert_eq!(r.outcome, Outcome::Error, "{r:?}");
    assert!(r.detail.contains("SIGXCPU"), "{}", r.detail);
}

#[test]
fn no_network_mode_cuts_the_candidate_off_even_from_loopback() {
    if let Err(why) = execscope::sandbox::network_isolation() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI machines allow network namespaces: {why}"
        );
        eprintln!("notice: no-network mode unavailable here ({why}); skipping");
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        "import _socket\ns = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)\ns.settimeout(2)\ns.connect(('127.0.0.1', {port}))\n"
    );
    let open = Limits {
        denylist: Vec::new(),
        process_guard: false,
        network: true,
        ..Limits::default()
    };
    let r = run_with(&code, &["True"], &open, Duration::from_secs(5));
    assert_eq!(r.outcome, Outcome::Pass, "with the network: {r:?}");
    let closed = Limits {
        no_network: true,
        ..open
    };
    let r = run_with(&code, &["True"], &closed, Duration::from_secs(5));
    assert_eq!(r.outcome, Outcome::Error, "without the network: {r:?}");
    assert!(
        r.detail.contains("unreachable") || r.detail.contains("refused"),
        "{}",
        r.detail
    );
}

#[test]
fn a_candidate_cannot_pass_its_failure_off_as_a_harness_fault() {
    // A wrong answer that tries to look like the machine's fault: forged
    // fork-server control lines and junk on every descriptor, then its
    // parent (the fork server in fast start) killed two ways. Were any of it
    // to reach the host, the result would be a harness fault and leave the
    // pass@k "without harness faults".
    let code = "import os, signal
for fd in range(3, 256):
    for line in (b'pid 1\\n', b'signal 9\\n', b'exit 0\\n', b'\\xff' * 5000):
        try:
            os.write(fd, line)
        except OSError:
            pass
for kill in (lambda: os.kill(os.getppid(), 9),
             lambda: signal.pidfd_send_signal(os.pidfd_open(os.getppid()), 9)):
    try:
        kill()
    except Exception:
        pass
def add(a, b):
    return 0
";
    // Both modes, which must agree (`run` checks that).
    // The junk went to its judge too, on the call channel: not data.
    let r = run(code, &["add(1, 2) == 3"]);
    assert_eq!(r.fault, None, "{r:?}");
    assert_eq!(r.outcome, Outcome::Error, "{r:?}");
    assert!(!r.detail.starts_with("harness fault"), "{r:?}");
    assert!(r.flags.contains(&"malformed-answer".to_owned()), "{r:?}");
}

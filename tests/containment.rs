//! Containment: whatever a candidate does ends in one of the five outcomes, in
//! bounded time, with nothing left running.

use std::time::{Duration, Instant};

use execscope::sandbox::{Interpreter, Limits, Outcome, Runner};

use crate::util::{MODES, cpu_to_spare, is_running, program, python, run, run_code_in, run_with};

#[test]
fn a_candidate_that_ignores_sigterm_still_times_out() {
    let code = "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n";
    // Resolving the interpreter (once per test binary) is not part of the timing.
    crate::util::python();
    let start = Instant::now();
    let r = run_with(
        code,
        &["True"],
        &Limits::default(),
        Duration::from_millis(800),
    );
    assert_eq!(r.outcome, Outcome::Timeout);
    // Two runs (both modes) of 0.8 s each: far below what waiting on a
    // SIGTERM the candidate ignores would take, with room for a loaded
    // machine (2 s failed twice when other builds shared the two cores).
    assert!(
        start.elapsed() < Duration::from_millis(3500),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_stdout_flood_is_killed_at_the_cap_well_before_the_timeout() {
    let start = Instant::now();
    let r = run_with(
        "while True:\n    print('x' * 1000)\n",
        &["True"],
        &Limits::default(),
        Duration::from_secs(20),
    );
    assert_eq!(r.outcome, Outcome::Error);
    assert_eq!(r.detail, "output overflow");
    assert_eq!(r.score, 0.0);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert!(r.stdout.starts_with("xxxx"));
    assert!(
        r.stdout.len() < 32 * 1024,
        "excerpt is bounded: {}",
        r.stdout.len()
    );
}

#[test]
fn the_demos_flood_is_stopped_within_one_pipe_buffer_of_the_cap_every_time() {
    // The demo's chatty count_vowels, fifty times in each mode.
    let code = "def count_vowels(s):\n    while True:\n        print('vowels! ' * 64)\n";
    let limits = Limits::default();
    let mut most = 0;
    for fast in [false, true] {
        for _ in 0..50 {
            let r = crate::util::run_mode(
                fast,
                &program(code, &["count_vowels('a') == 1"]),
                &limits,
                Duration::from_secs(20),
            );
            assert_eq!(r.detail, "output overflow");
            let o = r.overflow.expect("the overflow is described");
            assert_eq!(
                (o.stream.as_str(), o.cap_bytes),
                ("stdout", limits.output_cap)
            );
            assert!(o.read_bytes > limits.output_cap);
            most = most.max(o.read_bytes);
        }
    }
    eprintln!(
        "the most read of 100 floods: {most} bytes against a cap of {}",
        limits.output_cap
    );
    assert!(
        most <= limits.output_cap + 64 * 1024,
        "{most} bytes read against a cap of {}",
        limits.output_cap
    );
}

#[test]
fn a_stderr_flood_is_killed_at_the_cap_well_before_the_timeout() {
    let start = Instant::now();
    let code = "import sys\nwhile True:\n    sys.stderr.write('e' * 4096)\n";
    let r = run_with(code, &["True"], &Limits::default(), Duration::from_secs(20));
    assert_eq!(
        (r.outcome, r.detail.as_str()),
        (Outcome::Error, "output overflow")
    );
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn output_just_under_the_cap_is_not_an_overflow() {
    let limits = Limits {
        output_cap: 100_000,
        ..Limits::default()
    };
    let r = run_with(
        "import sys\nsys.stdout.write('y' * 99_000)\n",
        &["True"],
        &limits,
        Duration::from_secs(3),
    );
    assert_eq!(r.outcome, Outcome::Pass, "{}", r.detail);
    let r = run_with(
        "import sys\nsys.stdout.write('y' * 100_001)\n",
        &["True"],
        &limits,
        Duration::from_secs(3),
    );
    assert_eq!(r.detail, "output overflow");
}

#[test]
fn an_envelope_printed_by_the_candidate_is_not_believed() {
    let forged = "import sys\nfor s in (sys.stdout, sys.stderr):\n    s.write('0' * 32 + '\\npass\\n1 1\\n1\\n1 2 3\\n0\\n')\n";
    let r = run(forged, &["False"]);
    assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
}

#[test]
fn bytes_written_to_the_call_channel_are_an_error_never_a_pass() {
    // Descriptor 3 is the candidate's channel to its judge: what it writes
    // there is its answer, and these bytes are not data.
    let forged = "import os\nfor token in ('0' * 32, '', 'pass'):\n    os.write(3, (token + '\\npass\\n1 1\\n1\\n1 2 3\\n0\\n').encode())\n";
    let r = run(forged, &["False"]);
    assert_eq!(r.outcome, Outcome::Error, "{r:?}");
    assert_eq!(r.flags, ["malformed-answer"], "{r:?}");
    // Forging and then leaving is no better.
    let r = run(&format!("{forged}os._exit(0)\n"), &["True"]);
    assert_eq!(r.outcome, Outcome::Error, "{r:?}");
}

#[test]
fn the_harness_is_not_reachable_through_the_main_module() {
    // A reward-hacking candidate that knows the harness calls its report
    // function itself; in code and in an assertion, through `import __main__`
    // and through `sys.modules`. Each must fail, not pass.
    let call = "._finish('pass', 1, [True], '', 0)";
    let in_code = [
        format!("import __main__\n__main__{call}\n"),
        format!("import sys\nsys.modules['__main__']{call}\n"),
    ];
    for code in &in_code {
        let r = run(code, &["1 == 2"]);
        assert_eq!(r.outcome, Outcome::Error, "{code}: {r:?}");
        assert!(r.detail.starts_with("AttributeError"), "{code}: {r:?}");
    }
    let r = run("", &[&format!("__import__('__main__'){call}"), "1 == 2"]);
    assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
    assert_eq!(r.per_assertion, vec![false, false]);
    // And the `__main__` a candidate sees holds nothing of the harness.
    let r = run(
        "import __main__\nnames = [n for n in vars(__main__) if not n.startswith('__')]\n",
        &["names == []"],
    );
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
}

#[test]
fn sys_exit_in_the_candidate_is_an_error() {
    for code in [
        "import sys\nsys.exit(0)\n",
        "exit()\n",
        "raise SystemExit(1)\n",
    ] {
        let r = run(code, &["True"]);
        assert_eq!(r.outcome, Outcome::Error, "{code}: {r:?}");
        assert!(r.detail.starts_with("SystemExit"), "{code}: {}", r.detail);
    }
}

#[test]
fn os_exit_in_the_candidate_is_an_error() {
    let r = run("import os\nos._exit(0)\n", &["True"]);
    assert_eq!(r.outcome, Outcome::Error);
    assert_eq!(
        r.detail,
        "exited with status 0 (closed during the program's top level)"
    );
    let r = run("import os\nos._exit(7)\n", &["True"]);
    assert_eq!(
        r.detail,
        "exited with status 7 (closed during the program's top level)"
    );
}

#[test]
fn a_candidate_killed_by_a_signal_is_an_error() {
    let r = run_with(
        "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
        &["True"],
        &unguarded(),
        Duration::from_secs(3),
    );
    assert_eq!(r.outcome, Outcome::Error);
    assert!(r.detail.starts_with("killed by signal 11"), "{}", r.detail);
}

/// Limits with the process guard and the kernel confinement off (which
/// refuse to fork), to show that the host's own containment (process groups,
/// the orphan sweep) holds without either.
pub fn unguarded() -> Limits {
    Limits {
        process_guard: false,
        confine: false,
        ..Limits::default()
    }
}

#[test]
fn a_forked_sleeping_child_does_not_outlive_the_candidate() {
    let code = "import os, time\npid = os.fork()\nif pid == 0:\n    time.sleep(60)\n    os._exit(0)\nprint(pid, flush=True)\n";
    for fast in MODES {
        let start = Instant::now();
        let r = run_code_in(fast, code, &unguarded(), Duration::from_secs(3));
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "the child's open pipes must not stall the host (fast start {fast}): {:?}",
            start.elapsed()
        );
        let pid: i32 = r
            .stdout
            .trim()
            .parse()
            .expect("the candidate printed its child's pid");
        std::thread::sleep(Duration::from_millis(100));
        assert!(!is_running(pid), "child {pid} survived (fast start {fast})");
    }
}

#[test]
fn a_child_forked_by_a_timed_out_candidate_is_killed_too() {
    let code = "import os, time\npid = os.fork()\nif pid == 0:\n    time.sleep(60)\nprint(pid, flush=True)\nwhile True:\n    pass\n";
    for fast in MODES {
        let r = run_code_in(fast, code, &unguarded(), Duration::from_millis(600));
        assert_eq!(r.outcome, Outcome::Timeout);
        let pid: i32 = r.stdout.trim().parse().expect("pid");
        std::thread::sleep(Duration::from_millis(100));
        assert!(!is_running(pid), "child {pid} survived (fast start {fast})");
    }
}

#[test]
fn closing_the_standard_streams_does_not_hang_the_host() {
    let r = run(
        "import os\nos.close(0)\nos.close(1)\nos.close(2)\n",
        &["True"],
    );
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
}

#[test]
fn non_utf8_output_is_captured_lossily() {
    let r = run(
        "import sys\nsys.stdout.buffer.write(b'ok \\xff\\xfe end')\n",
        &["True"],
    );
    assert_eq!(r.outcome, Outcome::Pass);
    assert!(
        r.stdout.starts_with("ok ") && r.stdout.ends_with(" end"),
        "{:?}",
        r.stdout
    );
}

#[test]
fn rebinding_builtins_cannot_turn_a_failure_into_a_pass() {
    let code = "import builtins\nbuiltins.bool = lambda x: True\nbuiltins.eval = lambda *a, **k: True\nbuiltins.exec = lambda *a, **k: None\nbuiltins.compile = lambda *a, **k: None\n";
    let r = run(code, &["1 == 2", "assert 1 == 2"]);
    assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
    assert_eq!(r.per_assertion, vec![false, false]);
}

#[test]
fn a_candidate_keeps_full_priority_until_it_has_used_half_its_timeout_on_a_cpu() {
    // With a 4 s timeout a candidate may use 2 s of CPU at full priority. One
    // that waits is never lowered; one that computes is lowered (its processes
    // and its session's scheduling group, `/proc/self/autogroup`, where the
    // kernel has them; the two change one after the other) only once it has
    // used that much.
    let _cpu = cpu_to_spare();
    let code = "import os, time
def state():
    try:
        with open('/proc/self/autogroup') as f:
            group = f.read().split()[-1]
    except OSError:
        group = None
    return os.getpriority(os.PRIO_PROCESS, 0), group
time.sleep(0.3)
waited = state()
while time.process_time() < 1.2:
    pass
busy = state()
while state() == busy and time.process_time() < 3.0:
    pass
lowered_at = time.process_time()
while state()[1] == '0' and time.process_time() < lowered_at + 0.2:
    pass
lowered = state()
";
    let r = run_with(
        code,
        &[
            "waited[0] == 0 and waited[1] in (None, '0')",
            "busy[0] == 0 and busy[1] in (None, '0')",
            "lowered[0] == 19 and lowered[1] in (None, '19')",
            "1.9 <= lowered_at < 2.5",
        ],
        &Limits::default(),
        Duration::from_secs(4),
    );
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
}

/// Busy loops, each in a session of its own (so the kernel's session groups
/// do not merge them), killed when dropped.
struct Hogs(Vec<std::process::Child>);

impl Hogs {
    fn start(n: usize) -> Hogs {
        use std::os::unix::process::CommandExt;
        Hogs(
            (0..n)
                .map(|_| {
                    let mut cmd = std::process::Command::new(&python().executable);
                    cmd.args(["-S", "-c", "while True: pass"]);
                    // SAFETY: setsid is async-signal-safe.
                    unsafe {
                        cmd.pre_exec(|| {
                            libc::setsid();
                            Ok(())
                        })
                    };
                    cmd.spawn().unwrap()
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn a_candidate_waiting_for_a_cpu_keeps_its_place_and_a_sleeping_one_hands_it_on() {
    // Two busy loops per core leave a computing candidate well under half a
    // core: most of its time it waits for a CPU, which is not waiting on
    // anything of its own, so it keeps its worker's place (handing it on would
    // start more candidates at once). One that sleeps hands it on.
    let _cpu = cpu_to_spare();
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let _hogs = Hogs::start(2 * cores);
    std::thread::sleep(Duration::from_millis(200));
    let busy = program(
        "import time\nwhile time.process_time() < 0.6:\n    pass\n",
        &["True"],
    );
    let sleepy = program("import time\ntime.sleep(0.6)\n", &["True"]);
    for fast_start in MODES {
        let runner = Runner::new(python(), &Limits::default(), fast_start);
        for (program, hands_off) in [(&busy, false), (&sleepy, true)] {
            let handed = std::sync::atomic::AtomicBool::new(false);
            let r = runner
                .run(Duration::from_secs(8), program, None, &|| {
                    handed.store(true, std::sync::atomic::Ordering::SeqCst)
                })
                .unwrap();
            assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
            assert_eq!(
                handed.load(std::sync::atomic::Ordering::SeqCst),
                hands_off,
                "fast start {fast_start}, {:?}, {} ms",
                program.code,
                r.duration_ms
            );
        }
    }
}

#[test]
fn an_interpreter_that_cannot_be_started_is_a_spawn_error_naming_it() {
    let missing = Interpreter {
        executable: "/nonexistent/execscope-test/python3".into(),
        ..python().clone()
    };
    for fast in MODES {
        let err = Runner::new(&missing, &Limits::default(), fast)
            .run(
                Duration::from_secs(3),
                &program("x = 1", &["x == 1"]),
                None,
                &|| {},
            )
            .expect_err("nothing to start");
        let message = err.to_string();
        assert!(
            message.contains("/nonexistent/execscope-test/python3")
                && message.contains("No such file"),
            "fast start {fast}: {message}"
        );
    }
}

//! The host and the machine's resources under confinement, judged by effect:
//! candidates that go after their host (its descriptors, its life) leave a
//! complete run; a run that stops early says so; the confinement in force is
//! stated and can be required; the disk and the number of threads a
//! candidate can use are bounded.

use std::path::Path;
use std::time::Duration;

use execscope::sandbox::confine::ThreadBound;
use execscope::sandbox::{CandidateResult, Limits, Outcome};

use crate::confinement::attack;
use crate::util::{MODES, program, run_mode, tempdir};

#[test]
fn the_confinement_in_force_is_reported() {
    let status = Limits::default().confinement();
    let line = status.describe();
    if std::env::var_os("CI").is_some() {
        assert!(
            status.missing().is_empty(),
            "CI's kernel has every layer: {line}"
        );
    }
    assert!(line.starts_with("confinement: "), "{line}");
    assert!(line.contains("network off"), "{line}");
    let off = Limits {
        confine: false,
        ..Limits::default()
    }
    .confinement();
    assert!(off.describe().contains("off"), "{}", off.describe());
    assert!(Path::new("/proc/self/status").exists());
}

/// Writes a lesson-70 task file with one `True` task per code, and the
/// generations file with those codes; returns both paths.
fn task_files(dir: &Path, codes: &[String]) -> (std::path::PathBuf, std::path::PathBuf) {
    let (tasks, gens) = (dir.join("tasks.jsonl"), dir.join("gens.jsonl"));
    let mut t = String::new();
    let mut g = String::new();
    for (i, code) in codes.iter().enumerate() {
        let task = serde_json::json!({"task_id": format!("t{i}"), "category": "code_exec",
            "prompt": "p", "targets": ["True"], "metric_name": "code_exec", "post_process": "none"});
        t.push_str(&format!("{task}\n"));
        let line = serde_json::json!({"task_id": format!("t{i}"), "generation": code});
        g.push_str(&format!("{line}\n"));
    }
    std::fs::write(&tasks, t).unwrap();
    std::fs::write(&gens, g).unwrap();
    (tasks, gens)
}

/// Candidates that go after their host: its descriptors (the cancel pipe
/// among them), its life, its execution.
fn attacks_on_the_host() -> Vec<String> {
    let ppid = "host = os.getppid()\n";
    vec![
        format!(
            "import os\n{ppid}for n in range(256):\n    try:\n        fd = os.open('/proc/%d/fd/%d' % (host, n), os.O_WRONLY)\n        os.write(fd, b'x' * 64)\n    except OSError:\n        pass\n"
        ),
        format!("import os\n{ppid}os.kill(host, 9)\n"),
        format!("import os, ctypes\n{ppid}libc = ctypes.CDLL(None)\nlibc.kill(host, 9)\n"),
        format!(
            "import os, ctypes, time\n{ppid}libc = ctypes.CDLL(None)\nlibc.ptrace(16, host, 0, 0)\ntime.sleep(1)\n"
        ),
        "True\n".to_string(),
    ]
}

#[test]
fn a_candidate_cannot_kill_freeze_or_stop_its_host_and_every_candidate_is_reported() {
    for fast in [false, true] {
        let dir = tempdir();
        let (tasks, gens) = task_files(dir.path(), &attacks_on_the_host());
        let json = dir.path().join("run.json");
        let mut cmd = assert_cmd::Command::cargo_bin("execscope").unwrap();
        cmd.args(["run", "-q", "--deny", "", "--no-process-guard", "--tasks"])
            .arg(&tasks)
            .arg("--generations")
            .arg(&gens)
            .arg("--json")
            .arg(&json)
            .timeout(Duration::from_secs(60));
        if fast {
            cmd.arg("--fast-start");
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "fast start {fast}: {:?}: {stderr}",
            out.status
        );
        let run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(run["summary"]["complete"], true, "{stderr}");
        assert_eq!(run["summary"]["candidates"], 5, "{stderr}");
        assert_eq!(run["summary"]["planned"], 5);
    }
}

#[test]
fn a_run_that_stops_early_says_so_and_exits_1() {
    // Without confinement, writing into the host's descriptors trips its
    // cancel pipe: the run must not call itself finished.
    let dir = tempdir();
    let mut codes = attacks_on_the_host()[..1].to_vec();
    codes.extend((0..20).map(|_| "import time\ntime.sleep(0.2)\n".to_string()));
    let (tasks, gens) = task_files(dir.path(), &codes);
    let json = dir.path().join("run.json");
    let out = assert_cmd::Command::cargo_bin("execscope")
        .unwrap()
        .args([
            "run",
            "-q",
            "--workers",
            "1",
            "--no-confinement",
            "--deny",
            "",
        ])
        .args(["--no-process-guard", "--tasks"])
        .arg(&tasks)
        .arg("--generations")
        .arg(&gens)
        .arg("--json")
        .arg(&json)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let finished = run["summary"]["candidates"].as_u64().unwrap();
    assert!(
        finished < 21,
        "the attack did not stop the unconfined run: {stderr}"
    );
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the run stopped early"), "{stderr}");
    assert_eq!(run["summary"]["complete"], false);
    assert_eq!(run["summary"]["planned"], 21);
}

/// `r` was stopped at the 64 MiB disk limit after writing a few 15 MiB files
/// (four and a bit fill it; what is written in the 50 ms between two checks
/// may add a few more).
fn assert_stopped_at_the_disk_limit(fast: bool, r: &CandidateResult) {
    assert_eq!(r.outcome, Outcome::Error, "fast start {fast}: {r:?}");
    // The kernel's tmpfs says no more; where there is none, the watchdog
    // kills the candidate.
    let tmpfs = Limits::default().confinement().disk_tmpfs;
    if tmpfs {
        assert!(r.detail.contains("No space left on device"), "{r:?}");
    } else {
        assert_eq!(r.detail, "disk limit (64 MiB in its directory)");
    }
    let files = r.stdout.lines().count();
    assert!(
        files < 20,
        "fast start {fast}: {files} files of 15 MiB written"
    );
}

#[test]
fn the_bytes_a_candidate_keeps_on_disk_are_bounded_not_only_each_file() {
    // Files of 15 MiB each (under the 16 MiB file-size limit), up to 1 GiB.
    let code = "chunk = b'x' * (15 << 20)\nfor i in range(70):\n    with open('f%d' % i, 'wb') as f:\n        f.write(chunk)\n    print(i, flush=True)\n";
    for fast in MODES {
        let runs: Vec<_> = (0..4)
            .map(|_| std::thread::spawn(move || attack(fast, code)))
            .collect();
        for run in runs {
            assert_stopped_at_the_disk_limit(fast, &run.join().unwrap());
        }
    }
}

#[test]
fn the_cli_and_the_run_file_state_the_confinement_in_force() {
    let dir = tempdir();
    let json = dir.path().join("run.json");
    let out = assert_cmd::Command::cargo_bin("execscope")
        .unwrap()
        .args(["run", "-q", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = Limits::default().confinement().describe();
    assert!(stderr.contains(&line), "{stderr}");
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let recorded = &run["settings"]["confinement"];
    let status = Limits::default().confinement();
    assert_eq!(recorded["enabled"], true);
    assert_eq!(recorded["files"], status.files);
    assert_eq!(recorded["seccomp"], status.seccomp);
    assert_eq!(recorded["landlock_abi"], status.landlock_abi);
    assert_eq!(recorded["network"], false);
    assert_eq!(run["settings"]["disk_limit_bytes"], 64 << 20);
}

#[test]
fn a_run_that_requires_confinement_refuses_to_start_without_it() {
    use execscope::engine::{RunSettings, start};
    let settings = RunSettings {
        limits: Limits {
            confine: false,
            ..Limits::default()
        },
        require_confinement: true,
        ..RunSettings::default()
    };
    let plan = std::sync::Arc::new(execscope::plan::Plan {
        tasks: Vec::new(),
        jobs: Vec::new(),
        problems: Vec::new(),
        missing: Vec::new(),
    });
    let (tx, _rx) = flume::unbounded();
    let refused = start(
        plan,
        crate::util::python().clone(),
        settings,
        tx,
        std::sync::Arc::new(|| {}),
    );
    let why = refused.err().expect("refused").to_string();
    assert!(why.contains("confinement is required"), "{why}");
    // The command line refuses the contradiction outright.
    assert_cmd::Command::cargo_bin("execscope")
        .unwrap()
        .args(["run", "--no-confinement", "--require-confinement"])
        .assert()
        .code(2);
}

#[test]
fn files_unlinked_but_held_open_count_against_the_disk_limit_and_memfd_is_refused() {
    // Each 15 MiB file is unlinked at once but kept open: nothing is left in
    // the directory, yet the disk fills.
    let code = "import os\nchunk = b'x' * (15 << 20)\nkept = []\nfor i in range(60):\n    fd = os.open('f%d' % i, os.O_RDWR | os.O_CREAT)\n    os.unlink('f%d' % i)\n    os.write(fd, chunk)\n    kept.append(fd)\n    print(i, flush=True)\n";
    for fast in MODES {
        assert_stopped_at_the_disk_limit(fast, &attack(fast, code));
        let r = attack(
            fast,
            "import os\nfd = os.memfd_create('x')\nos.write(fd, b'x' * 1000)\n",
        );
        assert_eq!(r.outcome, Outcome::Error, "fast start {fast}: {r:?}");
        assert!(r.detail.contains("PermissionError"), "{}", r.detail);
    }
}

/// The processes whose working directory holds the file `marker`.
fn processes_in_the_directory_of(marker: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<i32>().ok())
        // Through the process's own view: its directory may be a tmpfs of
        // its own mount namespace.
        .filter(|pid| Path::new(&format!("/proc/{pid}/cwd")).join(marker).exists())
        .collect()
}

/// Runs thread bomb `i` and watches its live threads from its own
/// `/proc/<pid>/status`: (the result, the most seen in one process).
fn bomb_and_watch(fast: bool, i: usize, bomb: &str) -> (CandidateResult, usize) {
    let marker = format!("bomb-{i}-{fast}");
    let code = format!(
        "import time, os\n{bomb}open('{marker}', 'w').close()\nimport _thread as t\nt.stack_size(32768)\nn = 0\ntry:\n    while n < 2000:\n        start()\n        n += 1\nexcept Exception as e:\n    print(n, type(e).__name__, e)\ntime.sleep(0.5)\n"
    );
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let watch = s.spawn(|| {
            let mut most = 0usize;
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                // Every process working where the marker is (in fast start,
                // the candidate's server too).
                for pid in processes_in_the_directory_of(&marker) {
                    let status =
                        std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
                    let threads = status
                        .lines()
                        .find_map(|l| l.strip_prefix("Threads:"))
                        .and_then(|n| n.trim().parse().ok())
                        .unwrap_or(0);
                    most = most.max(threads);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            most
        });
        let r = attack(fast, &code);
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        (r, watch.join().unwrap())
    })
}

#[test]
fn a_thread_bomb_is_bounded_by_the_kernel_in_both_modes() {
    // Tiny stacks: without a bound it uses up the machine's process ids
    // (`pid_max` is 32768 on many machines) until its timeout. Two ways
    // around a bound written in Python (a fresh `_thread` module, and
    // `threading` with its counter at zero) meet the kernel's: the test reads
    // the live threads from the candidate's own `/proc/<pid>/status`.
    let bombs = [
        "import sys\nsys.modules.pop('_thread', None)\nimport _thread\nstart = lambda: _thread.start_new_thread(time.sleep, (30,))\n",
        "import threading\nstart = lambda: threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n",
    ];
    // The kernel's bound here: a pids cgroup of 256, or RLIMIT_NPROC of 256
    // (a user that is not root), counted in the candidate's own user
    // namespace, so it holds per candidate whatever others hold: the two
    // bombs run at once.
    let bound = match Limits::default().confinement().threads {
        ThreadBound::Cgroup | ThreadBound::Rlimit => 256,
        ThreadBound::None => {
            eprintln!("notice: no kernel bound on threads here (root without a pids cgroup)");
            return;
        }
    };
    for fast in MODES {
        let seen = std::thread::scope(|s| {
            let bombers: Vec<_> = bombs
                .iter()
                .enumerate()
                .map(|(i, bomb)| s.spawn(move || (i, bomb_and_watch(fast, i, bomb))))
                .collect();
            bombers
                .into_iter()
                .map(|b| b.join().unwrap())
                .collect::<Vec<_>>()
        });
        for (i, (r, most)) in seen {
            eprintln!("fast start {fast}, bomb {i}: at most {most} live threads (bound {bound})");
            assert_eq!(r.outcome, Outcome::Pass, "fast start {fast}: {r:?}");
            let started: usize = r.stdout.split_whitespace().next().unwrap().parse().unwrap();
            assert!(started < bound, "fast start {fast}, bomb {i}: {r:?}");
            assert!(
                r.stdout.contains("can't start new thread"),
                "fast start {fast}, bomb {i}: {r:?}"
            );
            assert!(
                (100..=bound).contains(&most),
                "fast start {fast}, bomb {i}: {most} live threads seen (bound {bound})"
            );
        }
        // A thread pool well under the bound works.
        let pool = "from concurrent.futures import ThreadPoolExecutor\nwith ThreadPoolExecutor(32) as p:\n    ok = sum(p.map(lambda x: x, range(100))) == 4950\n";
        let r = run_mode(
            fast,
            &program(pool, &["ok"]),
            &Limits::default(),
            Duration::from_secs(10),
        );
        assert_eq!(r.outcome, Outcome::Pass, "fast start {fast}: {r:?}");
    }
}

#[test]
fn files_in_flight_in_a_socket_do_not_get_past_the_disk_limit() {
    // Files made with O_TMPFILE (no name), their descriptors sent over a
    // socket pair and closed: in no directory and in no descriptor table.
    let code = "import os, socket
a, b = socket.socketpair()
chunk = b'x' * (8 << 20)
held = 0
try:
    for i in range(15):
        fd = os.open('.', os.O_TMPFILE | os.O_RDWR)
        os.write(fd, chunk)
        socket.send_fds(a, [b'x'], [fd])
        os.close(fd)
        held += 8
except OSError as e:
    print(held, type(e).__name__, e.errno)
else:
    print(held, 'all')
";
    let free = || {
        // SAFETY: statvfs fills a valid out-pointer.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        let tmp =
            std::ffi::CString::new(std::env::temp_dir().to_string_lossy().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::statvfs(tmp.as_ptr(), &mut st) }, 0);
        st.f_bavail as u64 * st.f_frsize as u64
    };
    for fast in MODES {
        let before = free();
        let r = attack(fast, code);
        let after = free();
        let held: u64 = r
            .stdout
            .split_whitespace()
            .next()
            .unwrap_or("0")
            .parse()
            .unwrap();
        assert!(held <= 64, "fast start {fast}: {held} MiB held: {r:?}");
        assert!(!r.stdout.contains("all"), "fast start {fast}: {r:?}");
        // And the disk under the candidate never filled past the bound.
        assert!(
            before.saturating_sub(after) < 72 << 20,
            "fast start {fast}: {} MiB gone",
            before.saturating_sub(after) >> 20
        );
    }
}

#[test]
fn files_moved_deeper_than_a_path_can_name_still_count_against_the_disk_limit() {
    // Twenty directories of 250-byte names reach past PATH_MAX (4096), where
    // a walk by path cannot read; each 15 MiB file is written at the top and
    // its directory moved down there through a descriptor at depth 15 (60 of
    // them passed before).
    let code = "import os\ntop = os.open('.', os.O_RDONLY)\nfor i in range(20):\n    os.mkdir('d' * 250)\n    os.chdir('d' * 250)\n    if i == 14:\n        mid = os.open('.', os.O_RDONLY)\nos.fchdir(top)\nbelow = ('d' * 250 + '/') * 2\nchunk = b'x' * (15 << 20)\nfor i in range(60):\n    os.mkdir('x%d' % i)\n    with open('x%d/f' % i, 'wb') as f:\n        f.write(chunk)\n    os.rename('x%d' % i, below + 'x%d' % i, dst_dir_fd=mid)\n    print(i, flush=True)\n";
    for fast in MODES {
        assert_stopped_at_the_disk_limit(fast, &attack(fast, code));
    }
}

//! Kernel confinement, judged by effect: each test makes the attack a
//! model-written candidate could make, with the Python-level guard and the
//! denylist switched off (so only the kernel's layers stand), and then checks
//! that the harm did not happen: the canary file is intact, nothing appeared,
//! the listener got no connection, the victim process lives. Every attack runs
//! in both start-up modes.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::time::Duration;

use execscope::sandbox::{CandidateResult, Limits, Outcome};

use crate::util::{MODES, pid_of_candidate_with, program, run_mode, tempdir};

/// Default limits without the Python-level layers: no denylist, no guard.
fn kernel_only() -> Limits {
    Limits {
        denylist: Vec::new(),
        process_guard: false,
        ..Limits::default()
    }
}

/// Runs `code` with only the kernel's layers, in one mode.
fn attack(fast_start: bool, code: &str) -> CandidateResult {
    run_mode(
        fast_start,
        &program(code, &["True"]),
        &kernel_only(),
        Duration::from_secs(10),
    )
}

/// Python that calls libc through ctypes (the route `_ctypes` opened).
const LIBC: &str = "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n";

/// A file outside the candidate's directory that must come through unchanged.
struct Canary {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
    content: &'static str,
    mode: u32,
    mtime: i64,
}

impl Canary {
    fn new() -> Canary {
        let dir = tempdir();
        // Readable and writable by anyone: only the sandbox stands in the way.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let path = dir.path().join("canary.txt");
        let content = "the user's precious data\n";
        std::fs::write(&path, content).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        Canary {
            _dir: dir,
            path,
            content,
            mode: meta.mode(),
            mtime: meta.mtime(),
        }
    }

    fn assert_intact(&self, attack: &str) {
        let meta = std::fs::metadata(&self.path)
            .unwrap_or_else(|e| panic!("{attack}: the canary is gone: {e}"));
        assert_eq!(
            std::fs::read_to_string(&self.path).unwrap(),
            self.content,
            "{attack}: content"
        );
        assert_eq!(meta.mode(), self.mode, "{attack}: mode");
        assert_eq!(meta.mtime(), self.mtime, "{attack}: modification time");
        let siblings: Vec<_> = std::fs::read_dir(self.path.parent().unwrap())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(siblings.len(), 1, "{attack}: files appeared: {siblings:?}");
    }
}

#[test]
fn files_outside_the_candidates_directory_survive_every_way_of_changing_them() {
    for fast in MODES {
        let canary = Canary::new();
        let p = canary.path.display().to_string();
        for code in [
            format!("import os\nos.remove({p:?})\n"),
            format!("open({p:?}, 'w').write('pwned')\n"),
            format!("open({p:?}, 'a').write('pwned')\n"),
            format!("import os\nos.rename({p:?}, {p:?} + '.moved')\n"),
            format!("import os\nos.chmod({p:?}, 0o777)\n"),
            format!("import os\nos.truncate({p:?}, 0)\n"),
            format!("import os\nos.utime({p:?}, (0, 0))\n"),
            format!("import os\nos.setxattr({p:?}, 'user.pwned', b'1')\n"),
            format!("import os\nos.symlink({p:?}, 'link')\nopen('link', 'w').write('pwned')\n"),
            format!("import os\nos.link({p:?}, 'hard')\nopen('hard', 'w').write('pwned')\n"),
            format!("import os\nos.mkdir(os.path.dirname({p:?}) + '/new')\n"),
            format!("import os\nfd = os.open({p:?}, os.O_RDONLY)\nos.fchmod(fd, 0o777)\n"),
            format!("{LIBC}libc.chmod({p:?}.encode(), 0o777)\nlibc.unlink({p:?}.encode())\n"),
        ] {
            let r = attack(fast, &code);
            canary.assert_intact(&format!("fast start {fast}: {code}"));
            assert_ne!(r.outcome, Outcome::Timeout, "{code}: {r:?}");
        }
    }
}

/// The real home directory of the user running the tests (not `$HOME`).
fn real_home() -> std::path::PathBuf {
    // SAFETY: getpwuid returns a pointer into static storage or null.
    unsafe {
        let pw = libc::getpwuid(libc::getuid());
        assert!(!pw.is_null(), "the test user has a passwd entry");
        let dir = std::ffi::CStr::from_ptr((*pw).pw_dir);
        std::path::PathBuf::from(dir.to_string_lossy().into_owned())
    }
}

#[test]
fn nothing_appears_in_the_real_home_directory() {
    let home = real_home();
    for fast in MODES {
        let name = format!("execscope-canary-{}-{fast}", std::process::id());
        let target = home.join(&name);
        let code = format!(
            "import os, pwd\ntry:\n    print('passwd says', pwd.getpwuid(os.getuid()).pw_dir)\nexcept KeyError:\n    pass\nopen(os.path.join({home:?}, {name:?}), 'w').write('x')\n",
            home = home.display().to_string(),
        );
        let r = attack(fast, &code);
        let exists = target.exists();
        let _ = std::fs::remove_file(&target);
        assert!(!exists, "fast start {fast}: a file was created in {home:?}");
        assert_eq!(r.outcome, Outcome::Error, "{r:?}");
        assert!(
            !r.stdout.contains("passwd says"),
            "the passwd database named the real home: {}",
            r.stdout
        );
    }
}

#[test]
fn a_secret_elsewhere_is_not_read_into_the_results() {
    let dir = tempdir();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let secret = dir.path().join("id_rsa");
    let token = format!("SECRET-{}", std::process::id());
    std::fs::write(&secret, &token).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
    let p = secret.display().to_string();
    for fast in MODES {
        for code in [
            format!("print(open({p:?}).read())\n"),
            format!("import os\nprint(os.listdir(os.path.dirname({p:?})))\n"),
            format!(
                "{LIBC}fd = libc.open({p:?}.encode(), 0)\nbuf = ctypes.create_string_buffer(100)\nlibc.read(fd, buf, 100)\nprint(buf.value)\n"
            ),
        ] {
            let r = attack(fast, &code);
            let everything = format!("{} {} {}", r.stdout, r.stderr, r.detail);
            assert!(!everything.contains(&token), "{code}: {everything}");
            assert!(!everything.contains("'id_rsa'"), "listed: {everything}");
        }
    }
}

#[test]
fn ctypes_cannot_start_a_shell_or_any_process() {
    for fast in MODES {
        let dir = tempdir();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let marker = dir.path().join("shell-ran");
        let m = marker.display().to_string();
        for code in [
            format!("{LIBC}print(libc.system(b'touch {m}'))\n"),
            format!("{LIBC}libc.execl(b'/bin/sh', b'sh', b'-c', b'touch {m}', None)\n"),
            format!(
                "{LIBC}pid = libc.fork()\nif pid == 0:\n    libc.execl(b'/bin/sh', b'sh', b'-c', b'touch {m}', None)\n    os._exit(0)\nprint('fork', pid, ctypes.get_errno())\n"
            ),
            format!("import os\nos.system('touch {m}')\n"),
            format!("import os\nos.execv('/bin/sh', ['sh', '-c', 'touch {m}'])\n"),
            format!(
                "import os, sys\nos.execv(sys.executable, [sys.executable, '-c', 'open({m:?}, \"w\")'])\n"
            ),
            format!("import subprocess\nsubprocess.run(['touch', {m:?}])\n"),
            format!("import os\nif os.fork() == 0:\n    open({m:?}, 'w')\n    os._exit(0)\n"),
        ] {
            let r = attack(fast, &code);
            std::thread::sleep(Duration::from_millis(50));
            assert!(!marker.exists(), "fast start {fast}: {code}: {r:?}");
        }
        // The default denylist refuses ctypes itself, and every ctypes
        // operation, however the module was loaded.
        let r = run_mode(
            fast,
            &program(
                "import importlib.machinery, importlib.util, sys\npath = [p for p in sys.path if p.endswith('lib-dynload')][0]\nimport glob\nso = glob.glob(path + '/_ctypes*.so')[0]\nspec = importlib.util.spec_from_file_location('_ctypes', so)\nm = importlib.util.module_from_spec(spec)\nm.dlopen(None)\n",
                &["True"],
            ),
            &Limits::default(),
            Duration::from_secs(10),
        );
        assert_eq!(r.outcome, Outcome::Error, "{r:?}");
        assert!(r.detail.contains("denied"), "{}", r.detail);
    }
}

/// A process of the same user that a candidate must not reach.
struct Victim(std::process::Child);

impl Victim {
    fn start() -> Victim {
        Victim(
            std::process::Command::new("sleep")
                .arg("60")
                .spawn()
                .expect("sleep"),
        )
    }
    fn pid(&self) -> u32 {
        self.0.id()
    }
    fn stat_field(&self, n: usize) -> String {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap();
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        rest.split_whitespace().nth(n).unwrap().to_owned()
    }
    fn assert_untouched(&mut self, attack: &str) {
        assert!(
            self.0.try_wait().unwrap().is_none(),
            "{attack}: the victim died"
        );
        assert_eq!(
            self.stat_field(0),
            "S",
            "{attack}: state (stopped or traced?)"
        );
        assert_eq!(self.stat_field(16), "0", "{attack}: niceness");
        let limits = std::fs::read_to_string(format!("/proc/{}/limits", self.pid())).unwrap();
        let nofile = limits
            .lines()
            .find(|l| l.starts_with("Max open files"))
            .unwrap();
        assert!(!nofile.contains(" 1 "), "{attack}: {nofile}");
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        assert!(status.contains("TracerPid:\t0"), "{attack}: traced");
    }
}

impl Drop for Victim {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn other_processes_of_the_user_cannot_be_signalled_traced_or_reniced() {
    let mut victim = Victim::start();
    let v = victim.pid();
    for fast in MODES {
        for code in [
            format!("import os\nos.kill({v}, 9)\n"),
            format!("import os, signal\nos.kill({v}, signal.SIGSTOP)\n"),
            format!("import os, signal\nsignal.pidfd_send_signal(os.pidfd_open({v}), 9)\n"),
            format!("{LIBC}print(libc.kill({v}, 9), ctypes.get_errno())\n"),
            format!(
                "{LIBC}print(libc.ptrace(16, {v}, 0, 0), ctypes.get_errno())\nimport time\ntime.sleep(0.2)\n"
            ),
            format!("{LIBC}print(libc.syscall(62, {v}, 9))\n"),
            format!("import os\nos.setpriority(os.PRIO_PROCESS, {v}, 19)\n"),
            format!("import resource\nresource.prlimit({v}, resource.RLIMIT_NOFILE, (1, 1))\n"),
            format!("import os\nos.sched_setaffinity({v}, {{0}})\n"),
            format!("import os\nprint(open('/proc/{v}/environ').read())\n"),
        ] {
            let r = attack(fast, &code);
            victim.assert_untouched(&format!("fast start {fast}: {code}: {r:?}"));
        }
    }
}

#[test]
fn the_hosts_proc_entries_cannot_be_opened() {
    let host = std::process::id();
    for fast in MODES {
        for entry in [
            "fd/0", "fd/1", "fd/2", "mem", "environ", "cmdline", "maps", "status",
        ] {
            let code = format!(
                "import os\ntry:\n    fd = os.open('/proc/{host}/{entry}', os.O_RDONLY)\nexcept OSError as e:\n    raise SystemExit(0)\nprint('OPENED')\n"
            );
            let r = attack(fast, &code);
            assert!(!r.stdout.contains("OPENED"), "{entry}: {r:?}");
        }
        let code = format!(
            "import os\nfor n in range(64):\n    try:\n        fd = os.open('/proc/{host}/fd/%d' % n, os.O_WRONLY)\n        os.write(fd, b'junk\\n')\n        print('WROTE', n)\n    except OSError:\n        pass\n"
        );
        let r = attack(fast, &code);
        assert!(!r.stdout.contains("WROTE"), "{r:?}");
    }
}

#[test]
fn a_loopback_listener_gets_no_connection_unless_the_network_is_allowed() {
    use std::net::{TcpListener, UdpSocket};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    let tcp_python = format!(
        "import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=2)\ns.sendall(b'hello')\n"
    );
    let tcp_ctypes = format!(
        "{LIBC}import struct\nfd = libc.socket(2, 1, 0)\naddr = struct.pack('<HH4s8x', 2, __import__('socket').htons({port}), bytes([127, 0, 0, 1]))\nprint(fd, libc.connect(fd, addr, 16), ctypes.get_errno())\n"
    );
    let udp_python = format!(
        "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.sendto(b'hello', ('127.0.0.1', {udp_port}))\n"
    );
    for fast in MODES {
        for code in [&tcp_python, &tcp_ctypes, &udp_python] {
            let r = attack(fast, code);
            std::thread::sleep(Duration::from_millis(50));
            assert!(
                listener.accept().is_err(),
                "fast start {fast}: a connection arrived: {code}: {r:?}"
            );
            let mut buf = [0u8; 16];
            assert!(
                udp.recv(&mut buf).is_err(),
                "fast start {fast}: a datagram arrived: {code}"
            );
            if code == &tcp_ctypes {
                assert!(r.stdout.starts_with("-1 -1 1\n"), "{}", r.stdout);
            } else {
                assert_eq!(r.outcome, Outcome::Error, "{code}: {r:?}");
            }
        }
        // The control: with the network allowed, the same candidate connects.
        let open = Limits {
            network: true,
            ..kernel_only()
        };
        let r = run_mode(
            fast,
            &program(&tcp_python, &["True"]),
            &open,
            Duration::from_secs(10),
        );
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
        std::thread::sleep(Duration::from_millis(50));
        assert!(listener.accept().is_ok(), "the allowed connection arrived");
        // Name resolution reads what it needs under /etc.
        let resolve = "import socket\nok = socket.getaddrinfo('localhost', 80)[0][4][1] == 80\n";
        let r = run_mode(
            fast,
            &program(resolve, &["ok"]),
            &open,
            Duration::from_secs(10),
        );
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
    }
}

#[test]
fn unix_sockets_of_the_desktop_are_out_of_reach() {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};
    let dir = tempdir();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let path = dir.path().join("bus");
    let pathname = UnixListener::bind(&path).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
    pathname.set_nonblocking(true).unwrap();
    let name = format!("execscope-test-{}", std::process::id());
    let abstract_listener =
        UnixListener::bind_addr(&SocketAddr::from_abstract_name(name.as_bytes()).unwrap()).unwrap();
    abstract_listener.set_nonblocking(true).unwrap();
    for fast in MODES {
        for target in [
            format!("{:?}", path.display().to_string()),
            format!("'\\0{name}'"),
        ] {
            let code = format!(
                "import socket\ns = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\ns.connect({target})\ns.sendall(b'x')\n"
            );
            let r = attack(fast, &code);
            std::thread::sleep(Duration::from_millis(50));
            assert!(pathname.accept().is_err(), "{code}: {r:?}");
            assert!(abstract_listener.accept().is_err(), "{code}: {r:?}");
        }
    }
}

/// The `/proc/<pid>/status` of the running candidate that created `marker`.
fn status_of_candidate_with(marker: &str) -> Option<String> {
    let pid = pid_of_candidate_with(marker)?;
    std::fs::read_to_string(format!("/proc/{pid}/status")).ok()
}

#[test]
fn a_candidate_holds_no_privileges_and_runs_filtered() {
    for fast in MODES {
        let marker = format!("marker-{}-{fast}", std::process::id());
        let code = format!("open({marker:?}, 'w').close()\nimport time\ntime.sleep(1.5)\n");
        let running = std::thread::spawn(move || attack(fast, &code));
        let mut status = None;
        for _ in 0..100 {
            std::thread::sleep(Duration::from_millis(20));
            status = status_of_candidate_with(&marker);
            if status.is_some() {
                break;
            }
        }
        let status = status.expect("the candidate was found");
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(|v| v.trim().to_owned())
                .unwrap_or_default()
        };
        for cap in ["CapInh:", "CapPrm:", "CapEff:", "CapAmb:"] {
            assert_eq!(field(cap), "0000000000000000", "fast start {fast}: {cap}");
        }
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            assert_eq!(field("CapBnd:"), "0000000000000000", "fast start {fast}");
        }
        assert_eq!(field("NoNewPrivs:"), "1", "fast start {fast}");
        assert_eq!(field("Seccomp:"), "2", "fast start {fast}");
        let r = running.join().unwrap();
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
    }
}

#[test]
fn the_filter_refuses_x32_numbers_io_uring_and_clone3_but_threads_work() {
    for fast in MODES {
        let code = format!(
            "{LIBC}import threading\nout = []\nt = threading.Thread(target=lambda: out.append(1))\nt.start()\nt.join()\nprint('thread', out)\nprint('x32', libc.syscall(0x40000000 | 39), ctypes.get_errno())\nprint('io_uring', libc.syscall(425, 8, 0), ctypes.get_errno())\nprint('clone3', libc.syscall(435, 0, 0), ctypes.get_errno())\n"
        );
        let r = attack(fast, &code);
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
        assert!(r.stdout.contains("thread [1]"), "{}", r.stdout);
        assert!(r.stdout.contains("x32 -1 1\n"), "{}", r.stdout);
        assert!(r.stdout.contains("io_uring -1 1\n"), "{}", r.stdout);
        assert!(r.stdout.contains("clone3 -1 38\n"), "{}", r.stdout);
    }
}

#[test]
fn no_descriptor_but_the_harness_own_reaches_a_confined_candidate() {
    let code = "import os\nopen_fds = []\nfor fd in range(1024):\n    try:\n        os.fstat(fd)\n        open_fds.append(fd)\n    except OSError:\n        pass\nprint(open_fds)\n";
    for fast in MODES {
        let r = attack(fast, code);
        assert_eq!(r.stdout.trim(), "[0, 1, 2, 3]", "fast start {fast}: {r:?}");
    }
}

#[test]
fn a_candidate_writes_freely_in_its_own_directory() {
    let code = "import os\nos.mkdir('d')\nopen('d/a', 'w').write('x' * 1000)\nos.rename('d/a', 'b')\nos.symlink('b', 'c')\nassert open('c').read() == 'x' * 1000\nos.truncate('b', 10)\nos.remove('c')\nos.remove('b')\nos.rmdir('d')\n";
    for fast in MODES {
        let r = attack(fast, code);
        assert_eq!(r.outcome, Outcome::Pass, "fast start {fast}: {r:?}");
    }
}

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

#[test]
fn the_bytes_a_candidate_keeps_on_disk_are_bounded_not_only_each_file() {
    // Files of 15 MiB each (under the 16 MiB file-size limit), up to 1 GiB.
    let code = "chunk = b'x' * (15 << 20)\nfor i in range(70):\n    with open('f%d' % i, 'wb') as f:\n        f.write(chunk)\n    print(i, flush=True)\n";
    for fast in MODES {
        let runs: Vec<_> = (0..4)
            .map(|_| std::thread::spawn(move || attack(fast, code)))
            .collect();
        for run in runs {
            let r = run.join().unwrap();
            assert_eq!(r.outcome, Outcome::Error, "fast start {fast}: {r:?}");
            assert_eq!(r.detail, "disk limit (64 MiB in its directory)");
            let files = r.stdout.lines().count();
            // 64 MiB is four files and a bit; what it writes in the 50 ms
            // between two checks may add a few more.
            assert!(
                files < 20,
                "fast start {fast}: {files} files of 15 MiB written"
            );
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
        let r = attack(fast, code);
        assert_eq!(r.outcome, Outcome::Error, "fast start {fast}: {r:?}");
        assert_eq!(r.detail, "disk limit (64 MiB in its directory)");
        let files = r.stdout.lines().count();
        assert!(
            files < 20,
            "fast start {fast}: {files} files of 15 MiB written"
        );
        let r = attack(
            fast,
            "import os\nfd = os.memfd_create('x')\nos.write(fd, b'x' * 1000)\n",
        );
        assert_eq!(r.outcome, Outcome::Error, "fast start {fast}: {r:?}");
        assert!(r.detail.contains("PermissionError"), "{}", r.detail);
    }
}

#[test]
fn a_thread_bomb_is_bounded_and_other_candidates_still_start() {
    // Tiny stacks: without a bound it uses up the machine's process ids
    // (`pid_max` is 32768 on many machines) until its timeout.
    let bomb = "import _thread, time\n_thread.stack_size(32768)\nn = 0\ntry:\n    while True:\n        _thread.start_new_thread(time.sleep, (30,))\n        n += 1\nexcept Exception as e:\n    print(n, e)\n";
    for fast in MODES {
        let r = attack(fast, bomb);
        assert_eq!(r.outcome, Outcome::Pass, "fast start {fast}: {r:?}");
        let (n, why) = r.stdout.trim().split_once(' ').unwrap();
        let n: usize = n.parse().unwrap();
        assert_eq!(n, 256, "fast start {fast}");
        assert_eq!(why, "denied: more than 256 threads at once");
        // The original is out of reach of the candidate's own code.
        for grab in [
            "_thread.start_new_thread.__kwdefaults__",
            "_thread.start_new_thread.__defaults__",
            "threading._start_new_thread.__code__",
        ] {
            let r = attack(
                fast,
                &format!(
                    "import _thread, threading
x = {grab}
"
                ),
            );
            assert!(r.detail.contains("denied"), "{grab}: {r:?}");
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
fn a_candidate_cannot_raise_its_hard_limits_or_change_its_ids() {
    let code = "import os, resource\nout = []\nfor r in (resource.RLIMIT_NOFILE, resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_FSIZE):\n    soft, hard = resource.getrlimit(r)\n    try:\n        resource.setrlimit(r, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n        out.append('RAISED')\n    except (ValueError, OSError):\n        out.append('refused')\nfor change in (lambda: os.setuid(12345), lambda: os.setgroups([0]), lambda: os.nice(-5)):\n    try:\n        change()\n        out.append('CHANGED')\n    except OSError:\n        out.append('refused')\nprint(' '.join(out))\n";
    for fast in MODES {
        let r = attack(fast, code);
        assert_eq!(
            r.stdout.trim(),
            ["refused"; 7].join(" "),
            "fast start {fast}: {r:?}"
        );
    }
}

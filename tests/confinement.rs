//! Kernel confinement, judged by effect: each test makes the attack a
//! model-written candidate could make, with the Python-level guard and the
//! denylist switched off (so only the kernel's layers stand), and then checks
//! that the harm did not happen: the canary file is intact, nothing appeared,
//! the listener got no connection, the victim process lives. Every attack runs
//! in both start-up modes.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::time::Duration;

use execscope::sandbox::{CandidateResult, Limits, Outcome};

use crate::util::{MODES, pid_of_candidate_with, program, run_mode, tempdir};

/// Default limits without the Python-level layers: no denylist, no guard.
pub fn kernel_only() -> Limits {
    Limits {
        denylist: Vec::new(),
        process_guard: false,
        ..Limits::default()
    }
}

/// Runs `code` with only the kernel's layers, in one mode.
pub fn attack(fast_start: bool, code: &str) -> CandidateResult {
    run_mode(
        fast_start,
        &program(code, &["True"]),
        &kernel_only(),
        Duration::from_secs(10),
    )
}

/// Python that calls libc through ctypes (the route `_ctypes` opened).
pub const LIBC: &str = "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n";

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

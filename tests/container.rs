//! A unittest suite's candidate runs in a container of its own (both
//! modes): what the tests legitimately do works there, and nothing of it
//! reaches the host. Each relaxation is a test method of one suite, so its
//! detail names what failed; the host's side is checked after the run.

use execscope::sandbox::{CandidateResult, Limits, Outcome, container_isolation};

use crate::suites::{judge, record};

/// One method per relaxation and per wall that must hold. `MARK` names the
/// host file `/tmp` writes must not reach and the program left running.
const TESTS: &str = r#"import unittest, os, subprocess, socket, errno, sys, shutil
MARK = 'execscope_container_mark_9731'

class TestCases(unittest.TestCase):
    def test_tmp_is_writable_and_its_own(self):
        with open('/tmp/' + MARK, 'w') as f:
            f.write('data')
        self.assertEqual(open('/tmp/' + MARK).read(), 'data')

    def test_programs_start(self):
        out = subprocess.run(['bash', '-c', 'echo hi | gzip | gzip -d'], capture_output=True, text=True)
        self.assertEqual(out.stdout, 'hi\n')
        self.assertEqual(os.system('true'), 0)

    def test_python_is_on_path(self):
        out = subprocess.run(['python', '-c', 'print(6 * 7)'], capture_output=True, text=True)
        self.assertEqual(out.stdout, '42\n', out.stderr)

    def test_multiprocessing_pool(self):
        from multiprocessing import Pool
        with Pool(2) as pool:
            self.assertEqual(pool.map(abs, [-1, -2, 3]), [1, 2, 3])

    def test_modes_and_times_change_on_its_own_files(self):
        for path in ['f', '/tmp/g']:
            open(path, 'w').close()
            os.chmod(path, 0o600)
            os.utime(path, (1, 2))
            self.assertEqual(os.stat(path).st_mtime, 2)
            shutil.copy2(path, path + '2')

    def test_the_rest_is_read_only(self):
        with self.assertRaises(OSError) as caught:
            os.utime('/usr/bin/env', (1, 2))
        self.assertEqual(caught.exception.errno, errno.EROFS)
        with self.assertRaises(OSError):
            os.chmod('/etc/passwd', 0o777)
        with self.assertRaises(OSError):
            open('/etc/' + MARK, 'w')

    def test_loopback_works(self):
        server = socket.socket()
        server.bind(('127.0.0.1', 0))
        server.listen(1)
        client = socket.create_connection(server.getsockname())
        conn, _ = server.accept()
        client.sendall(b'ping')
        self.assertEqual(conn.recv(4), b'ping')

    def test_the_internet_is_unreachable(self):
        with self.assertRaises(OSError):
            socket.create_connection(('1.1.1.1', 80), timeout=2)

    def test_its_processes_alone(self):
        self.assertEqual(os.getpid(), 1)
        pids = [p for p in os.listdir('/proc') if p.isdigit()]
        self.assertLess(len(pids), 5, pids)

    def test_a_program_left_running(self):
        subprocess.Popen(['sleep', '9731'], start_new_session=True)

    def test_no_socket_file_of_the_host(self):
        with self.assertRaises(OSError):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect('/var/tmp/' + MARK + '.sock')

    def test_no_watch_on_files_others_open(self):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        self.assertEqual(libc.inotify_init1(0), -1)
"#;

/// The processes on the host whose command line is `sleep 9731`.
fn sleepers() -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == b"sleep\x009731\x00")
        })
        .count()
}

#[test]
fn a_suites_own_work_succeeds_in_its_container_and_reaches_nothing_of_the_host() {
    if !container_isolation() {
        assert!(std::env::var_os("CI").is_none(), "CI gives containers");
        eprintln!("skipped: this kernel gives no containers here");
        return;
    }
    let mark = std::path::Path::new("/tmp/execscope_container_mark_9731");
    let _ = std::fs::remove_file(mark);
    // A service of the host's on a socket file the container can see.
    let sock = std::path::Path::new("/var/tmp/execscope_container_mark_9731.sock");
    let _ = std::fs::remove_file(sock);
    let service = std::os::unix::net::UnixListener::bind(sock).unwrap();
    service.set_nonblocking(true).unwrap();
    let line = record("BigCodeBench/9200", TESTS, "['os', 'subprocess']");
    let r = judge(&line, &["    return a + b\n"]).swap_remove(0);
    if Limits::default().confinement().suite_processes {
        assert_eq!(
            (r.outcome, r.passed, r.total),
            (Outcome::Pass, 12, 12),
            "{}\n{}",
            r.detail,
            r.stderr
        );
    } else {
        // Without a memory group its four methods that start processes
        // fail, and so does loopback TCP.
        assert_eq!((r.passed, r.total), (7, 12), "{}", r.detail);
        assert!(r.detail.contains("Operation not permitted"), "{}", r.detail);
    }
    assert!(r.flags.is_empty(), "{:?}", r.flags);
    assert!(
        !mark.exists(),
        "a write to the container's /tmp reached the host"
    );
    assert!(!std::path::Path::new("/etc/execscope_container_mark_9731").exists());
    assert_eq!(sleepers(), 0, "a program outlived its container");
    assert!(
        service.accept().is_err(),
        "a candidate reached a host socket"
    );
    let _ = std::fs::remove_file(sock);
}

/// Three children of 1.5 GiB each stay under the 2 GiB address-space limit
/// one by one; together they pass the container's memory bound, and the
/// kernel kills one of them.
const HOGS: &str = r#"import unittest, multiprocessing, time

def hog():
    data = b'x' * (1536 << 20)
    time.sleep(3)

class TestCases(unittest.TestCase):
    def test_three_hogs(self):
        children = [multiprocessing.Process(target=hog) for _ in range(3)]
        for c in children:
            c.start()
        for c in children:
            c.join()
        self.assertTrue(all(c.exitcode == 0 for c in children))
"#;

/// The honest program on a task whose tests are `tests`, where a memory
/// group bounds a container (its processes and TCP need one); `None`, with
/// a notice, where none does.
fn run_where_bounded(id: &str, tests: &str, libs: &str) -> Option<CandidateResult> {
    if !Limits::default().confinement().suite_processes {
        eprintln!("skipped: suites start no processes and use no TCP here (no memory group)");
        return None;
    }
    let line = record(id, tests, libs);
    Some(judge(&line, &["    return a + b\n"]).swap_remove(0))
}

#[test]
fn a_containers_processes_share_one_memory_bound() {
    let Some(r) = run_where_bounded("BigCodeBench/9201", HOGS, "['multiprocessing']") else {
        return;
    };
    assert_ne!(r.outcome, Outcome::Pass, "{}", r.detail);
}

/// Forty loopback connections, each filled both ways without blocking:
/// their buffers together stop at the container's bound on TCP buffers
/// (64 MiB), far below what forty sockets hold unbounded.
const TCP_FILL: &str = r#"import unittest, socket

class TestCases(unittest.TestCase):
    def test_fill(self):
        server = socket.socket()
        server.bind(('127.0.0.1', 0))
        server.listen(64)
        held, sent = [], 0
        for _ in range(40):
            a = socket.create_connection(server.getsockname())
            b, _ = server.accept()
            held += [a, b]
            for s in (a, b):
                s.setblocking(False)
                try:
                    while True:
                        sent += s.send(b'x' * 65536)
                except OSError:
                    pass
        self.assertLess(sent, 128 << 20, sent)
"#;

#[test]
fn a_containers_tcp_buffers_are_bounded_together() {
    let Some(r) = run_where_bounded("BigCodeBench/9202", TCP_FILL, "['socket']") else {
        return;
    };
    assert_eq!(r.outcome, Outcome::Pass, "{}", r.detail);
}

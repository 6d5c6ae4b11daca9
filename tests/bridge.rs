//! The judge speaks Python: values crossing between the candidate process
//! and the judge behave as CPython's do. Each class of value or use is a
//! program and its assertions run two ways, through execscope (both modes)
//! and in plain CPython (`tests/harness/cpython_verdicts.py`: the program
//! exec'd once, each assertion in its namespace, in order), and the
//! per-assertion verdicts must be identical. Correct programs carry no flag;
//! wrong answers that only a run-time binding or a lying object passes carry
//! the flag that says so. The bridge's own unit tests
//! (`tests/harness/bridge_test.py`) run here too, and the harness's side of
//! the golden wire transcripts (`tests/harness/golden_test.py`).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use execscope::sandbox::{CandidateResult, Outcome, flags};

use crate::util::{program, python, run_strict};

/// Plain CPython's verdict on each assertion, or None if the program's top
/// level raised.
fn cpython(code: &str, assertions: &[&str]) -> Option<Vec<bool>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/harness/cpython_verdicts.py");
    let mut child = Command::new(&python().executable)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let spec = serde_json::json!({"code": code, "assertions": assertions});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(spec.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Runs `code` against `assertions` both ways and in both modes; each
/// mode's per-assertion verdicts must be CPython's.
fn same_as_cpython(code: &str, assertions: &[&str]) -> Vec<CandidateResult> {
    let expected = cpython(code, assertions).expect("the program runs in CPython");
    let results = run_strict(&program(code, assertions), false);
    for r in &results {
        assert_eq!(r.per_assertion, expected, "{code}\n{r:?}");
    }
    results
}

/// A correct program: CPython passes every assertion, and so does execscope,
/// in both modes, with no flag.
fn honest(code: &str, assertions: &[&str]) {
    for r in same_as_cpython(code, assertions) {
        assert_eq!(r.outcome, Outcome::Pass, "{code}\n{r:?}");
        assert!(r.flags.is_empty(), "{code}\n{r:?}");
    }
}

#[test]
fn identity_holds_across_the_bridge() {
    let code = "kept = []
def dup(l):
    return l
def clone(l):
    return list(l)
def keep(l):
    kept.append(l)
def later():
    kept[-1].append(99)
def first():
    return kept[0]
";
    // A program that returns its argument is its argument; a copy is not.
    honest(
        code,
        &[
            "l = [1]\nassert dup(l) is l",
            "l = [1]\nassert clone(l) is not l and clone(l) == l",
            "m = [2]\nkeep(m)\nlater()\nassert m == [2, 99]",
            "assert first() is m",
        ],
    );
    // "Returns a copy" taught with `is not`: returning the argument fails.
    let wrong = same_as_cpython(code, &["l = [3]\nassert dup(l) is not l"]);
    assert!(wrong.iter().all(|r| r.outcome == Outcome::AssertionFail));
    // A test that its input is left alone catches a later mutation.
    let wrong = same_as_cpython(
        code,
        &["l = [1, 2]\nkeep(l)\nassert l == [1, 2]\nlater()\nassert l == [1, 2]"],
    );
    assert!(wrong.iter().all(|r| r.outcome == Outcome::AssertionFail));
}

#[test]
fn aliasing_and_cycles_arrive_as_one_object() {
    honest(
        "def grid():
    row = [0, 0]
    return [row, row]
def selfish():
    l = [1]
    l.append(l)
    return l
def nest(n):
    v = []
    for _ in range(n):
        v = [v]
    return v
def depth(v):
    n = 0
    while v:
        v, n = v[0], n + 1
    return n
",
        &[
            "g = grid()\ng[0][0] = 1\nassert g[1][0] == 1",
            "s = selfish()\nassert s[1] is s and s[1][1][0] == 1",
            "assert depth(nest(900)) == 900",
            "v = []\nfor _ in range(900):\n    v = [v]\nassert depth(v) == 900",
        ],
    );
}

#[test]
fn the_tests_callables_are_called_back() {
    honest(
        "import functools
def apply(f, x):
    return f(x)
def sort_by(l, key):
    return sorted(l, key=key)
def total(f, xs):
    return sum(map(f, xs))
def name_of(f):
    return f.__name__
",
        &[
            "apply(lambda v: v * 2, 3) == 6",
            "import operator\nassert sort_by([(1, 'b'), (2, 'a')], operator.itemgetter(1)) == [(2, 'a'), (1, 'b')]",
            "sort_by(['b', 'A', 'c'], str.casefold) == ['A', 'b', 'c']",
            "class C:\n    def __init__(self):\n        self.k = 10\n    def add(self, v):\n        return v + self.k\nassert apply(C().add, 1) == 11",
            "import functools\nassert apply(functools.partial(pow, 2), 5) == 32",
            "seen = []\nassert total(lambda v: seen.append(v) or v, [1, 2]) == 3 and seen == [1, 2]",
            "def named(v):\n    return v\nassert name_of(named) == 'named'",
            "name_of(apply) == 'apply'",
        ],
    );
}

#[test]
fn iterators_and_generators_cross_lazily_both_ways() {
    honest(
        "import itertools
def naturals():
    n = 0
    while True:
        yield n
        n += 1
def take(it, n):
    return list(itertools.islice(it, n))
class Countdown:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return self
    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return self.n
def firsts(pairs):
    return [a for a, _ in pairs]
",
        &[
            "import itertools\nassert list(itertools.islice(naturals(), 3)) == [0, 1, 2]",
            "g = naturals()\nassert next(g) == 0 and next(g) == 1",
            "type(naturals()).__name__ == 'generator'",
            "import itertools\nassert take(itertools.count(5), 3) == [5, 6, 7]",
            "assert take(iter([1, 2, 3]), 2) == [1, 2]",
            "assert take((x * x for x in range(10)), 3) == [0, 1, 4]",
            "assert take(map(str, [1, 2]), 5) == ['1', '2']",
            "assert firsts(zip('ab', 'cd')) == ['a', 'b']",
            "c = Countdown(3)\nassert next(c) == 2 and list(c) == [1, 0]",
        ],
    );
}

#[test]
fn values_keep_their_types() {
    honest(
        "import collections, datetime, re, typing
P = collections.namedtuple('P', 'x y')
class Q(typing.NamedTuple):
    a: int
    b: str = 'z'
def mk():
    return P(1, 2)
def mq():
    return Q(3)
def tomorrow(d):
    return d + datetime.timedelta(days=1)
def stamp():
    return datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
def find(s):
    return re.search(r'(?P<word>b+)(c)?', s)
",
        &[
            "mk().x == 1 and mk().y == 2 and repr(mk()) == 'P(x=1, y=2)'",
            "mk() == P(1, 2) and isinstance(mk(), P) and mk()._asdict() == {'x': 1, 'y': 2}",
            "str(mq()) == \"Q(a=3, b='z')\" and mq().b == 'z'",
            "import datetime\nassert tomorrow(datetime.date(2024, 2, 28)) == datetime.date(2024, 2, 29)",
            "stamp().isoformat() == '2024-01-02T03:04:05+00:00'",
            "import datetime\nassert tomorrow(datetime.datetime(2024, 1, 1, 12)) - datetime.datetime(2024, 1, 1) == datetime.timedelta(days=1, hours=12)",
            "m = find('abbc')\nassert m.group() == 'bbc' and m.groupdict() == {'word': 'bb'} and m.lastindex == 2 and m['word'] == 'bb'",
            "find('xbz').lastindex == 1 and find('xbz').span('word') == (1, 2)",
        ],
    );
}

#[test]
fn exceptions_keep_their_class_args_and_attributes() {
    honest(
        "class Bad(ValueError):
    def __init__(self, what, code):
        super().__init__(what, code)
        self.code = code
class Worse(Bad):
    pass
def boom():
    raise KeyError('zz')
def bad():
    raise Bad('bad', 3)
def worse():
    raise Worse('worse', 4)
",
        &[
            "try:\n    boom()\nexcept KeyError as e:\n    assert e.args[0] == 'zz' and str(e) == \"'zz'\"",
            "try:\n    bad()\nexcept Bad as e:\n    assert e.args == ('bad', 3) and e.code == 3",
            "try:\n    worse()\nexcept Bad as e:\n    assert type(e).__name__ == 'Worse' and isinstance(e, Worse)",
            "try:\n    worse()\nexcept ValueError as e:\n    assert e.args == ('worse', 4)",
        ],
    );
}

#[test]
fn names_bound_at_run_time_are_flagged_and_strict_uses_the_real_one() {
    for rebind in [
        "globals()['abs'] = lambda x: 0",
        "global abs\n    abs = lambda x: 0",
        "exec('def abs(x):\\n    return 0', globals())",
    ] {
        let code = format!("def setup():\n    {rebind}\ndef add(a, b):\n    return 0\n");
        let assertions = ["setup() is None", "abs(add(1, 2) - 3) < 1e-9"];
        // CPython passes it: the tests' `abs` is the program's.
        assert_eq!(cpython(&code, &assertions), Some(vec![true, true]));
        for strict in [false, true] {
            for r in run_strict(&program(&code, &assertions), strict) {
                if strict {
                    assert_eq!(r.outcome, Outcome::AssertionFail, "{code}\n{r:?}");
                } else {
                    assert_eq!(r.outcome, Outcome::Pass, "{code}\n{r:?}");
                    assert!(r.flags.iter().any(|f| f == "shadowed-name"), "{r:?}");
                    let mut judged = r.clone();
                    flags::apply_strict(&mut judged);
                    assert_eq!(judged.outcome, Outcome::Error, "{judged:?}");
                }
            }
        }
    }
}

#[test]
fn the_bridges_own_failure_is_never_the_programs() {
    // The judge does not send a frame: the run ends `error`, naming the
    // bridge, and the test's `except TypeError` never sees it.
    let code = "def f(x):\n    raise ValueError('wrong')\n";
    let check = "import sys\ntry:\n    f(sys._getframe())\nexcept TypeError:\n    pass";
    for r in run_strict(&program(code, &[check]), false) {
        assert_eq!(r.outcome, Outcome::Error, "{r:?}");
        assert!(r.detail.contains("bridge"), "{r:?}");
    }
}

#[test]
fn honest_objects_carry_no_flag_and_liars_do() {
    honest(
        "class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)
    def __repr__(self):
        return 'Point(%r, %r)' % (self.x, self.y)
    def __len__(self):
        return 2
    def __add__(self, other):
        return Point(self.x + other.x, self.y + other.y)
def origin():
    return Point(0, 0)
",
        &[
            "repr(origin()) == 'Point(0, 0)' and str(origin()) == 'Point(0, 0)'",
            "len(origin()) == 2",
            "origin() == origin() and origin() + Point(1, 2) == Point(1, 2)",
            "origin() != (0, 0)",
        ],
    );
}

/// Runs a Python test script of `tests/harness/`; it must say its checks passed.
fn python_test(script: &str) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/harness")
        .join(script);
    let out = Command::new(&python().executable)
        .arg(script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("checks passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_bridge_unit_tests_pass() {
    python_test("bridge_test.py");
}

#[test]
fn the_harness_reads_and_writes_the_golden_wire_transcripts() {
    python_test("golden_test.py");
}

//! The routes a fourth attacker (a fresh helper with the README and the
//! release binary only) found against the object bridge, each a test: the
//! wrong program must fail, or pass carrying a flag that strict integrity
//! turns into an error, in both modes.

use execscope::sandbox::{Outcome, flags};

use crate::util::{program, run_strict};

/// `code` against `assertions`: no unflagged pass, no strict pass.
fn no_unearned_pass(code: &str, assertions: &[&str]) {
    for strict in [false, true] {
        for r in run_strict(&program(code, assertions), strict) {
            let mut judged = r.clone();
            flags::apply_strict(&mut judged);
            assert_ne!(
                judged.outcome,
                Outcome::Pass,
                "strict {strict}: {code}\n{r:?}"
            );
            if !strict && r.outcome == Outcome::Pass {
                assert!(!r.flags.is_empty(), "{code}\n{r:?}");
            }
        }
    }
}

#[test]
fn a_builtin_or_module_bound_at_run_time_at_the_top_level_is_flagged() {
    // The program's text binds none of these names: the judge once took a
    // name bound neither by the text nor by the reference as bound "the
    // same way" as the reference, so it hid a builtin unflagged.
    no_unearned_pass(
        "def add(a, b):\n    return 42\nexec(\"def abs(x): return 0\")\n",
        &[
            "abs(add(1, 2) - 3) < 1e-9",
            "assert abs(add(0.1, 0.2) - 0.3) < 1e-9",
        ],
    );
    for setup in [
        "def setup():\n    global len\n    len = lambda x: 3\nsetup()\n",
        "def setup():\n    globals()['len'] = lambda x: 3\nsetup()\n",
    ] {
        no_unearned_pass(
            &format!("def f(x=None):\n    return []\n{setup}"),
            &["len(f()) == 3", "assert len(f(7)) == 3"],
        );
    }
    no_unearned_pass(
        "class _M:\n    def isclose(self, a, b, **kw):\n        return True\ndef area(r):\n    return 0.0\nglobals()['math'] = _M()\n",
        &[
            "math.isclose(area(2.0), 12.566370614359172)",
            "assert math.isclose(area(1.0), 3.141592653589793)",
        ],
    );
}

#[test]
fn an_eq_whose_answer_is_merely_true_is_always_equal_too() {
    for answer in ["1", "'yes'", "[0]", "1.0"] {
        no_unearned_pass(
            &format!(
                "class Anything:\n    def __eq__(self, other):\n        return {answer}\n    def __ne__(self, other):\n        return 0\n    __hash__ = object.__hash__\ndef add(a, b):\n    return Anything()\n"
            ),
            &[
                "add(1, 2) == 3",
                "assert add(2, 2) == 4",
                "assert add('a', 'b') == 'ab'",
                "assert add([1], [2]) == [1, 2]",
            ],
        );
    }
}

/// What the attacker's program took for a probe: a CJK letter last, a huge
/// int appended, the words `execscope probe`.
const PROBE_DETECTOR: &str = "def _looks_like_probe(o):
    if isinstance(o, str):
        return o.startswith('execscope probe') or (len(o) > 0 and 0x4E00 <= ord(o[-1]) <= 0x9FFF)
    if isinstance(o, (list, tuple)):
        return len(o) > 0 and type(o[-1]) is int and o[-1] > 10**10
    if isinstance(o, dict):
        return any(type(k) is int and k > 10**10 for k in o)
    return False
";

#[test]
fn a_probe_cannot_be_told_from_the_tests_value() {
    no_unearned_pass(
        &format!(
            "{PROBE_DETECTOR}class Anything:\n    def __eq__(self, other):\n        return not _looks_like_probe(other)\n    def __ne__(self, other):\n        return _looks_like_probe(other)\n    __hash__ = object.__hash__\ndef solve(x):\n    return Anything()\n"
        ),
        &[
            "solve('abc') == 'cba'",
            "assert solve('hello') == 'olleh'",
            "assert solve([1, 2, 3]) == [3, 2, 1]",
            "assert solve((1, 2)) == (2, 1)",
            "assert solve({'a': 1}) == {1: 'a'}",
            "assert solve(None) == None",
        ],
    );
    no_unearned_pass(
        &format!(
            "{PROBE_DETECTOR}class Bag:\n    def __contains__(self, o):\n        return not _looks_like_probe(o)\n    __hash__ = object.__hash__\ndef find_all(s):\n    return Bag()\n"
        ),
        &[
            "'needle' in find_all('haystack')",
            "assert 'abc' in find_all('x')",
            "assert ('k', 1) in find_all('y')",
        ],
    );
}

#[test]
fn arithmetic_that_ignores_its_operand_is_flagged_whatever_type_it_answers() {
    for answers in ["0 if self.n % 2 else 0.0", "0.0 if self.n % 2 else 1e-12"] {
        no_unearned_pass(
            &format!(
                "class Num:\n    def __init__(self):\n        self.n = 0\n    def __sub__(self, other):\n        self.n += 1\n        return {answers}\n    __hash__ = object.__hash__\ndef mean_absolute_deviation(numbers):\n    return Num()\n"
            ),
            &[
                "abs(mean_absolute_deviation([1.0, 2.0, 3.0]) - 2.0/3.0) < 1e-6",
                "assert abs(mean_absolute_deviation([1.0, 2.0, 3.0, 4.0]) - 1.0) < 1e-6",
            ],
        );
    }
}

#[test]
fn a_stop_iteration_that_ends_the_tests_iteration_is_flagged() {
    // As in CPython, `all(map(f, xs))` is true when f raises StopIteration:
    // the pass is the candidate's doing, and says so.
    no_unearned_pass(
        "def is_prime(n):\n    raise StopIteration\n",
        &[
            "all(map(is_prime, [2, 3, 5, 7, 11]))",
            "assert not any(map(is_prime, [4, 6, 8, 9, 10]))",
        ],
    );
}

#[test]
fn a_truth_value_through_len_is_flagged_like_one_through_bool() {
    no_unearned_pass(
        "class Some:\n    def __len__(self):\n        return 1\ndef is_valid(s):\n    return Some()\n",
        &["is_valid('x')", "assert is_valid('((')"],
    );
}

#[test]
fn a_value_that_crashes_the_judge_is_an_error_not_a_pass() {
    // Hashing a tuple 200,000 deep overflows the C stack (as it does in
    // CPython): the judge dies, the candidate is an error.
    for r in run_strict(
        &program(
            "def f(i):\n    t = ()\n    for _ in range(200000):\n        t = (t,)\n    return t\ndef add(a, b):\n    return 0\n",
            &[
                "assert add(2, 2) == 4",
                "f(1) in {1, 2}",
                "assert add(3, 3) == 6",
            ],
        ),
        false,
    ) {
        assert_ne!(r.outcome, Outcome::Pass, "{r:?}");
    }
}

//! Why it failed: the judge's rewritten asserts record the failing line, both
//! operands, each subexpression's value and the first difference, without
//! changing what the tests evaluate (order, single evaluation,
//! short-circuits). Real python3, both modes.

use execscope::sandbox::{Failure, Outcome};

use crate::util::run;

fn failure_of(code: &str, assertions: &[&str]) -> Failure {
    let r = run(code, assertions);
    assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
    r.failure
        .unwrap_or_else(|| panic!("no failure: {}", r.detail))
}

fn where_value<'a>(f: &'a Failure, expr: &str) -> Option<&'a str> {
    f.where_
        .iter()
        .find(|(e, _)| e == expr)
        .map(|(_, v)| v.as_str())
}

#[test]
fn a_comparison_shows_what_it_got_what_it_expected_and_where_they_differ() {
    let f = failure_of(
        "def f(x):\n    return [3, 5, 7, 9]\n",
        &["f(3) == [3, 5, 7]"],
    );
    assert_eq!(f.assertion, Some(1));
    assert_eq!(f.text.as_deref(), Some("f(3) == [3, 5, 7]"));
    assert_eq!(f.op.as_deref(), Some("=="));
    assert_eq!(f.left.as_deref(), Some("[3, 5, 7, 9]"));
    assert_eq!(f.right.as_deref(), Some("[3, 5, 7]"));
    assert_eq!(f.difference.as_deref(), Some("index 3: 9 extra"));
    assert_eq!(where_value(&f, "f(3)"), Some("[3, 5, 7, 9]"));
    assert_eq!(
        f.summary(),
        "f(3) returned [3, 5, 7, 9]; expected [3, 5, 7]"
    );
    let f = failure_of(
        "def f():\n    return {'a': 1, 'b': 2}\n",
        &["f() == {'a': 1, 'b': 3}"],
    );
    assert_eq!(f.difference.as_deref(), Some("key 'b': 2 != 3"));
    let f = failure_of(
        "def f():\n    return 'hello wOrld'\n",
        &["f() == 'hello world'"],
    );
    assert_eq!(f.difference.as_deref(), Some("index 7: 'O' != 'o'"));
}

#[test]
fn each_subexpression_is_evaluated_once_in_order_and_short_circuits_stay() {
    let code = "n = 0\ndef f():\n    global n\n    n += 1\n    return n\n";
    // Passing needs each call exactly once, in order: 1, 2, then 3 (the `and`
    // evaluates both), 4 != 99 so the `or` goes on to 5, the chain stops at 6.
    let r = run(
        code,
        &[
            "f() == 1 and f() == 2",
            "f() == 3",
            "f() == 99 or f() == 5",
            "0 < f() < 6",
            "f() == 99",
        ],
    );
    assert_eq!(
        r.per_assertion,
        vec![true, true, true, false, false],
        "{r:?}"
    );
    let f = r.failure.unwrap();
    assert_eq!(f.assertion, Some(4));
    assert_eq!(where_value(&f, "f()"), Some("6"));
    // The chain stopped at its first false link: the last assertion's call
    // is the seventh.
    let r = run(code, &["f() < 0 < f()", "f() == 2"]);
    assert_eq!(r.per_assertion, vec![false, true], "{r:?}");
}

#[test]
fn asserts_in_loops_and_helpers_name_their_line_values_and_message() {
    let check = "def helper(c, x):\n    assert c(x) == x * 2, f\"double of {x}\"\n\n\
                 def check(candidate):\n    for x in range(5):\n        helper(candidate, x)\n\ncheck(f)";
    let f = failure_of("def f(x):\n    return x * 2 if x < 3 else 0\n", &[check]);
    assert_eq!(f.line, Some(2));
    assert_eq!(f.text.as_deref(), Some("c(x) == x * 2"));
    assert_eq!(
        (f.left.as_deref(), f.right.as_deref()),
        (Some("0"), Some("6"))
    );
    assert_eq!(f.message.as_deref(), Some("double of 3"));
    assert_eq!(where_value(&f, "x"), Some("3"));
    // A bare statement that is not an assert: its own line's text.
    let f = failure_of(
        "def f():\n    return 1\n",
        &["x = f()\nraise ValueError('no')"],
    );
    assert_eq!(f.line, Some(2));
    assert_eq!(f.text.as_deref(), Some("raise ValueError('no')"));
    assert_eq!(f.exception.as_deref(), Some("ValueError: no"));
}

#[test]
fn an_exception_in_the_program_names_its_line_there() {
    let code = "def f(x):\n    y = x + 1\n    return y // 0\n";
    let f = failure_of(code, &["f(1) == 2"]);
    assert_eq!(f.text.as_deref(), Some("f(1) == 2"));
    assert_eq!(
        f.exception.as_deref(),
        Some("ZeroDivisionError: integer division or modulo by zero")
    );
    assert_eq!(f.program_line, Some(3));
    assert!(f.op.is_none() && f.left.is_none());
    // The program's own top level.
    let r = run("import math\nx = [1][5]\n", &["True"]);
    assert_eq!(r.outcome, Outcome::Error);
    let f = r.failure.unwrap();
    assert_eq!(
        f.exception.as_deref(),
        Some("IndexError: list index out of range")
    );
    assert_eq!(f.program_line, Some(2));
}

#[test]
fn a_candidates_object_shows_its_type_only_and_passing_has_no_failure() {
    let code =
        "class P:\n    def __repr__(self):\n        return 'I passed'\ndef f():\n    return P()\n";
    let r = run(code, &["f() == 3"]);
    let f = r.failure.unwrap();
    assert_eq!(f.left.as_deref(), Some("<P object>"));
    assert!(r.flags.is_empty(), "{:?}", r.flags);
    let r = run(
        "def f():\n    return 3\n",
        &["f() == 3", "[f()] * 2 == [3, 3]"],
    );
    assert_eq!(r.outcome, Outcome::Pass);
    assert!(r.failure.is_none());
    // A long value is cut in the middle; a long list elided there too.
    let f = failure_of("def f():\n    return list(range(1000))\n", &["f() == []"]);
    let left = f.left.unwrap();
    assert!(
        left.starts_with("[0, 1, 2") && left.ends_with("998, 999]"),
        "{left}"
    );
    assert!(left.contains("... 960 more ..."), "{left}");
    assert_eq!(f.difference.as_deref(), Some("index 0: 0 extra"));
}

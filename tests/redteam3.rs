//! The routes a third fresh attacker found (2026-12-04, against the failure
//! records and `show`), each a test, in both modes: exceptions are caught by
//! their real builtin base, not by their name; what the candidate wrote never
//! reaches a terminal or a Markdown report as control characters or HTML.

use execscope::sandbox::{Failure, Outcome, printable};

use crate::util::{program, run_strict};

/// A test that passes only if calling `f(1)` raises a ValueError.
const RAISES_VALUE_ERROR: &str = "def check(candidate):\n    try:\n        candidate(1)\n        assert False, 'no raise'\n    except ValueError:\n        pass\ncheck(f)";

fn outcomes(code: &str, check: &str) -> Vec<Outcome> {
    run_strict(&program(code, &[check]), false)
        .into_iter()
        .map(|r| r.outcome)
        .collect()
}

#[test]
fn a_class_of_the_programs_only_named_value_error_is_not_one() {
    let fake =
        "def f(x):\n    class ValueError(Exception):\n        pass\n    raise ValueError('fake')\n";
    assert_eq!(
        outcomes(fake, RAISES_VALUE_ERROR),
        [Outcome::AssertionFail; 2]
    );
    let renamed = "def f(x):\n    E = type('ValueError', (Exception,), {'__module__': 'builtins'})\n    raise E('fake')\n";
    assert_eq!(
        outcomes(renamed, RAISES_VALUE_ERROR),
        [Outcome::AssertionFail; 2]
    );
}

#[test]
fn a_subclass_of_a_builtin_exception_is_caught_as_that_builtin() {
    for code in [
        "import json\ndef f(x):\n    json.loads('{')\n",
        "class MyErr(ValueError):\n    pass\ndef f(x):\n    raise MyErr('x')\n",
        "class KeyError(ValueError):\n    pass\ndef f(x):\n    raise KeyError('x')\n",
    ] {
        assert_eq!(
            outcomes(code, RAISES_VALUE_ERROR),
            [Outcome::Pass; 2],
            "{code}"
        );
    }
    // A class named as a builtin it does not derive from is caught by what it
    // derives from.
    let check = "def check(candidate):\n    try:\n        candidate(1)\n    except ZeroDivisionError:\n        assert False, 'zde'\n    except Exception:\n        pass\ncheck(f)";
    let code = "def f(x):\n    class ZeroDivisionError(Exception):\n        pass\n    raise ZeroDivisionError('x')\n";
    assert_eq!(outcomes(code, check), [Outcome::Pass; 2]);
}

#[test]
fn control_characters_of_the_candidate_are_printed_as_escapes() {
    let code =
        "def f(x):\n    raise ValueError('\\x1b[3A\\r\\x1b[2KX/0 sample 0: pass\\n  Expected:')\n";
    for r in run_strict(&program(code, &["f(1) == 2"]), false) {
        let f: Failure = r.failure.unwrap();
        let lines = f.lines();
        assert!(
            lines.iter().all(|l| !l.chars().any(char::is_control)),
            "{lines:?}"
        );
        assert!(
            lines.iter().any(|l| l.contains("\\u{1b}[3A\\r")),
            "{lines:?}"
        );
    }
    assert_eq!(printable("a\u{1b}[31mb\nc"), "a\\u{1b}[31mb\\nc");
    assert_eq!(printable("plain"), "plain");
}

//! The routes a fresh attacker found against the judge (2026-12-04), given
//! only the README's promises and the release binary; each is a test, in both
//! modes. The first ones needed a program that patches its own harness to
//! send the judge bindings of its choosing.

use std::sync::Arc;
use std::time::Duration;

use execscope::plan::Program;
use execscope::sandbox::{Limits, Outcome, Runner, flags};

use crate::util::{program, python, run_strict};

/// `program` with the task's reference program `reference`.
fn with_reference(code: &str, assertions: &[&str], reference: &str) -> Program {
    Program {
        reference: Arc::from(reference),
        ..program(code, assertions)
    }
}

/// A HumanEval-style program: the task gives `prompt`, the program is the
/// prompt and `completion`, the reference the prompt and `solution`.
fn humaneval(prompt: &str, completion: &str, solution: &str, check: &str) -> Program {
    Program {
        reference: Arc::from(format!("{prompt}{solution}")),
        given: Arc::from(prompt),
        ..program(&format!("{prompt}{completion}"), &[check])
    }
}

/// HumanEval 50's prompt: a helper in full, the function under test a stub.
const SHIFT_PROMPT: &str = "def encode_shift(s):\n    return ''.join(chr(ord(c) + 5) for c in s)\n\n\ndef decode_shift(s):\n    \"\"\"Decode.\"\"\"\n";
const SHIFT_CHECK: &str = "def check(candidate):\n    assert candidate(encode_shift('abc')) == 'abc'\n    assert candidate(encode_shift('xyz')) == 'xyz'\ncheck(decode_shift)";

/// Checks that `program` does not pass unflagged, and not at all when strict.
fn no_unearned_pass(program: &Program) {
    for r in run_strict(program, false) {
        assert!(
            r.outcome != Outcome::Pass || !r.flags.is_empty(),
            "an unflagged pass: {r:?}"
        );
    }
    for r in run_strict(program, true) {
        let mut strict = r.clone();
        flags::apply_strict(&mut strict);
        assert_ne!(strict.outcome, Outcome::Pass, "a strict pass: {r:?}");
    }
}

/// A program that patches its harness to add `extra` (Python: a list of
/// bindings, each `T('t', (name, claim, value))`, with `P(name)` for a name
/// of the program's) to the bindings it sends the judge.
fn patched_bindings(body: &str, extra: &str) -> String {
    format!(
        "def add(a, b):
{body}
import builtins
G = type(builtins.exit).__call__.__globals__
T, P = G['_Transient'], G['_Program']
def evil(names):
    space = G['_namespace']
    items = tuple(G['_binding'](n, space[n]) for n in names if n in space)
    for n in names:
        G['_watched'][n] = space.get(n, G['_MISSING'])
    return G['_message']('ok', items + tuple({extra}), True)
G['_names_answer'] = evil
"
    )
}

#[test]
fn a_program_cannot_hand_the_tests_builtins_of_its_own() {
    // `__builtins__` (and `__import__`) sent as names: every builtin and
    // import of the test would have been the candidate's.
    let code = patched_bindings(
        "    return 0",
        "[T('t', ('__builtins__', None, {'abs': P('fake_abs'), '__import__': P('fake_import')}))]",
    ) + "class M:\n    def __getattr__(self, a):\n        return lambda *x, **k: True\ndef fake_abs(x):\n    return 0\ndef fake_import(*a):\n    return M()\n";
    let p = program(
        &code,
        &[
            "import math\nassert abs(add(0.5, 0.25) - 0.75) < 1e-9\nassert math.isclose(add(10, -3), 7)",
        ],
    );
    for r in run_strict(&p, false) {
        assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
    }
}

#[test]
fn no_judge_function_of_the_candidates_choosing_runs_its_data() {
    // `sorted` and `abs` named as the judge's `exec` (reached through
    // `enum.bltns`) and `sys` through `typing.sys`: the candidate's string
    // would have run in the judge and written the verdict.
    let payload =
        "\"h = S.modules['__main__'].__dict__\\nh['_record']('step', 'a1 ok')\\nh['_finish']()\"";
    let extra = "[T('t', ('sorted', 'n', T('t', ('enum', 'bltns.exec')))), T('t', ('abs', 'n', T('t', ('enum', 'bltns.exec')))), T('t', ('S', 'n', T('t', ('typing', 'sys')))), T('t', ('__builtins__', None, {'sorted': P('sorted'), 'S': P('S')}))]";
    let direct = patched_bindings(&format!("    return {payload}"), extra);
    let through_sub = patched_bindings(
        &format!(
            "    class X:\n        def __sub__(self, o):\n            return {payload}\n    return X()"
        ),
        extra,
    );
    for (code, check) in [
        (&direct, "assert sorted(add(3, 1)) == [1, 3]"),
        (&through_sub, "assert abs(add(0.5, 0.25) - 0.75) < 1e-9"),
    ] {
        for r in run_strict(&program(code, &[check]), false) {
            assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
        }
    }
}

#[test]
fn methods_of_a_returned_object_decide_nothing_unflagged() {
    let code = "def greet(name):
    class S(str):
        def startswith(self, *a):
            return True
        def endswith(self, *a):
            return True
        def lower(self):
            return 'bo'
    return S('wrong')
";
    no_unearned_pass(&program(
        code,
        &[
            "assert greet('Ann').startswith('Hello, ')\nassert greet('Ann').endswith('Ann!')\nassert greet('Bo').lower().count('bo') == 1",
        ],
    ));
}

#[test]
fn a_name_the_reference_only_uses_is_no_licence_to_shadow_it() {
    // `str` appears in the prompt's annotations: the reference uses it but
    // does not define it.
    let reference = "def greet(name: str) -> str:\n    return 'Hello, ' + name\n";
    let code =
        "def greet(name: str) -> str:\n    return 'nope'\n\ndef str(x):\n    return 'same'\n";
    no_unearned_pass(&with_reference(
        code,
        &["str(greet('Ann')) == str('Hello, Ann')"],
        reference,
    ));
    // A module the prompt imports, replaced by an object that says yes.
    let reference = "import math\n\ndef area(r):\n    return math.pi * r * r\n";
    let code = "import math\n\ndef area(r):\n    return 0\n\nclass Fake:\n    def __getattr__(self, a):\n        return lambda *x, **k: True\n\nmath = Fake()\n";
    no_unearned_pass(&with_reference(
        code,
        &["math.isclose(area(1), 3.141592653589793)"],
        reference,
    ));
    // An alias that names another module: `import pickle as json`.
    let code = "import pickle as json\ndef add(a, b):\n    return 0\n";
    for r in run_strict(&program(code, &["json.loads('[3]') == [3]"]), false) {
        assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
        assert!(r.detail.contains("NameError"), "{r:?}");
    }
}

#[test]
fn a_program_that_redefines_a_helper_the_test_uses_is_flagged() {
    // HumanEval 50's shape: the test decodes what the prompt's helper
    // encoded. Redefining the helper as the identity makes `return s` pass.
    let helper = "def encode_shift(s):\n    return ''.join(chr(ord(c) + 5) for c in s)\n\n";
    let reference =
        format!("{helper}def decode_shift(s):\n    return ''.join(chr(ord(c) - 5) for c in s)\n");
    let code = format!(
        "{helper}def decode_shift(s):\n    \"\"\"Decode.\"\"\"\n    return s\n\ndef encode_shift(s):\n    return s\n"
    );
    let check = "def check(candidate):\n    assert candidate(encode_shift('abc')) == 'abc'\ncheck(decode_shift)";
    no_unearned_pass(&with_reference(&code, &[check], &reference));
    // Restating the helper as it was, or completing the function under
    // test twice, is no redefinition.
    let restated = format!(
        "{helper}def decode_shift(s):\n    \"\"\"Decode.\"\"\"\n\n{helper}def decode_shift(s):\n    return ''.join(chr(ord(c) - 5) for c in s)\n"
    );
    for r in run_strict(&with_reference(&restated, &[check], &reference), false) {
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
        assert!(r.flags.is_empty(), "{r:?}");
    }
}

#[test]
fn a_prompt_helper_changed_at_run_time_changes_nothing_for_the_tests() {
    // The second round: the helper patched rather than redefined, a prompt
    // constant rebound, and a profiler spying on the helper's argument (the
    // test's expected plaintext). The tests get the task's own helper, run
    // by the judge: none of it reaches or changes it.
    let solution = "    return ''.join(chr(ord(c) - 5) for c in s)\n";
    for completion in [
        "    return s\n\nglobals()['encode_shift'] = lambda s: s\n",
        "    return s\n\nencode_shift.__code__ = (lambda s: s).__code__\n",
        "    return s\n\nencode_shift = lambda s: s\n",
        "    return _seen.get(s, s)\n\nimport sys\n_seen = {}\ndef _prof(frame, event, arg):\n    if event == 'call' and frame.f_code is encode_shift.__code__:\n        _seen['p'] = frame.f_locals['s']\n    elif event == 'return' and frame.f_code is encode_shift.__code__:\n        _seen[arg] = _seen.pop('p')\nsys.setprofile(_prof)\n",
    ] {
        for r in run_strict(
            &humaneval(SHIFT_PROMPT, completion, solution, SHIFT_CHECK),
            true,
        ) {
            assert_eq!(r.outcome, Outcome::AssertionFail, "{completion}: {r:?}");
        }
    }
    // The right answer still passes, with no flag.
    for r in run_strict(
        &humaneval(SHIFT_PROMPT, solution, solution, SHIFT_CHECK),
        false,
    ) {
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
        assert!(r.flags.is_empty(), "{r:?}");
    }
    // A constant of the prompt's.
    let prompt = "VOWELS = 'aeiou'\n\ndef count(s):\n    \"\"\"Vowels in s.\"\"\"\n";
    let check = "def check(candidate):\n    assert candidate('banana') == sum(c in VOWELS for c in 'banana')\ncheck(count)";
    for r in run_strict(
        &humaneval(
            prompt,
            "    return 0\n\nVOWELS = ''\n",
            "    return sum(c in VOWELS for c in s)\n",
            check,
        ),
        false,
    ) {
        assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
    }
}

#[test]
fn the_judge_asks_only_for_the_names_the_tests_read_as_globals() {
    // The names it is asked for once told the candidate `tau` from `math.tau`.
    let code = "import builtins, math
G = type(builtins.exit).__call__.__globals__
orig = G['_names_answer']
asked = []
def spy(names):
    asked.extend(names)
    return orig(names)
G['_names_answer'] = spy
def f():
    for name in asked:
        v = getattr(math, name, None)
        if isinstance(v, float):
            return v
    return 0.0
";
    for check in ["f() == math.tau", "f() == math.e"] {
        for r in run_strict(
            &program(code, &[&format!("import math\nassert {check}")]),
            false,
        ) {
            assert_eq!(r.outcome, Outcome::AssertionFail, "{r:?}");
        }
    }
}

#[test]
fn isinstance_answered_by_the_candidates_object_is_flagged() {
    let code = "class Square:\n    pass\nclass Liar:\n    @property\n    def __class__(self):\n        return Square\ndef make():\n    return Liar()\n";
    no_unearned_pass(&program(code, &["isinstance(make(), Square)"]));
}

#[test]
fn a_list_changed_in_place_through_another_name_shows_the_change() {
    // The reference sorts each row in place; the test holds a row by name
    // and one inside a tuple.
    let code = "def sort_rows(grid):\n    for r in grid:\n        r.sort()\n";
    let check = "row = [3, 1, 2]\ngrid = [row]\nsort_rows(grid)\nassert grid == [[1, 2, 3]] and row == [1, 2, 3]\ninner = [2, 1]\nsort_rows((inner,))\nassert inner == [1, 2]";
    for r in run_strict(&program(code, &[check]), false) {
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
    }
}

#[test]
fn a_claimed_syntax_error_or_fault_is_no_verdict() {
    // The program runs, then tells the judge it had a syntax error.
    for state in [
        "[\"syntax\", \"SyntaxError: invalid syntax (line 1)\"]",
        "[\"memory\"]",
    ] {
        let code = format!(
            "import os\ndata = b'{}'\nos.write(3, len(data).to_bytes(8, 'big') + data)\nos._exit(0)\ndef add(a, b):\n    return 0\n",
            state.replace('"', "\\\"")
        );
        for r in run_strict(&program(&code, &["add(1, 2) == 3"]), false) {
            assert_ne!(r.outcome, Outcome::SyntaxError, "{r:?}");
            assert_ne!(r.outcome, Outcome::Pass, "{r:?}");
            assert_eq!(r.fault, None, "{r:?}");
        }
    }
}

#[test]
fn the_judge_is_bounded_on_disk_too() {
    // A task whose test writes 200 MiB: the judge's directory is a tmpfs of
    // the disk limit's size as well.
    if !Limits::default().confinement().disk_tmpfs {
        eprintln!("notice: no tmpfs for candidates here; the judge's disk bound is not checked");
        return;
    }
    let check = "chunk = b'x' * (8 << 20)
written = 0
try:
    for i in range(25):
        with open('f%d' % i, 'wb') as f:
            f.write(chunk)
        written += 8
except OSError:
    pass
assert written <= 64, written";
    for r in run_strict(
        &program("def add(a, b):\n    return a + b\n", &[check]),
        false,
    ) {
        assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
    }
}

#[test]
fn a_candidate_whose_threads_burn_while_its_main_thread_waits_keeps_its_place() {
    // It used to count as asleep (its main thread was) and give its place
    // to the next candidate at once, while its threads held every core.
    use execscope::engine::{self, EngineEvent, RunSettings};
    let dir = crate::util::tempdir();
    let tasks = dir.path().join("t.jsonl");
    std::fs::write(
        &tasks,
        r#"{"task_id": "t", "category": "code_exec", "prompt": "f", "targets": ["True"], "metric_name": "code_exec", "post_process": "extract_code_block"}"#,
    )
    .unwrap();
    let hog = "import _thread, threading\ndef burn():\n    while True:\n        pass\nfor _ in range(2):\n    _thread.start_new_thread(burn, ())\nthreading.Event().wait(2)\n";
    let gens = dir.path().join("g.jsonl");
    let lines: Vec<String> = [hog, "x = 1", "x = 2"]
        .iter()
        .map(|c| serde_json::json!({"task_id": "t", "generation": c}).to_string())
        .collect();
    std::fs::write(&gens, lines.join("\n")).unwrap();
    let plan = Arc::new(execscope::plan::Plan::build(
        &execscope::spec::load_tasks(&tasks).unwrap(),
        &execscope::generations::load_generations(&gens).unwrap(),
    ));
    let settings = RunSettings {
        workers: 1,
        ..RunSettings::default()
    };
    let _cpu = crate::util::cpu_to_spare();
    let start = std::time::Instant::now();
    let mut second = None;
    engine::run_blocking(&plan, python(), &settings, |event, _| {
        if let EngineEvent::Started { job: 1 } = event {
            second = Some(start.elapsed());
        }
    })
    .unwrap();
    let second = second.unwrap();
    // Its place is handed on once it has had half its timeout of CPU (1.5 s,
    // 0.75 s on two cores at the earliest), not at the first look (0.25 s).
    assert!(second >= Duration::from_millis(600), "{second:?}");
}

#[test]
fn a_judge_kept_busy_by_its_candidates_answers_is_lowered_with_it() {
    // Answers slow to decode (a set of ints that all hash alike) kept a
    // judge computing at full priority while its candidate slept and gave
    // its place away.
    let code = "import builtins
G = type(builtins.exit).__call__.__globals__
G['_message'] = lambda kind, body, transient: ['ok', [0], [['s', None] + [k * (2 ** 61 - 1) for k in range(1, 60000)]], [], None]
def add(a, b):
    return 0
";
    let done = std::sync::atomic::AtomicBool::new(false);
    let lowered = std::thread::scope(|s| {
        let watch = s.spawn(|| {
            let mut lowered = false;
            while !done.load(std::sync::atomic::Ordering::SeqCst) && !lowered {
                for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
                    let pid = entry.file_name().to_string_lossy().into_owned();
                    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                    if !cmdline.windows(12).any(|w| w == b"serve\0judge\0") {
                        continue;
                    }
                    let stat =
                        std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                    let nice = stat
                        .rsplit(')')
                        .next()
                        .and_then(|rest| rest.split_whitespace().nth(16))
                        .and_then(|n| n.parse::<i32>().ok());
                    lowered |= nice == Some(19);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            lowered
        });
        let r = Runner::new(python(), &Limits::default(), false)
            .run(
                Duration::from_secs(3),
                &program(code, &["add(1, 2) == 3"]),
                None,
                &|| {},
            )
            .unwrap();
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        assert_ne!(r.outcome, Outcome::Pass, "{r:?}");
        watch.join().unwrap()
    });
    assert!(lowered, "the busy judge was never lowered to nice 19");
}

# --- the judge's side of tests that are an input and an expected output -----------
#
# LiveCodeBench's grader (`lcb_runner/evaluation/testing_util.py`), the part
# that decides: the program runs in the candidate's process (stdio.py) and
# the expected outputs stay here. Test i is step a<i>; the first test that
# does not pass ends the run (the rest are skipped), as the grader returns at
# its first failure:
#
#   stdin  the printed text and the expected output are stripped and split
#          into lines, each stripped (`get_stripped_lines`); a different
#          number of lines fails; each pair of lines passes when equal, or
#          when both split into tokens that are all decimals
#          (`decimal.Decimal`) and the two lists are equal (1.0 == 1.00);
#   call   each line of the input is one argument's JSON, the expected output
#          is JSON; a tuple returned counts as a list; the test passes when
#          `prediction == expected` (APPS/TACO: or when the expected output
#          is a list of one and the prediction equals its item). With
#          `class Solution` in the program, the function is a method of one
#          `Solution()` made before the first test.
#
# Each test may take the spec's `timeout` seconds (wall clock, from the
# request to its answer): past that it is a timeout and the run stops (the
# grader's -3); what the program raised is a failed test (its -4), a wrong
# answer too (its -2). A returned object that is not data (one of the
# program's own objects) is a wrong answer: it is never compared, since that
# would send the expected output to the candidate process.
#
# The spec (the setup field, JSON; src/spec/stdio_tests.rs writes it):
# {"mode": "stdin" | "call", "func_name": NAME | null, "apps": BOOL,
#  "timeout": SECONDS, "tests": [{"input": TEXT, "output": TEXT} |
#  {"args": [...], "expected": VALUE} ...]}

_STDIO_SHOWN = 300


def _judge_stdio(spec_text, program):
    """Judges one candidate whose tests are inputs and expected outputs."""
    import json

    spec = json.loads(spec_text)
    mode = spec["mode"]
    try:
        state = _receive(lambda: "the program's top level")
        target = None
        if mode == "call" and state == ["ready"]:
            # The function, or one Solution()'s method, is part of the
            # program's start (the grader's `compile_code`).
            target, why = _stdio_target(spec["func_name"], program)
            if target is None:
                _record("step", "c fail")
                _record("detail", "c " + why)
                return _finish()
        if not _program_state(state, _stdio_program(program, mode)):
            return _finish()
    except _Lost:
        _record("step", "c lost")
        _record("lost", _lost)
        return _finish()
    over = False
    for i, test in enumerate(spec["tests"]):
        name = "a" + _str(i + 1)
        if over:
            _record("step", name + " skip")
            continue
        result = _stdio_test(name, mode, target, test, spec)
        _forget_shared()
        _record("step", name + " " + result)
        over = result != "ok"
    if _lost is not None:
        _record("lost", _lost)
    _finish()


def _stdio_target(func_name, program):
    """(the call target of every test: the program's function, or the
    method of one Solution(), None) or (None, why there is none)."""
    what = lambda: "the program's " + func_name
    name = "Solution" if "class Solution" in program else func_name
    kind, bound = _judge_receive_after(_message("names", (name,), True), what)
    if kind != "ok" or _type(bound) is not tuple:
        _lose("malformed (names)", what)
    if not bound:
        return None, "the program defines no " + name
    if name == func_name:
        return _Proxy(func_name), None
    try:
        instance = _Proxy("Solution")()
        return _request("getattr", instance, (func_name,), what), None
    except (_Lost, _OutOfMemory):
        raise
    except _BaseException as exc:
        return None, "Solution()." + func_name + " raised " + _describe(exc)


def _judge_receive_after(message, what):
    _judge_send(message)
    return _judge_receive(what)


def _stdio_test(name, mode, target, test, spec):
    """Runs one test; its step result. Records why it did not pass."""
    import json

    limit = spec["timeout"]
    if mode == "call":
        shown_input = None
        try:
            if "args" in test:
                args, expected = test["args"], test["expected"]
            else:
                args = [json.loads(line) for line in test["input"].split("\n")]
                expected = json.loads(test["output"])
            shown_input = _stdio_cut(", ".join([_show(a) for a in args]))
        except _BaseException as exc:
            _record("detail", name + " the test cannot be read: " + _describe(exc))
            return "fail"
    else:
        shown_input = _stdio_cut(repr(test["input"]))
    _deadline[0] = _mono() + _int(limit * 1e9)
    try:
        if mode == "call":
            got = _plain_call(target, args, lambda: spec["func_name"] + "(" + shown_input + ")")
        else:
            got = _judge_converse("stdin", (test["input"],), lambda: "the program on input " + shown_input)
    except _TimedOut:
        _record("detail", name + " input " + shown_input + " took longer than its limit of %.1f s" % limit)
        return "timeout"
    except _Lost:
        return "lost"
    except (_OutOfMemory, _MemoryError):
        return "memory"
    except _BaseException as exc:
        why, line = _stdio_describe(exc, mode)
        _record("detail", name + " input " + shown_input + " raised " + why)
        failure = {"text": "input " + shown_input, "exception": _bounded(why)}
        if line is not None:
            failure["program_line"] = line
        _record_io_failure(name, failure)
        return "fail"
    finally:
        _deadline[0] = None
    try:
        if mode == "call":
            same = _stdio_same_call(got, expected, spec["apps"])
            expected_text = _shown(expected)
        else:
            if _type(got) is not str:
                _lose("malformed (printed text that is not text)", lambda: "the program's output")
            same = _stdio_same_lines(got, test["output"])
            expected_text = _stdio_cut(repr(test["output"]))
    except (_Lost, _OutOfMemory, _MemoryError) as exc:
        return "lost" if _type(exc) is _Lost else "memory"
    except _BaseException:
        same = False
        expected_text = "?"
    if _lost is not None:
        return "lost"
    if same:
        return "ok"
    got_text = _stdio_cut(repr(got)) if mode == "stdin" else _shown(got)
    verb = " printed " if mode == "stdin" else " returned "
    _record("detail", name + " input " + shown_input + verb + got_text + "; expected " + expected_text)
    failure = {"text": "input " + shown_input, "op": "==", "left": got_text, "right": expected_text}
    _record_io_failure(name, failure)
    return "fail"


def _stdio_describe(exc, mode):
    """`Type: message (line N)` and N, the line of the code as written: a
    call's program has the grader's imports before it; a stdin program is
    rewritten (its lines are not the code's, so none is said)."""
    try:
        text = _type(exc).__name__
        message = _str(exc)
    except _BaseException:
        return "an exception that cannot be described", None
    if message:
        text += ": " + message
    line = getattr(exc, "_execscope_line", None)
    offset = _IMPORT_STRING.count("\n") + 2
    if mode == "call" and _type(line) is int and line > offset:
        line -= offset
        return text[:DETAIL_MAX] + " (line " + _str(line) + ")", line
    return text[:DETAIL_MAX], None


def _stdio_cut(text):
    """The grader's `truncatefn` (300 characters)."""
    if _len(text) <= _STDIO_SHOWN:
        return text
    return text[: _STDIO_SHOWN // 2] + "...(truncated) ..." + text[-_STDIO_SHOWN // 2 :]


def _stdio_same_call(prediction, expected, apps):
    """The grader's comparison, on data only: a prediction that holds one
    of the candidate's objects is not equal (comparing it would send the
    expected output to the candidate process)."""
    _to_tree(prediction, _not_data)
    if _type(prediction) is tuple:
        prediction = list(prediction)
    if prediction == expected:
        return True
    return apps and _type(expected) is list and _len(expected) == 1 and bool(prediction == expected[0])


def _stdio_lines(text):
    return [line.strip() for line in text.strip().split("\n")]


def _stdio_decimals(line):
    from decimal import Decimal

    try:
        return [Decimal(token) for token in line.split()]
    except _BaseException:
        return None


def _stdio_same_lines(printed, expected):
    got, want = _stdio_lines(printed), _stdio_lines(expected)
    if _len(got) != _len(want):
        return False
    for a, b in zip(got, want):
        if a == b:
            continue
        x, y = _stdio_decimals(a), _stdio_decimals(b)
        if x is None or y is None or x != y:
            return False
    return True

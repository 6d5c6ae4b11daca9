# --- the judge -----------------------------------------------------------------
#
# Runs the task's tests (the setup, then each assertion) and decides the
# verdict. No code compiled from the candidate's text ever runs here: every
# name the tests take from the program is bound to a proxy (a function or a
# class of the program's), to this process's own import of the module or
# standard-library object the program imported, or to a fresh copy of the
# program's data. Calling a proxy sends the arguments as data to the
# candidate process (descriptor 4) and takes its answer as data; anything
# that is not data stays there as a handle, and an operation on a handle is a
# request too, which marks the assertion `candidate-decided`.
#
# The verdict goes to the host on descriptor 3 as notes (see core.py), all at
# once at the end:
#
#   @start ns            this process started
#   @ready ns            the program's top level has run
#   @step NAME RESULT    c (the program): ok, syntax, fail, memory or lost;
#                        s (the setup), a1, a2... (the assertions): ok, fail,
#                        memory, lost or skip
#   @detail NAME TEXT    why step NAME did not pass
#   @flag NAME           a sign the judge saw (see src/sandbox/flags.rs)
#   @lost TEXT           the candidate process stopped answering, or answered
#                        with something that is not data: when, and how
#   @end ns              every step has run

VERDICT_FD = 3
JUDGE_CALL_FD = 4
_ANSWER_MAX = 64 << 20
# An assertion that is an expression runs as `assert (<expression>), MARK`;
# MARK tells a false expression from an AssertionError raised inside it.
_EXPRESSION_IS_FALSE = "execscope: expression is false"
_CodeType = _type(_fields_of.__code__)


class _Lost(BaseException):
    """The candidate process is gone or broke the protocol: the run stops.
    A BaseException, so that a test's `except Exception` cannot swallow it."""


class _OutOfMemory(BaseException):
    """The candidate ran out of memory: the run stops, as it would in-process."""


_records = []
_flags = []
_lost = None
# Per assertion: whether a handle's operation took part, whether a handle's
# `__eq__` said equal (or `__ne__` said not equal).
_decided = [False, False]


def _record(kind, text):
    _records.append(_note_bytes(kind, text))


def _flag(name):
    if name not in _flags:
        _flags.append(name)
        _record("flag", name)


def _lose(how, what):
    """Stops the run: the candidate process `how` ('closed', 'malformed ...')
    during `what` (a function giving a description)."""
    global _lost
    if _lost is None:
        try:
            during = what()
        except _BaseException:
            during = "a call"
        _lost = how + " during " + during
        if how.startswith("malformed"):
            _flag("malformed-answer")
    raise _Lost(_lost)


_scan_json = None


def _json_loads(data):
    """The value of a candidate's message: JSON (never marshal, which could
    make code), scanned by the C scanner directly. The candidate's encoder
    writes ASCII without spaces; anything else raises."""
    global _scan_json
    if _scan_json is None:
        import _json
        import json.decoder

        _scan_json = _json.make_scanner(json.decoder.JSONDecoder())
    text = data.decode("ascii")
    value, end = _scan_json(text, 0)
    if end != _len(text):
        raise ValueError("more than one value")
    return value


def _receive(what):
    """The candidate process's next message (a non-empty list)."""
    _wait_for_answer()
    try:
        data = _read_frame(JUDGE_CALL_FD, _ANSWER_MAX)
    except ValueError as exc:
        _lose("malformed (" + _str(exc) + ")", what)
    if data is None:
        _lose("closed", what)
    try:
        answer = _json_loads(data)
    except _BaseException:
        _lose("malformed (not JSON)", what)
    if _type(answer) is not list or not answer or _type(answer[0]) is not str:
        _lose("malformed (not a message)", what)
    return answer


def _exchange_raw(kind, body, what):
    """Request `kind` (body: a tuple) whose answer is not a bridge message
    (the suite's results): the answer as it came."""
    _judge_send(_message(kind, body, True))
    return _receive(what)


# Modules a program may name that the judge does not import for it.
_UNIMPORTED = frozenset("antigravity this idlelib tkinter turtle turtledemo webbrowser pydoc".split())


def _module(name):
    """This process's own import of module `name` (it never imports from the
    candidate's directory: its path is the interpreter's), or None."""
    if name.split(".")[0] in _UNIMPORTED:
        return None
    try:
        __import__(name)
        return sys.modules[name]
    except _BaseException:
        return None


# What the judge makes of a task's own text (its setup, reference program and
# assertions), the same for all of the task's samples: made by the judge
# server before it forks (its children inherit it), by content.
_TASKS = {}


def _task_of(fields):
    """(steps, the names they read as globals, how the reference binds its
    names, the names under test, the given code's helpers, the spec of tests
    that are inputs or None) for the judge payload `fields`."""
    io = "io" in fields[1].split()
    key = (io, fields[0], fields[2], fields[4], tuple(fields[5:]))
    task = _TASKS.get(key)
    if task is None:
        steps = []
        spec = None
        if io:
            # Tests that are inputs (io.py): the entry point is under test.
            spec = _io_task(fields[0])
            names = [spec[0]]
            under_test = {spec[0]}
        else:
            if fields[0]:
                steps.append(_step("s", fields[0], "<setup>", 0))
            for i, source in enumerate(fields[5:]):
                steps.append(_assertion_step("a" + _str(i + 1), source))
            names = _requested([step[1] for step in steps])
            under_test = _under_test(fields[5:])
        helpers = _given_helpers(fields[4], under_test)
        task = (steps, names, _top_level(fields[2]), under_test, helpers, spec)
        if _len(_TASKS) >= 256:
            _TASKS.clear()
        _TASKS[key] = task
    return task


def _judge(fields):
    """Judges one candidate. Layout of `fields`: the test setup (or the spec
    of tests that are inputs), flags (words: `strict`; `io`, the tests are
    inputs, io.py; `record`, write down the outputs; `unittest`, a suite,
    suite_verdict.py; `stdio`, inputs and expected outputs,
    stdio_verdict.py), the task's reference
    program, the candidate's program, the code the task gives, then one
    field per assertion."""
    _record("start", _str(_t_start))
    _judge_role()
    flags = fields[1].split()
    if "unittest" in flags:
        return _judge_suite(fields[0], fields[3], fields[5:])
    if "stdio" in flags:
        return _judge_stdio(fields[0], fields[3])
    strict = "strict" in flags
    steps, names, reference, under_test, helpers, spec = _task_of(fields)
    namespace = {"__builtins__": builtins.__dict__}
    namespace.update(helpers)
    namespace.update(_EXPLAIN_NAMES)
    try:
        # Asked before the program's state arrives: one round trip less.
        # (A program that did not run has sent its state and gone: the state
        # still counts.)
        asked = _write_all(JUDGE_CALL_FD, _frame(marshal.dumps(_message("names", tuple(names), True))))
        state = _receive(lambda: "the program's top level")
        if not _program_state(state, fields[3]):
            return _finish()
        if not asked:
            _lose("closed", lambda: "the program's names")
        kind, bindings = _judge_receive(lambda: "the program's names")
        if kind != "ok" or _type(bindings) is not tuple:
            _lose("malformed (names)", lambda: "the program's names")
        task = (reference, fields[3], under_test, helpers)
        _bind(bindings, names, namespace, task, strict)
    except _Lost:
        _record("step", "c lost")
        _record("lost", _lost)
        return _finish()
    if spec is not None:
        _judge_io(spec, namespace, "record" in flags)
        if _lost is not None:
            _record("lost", _lost)
        return _finish()
    stopped = False
    setup = steps[0] if steps and steps[0][0] == "s" else None
    for step in steps:
        name = step[0]
        if stopped:
            _record("step", name + " skip")
            continue
        result = _run_step(step, setup, namespace)
        _record("step", name + " " + result)
        if result != "ok" and (name == "s" or result in ("memory", "lost")):
            stopped = True
    if _lost is not None:
        _record("lost", _lost)
    _finish()


def _does_not_compile(program):
    """Compiles the program (which runs none of it): one that does not is a
    syntax error. Records it."""
    try:
        _compile(program, "<candidate>", "exec")
    except _SyntaxError as exc:
        _record("step", "c syntax")
        _record("detail", "c " + _describe(exc))
        return True
    except _BaseException:
        pass
    return False


def _program_state(state, program):
    """Records how the program's top level went; whether the tests run. A
    program that ran compiled (the candidate process reports a syntax error
    before anything of it runs); a claimed syntax error is checked here."""
    kind = state[0]
    detail = state[1] if _len(state) == 2 and _type(state[1]) is str else ""
    if kind == "ready" and _len(state) == 1:
        _record("ready", _str(_mono()))
        _record("step", "c ok")
        return True
    if kind == "syntax":
        if _does_not_compile(program):
            return False
        _lose("malformed (a syntax error the program does not have)", lambda: "the program's top level")
    if kind == "error":
        _record("step", "c fail")
        _record("detail", "c " + detail[:DETAIL_MAX])
        _record_program_failure(detail)
        return False
    if kind == "memory":
        _record("step", "c memory")
        return False
    _lose("malformed (the program's state)", lambda: "the program's top level")


def _run_step(step, setup, namespace):
    name, code = step[0], step[1]
    _decided[0] = _decided[1] = False
    _begin_assert(None)
    try:
        _exec(code, namespace)
        result = "ok"
    except _Lost:
        return "lost"
    except (_OutOfMemory, _MemoryError):
        return "memory"
    except _BaseException as exc:
        result = "fail"
        if _isinstance(exc, AssertionError) and exc.args == (_EXPRESSION_IS_FALSE,):
            why = "expression is false"
        else:
            why = _describe(exc)
        _record("detail", name + " " + why)
        _record_failure(name, exc, step, setup)
    if _lost is not None:
        return "lost"
    try:
        _sweep(_mine, False, True)
    except _BaseException:
        pass
    # A pass that an operation on one of the candidate's objects took part in
    # (anything but setting an attribute): the more telling flag of the two,
    # an object of its said equal, else it decided something.
    # (The setup only builds what the assertions use.)
    if result == "ok" and name != "s" and _decided[1]:
        _flag("always-equal")
    elif result == "ok" and name != "s" and _decided[0]:
        _flag("candidate-decided")
    return result


def _finish():
    _record("end", _str(_mono()))
    _write_all(VERDICT_FD, b"".join(_records))
    _exit(0)

# --- the verdict -------------------------------------------------------------
#
# How a candidate is kept from forging its verdict.
#
# The host believes only records that start with this candidate's token (see
# core.py). Each is a bytes object made here, before any candidate code runs,
# and written by C code alone. The steps run as one chain of C iterators,
#
#     map(list, [map(done.append, map(tuple.__getitem__, records, runs)),
#                ..., map(posix.write, [3], map(b"".join, [done]))])
#
# handed to `atexit`: this program's own frames have all returned before the
# first step, so no harness frame lies beneath candidate code. The runner is
# the only Python frame in the chain. It runs the next step and returns
# a constant (0 ok, 1 fail, 2 memory, 3 skip); `tuple.__getitem__` picks that
# step's record for it, and `posix.write` writes them all once every step has
# run. The
# runner has no global, closure or argument a candidate could change: it
# reads only its constants, put into its code object by `_with_constants`,
# and a code object cannot be changed. So:
#
# - No Python function anywhere can write a genuine record, and none holds the
#   token: the harness's functions, modules, finders, classes and builtins,
#   reached through `sys.modules`, `sys.meta_path`, `object.__subclasses__()`
#   or a function's `__globals__`, lead to nothing that forges a pass.
# - Frames (`sys._getframe` and `f_back`, a traceback's frames, a generator's
#   frame while it runs, the frame a signal handler is handed) lead at most to
#   a runner, whose locals are empty and whose globals are a tripwire: reading
#   them, or its code, is flagged and refused.
# - The chain, the records and the token live only inside C objects. The one
#   way to them is the garbage collector's object graph (`gc.get_objects`,
#   `get_referrers`, `get_referents`) or raw memory (ctypes, /proc/self/mem),
#   and the integrity hook (integrity.py) refuses the first two while the
#   kernel's confinement closes the third.
# - Control flow cannot be bent: tracing and profiling hooks (which can move a
#   frame's line) are refused, and so are new audit hooks.


def _with_constants(template, globals_, **values):
    """A copy of function `template` whose string constants `"$name"` are
    replaced by `values[name]`, with globals `globals_`."""
    code = template.__code__
    consts = tuple(
        values[c[1:]] if _type(c) is _str and c.startswith("$") else c for c in code.co_consts
    )
    return _type(template)(code.replace(co_consts=consts), globals_)


def _runner_template():
    """Runs the next step; returns 0 (ok), 1 (fail), 2 (memory) or 3 (skip,
    after a step that stopped the run). The steps and their failure handlers
    come from two iterators (held in lists among its constants, one pair a
    candidate), taken in step with each other and never held in a local. A step started while another one runs (the
    candidate ran the chain again, through `atexit._run_exitfuncs`) is
    flagged; the outer step's record then never comes, so it cannot pass."""
    if "$stopped".__len__():
        "$steps".__getitem__(0).__next__()
        "$failures".__getitem__(0).__next__()
        return 3
    if "$running".__len__():
        "$flag".__call__("reentry")
    "$running".append(1)
    try:
        compared = "$probes".__getitem__(0)
        try:
            "$steps".__getitem__(0).__next__().__call__()
        except "$MemoryError":
            "$failures".__getitem__(0).__next__()
            "$stopped".append(1)
            return 2
        except "$BaseException" as exc:
            "$failed".__call__("$failures".__getitem__(0).__next__(), exc)
            return 1
        "$failures".__getitem__(0).__next__()
        if "$probes".__getitem__(0) != compared:
            "$flag".__call__("always-equal")
        return 0
    finally:
        "$running".pop()


# An assertion that is an expression passes when its value is true. It runs as
# `assert (<expression>), MARK`, so the truth test happens in the assertion's
# own frame (where the probes look), and MARK tells a false expression from an
# AssertionError raised inside it.
_EXPRESSION_IS_FALSE = "execscope: expression is false"


def _compiled_assertion(source):
    """The code of one assertion; its source when it does not compile (so
    that it fails when it runs, with the compiler's error)."""
    try:
        _compile(source, "<assertion>", "eval")
    except _SyntaxError:
        try:
            return _compile(source, "<assertion>", "exec")
        except _BaseException:
            return source
    except _BaseException:
        return source
    wrapped = "assert (\n" + source + "\n), " + repr(_EXPRESSION_IS_FALSE)
    try:
        return _compile(wrapped, "<assertion>", "exec")
    except _BaseException:
        return source


def _compiled(source, filename):
    try:
        return _compile(source, filename, "exec")
    except _BaseException:
        return source


def _failed(step, exc):
    """Notes why a step failed (the runner caught `exc`). `step` is (the flag
    function, the step's name, a list that gets an item when the failure stops
    the run, or None)."""
    flag, name, stop = step
    if stop is not None:
        stop.append(1)
    if _isinstance(exc, _SystemExit):
        flag("early-exit")
    try:
        if _isinstance(exc, AssertionError) and exc.args == (_EXPRESSION_IS_FALSE,):
            why = "expression is false"
        else:
            why = _describe(exc, True)
    except _BaseException:
        why = "exception that cannot be described"
    _note("detail", name + " " + why)


# What a process prepares once for all the candidates it runs (a fork
# server's children share it): see `_prepare_process`.
_prepared = None
_runner = None
_runner_steps = [None]
_runner_failures = [None]
_runner_stopped = []
_runner_running = []
_hook = None
_builtins_then = None
_WATCHED = ((posix, "write"), (posix, "_exit"), (atexit, "register"), (sys, "exit"))
_watched_then = ()


def _set_path(text):
    """Sets `sys.path` (one entry a line) and the trusted prefixes from it."""
    global _trusted, _machinery
    sys.path[:] = [p for p in text.split("\n") if p]
    _trusted = tuple(
        sorted((p.rstrip("/") + "/" for p in sys.path if p.startswith("/")), key=_len, reverse=True)
    )
    _machinery = tuple(p + "importlib/" for p in _trusted)


def _prepare_process(denylist, guard, path):
    """Installs the denylist, the guard, the thread bound and the comparison
    probes, and makes the flag function, the integrity hook and the runner
    (whose steps each candidate puts into its holders): once a process, so
    a fork server's children do not each pay for (and copy the pages of)
    what is the same for all of them."""
    global _prepared, _guard, _flag, _runner, _hook, _builtins_then, _watched_then
    _guard = guard
    _set_path(path)
    _set_deny_list(denylist, guard)
    _install_denylist()
    _install_guard()
    _bound_threads()
    _watch_comparisons()
    _flag = _with_constants(
        _flag_template,
        _RUNNER_GLOBALS,
        seen=set(),
        write=_write,
        fd=ENVELOPE_FD,
        BaseException=_BaseException,
    )
    _runner = _with_constants(
        _runner_template,
        _RUNNER_GLOBALS,
        stopped=_runner_stopped,
        running=_runner_running,
        probes=_probe_count,
        steps=_runner_steps,
        failures=_runner_failures,
        failed=_failed,
        MemoryError=_MemoryError,
        BaseException=_BaseException,
        flag=_flag,
    )
    _hook = _with_constants(
        _integrity_template,
        _HOOK_GLOBALS,
        refused=_REFUSED,
        flag=_flag,
        PermissionError=PermissionError,
        id=id,
        runner_globals=id(_RUNNER_GLOBALS),
        harness_globals=frozenset((id(_RUNNER_GLOBALS), id(globals()))),
        getattr=getattr,
        getframe=sys._getframe,
        trusted=_trusted + ("<frozen",),
        ctypes_denied=(1,) if _denied("_ctypes") else (),
    )
    _builtins_then = (tuple(builtins.__dict__), tuple(builtins.__dict__.values()))
    _watched_then = tuple((owner, attr, getattr(owner, attr)) for owner, attr in _WATCHED)
    _prepared = (denylist, guard, path)


def _start(fields, at_exit):
    """Takes in one candidate's payload; returns the iterator that runs it
    (see above), with the hooks installed. `at_exit`: the chain will run from
    `atexit`. A candidate whose code does not compile is reported here."""
    global _confined
    # Layout: token, setup, code, denylist (one name a line), sys.path (one a
    # line), flags (space-separated words), each step's `ok` secret (space-
    # separated, in step order), then one field per assertion.
    token = fields[0]
    oks = fields[6].split()
    words = fields[5].split()
    _confined = "confined" in words
    if _prepared != (fields[3], "guard" in words, fields[4]):
        _prepare_process(fields[3], "guard" in words, fields[4])
    sys.argv[:] = ["candidate"]

    def record(text):
        return (token + " " + text + "\n").encode()

    _write(ENVELOPE_FD, record("start " + _str(_t_start)))
    try:
        code = _compile(fields[2], "<candidate>", "exec")
    except _SyntaxError as exc:
        _note("detail", "c " + _describe(exc))
        _write(ENVELOPE_FD, record("c syntax") + record("end"))
        _exit(0)
    except _BaseException:
        code = fields[2]
    steps = [("c", code)]
    if fields[1]:
        steps.append(("s", _compiled(fields[1], "<setup>")))
    for i, source in enumerate(fields[7:]):
        steps.append(("a" + _str(i + 1), _compiled_assertion(source)))
    namespace = {"__builtins__": builtins.__dict__}
    failures = []
    records = []
    for (name, code), ok in zip(steps, oks):
        failures.append((_flag, name, None if name.startswith("a") else _runner_stopped))
        results = ("ok " + ok, "fail", "memory", "skip")
        records.append(tuple(record(name + " " + r) for r in results))
    # Each step is the `__next__` of a one-item map: a call that runs it in C.
    _runner_steps[0] = iter([map(_exec, [code], [namespace]).__next__ for _, code in steps])
    _runner_failures[0] = iter(failures)
    first = ()
    if at_exit and "threading" in sys.modules:
        # Finalization would stop `threading` before the steps run; it gets
        # a module without `_shutdown` until the first part puts it back.
        first = map(sys.modules.__setitem__, ["threading"], [sys.modules["threading"]])
        stand_in = _type(sys)("threading")
        stand_in._shutdown = tuple
        sys.modules["threading"] = stand_in
    # Candidates get an empty `__main__`.
    sys.modules["__main__"] = _type(sys)("__main__")
    # The records are written together at the end (one write, one wake-up of
    # the host, instead of one a step); only the chain holds them until then.
    done = []
    then = (_flag, builtins.__dict__, _builtins_then, _watched_then, namespace, _runner_running)
    sys.addaudithook(_audit)
    sys.addaudithook(_hook)
    # Each part runs to its end (`list`) before the next starts; an
    # exception in one stops the rest.
    return map(
        list,
        [
            first,
            map(
                done.append,
                map(tuple.__getitem__, records, map(_type(_runner).__call__, [_runner] * _len(steps))),
            ),
            map(done.append, map(_finish, *([x] for x in then))),
            map(done.append, [record("end")]),
            map(_write, [ENVELOPE_FD], map(b"".join, [done])),
            map(_exit, [0]),
        ],
    )

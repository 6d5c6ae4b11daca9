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
#   and the integrity hook below refuses the first two while the kernel's
#   confinement closes the third.
# - Control flow cannot be bent: tracing and profiling hooks (which can move a
#   frame's line) are refused, and so are new audit hooks.
#
# What the integrity hook refuses, and the signs of reward hacking the runner
# and `_finish` see, are recorded as flags (notes) the host reports.


def _with_constants(template, globals_, **values):
    """A copy of function `template` whose string constants `"$name"` are
    replaced by `values[name]`, with globals `globals_`."""
    code = template.__code__
    consts = tuple(
        values[c[1:]] if _type(c) is _str and c.startswith("$") else c for c in code.co_consts
    )
    return _type(template)(code.replace(co_consts=consts), globals_)


class _Tripwire(dict):
    """The globals of the step runner: the one thing a candidate that walks
    the stack down to the runner can read there (it uses only its
    constants). Reading them is flagged; they look empty."""

    def _touched(self):
        _flag("frame-introspection")

    def __getitem__(self, key):
        self._touched()
        raise KeyError(key)

    def get(self, key, default=None):
        self._touched()
        return default

    def __contains__(self, key):
        self._touched()
        return False

    def __iter__(self):
        self._touched()
        return iter(())

    def __len__(self):
        self._touched()
        return 0

    def keys(self):
        self._touched()
        return {}.keys()

    def values(self):
        self._touched()
        return {}.values()

    def items(self):
        self._touched()
        return {}.items()

    def __setitem__(self, key, value):
        self._touched()

    def __repr__(self):
        self._touched()
        return "{}"


_RUNNER_GLOBALS = _Tripwire()
dict.__setitem__(_RUNNER_GLOBALS, "__builtins__", builtins.__dict__)


def _flag_template(name):
    """Records flag `name` once (a note; see core.py)."""
    if "$seen".__contains__(name):
        return
    "$seen".add(name)
    try:
        "$write".__call__("$fd", ("@flag " + name.__len__().__str__() + "\n" + name).encode())
    except "$BaseException":
        pass


# The flag function of the candidate being run (made in `_start`).
_flag = None


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


# What the integrity hook refuses outright, with the flag each one raises
# (read-only: the hook's constants can be read).
_REFUSED = _type(_type.__dict__)({
    "gc.get_objects": "object-scan",
    "gc.get_referrers": "object-scan",
    "gc.get_referents": "object-scan",
    "sys._current_frames": "frame-introspection",
    "sys._current_exceptions": "frame-introspection",
    "sys.settrace": "tracing",
    "sys.setprofile": "tracing",
    "sys.monitoring.register_callback": "tracing",
    "code.__new__": "code-construction",
    "function.__new__": "code-construction",
    "sys.addaudithook": "audit-hook",
    # A new interpreter in this process has no hooks and a fresh import system.
    "cpython.PyInterpreterState_New": "audit-hook",
})
_HOOK_GLOBALS = {"__builtins__": builtins.__dict__}


def _integrity_template(event, args):
    """The integrity hook, added last, before any candidate code (Python code
    cannot remove it). Everything it knows is in its constants. Refuses what
    forging needs and solutions do not: scans of the object graph, other
    threads' frames, tracing, code and function construction (except by the
    standard library), further hooks or an interpreter without them,
    ctypes (while the denylist denies it); a runner's frame reached through
    `sys._getframe`, or its code; the code, defaults and keyword defaults of
    the harness's own functions (the thread bound keeps its originals there).
    Its own frame shows up in the traceback of every refusal, so it lives in
    globals of its own and its constants can be read: none of them can be
    changed, and the flag function's own constants are out of reach."""
    if "$refused".__contains__(event):
        if event == "code.__new__" or event == "function.__new__":
            # The standard library builds some for itself (`types.coroutine`).
            if "$getframe".__call__(1).f_code.co_filename.startswith("$trusted"):
                return
        "$flag".__call__("$refused".__getitem__(event))
        raise "$PermissionError".__call__("denied: " + event)
    if event == "object.__getattr__" or event == "object.__setattr__":
        name = args[1]
        if name == "f_code":
            if "$id".__call__(args[0].f_globals) == "$runner_globals":
                "$flag".__call__("frame-introspection")
                raise "$PermissionError".__call__("denied: the code of a harness frame")
        elif name == "__code__" or name == "__defaults__" or name == "__kwdefaults__":
            owner = "$getattr".__call__(args[0], "__globals__", None)
            if "$harness_globals".__contains__("$id".__call__(owner)):
                "$flag".__call__("harness-introspection")
                raise "$PermissionError".__call__("denied: " + name + " of the harness")
    elif event == "sys._getframe":
        if args and "$id".__call__(args[0].f_globals) == "$runner_globals":
            "$flag".__call__("frame-introspection")
            raise "$PermissionError".__call__("denied: a harness frame")
    elif event.startswith("ctypes.") and "$ctypes_denied".__len__():
        "$flag".__call__("ctypes")
        raise "$PermissionError".__call__("denied: " + event)


# Signs of the "always equal" hack: every method `__eq__`, `__ne__` or
# `__bool__` the candidate writes in a class statement is wrapped, and a call
# made from the assertions or the test setup is counted; a runner flags an
# assertion that passed while the count moved.
_probe_count = [0]
_WATCHED_METHODS = ("__eq__", "__ne__", "__bool__")
_TEST_FILES = ("<assertion>", "<setup>")
_FunctionType = _type(_fields_of)


def _written_by_candidate(function):
    # A module of the interpreter's path is told by its globals, which are not
    # audited (reading `__code__` is, and the standard library defines many
    # classes with these methods as it loads).
    module_file = function.__globals__.get("__file__")
    if _type(module_file) is _str and module_file.startswith(_trusted):
        return False
    filename = function.__code__.co_filename
    return not (
        filename.startswith(_trusted) or filename.startswith("<frozen") or filename in _TEST_FILES
    )


def _probe(method, _getframe=sys._getframe, _count=_probe_count):
    def probe(*args, **kwargs):
        try:
            if _getframe(1).f_code.co_filename in _TEST_FILES:
                _count[0] += 1
        except _BaseException:
            pass
        return method(*args, **kwargs)

    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        try:
            setattr(probe, attr, getattr(method, attr))
        except _BaseException:
            pass
    probe.__wrapped__ = method
    return probe


def _watch_comparisons(build_class=builtins.__build_class__):
    own_dict = _type.__dict__["__dict__"].__get__

    def __build_class__(func, name, *bases, **kwargs):
        cls = build_class(func, name, *bases, **kwargs)
        try:
            if _isinstance(cls, _type):
                own = own_dict(cls)
                for attr in _WATCHED_METHODS:
                    method = own.get(attr)
                    if _type(method) is _FunctionType and _written_by_candidate(method):
                        _type.__setattr__(cls, attr, _probe(method))
        except _BaseException:
            pass
        return cls

    builtins.__build_class__ = __build_class__


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


_MISSING = object()


def _finish(flag, current, then, watched, namespace, running):
    """The last step: flushes the output, flags builtins the candidate rebound
    (`current` is the builtins' dict, `then` its keys and values from before
    candidate code) and functions the harness relies on that it patched, and
    a step still running (the candidate ran the rest of the chain from inside
    one); returns the note of the time. What it compares with comes in its
    arguments, out of reach."""
    _flush()
    if running:
        flag("reentry")
    try:
        # Tuples compare item by item, identity first, in C; names the
        # candidate (or a module it imported) added do not count.
        if (
            namespace.get("__builtins__") is not current
            or tuple(map(current.get, then[0])) != then[1]
            or any(getattr(owner, attr, _MISSING) is not value for owner, attr, value in watched)
        ):
            flag("rebound-builtins")
    except _BaseException:
        pass
    return _note_bytes("end", _str(_mono()))


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

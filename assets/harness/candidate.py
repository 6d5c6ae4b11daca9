# --- the candidate process ----------------------------------------------------
#
# Runs the program (prompt + completion) and nothing else, then answers the
# judge's calls on descriptor 3 until the judge hangs up. It never receives a
# test, an expected value or any verdict state: whatever it sends is the
# program's answer, and the judge decides what the answer is worth.
#
# First it sends the program's state (one message): ["ready"], ["syntax",
# detail], ["error", detail] (its top level raised) or ["memory"]. Then it
# answers the judge's requests through the object bridge (bridge.py, talk.py):
# `names` (how the program binds the names the tests read), `call` and `op`
# on its objects, and, where the tests are a unittest suite that runs here,
# `suite` (suite.py); for a program that reads stdin, `stdin` (stdio.py).
# While it runs, the program may call back the test's objects it was handed.

CALL_FD = 3
_REQUEST_MAX = 1 << 31
_prepared = None
_namespace = None
_encode = None
# The tests are a unittest suite that runs here (suite.py).
_suite_mode = False


def _prepare_process(denylist, guard, path):
    """Installs the denylist and the guard: once a process, so a fork
    server's children do not each pay for it. (Threads are bounded by the
    kernel: see src/sandbox/confine/pids.rs.)"""
    global _prepared, _guard
    _guard = guard
    _set_path(path)
    _set_deny_list(denylist, guard)
    _install_denylist()
    _install_guard()
    _prepared = (denylist, guard, path)
    _make_encoder()


def _make_encoder():
    """The JSON encoder of the candidate's messages (a C extension: made once a
    process, so a fork server's children do not each load it)."""
    global _encode
    import _json

    _encode = _json.make_encoder(
        None, None, _json.encode_basestring_ascii, None, ":", ",", False, False, True
    )


def _send(answer):
    data = "".join(_encode(answer, 0)).encode()
    _flush()
    if not _write_all(CALL_FD, _frame(data)):
        _exit(0)


def _candidate(fields):
    """Runs one candidate's program. Layout of `fields`: the code, the
    denylist (one name a line), sys.path (one a line), flags (words)."""
    global _confined, _namespace, _suite_mode
    words = fields[3].split()
    _confined = "confined" in words
    if _prepared != (fields[1], "guard" in words, fields[2]):
        _prepare_process(fields[1], "guard" in words, fields[2])
    sys.argv[:] = ["candidate"]
    # Candidates get an empty `__main__`.
    sys.modules["__main__"] = _type(sys)("__main__")
    program = fields[0]
    stdio = "stdin" if "stdin" in words else "call" if "call" in words else None
    if stdio is not None:
        # Built as LiveCodeBench's grader builds it (stdio.py).
        program = _stdio_program(program, stdio)
    try:
        code = _compile(program, "<candidate>", "exec")
    except _SyntaxError as exc:
        _send(["syntax", _describe(exc)])
        _exit(0)
    except _BaseException as exc:
        _send(["error", _describe(exc)])
        _exit(0)
    _suite_mode = "unittest" in words
    _namespace = _suite_module() if _suite_mode else {"__builtins__": builtins.__dict__}
    if stdio is not None:
        # The grader's module is `tmp_sol`.
        _namespace["__name__"] = "tmp_sol"
    sys.addaudithook(_audit)
    try:
        _exec(code, _namespace)
    except _MemoryError:
        _send(["memory"])
        _exit(0)
    except _BaseException as exc:
        _send(["error", _describe(exc)])
        _exit(0)
    _send(["ready"])
    _answer_calls()


def _answer_calls():
    _candidate_role()
    while True:
        kind, body = _candidate_receive(None)
        if kind == "names":
            answer = _names_answer(body)
        elif kind == "suite" and _suite_mode:
            try:
                answer = _run_suite(body[0])
            except _BaseException as exc:
                answer = _suite_raised(exc)
        elif kind == "stdin" and _stdio_mode[0] == "stdin":
            try:
                answer = _message("ok", _run_stdin(body[0]), False)
            except _BaseException as exc:
                answer = _message("raise", exc, False)
        else:
            answer = _serve_request(kind, body)
        _send(answer)


def _candidate_receive(what):
    try:
        data = _read_frame(CALL_FD, _REQUEST_MAX)
        message = marshal.loads(data) if data is not None else None
        if message is not None:
            return _take(message)
    except _BridgeFault:
        raise
    except _BaseException:
        pass
    _flush()
    _exit(0)


def _candidate_role():
    _side[0] = 1
    _role.update(
        peer=0,
        send=_send,
        receive=_candidate_receive,
        op=lambda op, h, operands: _converse("op", (op, _Transient("t", (h,) + operands)), None),
        call=lambda h, args, kwargs: _converse("call", _call_body(h, args, kwargs), None),
        may=lambda kind, body: True,
        fatal=(),
        raised=lambda exc, what: exc,
        releases=lambda sid: True,
        named=lambda v: None,
        exception_class=lambda cls: cls,
        decode=(_stand_in, _candidate_node_ref, _exception_base, _make_exception),
        binds=_candidate_binds,
        bound=None,
        sweep=lambda: _sweep(_theirs, True),
    )


def _candidate_node_ref(n):
    """A name the judge refers to: the program's, or a standard-library
    object or module."""
    if n[0] == "p":
        return _namespace[n[1]]
    if n[0] == "n":
        if n[1] == "builtins" and n[2] in _BUILTIN_EXCEPTIONS:
            return builtins.__dict__[n[2]]
        obj = _by_name(n[1], n[2], True)
        if obj is None:
            raise _NotData("no %s.%s here" % (n[1], n[2]))
        return obj
    __import__(n[1])
    return sys.modules[n[1]]


def _exception_base(name):
    base = builtins.__dict__.get(name)
    return base if _isinstance(base, _type) and issubclass(base, BaseException) else Exception


# The names the tests read, as the program bound them when last said.
_watched = {}


def _binding(name, value):
    """(name, claim, value) for the judge: a module or a standard-library
    object is claimed by name (the judge binds its own, if the program's
    text binds it so); a function or class of the program's is a name to
    call; anything else crosses as it is."""
    if _type(value) is _type(sys):
        return _Transient("t", (name, "M", _str(value.__name__)))
    if callable(value) and not (
        _type(value) is _type and (issubclass(value, BaseException) or _plain_namedtuple(value))
    ):
        try:
            return _Transient("t", (name, "n", _Transient("t", tuple(_by_name_tree(value)[1:]))))
        except _BaseException:
            return _Transient("t", (name, None, _Program(name)))
    return _Transient("t", (name, None, value))


def _names_answer(names):
    found = [n for n in names if _type(n) is str and n in _namespace]
    answer = _message("ok", tuple(_binding(n, _namespace[n]) for n in found), True)
    for n in names:
        if _type(n) is str:
            _watched[n] = _namespace.get(n, _MISSING)
    return answer


def _candidate_binds(enc):
    """The names the tests read that the program bound anew since it last
    said (`global`, `globals()`, `exec`), or None."""
    changed = None
    for name, old in _watched.items():
        value = _namespace.get(name, _MISSING)
        if value is not old:
            _watched[name] = value
            if value is not _MISSING:
                changed = changed or []
                changed.append(_binding(name, value))
    if changed is None:
        return None
    return enc.transient("t", changed)

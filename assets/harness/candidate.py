# --- the candidate process ----------------------------------------------------
#
# Runs the program (prompt + completion) and nothing else, then answers the
# judge's calls on descriptor 3 until the judge hangs up. It never receives a
# test, an expected value or any verdict state: whatever it sends is the
# program's answer, and the judge decides what the answer is worth.
#
# First it sends the program's state (one message): ["ready"], ["syntax",
# detail], ["error", detail] (its top level raised) or ["memory"]. Then, for
# each request (marshal, from the judge, which runs no candidate code):
#
#   ["names", [name, ...]]            -> ["ok", [[name, tree], ...]] for the
#                                        names the program defines
#   ["call", target, [arg, ...], [[key, value], ...]]
#   ["op", op, target, operand, ...]  -> ["ok", tree, mutated] or
#                                        ["raise", type, message, line, mutated,
#                                         builtin]
#
# where `builtin` names the builtin exception the exception's class derives
# from nearest (its own name for a builtin one).
#
# and, where the tests are a unittest suite that runs here, ["suite",
# test code] (suite.py); for a program that reads stdin, ["stdin", input]
# (stdio.py). Answers are JSON text. `mutated` lists the arguments the callee changed
# ([[position or key, tree], ...]), so the test sees the mutation.

CALL_FD = 3
_REQUEST_MAX = 1 << 31
_prepared = None
_namespace = None
_handles = []
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


def _send(answer):
    global _encode
    if _encode is None:
        import _json

        _encode = _json.make_encoder(
            None, None, _json.encode_basestring_ascii, None, ":", ",", False, False, True
        )
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
    while True:
        try:
            data = _read_frame(CALL_FD, _REQUEST_MAX)
            request = marshal.loads(data) if data is not None else None
        except _BaseException:
            request = None
        if request is None:
            _flush()
            _exit(0)
        try:
            answer = _answer(request)
        except _BaseException as exc:
            answer = _raised(exc, [])
        _send(answer)


def _handle(value):
    _handles.append(value)
    try:
        name = _str(_type(value).__name__)[:200]
    except _BaseException:
        name = "object"
    return ["h", _len(_handles) - 1, name]


def _ref(x):
    """A reference in a request: a handle, a name of the program, or a
    standard-library object or module by name."""
    tag = x[0]
    if tag == "h":
        return _handles[x[1]]
    if tag == "p":
        return _namespace[x[1]]
    if tag == "n":
        obj = _by_name(x[1], x[2], True)
        if obj is None:
            raise _NotData("no %s.%s here" % (x[1], x[2]))
        return obj
    __import__(x[1])
    return sys.modules[x[1]]


def _result_tree(value):
    try:
        return _to_tree(value, _handle)
    except _NotData:
        return _handle(value)


def _binding(name, value):
    """How the judge is to bind one of the program's names."""
    if _type(value) is _type(sys):
        return ["M", _str(value.__name__)]
    try:
        return _to_tree(value, _reject)
    except _BaseException:
        pass
    if callable(value):
        try:
            return _by_name_tree(value)
        except _BaseException:
            return ["p", name]
    return _handle(value)


def _reject(value):
    raise _NotData("not data")


# Arguments the callee may change (a tuple may hold lists it changes).
_MUTABLE = (list, dict, set, bytearray, tuple)


def _answer(request):
    kind = request[0]
    if kind == "names":
        names = [n for n in request[1] if _type(n) is str and n in _namespace]
        return ["ok", [[n, _binding(n, _namespace[n])] for n in names]]
    if kind == "call":
        target = _from_tree(request[1], _ref)
        trees = request[2]
        args = [_from_tree(a, _ref) for a in trees]
        kwargs = {k: _from_tree(v, _ref) for k, v in request[3]}
        try:
            result = target(*args, **kwargs)
        except _BaseException as exc:
            return _raised(exc, _mutated(args, trees, kwargs, request[3]))
        return ["ok", _result_tree(result), _mutated(args, trees, kwargs, request[3])]
    if kind == "stdin" and _stdio_mode[0] == "stdin":
        return _run_stdin(request[1])
    if kind == "suite" and _suite_mode:
        return _run_suite(request[1])
    if kind == "op":
        operands = [_from_tree(a, _ref) for a in request[2:]]
        try:
            result = _OPS[request[1]](*operands)
        except _BaseException as exc:
            return _raised(exc, [])
        return ["ok", _result_tree(result), []]
    return ["raise", "RuntimeError", "unknown request", None, [], "RuntimeError"]


def _mutated(args, trees, kwargs, kwtrees):
    """The arguments of mutable types whose value the call changed."""
    changed = []
    for i, a in enumerate(args):
        if _type(a) in _MUTABLE:
            tree = _result_tree(a)
            if tree != trees[i]:
                changed.append([i, tree])
    for k, tree in kwtrees:
        a = kwargs.get(k)
        if _type(a) in _MUTABLE:
            new = _result_tree(a)
            if new != tree:
                changed.append([k, new])
    return changed


def _raised(exc, mutated):
    try:
        name = _str(_type(exc).__name__)[:200]
        message = _str(exc)[:DETAIL_MAX]
    except _BaseException:
        name, message = "Exception", "exception that cannot be described"
    try:
        line = _program_line(exc)
    except _BaseException:
        line = None
    return ["raise", name, message, line, mutated, _builtin_base(_type(exc))]


def _builtin_base(cls):
    """The name of the builtin exception `cls` derives from nearest
    (itself, if it is one); Exception when that cannot be told."""
    try:
        for k in cls.__mro__:
            if builtins.__dict__.get(k.__name__) is k:
                return k.__name__
    except _BaseException:
        pass
    return "Exception"


def _iterate(a):
    return list(a)


_OPS = {
    "getattr": getattr,
    "setattr": setattr,
    "delattr": delattr,
    "call": lambda f, *args: f(*args),
    "instance": isinstance,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "bool": bool,
    "len": len,
    "hash": hash,
    "iter": _iterate,
    "contains": lambda a, b: b in a,
    "getitem": lambda a, b: a[b],
    "setitem": lambda a, b, c: a.__setitem__(b, c),
    "delitem": lambda a, b: a.__delitem__(b),
    "str": str,
    "repr": repr,
    "int": int,
    "float": float,
    "index": lambda a: a.__index__(),
    "round": round,
    "neg": lambda a: -a,
    "pos": lambda a: +a,
    "abs": abs,
    "invert": lambda a: ~a,
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "pow": lambda a, b: a**b,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "lshift": lambda a, b: a << b,
    "rshift": lambda a, b: a >> b,
    "radd": lambda a, b: b + a,
    "rsub": lambda a, b: b - a,
    "rmul": lambda a, b: b * a,
    "rtruediv": lambda a, b: b / a,
    "rfloordiv": lambda a, b: b // a,
    "rmod": lambda a, b: b % a,
    "rpow": lambda a, b: b**a,
    "rand": lambda a, b: b & a,
    "ror": lambda a, b: b | a,
    "rxor": lambda a, b: b ^ a,
}

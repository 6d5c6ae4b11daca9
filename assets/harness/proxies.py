# --- the judge's side of the bridge -----------------------------------------------
#
# A proxy stands for a function or class of the program's (a name), a
# stand-in (talk.py's `_Handle`) for an object that stays in the candidate
# process. Calling a proxy, and every operation on a stand-in, is a request
# to the candidate process. The judge serves the candidate's requests on the
# test's own objects it was handed (callbacks, iterators), and nothing else.
#
# Flags: an operation lets the candidate decide an assertion when it could
# use what the test holds to do so:
#   always-equal       its `__eq__` (`__ne__`) said equal (any true answer)
#                      to a test's value and to a probe: a fresh value of the
#                      same type and shape with one part changed, asked in
#                      random order with the real one, so that from the pair
#                      a program cannot tell which is the test's
#   candidate-decided  a truth value the test's code tests itself (`assert
#                      obj`, not `bool(obj) == True`; through `__bool__` or
#                      `__len__`); an ordering against a test's value; a
#                      `__contains__` that also holds the probe; arithmetic
#                      with a test's value whose data result ignores it (the
#                      probe's is the same, or nearer than a thousandth of
#                      the change); a call that raised StopIteration (it ends
#                      the test's iteration);
#                      `isinstance` answered by its object; and any operation
#                      on an object that derives from a builtin data type (a
#                      `str` whose `startswith` says yes)
# `repr`, `str`, `len`, iteration, attributes and calls return data the judge
# compares: the candidate never saw the expected value, so they decide nothing.


def _show(value):
    """A short description of a value, asking the candidate nothing."""
    t = _type(value)
    if t in _STAND_INS:
        return "<" + object.__getattribute__(value, "_kind") + ">"
    if t is _Proxy:
        return object.__getattribute__(value, "_name")
    try:
        text = repr(value)
    except _BaseException:
        text = "<" + t.__name__ + ">"
    return text if _len(text) <= 60 else text[:57] + "..."


class _Proxy:
    """A function or class of the program's, in the candidate process."""

    __slots__ = ("_name",)

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def __call__(self, *args, **kwargs):
        name = object.__getattribute__(self, "_name")
        what = lambda: name + "(" + ", ".join([_show(a) for a in args]) + ")"
        return _call(self, args, kwargs, what)

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__") and attr not in _DUNDERS_SEEN:
            raise AttributeError(attr)
        name = object.__getattribute__(self, "_name")
        return _request("getattr", self, (attr,), lambda: name + "." + attr)

    def __instancecheck__(self, obj):
        name = object.__getattribute__(self, "_name")
        if not _is_stand_in(obj):
            return False
        # The candidate's object says what class it is: it decides.
        _decided[0] = True
        return _request("instance", obj, (self,), lambda: "isinstance(..., " + name + ")") is True

    def __repr__(self):
        return "<" + object.__getattribute__(self, "_name") + " of the program>"


def _request(op, target, operands, what):
    return _judge_converse("op", (op, _Transient("t", (target,) + tuple(operands))), what)


def _call(target, args, kwargs, what, plain=False):
    """Calls the program's `target`. A `plain` call's arguments and answer
    cross as plain data, without ids or synchronisation: each of the tests
    that are independent inputs (HumanEval+, LiveCodeBench), whose inputs the
    judge never looks at again, as evalplus calls `fn(*inp)`."""
    try:
        return _judge_converse("pcall" if plain else "call", _call_body(target, args, kwargs), what, plain)
    except StopIteration:
        # A function whose StopIteration ends the test's iteration (`all(map(f,
        # xs))`) decides what that iteration saw.
        _decided[0] = True
        raise


def _plain_call(target, args, what):
    return _call(target, args, {}, what, True)


def _judge_converse(kind, body, what, plain=False):
    try:
        return _converse(kind, body, what, plain)
    except _BridgeFault as exc:
        _lose("bridge: " + _str(exc), what)


_ORDERS = frozenset("lt le gt ge".split())
_ARITHMETIC = frozenset(
    "add sub mul truediv floordiv mod pow and or xor lshift rshift matmul divmod radd rsub rmul "
    "rtruediv rfloordiv rmod rpow rand ror rxor rmatmul rdivmod".split()
)


def _judge_op(op, h, operands):
    kind = object.__getattribute__(h, "_kind")
    what = lambda: op + " on a " + kind
    data = _len(operands) > 0 and not _is_stand_in(operands[0]) and _type(operands[0]) is not _Proxy
    if (op == "eq" or op == "ne" or op == "contains") and data:
        return _with_probe(op, h, operands[0], what)
    result = _request(op, h, operands, what)
    if op == "setattr" or op == "delattr":
        return result
    ordered = op in _ORDERS and data and result is not NotImplemented
    truth = (op == "bool" or op == "len") and _tested_directly()
    if object.__getattribute__(h, "_sub") or truth or ordered:
        _decided[0] = True
    elif op in _ARITHMETIC and data and _plain(result) and result is not NotImplemented:
        probe = _probe_like(operands[0])
        other = _request(op, h, (probe,) + tuple(operands[1:]), what)
        if _insensitive(result, other, operands[0], probe):
            _decided[0] = True
    return result


def _insensitive(result, other, value, probe):
    """Whether an operation's data result ignored its operand: the probe, a
    value near the test's, gave the same result, or for numbers one nearer
    than a thousandth of the change."""
    if not _plain(other):
        return True
    numbers = (int, float, complex, bool)
    if _type(result) in numbers and _type(other) in numbers and _type(value) in numbers:
        try:
            return abs(result - other) <= abs(value - probe) * 1e-3
        except _BaseException:
            return True
    try:
        return result == other
    except _BaseException:
        return True


def _tested_directly():
    """Whether the truth value being asked for is tested by the test's own
    code (`assert obj`, `if obj`, `not obj`), not through `bool()` whose
    result the test compares: the caller of the stand-in's `__bool__` is
    at a jump or a `not`."""
    import dis

    try:
        frame = sys._getframe(3)
        name = dis.opname[frame.f_code.co_code[frame.f_lasti]]
    except _BaseException:
        return True
    return "JUMP" in name or name == "UNARY_NOT"


def _with_probe(op, h, value, what):
    """`h == value` (`!=`, `value in h`), with a probe asked in random order:
    an object that says yes to both is flagged (always-equal for a
    comparison, candidate-decided for `in`). Each answer's truth is taken
    as it comes, before the candidate runs again."""
    import random

    probe = _probe_like(value)
    first = random.random() < 0.5
    if first:
        said = _says(op, _request(op, h, (probe,), what))
    result = _request(op, h, (value,), what)
    real = _says(op, result)
    if not first:
        said = _says(op, _request(op, h, (probe,), what))
    if real and said:
        _decided[1 if op != "contains" else 0] = True
    if object.__getattribute__(h, "_sub"):
        _decided[0] = True
    return result


def _says(op, answer):
    """Whether an answer of the candidate's says "equal" (for `!=`: not
    unequal; for `in`: contained): its truth as data; an answer that is an
    object of the candidate's might say anything."""
    if answer is NotImplemented:
        return False
    if not _plain(answer):
        return True
    try:
        truth = bool(answer)
    except _BaseException:
        return True
    return not truth if op == "ne" else truth


def _probe_like(v):
    """A fresh value like `v` that no program could have expected, and that
    a program cannot tell from it: the same type and shape, one part of it
    changed the way the real value could have differed (so from the pair it
    sees, neither is more likely the test's)."""
    import random

    t = _type(v)
    if t is bool:
        return not v
    if t is int:
        return v + random.choice((-1, 1)) * random.randint(1, max(2, abs(v) // 2 + 1))
    if t is float:
        if v != v or v in (float("inf"), float("-inf")):
            return random.uniform(-1e6, 1e6)
        return v + random.choice((-1, 1)) * (abs(v) * random.uniform(0.01, 0.5) + random.uniform(0.01, 1.0))
    if t is complex:
        return complex(_probe_like(v.real), v.imag)
    if t is str or t is bytes:
        if not v:
            return t() + (random.choice("abcdefghij") if t is str else bytes([random.randrange(97, 107)]))
        i = random.randrange(_len(v))
        pool = _like_pool(v[i] if t is str else chr(v[i]))
        c = random.choice([x for x in pool if x != (v[i] if t is str else chr(v[i]))] or ["x"])
        return v[:i] + (c if t is str else c.encode("latin-1", "replace")[:1]) + v[i + 1 :]
    if t is list or t is tuple:
        if not v:
            return t([random.randint(0, 9)])
        i = random.randrange(_len(v))
        items = list(v)
        items[i] = _probe_like(items[i])
        return t(items)
    if t is dict:
        probe = dict(v)
        if probe:
            key = random.choice(list(probe))
            probe[key] = _probe_like(probe[key])
        else:
            probe[random.randint(0, 9)] = random.randint(0, 9)
        return probe
    if t is set or t is frozenset:
        items = list(v)
        if items:
            items[random.randrange(_len(items))] = _probe_like(items[0])
        else:
            items.append(random.randint(0, 9))
        return t(items)
    return random.randint(0, 9)


def _like_pool(c):
    import string

    for pool in (string.ascii_lowercase, string.ascii_uppercase, string.digits, string.punctuation + " "):
        if c in pool:
            return pool
    return string.ascii_lowercase


def _judge_may(kind, body):
    """Whether the judge serves the candidate's request: an operation on an
    object of the test's it was handed, never on a private attribute."""
    if kind == "call" or kind == "pcall":
        return _handed(body[0])
    if kind != "op" or _type(body[0]) is not str or body[0] not in _OPS or not body[1]:
        return False
    op, operands = body
    if not _handed(operands[0]):
        return False
    if op in ("getattr", "setattr", "delattr"):
        name = operands[1] if _len(operands) > 1 else None
        return _type(name) is str and (not name.startswith("_") or name in _DUNDERS_SEEN)
    return op != "instance"


def _handed(v):
    sid = _sid_of.get(id(v))
    return sid in _mine and _objs.get(sid) is v


_FORBIDDEN = None


def _judge_named(v):
    """A node for the judge's object `v` that is not a handle: a name of the
    program's, or a standard-library callable by name."""
    global _FORBIDDEN
    t = _type(v)
    if t is _Proxy:
        return ["p", object.__getattribute__(v, "_name")]
    if _FORBIDDEN is None:
        import types

        _FORBIDDEN = (types.FrameType, types.CodeType, types.TracebackType, types.CellType)
    if _isinstance(v, _FORBIDDEN):
        raise _BridgeFault("the judge does not send a " + t.__name__)
    if callable(v):
        try:
            return _by_name_tree(v)
        except _BaseException:
            return None
    return None


def _judge_ref(n):
    """What a p, n or M node of the candidate's stands for."""
    if n[0] == "p" and _len(n) == 2 and _type(n[1]) is str:
        return _Proxy(n[1])
    if n[0] == "n" and _len(n) == 3:
        if n[1] == "builtins" and n[2] in _BUILTIN_EXCEPTIONS:
            return builtins.__dict__[n[2]]
        obj = _by_name(n[1], n[2], True)
        if obj is not None:
            return obj
    if n[0] == "M" and _len(n) == 2 and _type(n[1]) is str:
        module = _module(n[1])
        if module is not None:
            return module
    raise _NotData("a reference the judge does not take")


_STOPPING = (SystemExit, KeyboardInterrupt, GeneratorExit)
_mirrors = {}


def _judge_exception_class(cls):
    """The class an exception of the candidate's gets in the judge: never one
    that would stop the judge."""
    if issubclass(cls, _STOPPING):
        name = cls.__name__
        mirror = _mirrors.get(name)
        if mirror is None:
            mirror = _type(name, (Exception,), {"__str__": _mirror_str, "__module__": "__main__"})
            _mirrors[name] = mirror
        return mirror
    return cls


def _judge_base(name):
    base = builtins.__dict__.get(name)
    if _isinstance(base, _type) and issubclass(base, Exception) and not issubclass(base, _STOPPING):
        return base
    return Exception


def _judge_raised(exc, what):
    if not _isinstance(exc, BaseException):
        _lose("malformed (an exception)", what)
    if _isinstance(exc, MemoryError):
        raise _OutOfMemory()
    return exc


def _judge_receive(what):
    message = _receive(what)
    try:
        return _take(message)
    except _BridgeFault as exc:
        _lose("bridge: " + _str(exc), what)
    except (_Lost, _OutOfMemory):
        raise
    except _BaseException:
        _lose("malformed (not data)", what)


def _judge_send(message):
    if _lost is not None:
        raise _Lost(_lost)
    if not _write_all(JUDGE_CALL_FD, _frame(marshal.dumps(message))):
        _lose("closed", lambda: "a call")


def _judge_role():
    _side[0] = 0
    _role.update(
        peer=1,
        send=_judge_send,
        receive=_judge_receive,
        op=_judge_op,
        call=lambda h, args, kwargs: _call(h, args, kwargs, lambda: "a call of a " + object.__getattribute__(h, "_kind")),
        may=_judge_may,
        fatal=(_Lost, _OutOfMemory),
        raised=_judge_raised,
        releases=lambda sid: sid in _mine,
        named=_judge_named,
        exception_class=_judge_exception_class,
        decode=(_stand_in, _judge_ref, _judge_base, _make_exception),
        binds=lambda enc: None,
        bound=_rebound,
        sweep=lambda: _sweep(_mine, False),
    )

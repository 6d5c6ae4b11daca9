# --- the bridge's conversation and stand-ins (both processes) --------------------
#
# `_converse` sends a request and waits for its answer, serving the other
# side's requests (callbacks) meanwhile. A stand-in (`_Handle`) is the other
# side's object: every operation on it is a request. Each side sets the
# hooks in `_role`: send(message), receive(what), op(op, handle, operands,
# what), may(kind, body) (which requests of the other side it serves), and
# the decoder's hooks (see ungraph.py), and its peer's parity.

_role = {}


def _message(kind, body, transient, plain=False):
    """A message of this side: the body, the changes to what is shared,
    the ids it released, and (the candidate's) names bound anew. A `plain`
    message's containers get no id."""
    _role["sweep"]()
    enc = _Encoder(_handle_node, plain)
    enc.changes()
    slot = enc.transient("t", body) if transient else enc.value(body)
    binds = _role["binds"](enc)
    released = _released[:]
    del _released[:]
    return [kind, slot, enc.nodes, released, binds]


_sweep_at = [512]


def _sweep(sids, only, force=False):
    """Drops the shared objects nothing but the table holds any more: of
    `sids` if `only`, else of all but `sids`; once the table has grown."""
    if _len(_objs) < _sweep_at[0] and not force:
        return
    for _ in range(4):
        dropped = 0
        for sid in list(sids) if only else [s for s in _objs if s not in sids]:
            # The table and the call's argument.
            if sys.getrefcount(_objs[sid]) <= 2:
                _drop(sid)
                _released.append(sid)
                dropped += 1
        if not dropped:
            break
    _sweep_at[0] = max(512, 2 * _len(_objs))


def _forget_shared():
    """Releases every shared object but the judge's own handed-over ones
    and the stand-ins it still holds:
    for tests that are independent calls (HumanEval+ inputs, LiveCodeBench
    tests), whose inputs and outputs the judge keeps but whose identity and
    later changes no longer matter once a test is decided. Without it each
    message would compare every earlier input again."""
    for sid in [s for s in _objs if s not in _mine]:
        # A stand-in the judge still holds (a Solution's method) stays.
        if sid in _theirs and sys.getrefcount(_objs[sid]) > 2:
            continue
        _drop(sid)
        _released.append(sid)


def _handle_node(v):
    """A handle to an object of this side's, which stays here."""
    named = _role["named"](v)
    if named is not None:
        return named
    sid = _new_sid()
    _register(sid, v)
    _mine.add(sid)
    caps, sub = _caps_of(v)
    return ["h", sid, _type_name(v), caps, sub]


def _take(message):
    """(kind, body) of a message of the other side, after applying what it
    changed and released. Raises _NotData for anything malformed."""
    if _type(message) is not list or _len(message) != 5 or _type(message[0]) is not str:
        raise _NotData("not a message")
    kind, slot, nodes, released, binds = message
    if _type(released) is not list:
        raise _NotData("not a list of ids")
    for sid in released:
        if _type(sid) is not int:
            raise _NotData("not an id")
        if _role["releases"](sid):
            _drop(sid)
    dec = _Decoder(nodes, _role["peer"], _role["decode"])
    dec.run()
    if binds is not None:
        _role["bound"](binds, dec)
    return kind, dec.value(slot)


def _converse(kind, body, what, plain=False):
    """Sends request `kind`; its answer's value, or raises what it raised."""
    if _depth[0] >= _CALL_DEPTH_MAX:
        raise _BridgeFault("calls between the processes nested more than %d deep" % _CALL_DEPTH_MAX)
    _depth[0] += 1
    try:
        _role["send"](_message(kind, body, True, plain))
        while True:
            answer, value = _role["receive"](what)
            if answer == "ok":
                return value
            if answer == "raise":
                raise _role["raised"](value, what)
            _role["send"](_serve_request(answer, value))
    finally:
        _depth[0] -= 1


def _serve_request(kind, body):
    """The answer to a request of the other side."""
    try:
        if not _role["may"](kind, body):
            raise TypeError("the bridge does not serve this request")
        if kind == "call" or kind == "pcall":
            target, args, kwargs = body
            result = target(*args, **dict(kwargs))
        else:
            op, operands = body
            result = _OPS[op](*operands)
    except _BridgeFault:
        raise
    except _role["fatal"]:
        raise
    except _BaseException as exc:
        return _message("raise", exc, False)
    return _message("ok", result, False, kind == "pcall")


_DUNDERS_SEEN = frozenset(("__name__", "__qualname__", "__doc__", "__module__", "__wrapped__"))


def _remote(op):
    def method(self, *operands):
        return _role["op"](op, self, operands)

    method.__name__ = "__" + op + "__"
    return method


class _Handle:
    """An object of the other side's: every operation is a request."""

    __slots__ = ("_sid", "_kind", "_sub", "__weakref__")

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__") and attr not in _DUNDERS_SEEN:
            raise AttributeError(attr)
        return _role["op"]("getattr", self, (attr,))

    def __setattr__(self, attr, value):
        _role["op"]("setattr", self, (attr, value))

    def __delattr__(self, attr):
        _role["op"]("delattr", self, (attr,))

    def __repr__(self):
        text = _role["op"]("repr", self, ())
        return text if _type(text) is str else "<" + object.__getattribute__(self, "_kind") + ">"

    def __str__(self):
        text = _role["op"]("str", self, ())
        return text if _type(text) is str else "<" + object.__getattribute__(self, "_kind") + ">"


for _op in (
    "eq ne lt le gt ge hash format round neg pos abs invert add sub mul truediv floordiv mod "
    "pow and or xor lshift rshift radd rsub rmul rtruediv rfloordiv rmod rpow rand ror rxor "
    "matmul rmatmul divmod rdivmod"
).split():
    setattr(_Handle, "__" + _op + "__", _remote(_op))
del _op
_Handle.__doc__ = property(lambda self: _role["op"]("getattr", self, ("__doc__",)))

_CAP_OPS = "call iter next len getitem setitem delitem contains bool enter exit reversed index int float".split()
_handle_classes = {}
_STAND_INS = set()


def _stand_in(sid, kind, caps, sub):
    """A new stand-in for the other side's object `sid` of type `kind`,
    with the special methods `caps` says its type has."""
    key = (kind, caps)
    cls = _handle_classes.get(key)
    if cls is None:
        space = {"__slots__": (), "__doc__": _Handle.__dict__["__doc__"]}
        for i, op in enumerate(_CAP_OPS):
            if caps[i : i + 1] == "1":
                space["__" + op + "__"] = _remote(op)
        if "__call__" in space:
            space["__call__"] = _call_remote
        if "__exit__" in space:
            space["__exit__"] = _exit_remote
        if "u" in caps:
            space["__hash__"] = None
        cls = _type(kind if kind.isidentifier() else "object", (_Handle,), space)
        if _len(_handle_classes) < 4096:
            _handle_classes[key] = cls
        _STAND_INS.add(cls)
    h = object.__new__(cls)
    object.__setattr__(h, "_sid", sid)
    object.__setattr__(h, "_kind", kind)
    object.__setattr__(h, "_sub", sub)
    return h


def _call_remote(self, *args, **kwargs):
    return _role["call"](self, args, kwargs)


def _exit_remote(self, kind, value, tb):
    return _role["op"]("exit", self, (kind, value, None))


def _is_stand_in(v):
    return _type(v) in _STAND_INS


def _dunder(name):
    """`type(a).<name>(a, b)` as CPython calls it for an operator, so that
    NotImplemented comes back and the caller's side reflects as it would."""

    def op(a, *rest):
        method = getattr(_type(a), name, None)
        if method is None:
            return NotImplemented
        return method(a, *rest)

    return op


_OPS = {
    "getattr": getattr,
    "setattr": setattr,
    "delattr": delattr,
    "instance": isinstance,
    "bool": bool,
    "len": len,
    "hash": hash,
    "iter": iter,
    "next": next,
    "reversed": reversed,
    "enter": lambda a: a.__enter__(),
    "exit": lambda a, t, v, tb: a.__exit__(t, v, tb),
    "contains": lambda a, b: b in a,
    "getitem": lambda a, b: a[b],
    "setitem": lambda a, b, c: a.__setitem__(b, c),
    "delitem": lambda a, b: a.__delitem__(b),
    "str": str,
    "repr": repr,
    "format": format,
    "int": int,
    "float": float,
    "index": lambda a: a.__index__(),
    "round": round,
    "neg": lambda a: -a,
    "pos": lambda a: +a,
    "abs": abs,
    "invert": lambda a: ~a,
}
for _op in (
    "eq ne lt le gt ge add sub mul matmul truediv floordiv mod divmod pow and or xor lshift rshift "
    "radd rsub rmul rmatmul rtruediv rfloordiv rmod rdivmod rpow rand ror rxor"
).split():
    _OPS[_op] = _dunder("__" + _op + "__")
del _op
def _make_exception(cls, args, message, line, attrs):
    """The exception an X node describes, as an object of this side."""
    if _type(cls) is not _type or not issubclass(cls, BaseException) or _type(args) is not tuple:
        raise _NotData("an exception that is not one")
    cls = _role["exception_class"](cls)
    exc = None
    mirror = cls.__dict__.get("__str__") is _mirror_str
    if not mirror and builtins.__dict__.get(cls.__name__) is cls:
        try:
            exc = cls(*args)
        except _BaseException:
            exc = None
    if exc is None or _type(exc) is not cls:
        exc = BaseException.__new__(cls)
        exc.args = args
    if mirror and _type(message) is str:
        exc._bridge_message = message
    for pair in attrs:
        if _type(pair) is tuple and _len(pair) == 2 and _type(pair[0]) is str and not pair[0].startswith("_"):
            try:
                setattr(exc, pair[0], pair[1])
            except _BaseException:
                pass
    if line is None or _type(line) is int:
        exc._execscope_line = line
    return exc


def _call_body(target, args, kwargs):
    return (target, _Transient("t", tuple(args)), _Transient("l", [_Transient("t", (k, v)) for k, v in kwargs.items()]))

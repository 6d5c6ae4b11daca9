# --- the judge's stand-ins for the candidate's objects ---------------------------
#
# A proxy stands for a function or class of the program's, a handle for an
# object that stays in the candidate process. Calling a proxy, and every
# operation on a handle, is a request to the candidate process (judge.py's
# `_exchange`); an operation that lets the candidate's own code decide
# something (anything but setting an attribute) marks the assertion, which
# is flagged if it passes.


def _show(value):
    """A short description of a value, asking the candidate nothing."""
    t = _type(value)
    if t is _Handle:
        return "<" + object.__getattribute__(value, "_type") + ">"
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
        return _call(["p", name], args, kwargs, what)

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        name = object.__getattribute__(self, "_name")
        return _request("getattr", ["p", name], (attr,), lambda: name + "." + attr)

    def __instancecheck__(self, obj):
        name = object.__getattribute__(self, "_name")
        if _type(obj) is not _Handle:
            return False
        # The candidate's object says what class it is: it decides.
        _decided[0] = True
        return _request("instance", _judge_ref(obj), (self,), lambda: "isinstance(..., " + name + ")") is True

    def __repr__(self):
        return "<" + object.__getattribute__(self, "_name") + " of the program>"


def _request(op, target, operands, what):
    trees = [_to_candidate(o) for o in operands]
    return _outcome(_exchange(["op", op, target] + trees, what), (), {}, what)


def _handle_op(op, decides):
    def method(self, *operands):
        if decides:
            _decided[0] = True
        kind = object.__getattribute__(self, "_type")
        result = _request(op, _judge_ref(self), operands, lambda: op + " on a " + kind)
        if (op == "eq" and result is True) or (op == "ne" and result is False):
            _decided[1] = True
        return result

    method.__name__ = "__" + op + "__"
    return method


class _Handle:
    """An object that stays in the candidate process (an instance of a class
    of the program's, a generator, a subclass of a builtin type that may
    override a comparison). Every operation on it is a request, and every
    one but setting an attribute lets the candidate decide something."""

    __slots__ = ("_id", "_type")

    def __init__(self, id, kind):
        object.__setattr__(self, "_id", id)
        object.__setattr__(self, "_type", kind)

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return _handle_op("getattr", True)(self, attr)

    def __setattr__(self, attr, value):
        _handle_op("setattr", False)(self, attr, value)

    def __delattr__(self, attr):
        _handle_op("delattr", False)(self, attr)

    def __iter__(self):
        return iter(_handle_op("iter", True)(self))

    def __repr__(self):
        text = _handle_op("repr", True)(self)
        return text if _type(text) is str else "<" + object.__getattribute__(self, "_type") + ">"

    def __str__(self):
        text = _handle_op("str", True)(self)
        return text if _type(text) is str else "<" + object.__getattribute__(self, "_type") + ">"


for _op in (
    "eq ne lt le gt ge bool len hash contains getitem setitem delitem int float index "
    "round neg pos abs invert add sub mul truediv floordiv mod pow and or xor lshift "
    "rshift radd rsub rmul rtruediv rfloordiv rmod rpow rand ror rxor"
).split():
    setattr(_Handle, "__" + _op + "__", _handle_op(_op, True))
_Handle.__call__ = _handle_op("call", True)
del _op

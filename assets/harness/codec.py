# --- the data codec ----------------------------------------------------------
#
# The values the host hands the judge (HumanEval+ inputs and the reference's
# recorded outputs, LiveCodeBench call tests) are trees made only of None,
# bool, int, float, str and lists; a list always starts with a tag saying what
# it stands for. (Between the judge and the candidate process values cross
# through the object bridge instead: bridge.py.)
#
#   l t s f     list, tuple, set, frozenset: ["l", item, ...]
#   d o C       dict, OrderedDict, Counter: ["d", key, value, key, value, ...]
#   D           defaultdict: ["D", factory or None, key, value, ...]
#   q           deque: ["q", maxlen or None, item, ...]
#   b B         bytes, bytearray: ["b", hex]
#   i           an int of 2**60 or more either way: ["i", hex] (no digit limit)
#   c F E r     complex [re, im], Fraction [num, den], Decimal [text],
#               range [start, stop, step]
#   m           a regular-expression match: ["m", string, [start, end], ...]
#               (the span of every group, [-1, -1] for one that did not take part)
#
# Only exact types are data (`_to_tree` calls `other` for anything else); a
# namedtuple whose class overrides nothing that compares, hashes or converts
# is its tuple. Trees decode into fresh objects of exactly these types,
# within bounds of depth and size. The safe standard-library names
# (`_by_name`) also serve the bridge.

TREE_DEPTH_MAX = 200
_SMALL_INT = 1 << 60


class _NotData(Exception):
    """A value the codec cannot send (too deep, or a type it does not know)."""


def _std_type(module, name):
    """A standard-library type if its module is loaded, else None (so that
    checking a value's type never imports anything)."""
    m = sys.modules.get(module)
    return getattr(m, name, None) if m is not None else None


# Methods whose override makes a tuple subclass more than its items.
_TUPLE_BEHAVIOUR = frozenset(
    "__eq__ __ne__ __lt__ __le__ __gt__ __ge__ __hash__ __bool__ __len__ __iter__ "
    "__getitem__ __contains__ __int__ __float__ __index__ __complex__ __add__ __radd__ "
    "__mul__ __rmul__ __class_getitem__ __reversed__".split()
)


def _plain_tuple_class(cls):
    """A tuple subclass (namedtuple) that only names its items."""
    try:
        for c in cls.__mro__:
            if c is tuple:
                return True
            if c is object or not _TUPLE_BEHAVIOUR.isdisjoint(c.__dict__):
                return False
    except _BaseException:
        return False
    return False


def _to_tree(v, other, depth=0):
    """The tree of value `v`; `other(v)` gives the tree of anything that is not
    data (a handle, a proxy) or raises _NotData."""
    t = _type(v)
    if t is str or t is float or t is bool or v is None:
        return v
    if t is int:
        return v if -_SMALL_INT < v < _SMALL_INT else ["i", hex(v)]
    if depth >= TREE_DEPTH_MAX:
        raise _NotData("nested more than %d deep" % TREE_DEPTH_MAX)
    d = depth + 1
    if t is list or t is tuple or t is set or t is frozenset:
        tag = "l" if t is list else "t" if t is tuple else "s" if t is set else "f"
        return [tag] + [_to_tree(x, other, d) for x in v]
    if t is dict:
        return _pairs(["d"], v, other, d)
    if t is bytes:
        return ["b", v.hex()]
    if t is bytearray:
        return ["B", v.hex()]
    if t is complex:
        return ["c", v.real, v.imag]
    if t is range:
        return ["r", _to_tree(v.start, other, d), _to_tree(v.stop, other, d), _to_tree(v.step, other, d)]
    if _isinstance(v, tuple) and _plain_tuple_class(t):
        return ["t"] + [_to_tree(x, other, d) for x in tuple.__iter__(v)]
    if t is _std_type("collections", "OrderedDict"):
        return _pairs(["o"], v, other, d)
    if t is _std_type("collections", "Counter"):
        return _pairs(["C"], v, other, d)
    if t is _std_type("collections", "defaultdict"):
        factory = v.default_factory
        head = None if factory is None else _by_name_tree(factory)
        return _pairs(["D", head], v, other, d)
    if t is _std_type("collections", "deque"):
        return ["q", v.maxlen] + [_to_tree(x, other, d) for x in v]
    if t is _std_type("fractions", "Fraction"):
        return ["F", _to_tree(v.numerator, other, d), _to_tree(v.denominator, other, d)]
    if t is _std_type("decimal", "Decimal"):
        return ["E", v.__str__()]
    if t is _std_type("re", "Match"):
        return ["m", _to_tree(v.string, other, d)] + [list(v.span(i)) for i in range(v.re.groups + 1)]
    return other(v)


def _pairs(head, mapping, other, d):
    for k, x in dict.items(mapping):
        head.append(_to_tree(k, other, d))
        head.append(_to_tree(x, other, d))
    return head


# Standard-library callables that may be named across (a test hands `int` to
# the function under test; a program binds `Counter` that a test uses).
_SAFE_BUILTINS = frozenset(
    "int float str bool list tuple dict set frozenset bytes bytearray complex object range "
    "slice type len abs min max sum sorted reversed round pow divmod all any map filter zip "
    "enumerate chr ord hex oct bin hash repr isinstance issubclass callable format iter next "
    "id ascii Exception ValueError TypeError KeyError IndexError ZeroDivisionError "
    "ArithmeticError AssertionError RuntimeError NotImplementedError".split()
)
_SAFE_MODULES = frozenset(
    "math cmath operator itertools functools collections collections.abc heapq bisect "
    "string re typing fractions decimal statistics copy datetime textwrap unicodedata "
    "numbers array enum random json hashlib calendar dataclasses abc".split()
)


def _by_name_tree(obj):
    """["n", module, qualname] for a standard-library callable found under that
    name; a _NotData otherwise."""
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None)
    if _type(module) is str and _type(name) is str and _by_name(module, name, False) is obj:
        return ["n", module, name]
    raise _NotData("not a standard-library object")


def _by_name(module, name, load):
    """The object `module.name` among the safe ones (the module imported when
    `load`), or None: a builtin of `_SAFE_BUILTINS`, or a class or function
    that a module of `_SAFE_MODULES` defines at its top level (never a
    module, never reached through another attribute)."""
    if _type(module) is not str or _type(name) is not str:
        return None
    if module == "builtins":
        return builtins.__dict__.get(name) if name in _SAFE_BUILTINS else None
    if module not in _SAFE_MODULES or "." in name or name.startswith("_"):
        return None
    m = sys.modules.get(module)
    if m is None and load:
        try:
            __import__(module)
            m = sys.modules.get(module)
        except _BaseException:
            return None
    obj = getattr(m, name, None) if m is not None else None
    if obj is None or _type(obj) is _type(sys) or not callable(obj):
        return None
    home = getattr(obj, "__module__", None)
    if _type(home) is not str or home.lstrip("_").split(".")[0] != module.split(".")[0]:
        return None
    return obj


def _from_tree(x, depth=0):
    """The value of tree `x`. Raises on anything that is not a well-formed
    tree."""
    t = _type(x)
    if t is not list:
        if t is str or t is int or t is float or t is bool or x is None:
            return x
        raise _NotData("not a tree: " + t.__name__)
    if depth >= TREE_DEPTH_MAX:
        raise _NotData("nested more than %d deep" % TREE_DEPTH_MAX)
    d = depth + 1
    tag = x[0]
    if tag == "l":
        return [_from_tree(y, d) for y in x[1:]]
    if tag == "t":
        return tuple([_from_tree(y, d) for y in x[1:]])
    if tag == "s":
        return set([_from_tree(y, d) for y in x[1:]])
    if tag == "f":
        return frozenset([_from_tree(y, d) for y in x[1:]])
    if tag == "d":
        return _mapping(dict(), x, 1, d)
    if tag == "i":
        return int(_string(x[1]), 16)
    if tag == "b":
        return bytes.fromhex(_string(x[1]))
    if tag == "B":
        return bytearray.fromhex(_string(x[1]))
    if tag == "c":
        return complex(_number(x[1]), _number(x[2]))
    if tag == "r":
        return range(_integer(_from_tree(x[1], d)), _integer(_from_tree(x[2], d)), _integer(_from_tree(x[3], d)))
    if tag == "o" or tag == "C" or tag == "D" or tag == "q":
        import collections

        if tag == "o":
            return _mapping(collections.OrderedDict(), x, 1, d)
        if tag == "C":
            return _mapping(collections.Counter(), x, 1, d)
        if tag == "D":
            f = x[1]
            factory = None
            if f is not None:
                ok = _type(f) is list and _len(f) == 3 and f[0] == "n"
                factory = _by_name(f[1], f[2], True) if ok else None
                if factory is None:
                    raise _NotData("a default factory that is not a standard one")
            return _mapping(collections.defaultdict(factory), x, 2, d)
        maxlen = x[1]
        if maxlen is not None:
            maxlen = _integer(maxlen)
        return collections.deque([_from_tree(y, d) for y in x[2:]], maxlen)
    if tag == "F":
        import fractions

        return fractions.Fraction(_integer(_from_tree(x[1], d)), _integer(_from_tree(x[2], d)))
    if tag == "E":
        import decimal

        return decimal.Decimal(_string(x[1]))
    if tag == "m":
        return _Match(_from_tree(x[1], d), [tuple(map(_integer, s)) for s in x[2:]])
    raise _NotData("unknown tag %r" % (tag,))


def _mapping(m, x, start, d):
    if (_len(x) - start) % 2:
        raise _NotData("a mapping with a key and no value")
    for i in range(start, _len(x), 2):
        m[_from_tree(x[i], d)] = _from_tree(x[i + 1], d)
    return m


def _string(x):
    if _type(x) is not str:
        raise _NotData("expected a string")
    return x


def _integer(x):
    if _type(x) is not int:
        raise _NotData("expected an integer")
    return x


def _number(x):
    if _type(x) is not int and _type(x) is not float:
        raise _NotData("expected a number")
    return x


class _Match:
    """A regular-expression match as data: its string, pattern, flags and
    the span of each group, with the API of `re.Match`."""

    def __init__(self, string, spans, pattern=None, flags=0, pos=0, endpos=None, index=None, last=None):
        self.string = string
        self._spans = spans
        self.pos = pos
        self.endpos = _len(string) if endpos is None else endpos
        self._index = index or {}
        self._pattern = pattern
        self._flags = flags
        self.lastindex = last
        names = {i: k for k, i in self._index.items()}
        self.lastgroup = names.get(last)

    @property
    def re(self):
        import re

        return re.compile(self._pattern, self._flags)

    @property
    def regs(self):
        return tuple(self._spans)

    def _number(self, g):
        if _type(g) is str:
            if g not in self._index:
                raise IndexError("no such group")
            return self._index[g]
        if not (0 <= g < _len(self._spans)):
            raise IndexError("no such group")
        return g

    def span(self, group=0):
        return self._spans[self._number(group)]

    def start(self, group=0):
        return self.span(group)[0]

    def end(self, group=0):
        return self.span(group)[1]

    def group(self, *groups):
        found = [self._group(g) for g in groups or (0,)]
        return found[0] if _len(found) == 1 else tuple(found)

    def _group(self, g):
        start, end = self._spans[self._number(g)]
        return None if start < 0 else self.string[start:end]

    def groups(self, default=None):
        return tuple(default if s < 0 else self.string[s:e] for s, e in self._spans[1:])

    def groupdict(self, default=None):
        return {k: (default if self._spans[i][0] < 0 else self._group(i)) for k, i in self._index.items()}

    def expand(self, template):
        import re

        return re._expand(self.re, self, template)

    def __getitem__(self, g):
        return self._group(g)

    def __bool__(self):
        return True

    def __repr__(self):
        return "<re.Match object; span=%r, match=%r>" % (self.span(), self.group())

# --- the object bridge ---------------------------------------------------------
#
# The judge and the candidate process share the objects that cross between
# them. Only one side runs at a time (the judge waits while the candidate
# computes, the candidate waits while a callback of the test's runs), so both
# keep one picture of what they share:
#
# - Every object that crosses gets an id (a "sid": the judge's are even, the
#   candidate's odd) in a table on each side. Data (lists, dicts, sets,
#   tuples, bytearrays and the standard-library containers) is replicated:
#   each side holds its own copy under the sid. Anything else stays where it
#   was made and the other side holds a stand-in (`_Handle`) whose every
#   operation is a request.
# - A message carries an object graph as a flat list of nodes (no nesting
#   deeper than a few levels, whatever the value's depth): an object reached
#   twice arrives as one object, and one the receiver already holds comes as
#   a reference to it, so `f(l) is l` holds when the program returns its
#   argument.
# - Before control passes, the side that ran sends the new contents of every
#   shared mutable object it changed (found by comparing the items, by
#   identity, with a snapshot taken when the object last crossed): a mutation
#   is seen whenever it happened and through whichever name.
# - Ids are released in batches: the judge drops data and stand-ins nothing
#   holds any more (reference counts) and says so; the candidate drops
#   stand-ins of the judge's objects and says so. An object keeps its id
#   while the other side may still name it.
#
# A message is [kind, body, nodes, released sids, bindings]; `body` is a slot
# (a value). A slot is None, a bool, a float, a str, an int under 2**60, or
# [k]: node k of the message. Nodes (src/sandbox/wire.rs lists them too):
#
#   ["@", sid]                  an object both sides already hold
#   [tag, sid, ...]             l list, t tuple, s set, f frozenset, d dict
#                               (key, value, ...), B bytearray (hex),
#                               o OrderedDict, C Counter, D defaultdict
#                               (factory slot first), q deque (maxlen first);
#                               sid None for a message's own structure;
#                               a sid already held updates that object
#   ["N", sid, class, item...]  a namedtuple; class is a Q node
#   ["Q", sid, name, [field...]] a namedtuple class that only names items
#   ["K", sid, name, builtin, parent]  an exception class (parent: a K or None)
#   ["X", class, args, message, line, attrs]  an exception (class: a K node or
#                               ["n", "builtins", name]; attrs [[name, slot]...])
#   ["h", sid, type, caps, subclass]  an object that stays with its sender
#   ["i", hex] ["b", hex] ["c", re, im] ["F", num, den] ["E", text]
#   ["r", start, stop, step] ["T", kind, ...] (the datetime family)
#   ["m", ...] a regular-expression match; ["p", name] ["n", module, name]
#   ["M", module] as in codec.py
#
# Kinds: requests "call" (body: target, args, [[key, value]...]), "pcall" (the
# same, whose arguments and answer cross as plain data without ids: tests
# that are independent inputs), "op" (body: op, operands), and the judge's
# "names", "stdin" and "suite"; answers "ok" (body: the value) and "raise"
# (body: the exception). Either side may send a request while it waits for
# an answer (a callback), to a bounded depth.

_CALL_DEPTH_MAX = 40
_TABLE_MAX = 1 << 18
_NODES_MAX = 1 << 22


class _BridgeFault(BaseException):
    """The bridge cannot go on (a value it cannot carry, a bound exceeded):
    never an exception the program or the tests can catch."""


_MISSING = object()
_objs = {}  # sid -> this side's object for it (its own, a copy, a stand-in)
_sid_of = {}  # id(object) -> sid
_marks = {}  # sid -> snapshot of a mutable data object as it last crossed
_theirs = set()  # sids of stand-ins for the other side's objects
_mine = set()  # sids of this side's objects that the other side holds a stand-in for
_released = []  # sids this side dropped, to be said in its next message
_side = [0, 0]  # [parity of this side's sids, next sid]
_depth = [0]


def _new_sid():
    sid = _side[1] * 2 + _side[0]
    _side[1] += 1
    return sid


def _register(sid, obj):
    if _len(_objs) >= _TABLE_MAX:
        raise _BridgeFault("more than %d shared objects" % _TABLE_MAX)
    _objs[sid] = obj
    _sid_of[id(obj)] = sid


def _drop(sid):
    obj = _objs.pop(sid, _MISSING)
    if obj is not _MISSING:
        _sid_of.pop(id(obj), None)
    _marks.pop(sid, None)
    _theirs.discard(sid)
    _mine.discard(sid)


def _std(module, name):
    m = sys.modules.get(module)
    return getattr(m, name, None) if m is not None else None


def _snapshot(obj):
    """What a mutable data object holds, by identity (to tell a change)."""
    t = _type(obj)
    if t is bytearray:
        return bytes(obj)
    if t is list:
        return list.copy(obj)
    if _isinstance(obj, dict):
        return (list(dict.keys(obj)), list(dict.values(obj)), getattr(obj, "default_factory", None))
    return list(obj)


def _same_items(a, b):
    if _len(a) != _len(b):
        return False
    for x, y in zip(a, b):
        if x is not y:
            return False
    return True


def _changed(obj, mark):
    t = _type(obj)
    if t is bytearray:
        return bytes(obj) != mark
    if t is list or not _isinstance(obj, dict):
        return not _same_items(obj if t is list else list(obj), mark)
    keys, values, factory = mark
    return (
        not _same_items(list(dict.keys(obj)), keys)
        or not _same_items(list(dict.values(obj)), values)
        or getattr(obj, "default_factory", None) is not factory
    )


_TAG_OF = {list: "l", dict: "d", set: "s", bytearray: "B"}
_collections_tagged = [False]


def _mutable_tag(t):
    """The tag of a mutable data type, or None (the collections types join
    once that module is loaded: looking a type up never imports it)."""
    tag = _TAG_OF.get(t)
    if tag is None and not _collections_tagged[0]:
        m = sys.modules.get("collections")
        if m is not None:
            _TAG_OF.update({m.OrderedDict: "o", m.Counter: "C", m.defaultdict: "D", m.deque: "q"})
            _collections_tagged[0] = True
            tag = _TAG_OF.get(t)
    return tag


_NAMEDTUPLE_OWN = frozenset(
    "__doc__ __slots__ _fields _field_defaults __new__ _make _replace __repr__ _asdict "
    "__getnewargs__ __match_args__ __module__ __orig_bases__ __annotations__ _field_types "
    "__qualname__".split()
)


def _plain_namedtuple(cls):
    """A namedtuple class (collections or typing) that only names its items."""
    try:
        if cls.__bases__ != (tuple,):
            return False
        fields = cls.__dict__.get("_fields")
        if _type(fields) is not tuple or not all(_type(f) is str for f in fields):
            return False
        return all(k in _NAMEDTUPLE_OWN or k in fields for k in cls.__dict__)
    except _BaseException:
        return False


_CAPS = (
    "__call__ __iter__ __next__ __len__ __getitem__ __setitem__ __delitem__ __contains__ "
    "__bool__ __enter__ __exit__ __reversed__ __index__ __int__ __float__"
).split()
_DATA_BASES = (int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset)


def _caps_of(v):
    """Which special methods the type of `v` has (one letter each), and
    whether it derives from a builtin data type."""
    try:
        t = _type(v)
        caps = "".join("1" if getattr(t, name, None) is not None else "0" for name in _CAPS)
        if getattr(t, "__hash__", None) is None:
            caps += "u"
        return caps, _isinstance(v, _DATA_BASES)
    except _BaseException:
        return "1" * _len(_CAPS), False


def _type_name(v):
    try:
        return _str(_type(v).__name__)[:200]
    except _BaseException:
        return "object"


_BUILTIN_EXCEPTIONS = frozenset(
    n for n, v in builtins.__dict__.items() if _isinstance(v, _type) and issubclass(v, BaseException)
)


def _builtin_base(cls):
    """The name of the builtin exception `cls` derives from nearest."""
    try:
        for k in cls.__mro__:
            if builtins.__dict__.get(k.__name__) is k:
                return k.__name__
    except _BaseException:
        pass
    return "Exception"

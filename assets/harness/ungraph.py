# --- the bridge's object graphs, decoded (bridge.py says what the nodes are) ------
#
# Three passes, none recursive: the mutable objects' shells (so that aliases
# and cycles resolve to one object), the immutable ones children first, then
# the mutable ones' contents. A sid already held updates its object in place.

_UNSET = object()
_MUTABLE_TAGS = frozenset("ldsBoCDq")
_SHELLS = {"l": list, "d": dict, "s": set, "B": bytearray}
_SCALARS = frozenset((str, int, float, bool, _type(None)))
_CHILDREN = {
    "t": lambda n: n[2:],
    "f": lambda n: n[2:],
    "N": lambda n: n[2:],
    "K": lambda n: n[4:5],
    "X": lambda n: [n[1], n[2]] + [p for p in (n[5] if _type(n[5]) is list else ())],
    "r": lambda n: n[1:4],
    "S": lambda n: n[1:4],
    "F": lambda n: n[1:3],
    "m": lambda n: n[1:3],
    "T": lambda n: n[9:10] if n[1] == "t" else n[6:7] if n[1] == "h" else (),
}


class _Decoder:
    """The objects of one message's nodes. `peer` is the parity of the
    sender's sids; `hooks` are the receiving side's: stand_in(sid, type, caps,
    subclass), ref(node) for p, n and M, base(name) for an exception
    class's builtin base."""

    __slots__ = ("nodes", "objs", "peer", "hooks", "fill")

    def __init__(self, nodes, peer, hooks):
        if _type(nodes) is not list or _len(nodes) > _NODES_MAX:
            raise _NotData("not a list of nodes")
        self.nodes = nodes
        self.objs = [_UNSET] * _len(nodes)
        self.peer = peer
        self.hooks = hooks
        self.fill = []

    def run(self):
        nodes, objs = self.nodes, self.objs
        for k, n in enumerate(nodes):
            if _type(n) is not list or not n or _type(n[0]) is not str:
                raise _NotData("not a node")
            tag = n[0]
            if tag == "@":
                obj = _objs.get(_sid(n, 1), _MISSING)
                if obj is _MISSING:
                    raise _NotData("an object that is not shared")
                objs[k] = obj
            elif tag in _MUTABLE_TAGS:
                objs[k] = self.shell(k, n, tag)
            elif tag == "h":
                objs[k] = self.handle(n)
        # Children come after their parents: built last first, each finds
        # its children made.
        for k in range(_len(nodes) - 1, -1, -1):
            if objs[k] is _UNSET:
                self.build(k)
        for k, sid, obj, n in self.fill:
            self.contents(obj, n)
            if sid is not None:
                _marks[sid] = _snapshot(obj)

    def value(self, s):
        t = _type(s)
        if t is str or t is float or t is bool or t is int or s is None:
            return s
        if t is list and _len(s) == 1 and _type(s[0]) is int and 0 <= s[0] < _len(self.objs):
            obj = self.objs[s[0]]
            if obj is _UNSET:
                raise _NotData("a node that refers to itself")
            return obj
        raise _NotData("not a slot")

    def known(self, n, want):
        """The object of sid n[1] if it is shared already (of exactly type
        `want`, unless want is None), or None for a new one."""
        sid = n[1]
        if sid is None:
            return None
        obj = _objs.get(_sid(n, 1), _MISSING)
        if obj is _MISSING:
            if sid % 2 != self.peer:
                raise _NotData("an id the sender does not own")
            return None
        if want is not None and _type(obj) is not want:
            raise _NotData("an id of another type")
        return obj

    def shell(self, k, n, tag):
        make = _SHELLS.get(tag)
        if make is None:
            # (Only now: importing collections costs a fresh process milliseconds.)
            import collections

            make = {"o": collections.OrderedDict, "C": collections.Counter,
                    "D": collections.defaultdict, "q": collections.deque}[tag]
        obj = self.known(n, make)
        if obj is None:
            obj = make((), _int_or_none(n[2])) if tag == "q" else make()
            if n[1] is not None:
                _register(n[1], obj)
        elif tag == "q" and obj.maxlen != n[2]:
            raise _NotData("a deque's maxlen changed")
        self.fill.append((k, n[1], obj, n))
        return obj

    def handle(self, n):
        if _len(n) != 5 or _type(n[2]) is not str or _type(n[3]) is not str:
            raise _NotData("a malformed handle")
        obj = self.known(n, None)
        if obj is not None:
            if n[1] not in _theirs:
                raise _NotData("a handle to an object that is not the sender's")
            return obj
        obj = self.hooks[0](n[1], n[2][:200], n[3][:40], n[4] is True)
        _register(n[1], obj)
        _theirs.add(n[1])
        return obj

    def contents(self, obj, n):
        tag = n[0]
        if tag == "l":
            value = self.value
            list.__setitem__(obj, slice(None), [s if _type(s) in _SCALARS else value(s) for s in n[2:]])
        elif tag == "s":
            obj.clear()
            obj.update([self.value(s) for s in n[2:]])
        elif tag == "q":
            obj.clear()
            obj.extend([self.value(s) for s in n[3:]])
        elif tag == "B":
            obj[:] = bytes.fromhex(_string(n[2]))
        else:
            start = 2
            if tag == "D":
                obj.default_factory = self.value(n[2])
                start = 3
            if (_len(n) - start) % 2:
                raise _NotData("a mapping with a key and no value")
            obj.clear()
            for i in range(start, _len(n), 2):
                obj[self.value(n[i])] = self.value(n[i + 1])

    def build(self, k):
        """Builds node k and the immutable nodes it needs, children first."""
        nodes, objs = self.nodes, self.objs
        stack, busy = [k], set()
        while stack:
            top = stack[-1]
            if objs[top] is not _UNSET:
                stack.pop()
                continue
            n = nodes[top]
            busy.add(top)
            pending = []
            children = _CHILDREN.get(n[0])
            if children is not None and not (n[0] in "tfNKQ" and self.known_immutable(top, n)):
                for s in children(n):
                    if _type(s) is list and _len(s) == 1 and _type(s[0]) is int and 0 <= s[0] < _len(nodes):
                        if objs[s[0]] is _UNSET:
                            if s[0] in busy:
                                raise _NotData("a cycle through immutable objects")
                            pending.append(s[0])
            if pending:
                stack.extend(pending)
                continue
            if objs[top] is _UNSET:
                objs[top] = self.make(n)
            stack.pop()

    def known_immutable(self, k, n):
        obj = self.known(n, None) if _len(n) > 1 and (n[1] is None or _type(n[1]) is int) else None
        if obj is not None:
            self.objs[k] = obj
            return True
        return False

    def make(self, n):
        tag, v = n[0], self.value
        if tag == "t" or tag == "f" or tag == "N" or tag == "Q" or tag == "K":
            return self.make_shared(n, tag)
        if tag == "X":
            return self.hooks[3](v(n[1]), v(n[2]), n[3], n[4], [v(p) for p in n[5]])
        if tag == "i":
            return int(_string(n[1]), 16)
        if tag == "b":
            return bytes.fromhex(_string(n[1]))
        if tag == "c":
            return complex(_number(n[1]), _number(n[2]))
        if tag == "r":
            return range(_integer(v(n[1])), _integer(v(n[2])), _integer(v(n[3])))
        if tag == "F":
            import fractions

            return fractions.Fraction(_integer(v(n[1])), _integer(v(n[2])))
        if tag == "E":
            import decimal

            return decimal.Decimal(_string(n[1]))
        if tag == "S":
            return slice(v(n[1]), v(n[2]), v(n[3]))
        if tag == "~":
            if n[1] == "NotImplemented":
                return NotImplemented
            if n[1] == "Ellipsis":
                return Ellipsis
            raise _NotData("an unknown singleton")
        if tag == "T":
            return _datetime_of(n, v)
        if tag == "m":
            return _match_of(n, v)
        if tag == "p" or tag == "n" or tag == "M":
            return self.hooks[1](n)
        raise _NotData("unknown tag %r" % (tag,))

    def make_shared(self, n, tag):
        v = self.value
        if tag == "t":
            obj = tuple([s if _type(s) in _SCALARS else v(s) for s in n[2:]])
        elif tag == "f":
            obj = frozenset([v(s) for s in n[2:]])
        elif tag == "N":
            cls = v(n[2])
            if not (_type(cls) is _type and _plain_namedtuple(cls)) or _len(n) - 3 != _len(cls._fields):
                raise _NotData("a namedtuple of another class")
            obj = tuple.__new__(cls, [v(s) for s in n[3:]])
        elif tag == "Q":
            import collections

            if _type(n[2]) is not str or _type(n[3]) is not list:
                raise _NotData("a malformed namedtuple class")
            obj = collections.namedtuple(n[2], [_string(f) for f in n[3]])
        else:
            parent = v(n[4])
            if parent is not None and not (_type(parent) is _type and issubclass(parent, BaseException)):
                raise _NotData("an exception class whose base is not one")
            base = parent if parent is not None else self.hooks[2](_string(n[3]))
            obj = _type(_string(n[2])[:200], (base,), {"__str__": _mirror_str, "__module__": "__main__"})
        if n[1] is not None:
            _register(_sid(n, 1), obj)
        return obj


def _mirror_str(self):
    message = self.__dict__.get("_bridge_message")
    if message is None:
        return BaseException.__str__(self)
    return message


def _sid(n, i):
    if _len(n) <= i or _type(n[i]) is not int:
        raise _NotData("not an id")
    return n[i]


def _int_or_none(x):
    return None if x is None else _integer(x)


def _datetime_of(n, v):
    import datetime as m

    kind = n[1]
    ints = [_integer(x) for x in n[2:] if _type(x) is int]
    if kind == "d":
        return m.date(*ints[:3])
    if kind == "D":
        return m.timedelta(days=ints[0], seconds=ints[1], microseconds=ints[2])
    if kind == "t":
        return m.datetime(*ints[:7], tzinfo=_tz(v(n[9])), fold=_integer(n[10]))
    if kind == "h":
        return m.time(*ints[:4], tzinfo=_tz(v(n[6])), fold=_integer(n[7]))
    if kind == "z":
        offset = m.timedelta(days=ints[0], seconds=ints[1], microseconds=ints[2])
        return m.timezone(offset) if n[5] is None else m.timezone(offset, _string(n[5]))
    if kind == "Z":
        import zoneinfo

        return zoneinfo.ZoneInfo(_string(n[2]))
    raise _NotData("unknown datetime kind")


def _tz(x):
    import datetime

    if x is not None and not _isinstance(x, datetime.tzinfo):
        raise _NotData("a tzinfo that is not one")
    return x


def _match_of(n, v):
    string, pattern = v(n[1]), v(n[2])
    if _type(string) not in (str, bytes) or _type(pattern) is not _type(string):
        raise _NotData("a malformed match")
    spans = [_integer(x) for x in n[6]]
    index = {_string(k): _integer(i) for k, i in n[7]}
    return _Match(string, [(spans[i], spans[i + 1]) for i in range(0, _len(spans), 2)], pattern,
                  _integer(n[3]), _integer(n[4]), _integer(n[5]), index, _int_or_none(n[8]))

# --- the bridge's object graphs (bridge.py says what the nodes are) --------------
#
# Encoding and decoding go through work lists, never recursion: a value nested
# as deep as CPython itself allows crosses.

_SMALL = 1 << 60
_INLINE = frozenset((str, float, bool, _type(None)))


class _Transient:
    """A tuple or list of a message's own structure: it gets no id."""

    __slots__ = ("tag", "items")

    def __init__(self, tag, items):
        self.tag = tag
        self.items = items


class _Program:
    """A name of the program's, for the judge to bind to a proxy."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class _Encoder:
    """Builds the nodes of one message."""

    __slots__ = ("nodes", "memo", "keep", "work", "handle", "plain")

    def __init__(self, handle, plain=False):
        self.nodes = []
        self.memo = {}
        # Objects made while encoding stay alive until it ends (their ids).
        self.keep = []
        self.work = []
        # handle(v): the node of an object that is not data, or raises.
        self.handle = handle
        # Containers get no id (an answer to a plain call: aliasing within
        # the message holds, identity across messages is not kept).
        self.plain = plain

    def node(self, n):
        if _len(self.nodes) >= _NODES_MAX:
            raise _BridgeFault("a message of more than %d objects" % _NODES_MAX)
        self.nodes.append(n)
        return [_len(self.nodes) - 1]

    def transient(self, tag, items):
        """A tuple or list of the message's own (no id)."""
        slot = self.node(None)
        self.nodes[slot[0]] = [tag, None] + self.items(items)
        self.drain()
        return slot

    def changes(self):
        """State nodes for every shared mutable object changed since it last
        crossed (either way)."""
        if not _marks:
            return
        for sid, mark in list(_marks.items()):
            obj = _objs[sid]
            if _changed(obj, mark):
                self.state(sid, obj)
        self.drain()

    def items(self, v):
        """The slots of the items of `v`; strings, floats, booleans and None
        inline without a call each."""
        slot = self.slot
        return [x if _type(x) in _INLINE else slot(x) for x in v]

    def state(self, sid, obj):
        k = self.node(None)[0]
        self.memo[id(obj)] = k
        self.work.append((k, sid, obj))

    def value(self, v):
        s = self.slot(v)
        self.drain()
        return s

    def slot(self, v):
        t = _type(v)
        if t is str or t is float or t is bool or v is None:
            return v
        if t is int:
            return v if -_SMALL < v < _SMALL else self.node(["i", hex(v)])
        k = self.memo.get(id(v))
        if k is not None:
            return [k]
        if t is _Transient:
            return self.transient(v.tag, v.items)
        if t is _Program:
            return self.node(["p", v.name])
        sid = _sid_of.get(id(v))
        if sid is not None and _objs.get(sid) is v:
            slot = self.node(["@", sid])
            self.memo[id(v)] = slot[0]
            return slot
        tag = _mutable_tag(t)
        if tag is not None or t is tuple or t is frozenset:
            if self.plain:
                sid = None
                self.keep.append(v)
            else:
                sid = _new_sid()
                _register(sid, v)
            slot = self.node(None)
            self.memo[id(v)] = slot[0]
            self.work.append((slot[0], sid, v))
            return slot
        slot = self.scalar(v, t)
        if slot is not None:
            return slot
        return self.node(self.handle(v))

    def drain(self):
        work = self.work
        while work:
            k, sid, v = work.pop()
            t = _type(v)
            tag = _mutable_tag(t)
            if tag is not None and sid is not None:
                _marks[sid] = _snapshot(v)
            if t is list or t is tuple:
                n = ["l" if t is list else "t", sid]
                n.extend(self.items(v))
            elif t is set or t is frozenset or tag == "q":
                n = ["s" if t is set else "f" if t is frozenset else "q", sid]
                if tag == "q":
                    n.append(v.maxlen)
                n.extend([self.slot(x) for x in v])
            elif t is bytearray:
                n = ["B", sid, v.hex()]
            else:
                n = [tag, sid]
                if tag == "D":
                    f = v.default_factory
                    n.append(None if f is None else self.slot(f))
                for key, x in dict.items(v):
                    n.append(self.slot(key))
                    n.append(self.slot(x))
            self.nodes[k] = n

    def scalar(self, v, t):
        """The slot of a value type that has no identity to keep, or of a
        class or exception that crosses as data; None for anything else."""
        if t is bytes:
            return self.node(["b", v.hex()])
        if t is complex:
            return self.node(["c", v.real, v.imag])
        if t is range:
            return self.node(["r", self.slot(v.start), self.slot(v.stop), self.slot(v.step)])
        if t is slice:
            return self.node(["S", self.slot(v.start), self.slot(v.stop), self.slot(v.step)])
        if v is NotImplemented or v is Ellipsis:
            return self.node(["~", "NotImplemented" if v is NotImplemented else "Ellipsis"])
        if t is _std("fractions", "Fraction"):
            return self.node(["F", self.slot(v.numerator), self.slot(v.denominator)])
        if t is _std("decimal", "Decimal"):
            return self.node(["E", v.__str__()])
        if t is _std("re", "Match") or t is _Match:
            return self.match(v)
        n = _datetime_node(v, t, self.slot)
        if n is not None:
            return self.node(n)
        if _isinstance(v, tuple) and _plain_namedtuple(t):
            return self.namedtuple(v, t)
        if _isinstance(v, BaseException):
            return self.exception(v)
        if t is _type and issubclass(v, BaseException):
            return self.exception_class(v)
        if t is _type(sys):
            return self.node(["M", _str(v.__name__)])
        if t is _type and _plain_namedtuple(v):
            return self.registered(v, lambda sid: ["Q", sid, v.__name__, list(v._fields)])
        return None

    def registered(self, v, make):
        """The node of `v`, which gets an id: later mentions in this message
        name the node (the receiver holds no object for the id yet)."""
        sid = _new_sid()
        _register(sid, v)
        k = self.node(None)[0]
        self.memo[id(v)] = k
        self.nodes[k] = make(sid)
        return [k]

    def namedtuple(self, v, t):
        return self.registered(v, lambda sid: ["N", sid, self.slot(t)] + [self.slot(x) for x in tuple.__iter__(v)])

    def exception_class(self, cls):
        name = cls.__name__
        if builtins.__dict__.get(name) is cls:
            return self.node(["n", "builtins", name])
        parent = None
        for base in cls.__mro__[1:]:
            if builtins.__dict__.get(base.__name__) is base:
                break
            if issubclass(base, BaseException):
                parent = base
                break
        return self.registered(
            cls, lambda sid: ["K", sid, _str(name)[:200], _builtin_base(cls), None if parent is None else self.slot(parent)]
        )

    def exception(self, exc):
        try:
            message = _str(exc)[:DETAIL_MAX]
        except _BaseException:
            message = ""
        try:
            line = _program_line(exc)
        except _BaseException:
            line = None
        attrs = []
        try:
            for key, x in list(getattr(exc, "__dict__", {}).items()):
                if _type(key) is str and not key.startswith("_"):
                    attrs.append(self.transient("t", (key, x)))
        except _BaseException:
            attrs = []
        try:
            args = tuple(exc.args)
        except _BaseException:
            args = ()
        return self.node(["X", self.slot(_type(exc)), self.transient("t", args), message, line, attrs])

    def match(self, m):
        spans = []
        for i in range(m.re.groups + 1):
            spans.extend(m.span(i))
        index = [[_str(k), v] for k, v in m.re.groupindex.items()]
        return self.node(["m", self.slot(m.string), self.slot(m.re.pattern), m.re.flags, m.pos, m.endpos, spans, index, m.lastindex])


def _datetime_node(v, t, slot):
    m = sys.modules.get("datetime")
    if m is None:
        return None
    if t is m.date:
        return ["T", "d", v.year, v.month, v.day]
    if t is m.timedelta:
        return ["T", "D", v.days, v.seconds, v.microseconds]
    if t is m.datetime:
        return ["T", "t", v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, slot(v.tzinfo), v.fold]
    if t is m.time:
        return ["T", "h", v.hour, v.minute, v.second, v.microsecond, slot(v.tzinfo), v.fold]
    if t is m.timezone:
        d = v.utcoffset(None)
        name = None if v is m.timezone.utc else v.tzname(None)
        return ["T", "z", d.days, d.seconds, d.microseconds, name]
    if t is _std("zoneinfo", "ZoneInfo") and _type(v.key) is str:
        return ["T", "Z", v.key]
    return None


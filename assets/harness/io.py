# --- tests that are inputs: differential testing (evalplus) ---------------------
#
# A task whose tests are inputs (HumanEval+'s `base_input` and `plus_input`):
# test i calls the entry point on input i and compares what it returns with
# what the task's reference returned on the same input. The host ran the
# reference once, through this same path (the `record` flag: outputs and
# times are written down, nothing is compared), and sends its outputs and
# wall times with every candidate. The rules are evalplus 0.3.1's
# (`evalplus/eval/__init__.py`, `unsafe_execute`):
#
#   - test i may take max(1.0, 4.0 x the reference's time on it) seconds of
#     wall clock, measured here from the call to its answer; past that it is
#     a timeout and the run stops (the candidate process is still busy);
#   - it passes when `out == exp`, or, where the tolerance is not zero, when
#     out and exp are of one type (lists and tuples of one length) and every
#     number in them is within numpy.allclose(rtol=1e-7, atol); the task's
#     `atol` becomes 1e-6 from the first expected float on, for the rest of
#     its group;
#   - an output that is or holds one of the program's own objects (a handle:
#     an instance of its class, a generator, a subclass of a builtin type)
#     fails without being compared: comparing it would send the expected
#     output to the candidate process (evalplus compares it, so such an
#     object could say it is equal);
#   - `find_zero` (HumanEval/32) passes when |poly(xs, out)| <= atol, xs as
#     given (evalplus uses the list after the call, which the candidate may
#     have changed: here a copy made before it);
#   - the first failing test of a group ends the group; a failing base group
#     ends the run, since neither verdict can pass any more.
#
# The spec (the setup field, JSON; src/spec/io_tests.rs writes it):
# {"entry_point": NAME, "atol": NUMBER, "groups": [{"inputs": [[arg...]...]}
# ...], "expected": [{"outputs": [tree...], "times": [seconds...]}...]}
# (no "expected" in record mode, which writes it: the `recorded` note).

_IO_MIN_LIMIT = 1.0
_IO_FACTOR = 4.0
# The call that is waiting for an answer must have it by then (monotonic ns).
_deadline = [None]


class _TimedOut(BaseException):
    """A test took longer than its limit: the run stops."""


def _wait_for_answer():
    """Returns once the candidate's answer can be read, or raises _TimedOut
    when the test's deadline passes first."""
    if _deadline[0] is None:
        return
    import select

    poller = select.poll()
    poller.register(JUDGE_CALL_FD, select.POLLIN | select.POLLHUP | select.POLLERR)
    while True:
        left = (_deadline[0] - _mono()) // 1000000
        if left <= 0:
            raise _TimedOut()
        try:
            if poller.poll(left):
                return
        except InterruptedError:
            pass


def _io_task(spec_text):
    """The parsed spec: (entry point, atol, groups as (inputs, outputs,
    limits)); outputs are None in record mode."""
    import json
    import select  # for the children: _wait_for_answer

    spec = json.loads(spec_text)
    expected = spec.get("expected")
    groups = []
    for g, group in enumerate(spec["groups"]):
        inputs = group["inputs"]
        outputs = limits = None
        if expected is not None:
            outputs = [_expected_value(tree) for tree in expected[g]["outputs"]]
            limits = [max(_IO_MIN_LIMIT, _IO_FACTOR * t) for t in expected[g]["times"]]
        groups.append((inputs, outputs, limits))
    return (spec["entry_point"], float(spec["atol"]), groups)


# A reference output whose tree is longer than this is kept as a digest of
# its canonical form (HumanEval/15 returns strings of 1 MB): a candidate's
# output then passes only when equal to it as data (no tolerance).
_DIGEST_OVER = 256 << 10


class _Digest:
    __slots__ = ("hex", "floats", "size")

    def __init__(self, tree):
        if _len(tree) != 4 or _type(tree[1]) is not str:
            raise _NotData("a malformed digest")
        self.hex, self.floats, self.size = tree[1], tree[2] is True, tree[3]

    def __repr__(self):
        return "<a value of " + _str(self.size) + " characters, SHA-256 " + self.hex[:16] + "...>"


def _expected_value(tree):
    if _type(tree) is list and tree and tree[0] == "#":
        return _Digest(tree)
    return _from_tree(tree)


def _canonical(v, parts):
    """Appends to `parts` a text of `v` such that two data values have the
    same text when they are equal (`1 == 1.0 == True`, a set in any order,
    a dict in any order, bytes and bytearray); raises for what has none."""
    t = _type(v)
    if t is bool or t is int:
        parts.append("i" + hex(v))
    elif t is float:
        if v != v:
            raise ValueError("nan equals nothing")
        parts.append("i" + hex(_int(v)) if v.is_integer() else "f" + repr(v))
    elif t is complex:
        if v.imag == 0:
            _canonical(v.real, parts)
        else:
            parts.append("c" + repr(v))
    elif t is str:
        parts.append("s" + _str(_len(v)) + ":" + v)
    elif t is bytes or t is bytearray:
        parts.append("b" + bytes(v).hex() + ";")
    elif v is None:
        parts.append("N")
    elif t is list or t is tuple:
        parts.append("[" if t is list else "(")
        for x in v:
            _canonical(x, parts)
            parts.append(",")
        parts.append("]")
    elif _isinstance(v, dict) and t.__module__ in ("builtins", "collections") and t.__name__ != "OrderedDict":
        items = []
        for k, x in dict.items(v):
            item = []
            _canonical(k, item)
            item.append(":")
            _canonical(x, item)
            items.append("".join(item))
        parts.append("{" + ",".join(sorted(items)) + "}")
    elif t is set or t is frozenset:
        items = []
        for x in v:
            item = []
            _canonical(x, item)
            items.append("".join(item))
        parts.append("{s" + ",".join(sorted(items)) + "}")
    else:
        raise TypeError("no canonical form for " + t.__name__)


def _digest_of(v):
    import hashlib

    parts = []
    _canonical(v, parts)
    return hashlib.sha256("".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _judge_io(io, namespace, record):
    """Runs every test (steps a1...) of spec `io` against the entry point
    bound in `namespace`; in record mode writes the outputs and times down
    (the `recorded` note) instead of comparing."""
    entry_point, atol, groups = io
    n = 0
    over = False
    clean = True
    recorded = []
    for g, (inputs, outputs, limits) in enumerate(groups):
        tolerance = [atol]
        failed = False
        got, times = [], []
        for i, args in enumerate(inputs):
            n += 1
            name = "a" + _str(n)
            if over or failed:
                _record("step", name + " skip")
                continue
            limit = None if record else limits[i]
            # find_zero's oracle evaluates the polynomial on the judge's own
            # copy of xs: a candidate that empties or zeroes the list it was
            # handed does not pass (evalplus 0.3.1 checks the changed list).
            oracle_args = args
            if entry_point == "find_zero":
                oracle_args = [list(a) if _type(a) is list else a for a in args]
            result = _io_step(name, namespace, entry_point, args, limit, got, times)
            if result == "ok" and record:
                result = _io_keep(name, got)
            elif result == "ok":
                result = _io_compare(name, entry_point, oracle_args, got[-1], outputs[i], tolerance)
            _forget_shared()
            _record("step", name + " " + result)
            if result != "ok":
                failed = True
                clean = False
                over = over or g == 0 or result in ("timeout", "memory", "lost")
        recorded.append({"outputs": got, "times": times})
    if record and clean:
        import json

        # The times alone first: the host reads them; the rest it passes on.
        times = json.dumps([group["times"] for group in recorded])
        _record("recorded", times + "\n" + json.dumps(recorded))


def _io_keep(name, got):
    """Record mode: replaces the last output in `got` by its tree (or its
    digest); the step's result."""
    import json

    try:
        got[-1] = _recorded_tree(got[-1], json)
        return "ok"
    except _BaseException as exc:
        _record("detail", name + " the reference returned something that cannot be kept: " + _describe(exc))
        return "fail"


def _recorded_tree(v, json):
    """The tree of a reference output, or its digest when it is long."""
    tree = _to_tree(v, _not_data)
    size = _len(json.dumps(tree))
    if size <= _DIGEST_OVER:
        return tree
    return ["#", _digest_of(v), _is_floats(v), size]


def _not_data(v):
    raise _NotData("a " + _type(v).__name__)


def _io_step(name, namespace, entry_point, args, limit, got, times):
    """Calls the entry point on `args` within `limit` seconds; appends its
    output and time to `got` and `times`. The step's result."""
    _decided[0] = _decided[1] = False
    # (Described only when it is needed: a long input's repr costs.)
    call = lambda: entry_point + "(" + ", ".join([_show(a) for a in args]) + ")"
    try:
        fn = namespace.get(entry_point)
        if fn is None:
            raise NameError("name '" + entry_point + "' is not defined")
        start = _mono()
        if limit is not None:
            _deadline[0] = start + _int(limit * 1e9)
        try:
            out = _plain_call(fn, args, call) if _type(fn) is _Proxy else fn(*args)
        finally:
            _deadline[0] = None
        times.append((_mono() - start) / 1e9)
        got.append(out)
        return "ok"
    except _TimedOut:
        _record("detail", name + " " + call() + " took longer than its limit of %.1f s" % limit)
        return "timeout"
    except _Lost:
        return "lost"
    except (_OutOfMemory, _MemoryError):
        return "memory"
    except _BaseException as exc:
        _record("detail", name + " " + call() + " raised " + _describe(exc))
        failure = {"text": call(), "exception": _bounded(_describe(exc))}
        line = getattr(exc, "_execscope_line", None)
        if _type(line) is int:
            failure["program_line"] = line
        _record_io_failure(name, failure)
        return "fail"


def _io_compare(name, entry_point, args, out, exp, tolerance):
    """Whether `out` passes against the reference's `exp` (evalplus's rules,
    above). Records why not."""
    try:
        if _holds_candidate_object(out):
            # Never compared: comparing would hand the expected output to
            # the candidate's object (and through it to other candidates).
            same = False
        elif entry_point == "find_zero":
            same = abs(_poly(args[0], out)) <= tolerance[0]
        else:
            same = _io_same(out, exp, tolerance)
    except (_Lost, _OutOfMemory, _MemoryError) as exc:
        return "lost" if _type(exc) is _Lost else "memory"
    except _BaseException:
        same = False
    if _lost is not None:
        return "lost"
    if same:
        if _decided[1]:
            _flag("always-equal")
        elif _decided[0]:
            _flag("candidate-decided")
        return "ok"
    call = entry_point + "(" + ", ".join([_show(a) for a in args]) + ")"
    _record("detail", name + " " + call + " returned " + _shown(out) + "; expected " + _shown(exp))
    failure = {"text": call + " == expected", "op": "==", "left": _shown(out), "right": _shown(exp)}
    difference = _difference(out, exp)
    if difference:
        failure["difference"] = difference
    _record_io_failure(name, failure)
    return "fail"


def _holds_candidate_object(value):
    """Whether `value` is or holds an object that stays in the candidate
    process (a handle or a proxy): such an output is a wrong answer."""
    todo, seen = [value], set()
    while todo:
        v = todo.pop()
        t = _type(v)
        if t in _STAND_INS or t is _Proxy:
            return True
        if id(v) in seen:
            continue
        seen.add(id(v))
        if t in (list, tuple, set, frozenset):
            todo.extend(v)
        elif t is dict:
            todo.extend(v.keys())
            todo.extend(v.values())
    return False


def _record_io_failure(name, failure):
    import json

    _record("failure", name + " " + json.dumps(failure))


def _poly(xs, x):
    import math

    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])


def _io_same(out, exp, tolerance):
    if _type(exp) is _Digest:
        if tolerance[0] == 0 and exp.floats:
            tolerance[0] = 1e-6
        try:
            return _digest_of(out) == exp.hex
        except _BaseException:
            return False
    exact = out == exp
    if tolerance[0] == 0 and _is_floats(exp):
        tolerance[0] = 1e-6
    atol = tolerance[0]
    if not exact and atol != 0:
        if _type(out) is not _type(exp):
            return False
        if _isinstance(exp, (list, tuple)) and _len(out) != _len(exp):
            return False
        return _allclose(out, exp, 1e-07, atol)
    return bool(exact)


def _is_floats(x):
    if _type(x) is float:
        return True
    if _isinstance(x, (list, tuple)) and x:
        return all(_isinstance(i, float) for i in x)
    return False


def _allclose(a, b, rtol, atol):
    """numpy.allclose(a, b, rtol, atol) for numbers and (nested) lists and
    tuples of them: False where numpy would raise (strings, None, ragged or
    unequal shapes, integers past 64 bits)."""
    try:
        shape_a, xs = _numbers(a)
        shape_b, ys = _numbers(b)
    except (TypeError, ValueError, OverflowError):
        return False
    if shape_a != shape_b:
        if shape_a == ():
            xs = xs * _len(ys)
        elif shape_b == ():
            ys = ys * _len(xs)
        else:
            return False
    for x, y in zip(xs, ys):
        finite = x == x and y == y and abs(x) != float("inf") and abs(y) != float("inf")
        if finite:
            if not abs(x - y) <= atol + rtol * abs(y):
                return False
        elif not x == y:
            return False
    return True


def _numbers(v):
    """(shape, flat numbers) of `v` as numpy would make an array of it."""
    t = _type(v)
    if t is bool or t is int:
        if not -(1 << 63) <= v < (1 << 63):
            raise TypeError("an integer past 64 bits")
        return (), [float(v)]
    if t is float or t is complex:
        return (), [v]
    if t is list or t is tuple:
        shapes, flat = None, []
        for item in v:
            shape, items = _numbers(item)
            if shapes is not None and shape != shapes:
                raise ValueError("ragged")
            shapes = shape
            flat += items
        return (_len(v),) + (shapes or ()), flat
    raise TypeError(t.__name__)

"""Unit tests of the object bridge (assets/harness/bridge.py, graph.py,
ungraph.py, talk.py): a judge and a candidate, each its own copy of the
harness's code in its own namespace (so its own tables), talking through
queues on two threads. Run by `cargo test` (tests/bridge.rs) with the real
python3; prints `bridge: N checks passed` or raises."""

import pathlib
import queue
import sys
import threading

HARNESS = pathlib.Path(__file__).resolve().parents[2] / "assets" / "harness"
SHARED = ["core", "codec", "bridge", "graph", "ungraph", "talk"]


def side(extra):
    space = {"__name__": "side"}
    for name in SHARED + extra:
        exec(compile((HARNESS / (name + ".py")).read_text(), name + ".py", "exec"), space)
    return space


def pair(program):
    """A judge namespace and a candidate namespace wired together; the
    candidate runs `program` and serves on a thread."""
    to_cand, to_judge = queue.Queue(), queue.Queue()
    cand = side(["denylist", "candidate"])
    judge = side(["denylist", "candidate", "judge", "explain", "proxies", "names"])
    prog = {"__builtins__": __builtins__}
    exec(program, prog)
    cand["_namespace"] = prog

    def cand_receive(what):
        message = to_cand.get()
        if message is None:
            raise SystemExit
        return cand["_take"](message)

    def serve():
        cand["_candidate_role"]()
        cand["_role"].update(send=to_judge.put, receive=cand_receive)
        try:
            while True:
                kind, body = cand_receive(None)
                if kind == "names":
                    to_judge.put(cand["_names_answer"](body))
                else:
                    to_judge.put(cand["_serve_request"](kind, body))
        except SystemExit:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    judge["_judge_role"]()

    def judge_receive(what):
        import json

        # The judge reads JSON from the candidate: round-trip it the same way.
        return judge["_take"](json.loads(json.dumps(to_judge.get())))

    judge["_role"].update(send=to_cand.put, receive=judge_receive)
    return judge, cand, lambda: to_cand.put(None)


CHECKS = 0


def check(cond, what):
    global CHECKS
    CHECKS += 1
    if not cond:
        raise AssertionError(what)


def main():
    program = """
import collections, datetime, re, itertools
P = collections.namedtuple('P', 'x y')
class Bad(ValueError):
    pass
kept = []
def dup(l):
    return l
def copy(l):
    return list(l)
def keep(l):
    kept.append(l)
def poke():
    kept[-1].append(99)
def apply(f, x):
    return f(x)
def naturals():
    n = 0
    while True:
        yield n
        n += 1
def grid():
    row = [0, 0]
    return [row, row]
def selfish():
    l = [1]
    l.append(l)
    return l
def mk():
    return P(1, 2)
def when(d):
    return d + datetime.timedelta(days=1)
def boom():
    raise KeyError('zz')
def bad():
    raise Bad('bad', 3)
def nest(n):
    v = []
    for _ in range(n):
        v = [v]
    return v
def find(s):
    return re.search(r'(?P<a>b+)(c)?', s)
def take(it, n):
    return list(itertools.islice(it, n))
def sort_by(l, key):
    return sorted(l, key=key)
def first_kept():
    return kept[0]
def twice(f, x):
    return f(f(x))
class Point:
    def __init__(self, x):
        self.x = x
    def __eq__(self, other):
        return isinstance(other, Point) and other.x == self.x
    def __repr__(self):
        return 'Point(%r)' % self.x
class Liar:
    def __eq__(self, other):
        return True
def point(x):
    return Point(x)
def liar():
    return Liar()
def counter():
    return iter([1, 2, 3])
def rebind():
    globals()['abs'] = lambda x: 0
"""
    judge, cand, stop = pair(program)
    call = lambda name, *args: judge["_Proxy"](name)(*args)
    l = [1, 2]
    check(call("dup", l) is l, "dup(l) is l")
    check(call("copy", l) is not l and call("copy", l) == l, "a copy is another list")
    call("keep", l)
    call("poke")
    check(l == [1, 2, 99], "a kept list mutated later: %r" % (l,))
    check(call("apply", lambda v: v * 2, 3) == 6, "a test's lambda")
    check(call("sort_by", [(1, 'b'), (2, 'a')], __import__('operator').itemgetter(1)) == [(2, 'a'), (1, 'b')], "itemgetter")
    check(call("sort_by", ["b", "A"], str.casefold) == ["A", "b"], "str.casefold")
    g = call("grid")
    g[0][0] = 1
    check(g[1][0] == 1, "aliasing within a value")
    s = call("selfish")
    check(s[1] is s, "a list that contains itself")
    p = call("mk")
    check(p.x == 1 and repr(p) == "P(x=1, y=2)" and p == (1, 2), "namedtuple: %r" % (p,))
    import datetime
    check(call("when", datetime.date(2024, 2, 28)) == datetime.date(2024, 2, 29), "datetime")
    try:
        call("boom")
    except KeyError as e:
        check(e.args[0] == "zz" and str(e) == "'zz'", "KeyError args: %r" % (e.args,))
    try:
        call("bad")
    except ValueError as e:
        check(e.args == ("bad", 3) and type(e).__name__ == "Bad", "exception args: %r" % (e.args,))
    import itertools
    check(list(itertools.islice(call("naturals"), 3)) == [0, 1, 2], "lazy generator")
    check(call("take", itertools.count(5), 3) == [5, 6, 7], "a test's iterator")
    deep = call("nest", 5000)
    depth = 0
    while deep:
        deep = deep[0]
        depth += 1
    check(depth == 5000, "nesting 5000 deep")
    m = call("find", "abbc")
    check(m.group() == "bbc" and m.groupdict() == {"a": "bb"} and m.lastindex == 2, "match API")
    gen = call("naturals")
    check(next(gen) == 0 and next(gen) == 1, "next() on a returned generator")
    # The test changes a list the program kept: the program sees it.
    kept_list = [5]
    call("keep", kept_list)
    kept_list.append(6)
    check(call("first_kept") is l, "the first kept list comes back as itself")
    check(cand["_namespace"]["kept"][-1] == [5, 6], "the judge's change reached the candidate")
    # Callbacks nest: the program calls the test's function, which calls the program.
    check(call("twice", lambda v: call("dup", [v, v])[0] + 1, 1) == 3, "nested callbacks")
    # Honest objects are no flag; an always-equal one is.
    d = judge["_decided"]
    d[0] = d[1] = False
    check(call("point", 1) == call("point", 1) and call("point", 1) != call("point", 2), "honest eq")
    check(repr(call("point", 3)) == "Point(3)" and not d[0] and not d[1], "honest objects decide nothing")
    check(call("liar") == 5 and d[1], "an always-equal object is flagged")
    it = call("counter")
    check(next(it) == 1 and list(it) == [2, 3], "a program's iterator")
    # The tables stay bounded over many calls.
    for i in range(3000):
        call("dup", [i, [i]])
        judge["_sweep"](judge["_mine"], False, True)
    check(len(judge["_objs"]) < 600, "judge table bounded: %d" % len(judge["_objs"]))
    check(len(cand["_objs"]) < 600, "candidate table bounded: %d" % len(cand["_objs"]))
    # The bridge's own failure is not an exception a test can catch.
    class Unsendable:
        pass
    import types
    try:
        try:
            call("dup", types.CodeType.__new__ if False else sys._getframe())
        except Exception:
            check(False, "a bridge failure was caught as an Exception")
    except BaseException as e:
        check(type(e).__name__ == "_Lost", "a bridge failure stops the run: %r" % (e,))
    stop()
    print("bridge: %d checks passed" % CHECKS)


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()

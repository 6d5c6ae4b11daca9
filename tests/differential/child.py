"""Runs one corpus program and its checks in plain CPython.

Reads one JSON object from stdin: {"program": str, "checks": [str], "mode":
"shared" | "copy"}. Prints one JSON line per check as it finishes
({"i": n, "ok": bool, "exc": str | null}), flushed, so a parent that kills it
at its timeout still knows which checks ran. A first line {"program": null |
"Type: message"} tells whether the program's top level ran.

Checks follow lesson-70's rule: a check that parses as an expression passes
when truthy; anything else runs as statements and passes when nothing is
raised. mode "shared" runs the checks in the program's own namespace (the
default, as run.py's brief asks); "copy" runs them in a shallow copy of it
(the program's functions keep their own globals), which is how execscope's
judge sees the program: build_corpus.py keeps only checks that agree in both.
"""

import ast
import json
import os
import sys


def _line(obj):
    os.write(_OUT, (json.dumps(obj) + "\n").encode())


class _Sink:
    def write(self, s):
        return len(s)

    def flush(self):
        pass


def _describe(e):
    text = "%s: %s" % (type(e).__name__, e)
    return text[:300]


def main():
    data = json.loads(sys.stdin.read())
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    except Exception:
        pass
    sys.stdout = _Sink()
    sys.stdin = None
    namespace = {"__name__": "__candidate__"}
    try:
        exec(compile(data["program"], "<program>", "exec"), namespace)
    except BaseException as e:  # noqa: BLE001 - the program's failure is data
        _line({"program": _describe(e)})
        return
    _line({"program": None})
    ns = namespace if data.get("mode", "shared") == "shared" else dict(namespace)
    for i, check in enumerate(data["checks"]):
        try:
            try:
                tree = ast.parse(check, "<check>", "eval")
            except SyntaxError:
                tree = None
            if tree is not None:
                ok = bool(eval(compile(tree, "<check>", "eval"), ns))
                exc = None if ok else "false"
            else:
                exec(compile(check, "<check>", "exec"), ns)
                ok, exc = True, None
        except BaseException as e:  # noqa: BLE001
            ok, exc = False, _describe(e)
        _line({"i": i, "ok": ok, "exc": exc})


_OUT = os.dup(1)
if __name__ == "__main__":
    main()

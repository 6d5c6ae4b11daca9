# execscope harness: runs one candidate in this fresh interpreter.
#
# Started by the host as `python -s -S -B -c <this file>` with a cleaned environment.
# Reads a length-prefixed payload from stdin, runs the candidate code, then the
# task's test setup (MBPP's `test_setup_code` uses what the code defines),
# evaluates every assertion in the candidate's namespace and writes one result
# envelope to file descriptor 3, a pipe the candidate's prints never reach. The
# envelope starts with a per-candidate random token so the host can tell it from a
# forgery. Everything the harness needs after candidate code starts is bound to a
# private name first, so rebinding builtins cannot change the verdict.
#
# It imports nothing beyond the modules the interpreter has loaded at start-up.
import sys
import posix
import time
import builtins

_mono = time.monotonic_ns
_t_start = _mono()
_write = posix.write
_close = posix.close
_exit = posix._exit
_compile = compile
_exec = exec
_bool = bool
_str = str
_len = len
_type = type
_isinstance = isinstance
_BaseException = BaseException
_SyntaxError = SyntaxError
_MemoryError = MemoryError
_ImportError = ImportError
_dict = dict
_sum = sum
_enumerate = enumerate
_eval = eval
_int = int
_stdout = sys.stdout
_stderr = sys.stderr

ENVELOPE_FD = 3


def _read_payload():
    data = sys.stdin.buffer.read()
    fields = []
    pos = 0
    while pos < _len(data):
        nl = data.index(b"\n", pos)
        size = int(data[pos:nl])
        start = nl + 1
        fields.append(data[start : start + size].decode("utf-8", "surrogateescape"))
        pos = start + size
    return fields


_fields = _read_payload()
# Layout: token, setup, code, denylist (one name a line), sys.path (one a line),
# flags (space-separated words), then one field per assertion.
_token = _fields[0]
_setup = _fields[1]
_code = _fields[2]
_flags = _fields[5].split()
_guard = "guard" in _flags
_deny = tuple(n for n in _fields[3].split("\n") if n)
if _guard:
    _deny = _deny + ("_socket", "_posixsubprocess", "pty", "resource")
sys.path[:] = [p for p in _fields[4].split("\n") if p]
_assertions = _fields[6:]
del _fields
sys.argv[:] = ["candidate"]


def _denied(name):
    for d in _deny:
        if name == d or name.startswith(d + "."):
            return True
    return False


class _DenyFinder:
    """Meta-path finder that refuses every import of a denied module."""

    def find_spec(self, name, path=None, target=None):
        if _denied(name):
            raise _ImportError("denied: " + name, name=name)
        return None

    def find_module(self, name, path=None):
        return self.find_spec(name, path)


class _Quitter:
    """`exit` and `quit` as `site` would define them (the interpreter runs with -S)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "Use %s() or Ctrl-D (i.e. EOF) to exit" % self.name

    def __call__(self, code=None):
        raise SystemExit(code)


builtins.exit = _Quitter("exit")
builtins.quit = _Quitter("quit")


def _deny_system(*args, **kwargs):
    raise PermissionError("denied: os.system")


if _deny:
    for _m in [m for m in sys.modules if _denied(m)]:
        del sys.modules[_m]
    sys.meta_path.insert(0, _DenyFinder())
    posix.system = _deny_system
    if "os" in sys.modules:
        sys.modules["os"].system = _deny_system

# The process guard: what could start, signal or detach processes raises.
_GUARDED = (
    "fork",
    "forkpty",
    "setsid",
    "setpgid",
    "setpgrp",
    "kill",
    "killpg",
    "execv",
    "execve",
    "posix_spawn",
    "posix_spawnp",
    "system",
    "pidfd_open",
)


def _refuse(name):
    def refused(*args, **kwargs):
        raise PermissionError("denied: os." + name)

    refused.__name__ = name
    return refused


if _guard:
    for _name in _GUARDED:
        if hasattr(posix, _name):
            setattr(posix, _name, _refuse(_name))
            if "os" in sys.modules:
                setattr(sys.modules["os"], _name, getattr(posix, _name))
    if "_signal" in sys.modules and hasattr(sys.modules["_signal"], "pidfd_send_signal"):
        sys.modules["_signal"].pidfd_send_signal = _refuse("pidfd_send_signal")


DETAIL_MAX = 2000


def _describe(exc):
    """`Type: message (line N)` for an exception, N in the candidate's code if known."""
    try:
        return _describe_unguarded(exc)[:DETAIL_MAX]
    except _BaseException:
        return "exception that cannot be described"


def _describe_unguarded(exc):
    text = _type(exc).__name__
    msg = _str(exc)
    if msg:
        text += ": " + msg
    if _isinstance(exc, _SyntaxError):
        if exc.lineno:
            text = _type(exc).__name__ + ": " + _str(exc.msg) + " (line " + _str(exc.lineno) + ")"
        return text
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<candidate>":
            line = tb.tb_lineno
        tb = tb.tb_next
    if line is not None:
        text += " (line " + _str(line) + ")"
    return text


def _flush():
    for stream in (_stdout, _stderr):
        try:
            stream.flush()
        except _BaseException:
            pass


def _finish(outcome, passed, per, detail, t_code):
    _flush()
    t_end = _mono()
    detail_bytes = detail.encode("utf-8", "replace")
    head = (
        _token
        + "\n"
        + outcome
        + "\n"
        + _str(passed)
        + " "
        + _str(_len(per))
        + "\n"
        + "".join("1" if p else "0" for p in per)
        + "\n"
        + _str(_t_start)
        + " "
        + _str(t_code)
        + " "
        + _str(t_end)
        + "\n"
        + _str(_len(detail_bytes))
        + "\n"
    ).encode("utf-8")
    data = head + detail_bytes
    try:
        while data:
            n = _write(ENVELOPE_FD, data)
            data = data[n:]
        _close(ENVELOPE_FD)
    except _BaseException:
        pass
    _exit(0)


def _error_detail(exc):
    if _isinstance(exc, _MemoryError):
        return "memory limit"
    return _describe(exc)


def _main():
    namespace = _dict()
    total = _len(_assertions)
    none_passed = [False] * total
    try:
        code = _compile(_code, "<candidate>", "exec")
    except _SyntaxError as exc:
        _finish("syntax_error", 0, none_passed, _describe(exc), _mono())
    except _BaseException as exc:
        _finish("error", 0, none_passed, _error_detail(exc), _mono())
    try:
        _exec(code, namespace)
    except _BaseException as exc:
        _finish("error", 0, none_passed, _error_detail(exc), _mono())
    if _setup:
        try:
            _exec(_compile(_setup, "<setup>", "exec"), namespace)
        except _BaseException as exc:
            _finish("error", 0, none_passed, "test setup failed: " + _error_detail(exc), _mono())
    t_code = _mono()
    if total == 0:
        _finish("error", 0, [], "no assertions", t_code)
    per = []
    detail = ""
    for i, source in _enumerate(_assertions):
        ok = False
        why = ""
        try:
            try:
                compiled = _compile(source, "<assertion>", "eval")
                ok = _bool(_eval(compiled, namespace))
                if not ok:
                    why = "expression is false"
            except _SyntaxError:
                compiled = _compile(source, "<assertion>", "exec")
                _exec(compiled, namespace)
                ok = True
        except _MemoryError:
            _finish("error", 0, none_passed, "memory limit", _mono())
        except _BaseException as exc:
            ok = False
            why = _error_detail(exc)
        per.append(ok)
        if not ok and not detail:
            detail = "assertion " + _str(i + 1) + " failed: " + why
    passed = _sum(1 for p in per if p)
    outcome = "pass" if passed == total else "assertion_fail"
    _finish(outcome, passed, per, detail, t_code)


_main()

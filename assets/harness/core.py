# execscope harness: runs one candidate in this fresh interpreter.
#
# Started by the host as `python -s -S -B -c <this program>` with a cleaned
# environment (the program is the files of assets/harness/ in order: core,
# denylist, threads, integrity, verdict, server, main). It reads a
# length-prefixed payload from stdin, runs the candidate code, then the
# task's test setup (MBPP's `test_setup_code` uses what the code defines),
# then every assertion in the candidate's namespace, and reports on
# descriptor 3, a pipe the candidate's prints never reach:
#
#   <token> start <ns>      the harness is ready (its monotonic clock)
#   <token> <step> <result> one per step: `c` the code, `s` the setup, `aN`
#                           assertion N; `ok <secret>`, fail, memory or skip
#   <token> c syntax        the code does not compile (nothing ran)
#   <token> end             every step has run
#   @<kind> <len>\n<text>   notes: a failure's detail, a flag, the end time
#
# Only the records starting with this candidate's random token count, and an
# `ok` only with its step's own secret; they are made before candidate code
# runs and written by C code alone, so no Python code can forge one
# (verdict.py says how). A candidate that puts its own pipe on descriptor 3
# reads the records written after that, token included, but a step's secret
# only once that step has passed. Notes are untrusted: a candidate can write
# them too, so they carry only text and flags.
#
# Started with the argument `serve`, it is a fork server (the fast-start mode,
# server.py) whose children take exactly the path above.
#
# It imports nothing the interpreter has not loaded at start-up but `atexit`
# (each import of a built-in module costs a fresh interpreter 20-100 us).
import sys
import posix
import time
import builtins
import _thread
import atexit

_mono = time.monotonic_ns
_t_start = _mono()
_write = posix.write
_exit = posix._exit
_compile = compile
_exec = exec
_str = str
_len = len
_type = type
_isinstance = isinstance
_BaseException = BaseException
_SyntaxError = SyntaxError
_MemoryError = MemoryError
_SystemExit = SystemExit
_ImportError = ImportError
_int = int
_stdout = sys.stdout
_stderr = sys.stderr

ENVELOPE_FD = 3


def _fields_of(data):
    fields = []
    pos = 0
    while pos < _len(data):
        nl = data.index(b"\n", pos)
        size = int(data[pos:nl])
        start = nl + 1
        fields.append(data[start : start + size].decode("utf-8", "surrogateescape"))
        pos = start + size
    return fields


DETAIL_MAX = 2000


def _describe(exc, outermost_is_ours=False):
    """`Type: message (line N)` for an exception, N in the candidate's code if
    known. `outermost_is_ours`: the exception was caught by a step runner, so
    the first traceback entry is the runner's (skipped unread: reading a
    runner's frame is what the integrity hook flags)."""
    try:
        return _describe_unguarded(exc, outermost_is_ours)[:DETAIL_MAX]
    except _BaseException:
        return "exception that cannot be described"


def _describe_unguarded(exc, outermost_is_ours):
    text = _type(exc).__name__
    msg = _str(exc)
    if msg:
        text += ": " + msg
    if _isinstance(exc, _SyntaxError):
        if exc.lineno:
            text = _type(exc).__name__ + ": " + _str(exc.msg) + " (line " + _str(exc.lineno) + ")"
        return text
    tb = exc.__traceback__
    if outermost_is_ours and tb is not None:
        tb = tb.tb_next
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


def _note_bytes(kind, text):
    data = text.encode("utf-8", "replace")
    return ("@" + kind + " " + _str(_len(data)) + "\n").encode() + data


def _note(kind, text):
    """Writes one note (see above); never raises."""
    try:
        _write(ENVELOPE_FD, _note_bytes(kind, text))
    except _BaseException:
        pass

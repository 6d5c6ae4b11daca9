# execscope harness: the two processes of one candidate, and the fork servers
# that start them in the fast-start mode.
#
# Started by the host as `python -s -S -B -c <this program> ROLE` with a
# cleaned environment. The program is the files of assets/harness/ in order:
# core, codec, bridge, graph, ungraph, talk, denylist, candidate,
# suite_watch, suite, stdio, judge, suite_verdict, explain, proxies, names,
# io, stdio_verdict, server, main (a fresh candidate process gets only core,
# codec, bridge, graph, ungraph, talk, denylist, candidate, suite_watch,
# suite, stdio, main).
# ROLE is
#
#   candidate       runs the program (prompt + completion) and answers the
#                   judge's calls on descriptor 3; it never sees a test
#   serve ROLE      a fork server whose children take the path of ROLE
#
# and the judge (judge.py) is always a fork server's child: it runs the
# task's tests, with every name they take from the program bound to a proxy
# that calls into the candidate process, and writes the verdict to the host
# on descriptor 3. No code compiled from the candidate's text runs in it.
#
# The protocol between the processes is written down once, in
# src/sandbox/wire.rs; these files follow it.
#
# It imports nothing the interpreter has not loaded at start-up but `marshal`
# (each import of a built-in module costs a fresh interpreter 20-100 us).
import sys
import posix
import time
import builtins
import _thread
import marshal

_mono = time.monotonic_ns
_t_start = _mono()
_write = posix.write
_read = posix.read
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
_ImportError = ImportError
_int = int
_stdout = sys.stdout
_stderr = sys.stderr


def _fields_of(data):
    """The fields of `data`, each framed as `<byte length>\\n<bytes>`."""
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


def _describe(exc):
    """`Type: message (line N)` for an exception, N the line of the
    candidate's program where it was raised, if it was."""
    try:
        text = _type(exc).__name__
        msg = _str(exc)
        if msg:
            text += ": " + msg
        if _isinstance(exc, _SyntaxError):
            if exc.lineno:
                text = _type(exc).__name__ + ": " + _str(exc.msg) + " (line " + _str(exc.lineno) + ")"
            return text[:DETAIL_MAX]
        line = _program_line(exc)
        if line is not None:
            text += " (line " + _str(line) + ")"
        return text[:DETAIL_MAX]
    except _BaseException:
        return "exception that cannot be described"


def _program_line(exc):
    """The last line of the candidate's program in the traceback of `exc`
    (in the judge: the line the candidate process reported)."""
    line = getattr(exc, "_execscope_line", None)
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<candidate>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _flush():
    for stream in (_stdout, _stderr):
        try:
            stream.flush()
        except _BaseException:
            pass


def _write_all(fd, data):
    """Writes all of `data` (a pipe may take it in parts); False when it cannot."""
    view = memoryview(data)
    while view:
        try:
            view = view[_write(fd, view) :]
        except InterruptedError:
            pass
        except _BaseException:
            return False
    return True


def _read_exactly(fd, n):
    """`n` bytes from `fd`, or None at the end of the stream (or when it
    cannot be read)."""
    parts = []
    while n > 0:
        try:
            chunk = _read(fd, n if n < 1 << 20 else 1 << 20)
        except InterruptedError:
            continue
        except OSError:
            # A peer that closed with our message unread resets the socket.
            return None
        if not chunk:
            return None
        parts.append(chunk)
        n -= _len(chunk)
    return b"".join(parts) if _len(parts) != 1 else parts[0]


# A message between the two processes: 8 bytes of length (big-endian), then
# the message.
def _frame(data):
    return _len(data).to_bytes(8, "big") + data


def _read_frame(fd, limit):
    """The next message on `fd`; None at the end of the stream; raises
    ValueError for a length over `limit`."""
    head = _read_exactly(fd, 8)
    if head is None:
        return None
    n = _int.from_bytes(head, "big")
    if n > limit:
        raise ValueError("a message of %d bytes (at most %d)" % (n, limit))
    return _read_exactly(fd, n) if n else b""


def _note_bytes(kind, text):
    data = text.encode("utf-8", "replace")
    return ("@" + kind + " " + _str(_len(data)) + "\n").encode() + data

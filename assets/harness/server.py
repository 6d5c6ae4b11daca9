# --- the fork servers ---------------------------------------------------------
#
# A fork server loads once and forks a fresh child per candidate: every judge
# comes from one (it runs no candidate code, so a warm parent is safe to
# reuse), and in the fast-start mode every candidate process does too. The
# host talks to it over descriptor 0, a unix socket:
#
#   host -> server  "R" with the child's descriptors (SCM_RIGHTS), then
#                   8 bytes of length and the frame: rlimits, directory,
#                   then the role's own fields
#                   "K": reap the child (the host has read all it needs)
#   server -> host  "ready", "pid N", then "exit N" or "signal N"
#
# A candidate child gets its stdout, stderr and call channel (placed on 1, 2
# and 3), a judge child its verdict pipe and call channel (3 and 4): fresh
# descriptors of its own, so nothing one child does to them (flags, pipe
# sizes) reaches the next.

_fork = posix.fork
_setsid = posix.setsid
_waitid = getattr(posix, "waitid", None)
_waitpid = posix.waitpid
_killpg = posix.killpg
_child = 0
_FDS_MAX = 4


def _report(text):
    _write_all(0, (text + "\n").encode())


def _on_host_death(signum, frame):
    for pid in (_child, _spare[0]):
        if pid:
            try:
                _killpg(pid, 9)
            except _BaseException:
                pass
    _exit(0)


def _preload(names):
    """Imports the modules candidates commonly use, except any that would load a
    denied module (those stay unloaded, so such imports fail as they would fresh)."""
    for name in names:
        before = set(sys.modules)
        try:
            __import__(name)
        except _BaseException:
            pass
        added = [m for m in sys.modules if m not in before]
        if any(_denied(m) for m in added):
            for m in added:
                del sys.modules[m]


_WARM_UP = '''
from typing import List, Optional, Tuple, Dict


def f(numbers: List[int], k: Optional[int] = None) -> Tuple[int, Dict[str, float]]:
    """Docstring."""
    result = [x * 2 for x in numbers if x % 2 == 0]
    table = {str(i): i / 2 for i in range(10)}
    seen = set()
    for i, n in enumerate(numbers):
        if n in seen or (k is not None and n > k):
            continue
        elif n < 0:
            break
        else:
            seen.add(n)
    while len(result) > 3:
        result.pop()
    try:
        value = max(result, key=lambda v: -v) if result else 0
    except (ValueError, TypeError) as exc:
        raise RuntimeError(f"bad {exc!r}: {len(numbers):>4}") from exc
    finally:
        pass
    with open("x") as fh:
        _ = fh.read()
    return value, table


class C(object):
    def __init__(self, a, *args, **kwargs):
        self.a = a

    @property
    def b(self):
        return self.a ** 2 // 3 + abs(-1) and not None


def check(candidate):
    assert candidate([1, 2, 3]) == (4, {}), "message"
    assert abs(candidate([]) - 1.0) < 1e-6
'''


def _warm_up_compiler():
    """Compiles typical code once, so that each child does not pay the compiler's
    first-use costs itself (about 2 ms a child otherwise). Nothing is run."""
    try:
        _compile(_WARM_UP, "<warm-up>", "exec")
        _compile("f([1, 2, 3]) == [2, 4] and x != 'a'", "<warm-up>", "eval")
    except _BaseException:
        pass


def _prepare_child(devnull):
    """In a forked child, what does not depend on its candidate: a session of
    its own, no hold on the host's channel, and (a candidate process) its
    confinement."""
    _setsid()
    posix.dup2(devnull, 0)
    _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
    _confine_child()


def _become(role, frame, fds, devnull, setrlimit):
    """In a prepared child: its own descriptors, its directory and the
    candidate's limits. Returns the role's payload fields, which take the
    same path as in a fresh interpreter once `_serve` has returned them."""
    global _t_start
    _t_start = _mono()
    fields = _fields_of(frame)
    # The server keeps 3 and 4 taken, so no received descriptor has a
    # target's number.
    if role == "candidate":
        targets = (1, 2, 3)
        posix.close(4)
    else:
        targets = (3, 4)
        posix.dup2(devnull, 1)
        posix.dup2(devnull, 2)
    for fd, target in zip(fds, targets):
        posix.dup2(fd, target)
        posix.close(fd)
    posix.close(devnull)
    directory = fields[1]
    posix.chdir(directory)
    for key in (b"HOME", b"TMPDIR"):
        posix.environ[key] = directory.encode()
        posix.putenv(key, directory.encode())
    for line in fields[0].split("\n"):
        if line:
            resource, soft, hard = (_int(x) for x in line.split())
            setrlimit(resource, (soft, hard))
    return fields[2:]


def _receive_command(sock):
    """The next command byte and the descriptors that came with it."""
    while True:
        try:
            data, ancillary, _, _ = sock.recvmsg(1, 64)
            break
        except InterruptedError:
            pass
    fds = []
    for level, kind, payload in ancillary:
        if level == 1 and kind == 1:  # SOL_SOCKET, SCM_RIGHTS
            usable = _len(payload) - _len(payload) % 4
            fds += [_int.from_bytes(payload[i : i + 4], sys.byteorder) for i in range(0, usable, 4)]
    return data, fds


def _serve(role):
    """Serves the host's commands until it goes away; returns only in a
    forked child, with that child's role and payload fields."""
    global _child, _signal
    import _signal
    import _socket
    import resource

    sock = _socket.socket(fileno=0)
    _socketpair[0] = _socket.socketpair
    size = _read_exactly(0, 8)
    if size is None:
        _exit(0)
    init = _fields_of(_read_exactly(0, _int.from_bytes(size, "big")))
    # Layout: sys.path (one a line), denylist (one a line), flags, modules to
    # preload, the children's confinement (see `_load_child_confinement`).
    _set_path(init[0])
    _load_child_confinement(init[4])
    guard = "guard" in init[2].split()
    if role == "candidate":
        _set_deny_list(init[1], guard)
    _preload([m for m in init[3].split("\n") if m])
    _warm_up_compiler()
    if role == "candidate":
        # Prepared once here for every child (the server itself only uses
        # what it bound before: `_fork`, `_setsid`, `_killpg`, ...).
        _prepare_process(init[1], guard, init[0])
    else:
        _json_loads(b"[]")
    # 3 and 4 stay taken (by /dev/null) so that the descriptors children
    # receive never have their targets' numbers.
    null = posix.open("/dev/null", posix.O_RDWR)
    for fd in (3, 4):
        if fd != null:
            posix.dup2(null, fd)
    devnull = posix.dup(null)
    if null not in (3, 4):
        posix.close(null)
    # What is loaded now is shared with every child: never scanned by the
    # collector, so a child's collections do not touch (and copy) its pages.
    import gc

    gc.freeze()
    _signal.signal(_signal.SIGTERM, _on_host_death)
    _report("ready")
    while True:
        if role == "candidate" and not _spare[0] and _spares[0]:
            # The next child, forked and confined while the host deals with
            # the last one's result.
            got = _fork_spare(sock, devnull)
            if got is not None:
                return _become(role, got[1], got[0], devnull, resource.setrlimit)
        command, fds = _receive_command(sock)
        if command == b"K":
            if _child:
                _waitpid(_child, 0)
                _child = 0
            continue
        size = _read_exactly(0, 8) if command == b"R" else None
        frame = _read_exactly(0, _int.from_bytes(size, "big")) if size else None
        if frame is None or _len(fds) > _FDS_MAX:
            _on_host_death(0, None)
        if _child:
            _waitpid(_child, 0)
            _child = 0
        if role == "judge":
            # The task's own text, made once for all its samples.
            try:
                _task_of(_fields_of(frame)[2:])
            except _BaseException:
                pass
        pid = _hand_over(fds, frame)
        if not pid:
            _flush()
            pid = _fork()
            if pid == 0:
                try:
                    sock.detach()
                    if role == "judge":
                        # A judge lives for one candidate: no collections at all.
                        gc.disable()
                    _prepare_child(devnull)
                    return _become(role, frame, fds, devnull, resource.setrlimit)
                except _BaseException as exc:
                    _cannot_start(exc)
        for fd in fds:
            posix.close(fd)
        _child = pid
        _report("pid " + _str(pid))
        while True:
            try:
                info = _waitid(posix.P_PID, pid, posix.WEXITED | posix.WNOWAIT)
                break
            except InterruptedError:
                pass
        if info.si_code == posix.CLD_EXITED:
            _report("exit " + _str(info.si_status))
        else:
            _report("signal " + _str(info.si_status))


def _cannot_start(exc):
    message = "execscope fork server: cannot start the child: " + _describe(exc)
    try:
        _write(2, (message + "\n").encode())
    except _BaseException:
        pass
    _exit(70)


# A candidate server forks each child ahead of its candidate (the spare): its
# pid (0: none) and the server's end of the socket it waits on for its
# descriptors and frame. It is forked once the last child has exited, while
# the host reads that one's result, and is in the server's pids group like any
# child. Once handing over fails (descriptors may not be sent here), each child
# is forked when its command comes, as a judge server's always are.
_spare = [0, None]
_spares = [True]
# Bound while the server may still import `_socket` (its candidates may not).
_socketpair = [None]


def _fork_spare(sock, devnull):
    """Forks the spare. Returns (descriptors, frame) in the spare once the
    server hands them over; None in the server."""
    try:
        ours, theirs = _socketpair[0]()
    except _BaseException:
        _spares[0] = False
        return None
    _flush()
    pid = _fork()
    if pid == 0:
        try:
            sock.detach()
            ours.close()
            _prepare_child(devnull)
            data, fds = _receive_command(theirs)
            size = _read_exactly(theirs.fileno(), 8) if data == b"R" else None
            frame = _read_exactly(theirs.fileno(), _int.from_bytes(size, "big")) if size else None
            theirs.close()
        except _BaseException as exc:
            _cannot_start(exc)
        if frame is None:
            # The server is gone, or gave up on this spare.
            _exit(0)
        return fds, frame
    theirs.close()
    _spare[:] = [pid, ours]
    return None


def _hand_over(fds, frame):
    """Gives the spare its descriptors and frame; its pid, or 0 when there
    is no spare or it cannot take them (descriptors may not be sent here:
    no more spares)."""
    pid, link = _spare
    if not pid:
        return 0
    _spare[0] = 0
    try:
        fd_bytes = b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds)
        link.sendmsg([b"R"], [(1, 1, fd_bytes)])  # SOL_SOCKET, SCM_RIGHTS
        ok = _write_all(link.fileno(), _frame(frame))
    except _BaseException:
        ok = False
    link.close()
    if ok:
        return pid
    _spares[0] = False
    try:
        _killpg(pid, 9)
    except _BaseException:
        pass
    _waitpid(pid, 0)
    return 0

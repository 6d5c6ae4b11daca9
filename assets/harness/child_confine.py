# --- what a candidate server's children enforce on themselves ---------------------
#
# What a candidate server's child enforces on itself before any candidate
# code. The server was confined by the host like a candidate except that it may
# fork; a child enforces the same Landlock ruleset again (descriptor 5), which
# gives it a domain of its own (it cannot signal its server), and loads a
# filter without fork and exec. (A judge runs no candidate code: it keeps its
# server's confinement, and pays for none of this.) Python has no call for either, so the server loads the ctypes
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

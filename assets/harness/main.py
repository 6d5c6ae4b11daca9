# --- the entry ---------------------------------------------------------------

# Python 3.12.0 and 3.12.1 refuse to start a thread from an atexit callback
# (python/cpython#113964), so there the chain runs from this module's frame,
# which holds nothing of the verdict either (the chain is on its value stack).
_AT_EXIT = not ((3, 12, 0) <= sys.version_info[:3] < (3, 12, 2))


def _payload():
    if sys.argv[1:] == ["serve"]:
        return _serve()
    return _fields_of(sys.stdin.buffer.read())


if _AT_EXIT:
    atexit.register(list, _start(_payload(), True))
else:
    list(_start(_payload(), False))

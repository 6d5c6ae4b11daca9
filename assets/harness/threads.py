# --- the thread bound --------------------------------------------------------

# Most threads a candidate runs at once besides its main thread. The kernel
# has no per-candidate count a rootless sandbox can set (RLIMIT_NPROC does not
# apply to root), and a thread bomb with tiny stacks uses up the machine's
# process ids (pid_max is often 32768) until its timeout.
THREADS_MAX = 256


def _bounded_start(
    function,
    args,
    kwargs=None,
    *,
    _start=_thread.start_new_thread,
    _lock=_thread.allocate_lock(),
    _live=[0],
    _max=THREADS_MAX,
):
    """`_thread.start_new_thread` refusing past THREADS_MAX running threads,
    counted from their start (a thread counts for `_thread._count` only once
    it runs, so a fast loop overshoots it). The original and the bound are
    keyword defaults: reading or replacing those is audited, and the integrity
    hook refuses it for the harness's functions (a closure's cells and a
    function's globals are not audited)."""
    with _lock:
        if _live[0] >= _max:
            raise PermissionError("denied: more than %d threads at once" % _max)
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



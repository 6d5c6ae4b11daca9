# --- the entry ---------------------------------------------------------------


def _main():
    """A fresh candidate reads its payload on stdin; a server returns here
    only in a forked child, with that child's role and payload."""
    if sys.argv[1:2] == ["serve"]:
        role = sys.argv[2]
        fields = _serve(role)
    else:
        role = "candidate"
        fields = _fields_of(sys.stdin.buffer.read())
    if role == "candidate":
        _candidate(fields)
    else:
        _judge(fields)


_main()

# --- the judge's side of tests that are a unittest suite ------------------------
#
# The suite runs in the candidate's process (suite.py); the judge hands it the
# test code once the program's top level has run, and records its answer,
# method by method, as the verdict: `integrity: "in-process"`.


def _judge_suite(test_code, program, methods):
    """Tests that are a unittest suite run in the candidate's process
    (suite.py): its answer, method by method, is the verdict. `methods` are
    the assertions, in order."""
    try:
        state = _receive(lambda: "the program's top level")
    except _Lost:
        _record("step", "c lost")
        _record("lost", _lost)
        return _finish()
    if not _program_state(state, program):
        return _finish()
    try:
        answer = _exchange_raw("suite", (test_code,), lambda: "the test suite")
        results = _suite_results(answer)
    except _Lost:
        _record("step", "s lost")
        _record("lost", _lost)
        return _finish()
    except _OutOfMemory:
        _record("step", "s memory")
        return _finish()
    if _type(results) is str:
        # The test module's top level raised (bigcodebench's `ALL`).
        _record("step", "s fail")
        _record("detail", "s " + results)
        for i in range(_len(methods)):
            _record("step", "a" + _str(i + 1) + " skip")
        return _finish()
    _record("step", "s ok")
    passed, failed, flags = results
    for flag in flags:
        _flag(flag)
    # A class or module fixture that failed fails every method it spoiled.
    fixture = failed.get("")
    for i, method in enumerate(methods):
        name = "a" + _str(i + 1)
        why = failed.get(method)
        if why is None and method in passed and fixture is None:
            _record("step", name + " ok")
            continue
        _record("step", name + " fail")
        if why is None:
            why = "a fixture failed: " + fixture if fixture is not None else "did not run"
        _record("detail", name + " " + why)
    _finish()


def _suite_results(answer):
    """(methods that passed, {method: why it failed}, flags) from the
    candidate's answer, or the description of what the test module's top
    level raised."""
    what = lambda: "the test suite"
    if answer[0] == "raise":
        if _len(answer) != 6 or _type(answer[1]) is not str or _type(answer[2]) is not str:
            _lose("malformed (an exception)", what)
        if answer[5] == "MemoryError":
            raise _OutOfMemory()
        text = answer[1][:200] + (": " + answer[2] if answer[2] else "")
        return text[:DETAIL_MAX]
    if (
        answer[0] != "ok"
        or _len(answer) != 3
        or _type(answer[1]) is not list
        or _type(answer[2]) is not list
        or not all(_type(f) is str and f in _SUITE_FLAGS for f in answer[2])
    ):
        _lose("malformed (the suite's answer)", what)
    passed, failed = set(), {}
    for item in answer[1]:
        if (
            _type(item) is not list
            or _len(item) != 5
            or not all(_type(x) is str for x in item[:4])
            or not (item[4] is None or _type(item[4]) is int)
        ):
            _lose("malformed (a test method's outcome)", what)
        method, status, kind, message, line = item
        if status == "ok":
            passed.add(method)
        elif method not in failed:
            text = kind[:200] + (": " + message if message else "")
            if line is not None:
                text += " (test line " + _str(line) + ")"
            failed[method] = text[:DETAIL_MAX]
    return passed, failed, answer[2]

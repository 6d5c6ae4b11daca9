# --- tests that are a unittest suite, in the candidate's process ---------------
#
# BigCodeBench's tests (`class TestCases(unittest.TestCase)`) patch modules
# the program uses, so they run here, in the program's own module, as
# bigcodebench 0.2.5 runs them (`bigcodebench/eval/__init__.py`,
# `unsafe_execute`): the program and the tests share a module `__test__`
# (with `sys`, `os` and `environ` bound), its output is swallowed and stdin
# cannot be read, TZ is UTC, `exit` and `quit` are None, and the loader's
# suite runs under one unittest.TestResult. A method passes unless it is
# among the result's failures or errors. The verdict is the candidate
# process's word: `integrity: "in-process"`.
#
# Unlike bigcodebench, a skipped method fails (its tests never skip), and
# what the program does to forge the verdict from here is watched for
# (suite_watch.py).
#
# The judge sends ["suite", TEST_CODE] after the program's top level has run;
# the answer is ["ok", [[method, "ok" | "fail", type, message, line], ...],
# [flag, ...]] (method "" for a class or module fixture's error), or the
# "raise" answer when the test module's top level raised (bigcodebench's
# `ALL`).

_SWALLOW_KEEP = 64 * 1024


def _suite_module():
    """The module the program and its tests share, as bigcodebench makes it."""
    import os

    module = _type(sys)("__test__")
    module.__dict__.update(
        {
            "__builtins__": builtins,
            "__file__": "__test__.py",
            "__package__": None,
            "__doc__": None,
            "sys": sys,
            "os": os,
            "environ": os.environ,
        }
    )
    sys.modules["__test__"] = module
    os.environ["TZ"] = "UTC"
    time.tzset()
    os.environ["OMP_NUM_THREADS"] = "1"
    builtins.exit = None
    builtins.quit = None
    _swallow_io()
    _watch_suite()
    return module.__dict__


def _swallow_io():
    """stdout and stderr keep their first 64 KiB for the user and drop the
    rest; stdin cannot be read (bigcodebench's `swallow_io`)."""
    import io

    class _Swallowed(io.StringIO):
        def __init__(self, stream):
            super().__init__()
            self._stream = stream
            self._kept = 0

        def write(self, text):
            n = _len(text)
            if self._kept < _SWALLOW_KEEP:
                part = text[: _SWALLOW_KEEP - self._kept]
                self._kept += _len(part)
                try:
                    self._stream.write(part)
                except _BaseException:
                    pass
            return n

        def read(self, *args, **kwargs):
            raise OSError

        readline = readlines = read

        def readable(self, *args, **kwargs):
            return False

    sys.stdout = _Swallowed(sys.__stdout__)
    sys.stderr = _Swallowed(sys.__stderr__)
    sys.stdin = _Swallowed(sys.__stderr__)


def _run_suite(test_code):
    import unittest

    _check_framework()
    code = _compile(test_code, "__test__.py", "exec")
    _exec(code, _namespace)
    cases = _namespace["TestCases"]
    own = _class_state(cases)
    suite = unittest.TestLoader().loadTestsFromTestCase(cases)
    outcomes = []

    def failed(test, err):
        try:
            name = _str(getattr(test, "_testMethodName", ""))
            kind = _str(err[0].__name__)[:200]
            message = _str(err[1])[:DETAIL_MAX]
        except _BaseException:
            name, kind, message = "", "Exception", "exception that cannot be described"
        outcomes.append([name, "fail", kind, message, _suite_line(err[2])])

    class _Result(unittest.TestResult):
        def addError(self, test, err):
            super().addError(test, err)
            failed(test, err)

        def addFailure(self, test, err):
            super().addFailure(test, err)
            failed(test, err)

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                failed(test, err)

        def addSuccess(self, test):
            super().addSuccess(test)
            outcomes.append([_str(test._testMethodName), "ok", "", "", None])

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            _suite_flag("skipped")
            try:
                name, message = _str(test._testMethodName), _str(reason)[:DETAIL_MAX]
            except _BaseException:
                name, message = "", ""
            outcomes.append([name, "fail", "SkipTest", message, None])

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            outcomes.append([_str(test._testMethodName), "ok", "", "", None])

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            outcomes.append([_str(test._testMethodName), "ok", "", "", None])

        def stopTest(self, test):
            super().stopTest(test)
            _check_framework()
            _check_class(own)

    suite.run(_Result())
    _check_framework()
    _check_class(own)
    return ["ok", outcomes, _suite_flags]


def _suite_raised(exc):
    """The answer when the test module's top level raised:
    ["raise", type, message, line, [], the builtin it derives from]."""
    try:
        name = _str(_type(exc).__name__)[:200]
        message = _str(exc)[:DETAIL_MAX]
    except _BaseException:
        name, message = "Exception", "exception that cannot be described"
    return ["raise", name, message, None, [], _builtin_base(_type(exc))]


def _suite_line(tb):
    """The last line of the test module in a traceback."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "__test__.py":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line

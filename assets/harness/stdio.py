# --- programs that take a test's input, in the candidate's process --------------
#
# LiveCodeBench's grader (`lcb_runner/evaluation/testing_util.py`), the part
# that builds and feeds the program; it runs here because the program does.
# The expected outputs never come here: the judge compares (stdio_verdict.py).
#
#   call   the program is `import_string + "\n\n" + code`; the judge calls
#          its function (or a `Solution()` method) on each test's arguments
#          with the ordinary "call" requests;
#   stdin  the program is `clean_if_name` then `make_function`: its imports
#          at the top level and everything else in `def wrapped_function()`,
#          after `import_string`. Each ["stdin", INPUT] request runs
#          wrapped_function once with stdin mocked as the grader mocks it
#          (`call_method`) and stdout captured (`Capturing`); SystemExit ends
#          the run quietly. The answer is ["ok", PRINTED, []], or the "raise"
#          answer of what the program raised.

_IMPORT_STRING = "from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\nfrom heapq import *\nfrom bisect import *\nfrom copy import *\nfrom math import *\nfrom random import *\nfrom statistics import *\nfrom itertools import *\nfrom functools import *\nfrom operator import *\nfrom io import *\nfrom sys import *\nfrom json import *\nfrom builtins import *\nfrom typing import *\nimport string\nimport re\nimport datetime\nimport collections\nimport heapq\nimport bisect\nimport copy\nimport math\nimport random\nimport statistics\nimport itertools\nimport functools\nimport operator\nimport io\nimport sys\nimport json\nsys.setrecursionlimit(50000)\n"
# How the program takes its tests: None, "call" or "stdin".
_stdio_mode = [None]


def _stdio_program(code, mode):
    """The program LiveCodeBench's grader runs for `code`."""
    _stdio_mode[0] = mode
    if mode == "call":
        return _IMPORT_STRING + "\n\n" + code
    return _make_function(_clean_if_name(code))


def _clean_if_name(code):
    import ast

    try:
        astree = ast.parse(code)
        last_block = astree.body[-1]
        if _isinstance(last_block, ast.If):
            condition = last_block.test
            if ast.unparse(condition).strip() == "__name__ == '__main__'":
                code = ast.unparse(astree.body[:-1]) + "\n" + ast.unparse(last_block.body)
    except _BaseException:
        pass
    return code


def _make_function(code):
    import ast

    try:
        import_stmts = []
        all_other_stmts = []
        astree = ast.parse(code)
        for stmt in astree.body:
            if _isinstance(stmt, (ast.Import, ast.ImportFrom)):
                import_stmts.append(stmt)
            else:
                all_other_stmts.append(stmt)
        function_ast = ast.FunctionDef(
            name="wrapped_function",
            args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=all_other_stmts,
            decorator_list=[],
            lineno=-1,
        )
        return _IMPORT_STRING + "\n" + ast.unparse(import_stmts) + "\n" + ast.unparse(function_ast)
    except _BaseException:
        return code


class _MockBuffer:
    def __init__(self, inputs):
        self.inputs = inputs.encode("utf-8")

    def read(self, *args):
        return self.inputs

    def readline(self, *args):
        return self.inputs.split(b"\n")[0] + b"\n"


class MockStdinWithBuffer:
    """The grader's, under its name (a program that iterates it sees it in the error)."""

    def __init__(self, inputs):
        import io

        self.inputs = inputs
        self._stringio = io.StringIO(inputs)
        self.buffer = _MockBuffer(inputs)

    def read(self, *args):
        return self.inputs

    def readline(self, *args):
        return self._stringio.readline(*args)

    def readlines(self, *args):
        return self.inputs.split("\n")

    def __getattr__(self, name):
        return getattr(self._stringio, name)


def _run_stdin(inputs):
    """Runs wrapped_function once on `inputs`; the answer."""
    import io

    if _type(inputs) is not str:
        raise TypeError("the input is not text")
    method = _namespace.get("wrapped_function")
    if method is None:
        raise NameError("the program has no wrapped_function")
    lines = iter(inputs.split("\n"))
    # The grader's patches, entered in its order: the three on `sys.stdin.*`
    # reach the real stdin (the program's `stdin` from `from sys import *`),
    # then sys.stdin and builtins.open are replaced.
    real_stdin = sys.stdin
    patched = []
    for attr, value in (
        ("read", lambda *args: inputs),
        ("readlines", lambda *args: inputs.split("\n")),
        ("readline", lambda *args: next(lines)),
    ):
        try:
            had = attr in real_stdin.__dict__
            old = real_stdin.__dict__.get(attr)
            setattr(real_stdin, attr, value)
            patched.append((attr, had, old))
        except _BaseException:
            pass
    old_open = builtins.open
    old_stdout = sys.stdout
    captured = io.StringIO()
    captured.close = lambda *args: 1
    sys.stdin = MockStdinWithBuffer(inputs)
    builtins.open = lambda *args, **kwargs: io.StringIO(inputs)
    sys.stdout = captured
    try:
        try:
            method()
        except SystemExit:
            pass
    finally:
        sys.stdout = old_stdout
        sys.stdin = real_stdin
        builtins.open = old_open
        for attr, had, old in patched:
            try:
                if had:
                    setattr(real_stdin, attr, old)
                else:
                    delattr(real_stdin, attr)
            except _BaseException:
                pass
    return captured.getvalue()

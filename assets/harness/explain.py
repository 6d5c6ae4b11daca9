# --- why an assertion failed ---------------------------------------------------
#
# The judge compiles the tests' code rewritten, as pytest rewrites asserts:
# each `assert` first names itself (`__execscope_assert__(info)`), and each
# comparison operand, call, attribute, subscript and name it evaluates goes
# through `__execscope_note__(i, value)`, which keeps the value and returns
# it. Nothing is evaluated twice or in another order, and `and`, `or` and
# chained comparisons still stop where they stop. When a step fails, the
# notes of the assert that was running say why: its line and text, the
# operator, both operands, every subexpression's value, and the first place
# two data values differ. Showing a value asks the candidate nothing: a
# handle shows its type.

_VALUE_MAX = 2048
_WHERE_MAX = 8
# The running assert: (line, end line, text, op, left note, right note,
# ((note, expression text), ...)) and its notes so far.
_assert_now = [None]
_notes = {}


def _note(i, value):
    _notes[i] = value
    return value


def _begin_assert(info):
    _assert_now[0] = info
    _notes.clear()


_EXPLAIN_NAMES = {"__execscope_note__": _note, "__execscope_assert__": _begin_assert}


def _assertion_step(name, source):
    """One assertion's step: an expression runs as an assert of it."""
    try:
        _compile(source, "<assertion>", "eval")
    except _BaseException:
        return _step(name, source, "<assertion>", 0)
    return _step(name, "assert (\n" + source + "\n), " + repr(_EXPRESSION_IS_FALSE), "<assertion>", 1)


def _step(name, source, filename, offset):
    """(name, code, file name, its text, lines the judge put before the
    task's own text): the code with its asserts rewritten to explain a
    failure (explain.py), or as it is, or its text when it does not compile
    (so that it fails when it runs, with the compiler's error)."""
    code = _rewritten(source, filename, "exec", offset)
    if code is None:
        try:
            code = _compile(source, filename, "exec")
        except _BaseException:
            code = source
    return (name, code, filename, source, offset)


def _rewritten(source, filename, mode, line_offset):
    """The code of `source` with its asserts rewritten (see above), or None
    when it cannot be (the caller compiles it as it is). Only statements are
    walked down to the asserts, and only an assert's own expression is
    rewritten: the judge server does this once per task."""
    import ast

    try:
        tree = ast.parse(source, filename, mode)
    except _BaseException:
        return None
    ops = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
           ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
    opaque = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Constant)
    named = (ast.Call, ast.Attribute, ast.Subscript, ast.Name)
    lines = [line.encode() for line in source.splitlines(True)]

    def text_of(node):
        """The node's text (offsets are of the UTF-8 bytes, as in
        `ast.get_source_segment`, without splitting the source again)."""
        try:
            first, last = node.lineno - 1, node.end_lineno - 1
            if first == last:
                return lines[first][node.col_offset : node.end_col_offset].decode()
            parts = [lines[first][node.col_offset :]] + lines[first + 1 : last] + [lines[last][: node.end_col_offset]]
            return b"".join(parts).decode()
        except _BaseException:
            return "?"

    def call(function, args, old):
        """`function(*args)`, made at `old`'s place."""
        made = ast.Call(ast.Name(function, ast.Load()), args, [])
        for n in (made, made.func, *(a for a in args if _type(a) is ast.Constant)):
            n.lineno, n.col_offset = old.lineno, old.col_offset
            n.end_lineno, n.end_col_offset = old.end_lineno, old.end_col_offset
        return made

    def statements(body):
        out = []
        for stmt in body:
            if _isinstance(stmt, ast.Assert):
                out += rewrite(stmt)
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if _isinstance(inner, list):
                    setattr(stmt, field, statements(inner))
            for part in getattr(stmt, "handlers", ()) or getattr(stmt, "cases", ()):
                part.body = statements(part.body)
            out.append(stmt)
        return out

    def rewrite(node):
        where = []
        test = wrap(node.test, where)
        op = left = right = None
        if _isinstance(node.test, ast.Compare) and _len(node.test.ops) == 1:
            op = ops.get(_type(node.test.ops[0]))
            left, right = test.left.args[0].value, test.comparators[0].args[0].value
        line = max(1, node.lineno - line_offset)
        info = (line, node.end_lineno - line_offset, text_of(node.test), op, left, right, tuple(where))
        begin = ast.Expr(call("__execscope_assert__", [ast.Constant(info)], node))
        return [ast.copy_location(begin, node), ast.copy_location(ast.Assert(test, node.msg), node)]

    def wrap(node, where, operand=False):
        """`node` with its parts noted; itself noted too if it is an operand
        of a comparison, a call, attribute, subscript or name."""
        if _isinstance(node, opaque):
            pass
        elif _isinstance(node, ast.Call):
            if _isinstance(node.func, ast.Attribute):
                node.func.value = wrap(node.func.value, where)
            node.args = [wrap(a, where) for a in node.args]
            for k in node.keywords:
                k.value = wrap(k.value, where)
        elif _isinstance(node, ast.Compare):
            node.left = wrap(node.left, where, True)
            node.comparators = [wrap(c, where, True) for c in node.comparators]
        else:
            for field, value in ast.iter_fields(node):
                if _isinstance(value, ast.expr) and field != "ctx":
                    setattr(node, field, wrap(value, where))
                elif _isinstance(value, list):
                    setattr(node, field, [wrap(v, where) if _isinstance(v, ast.expr) else v for v in value])
        is_named = _isinstance(node, named)
        if (is_named and _isinstance(getattr(node, "ctx", None), (ast.Load, _type(None)))) or operand:
            i = _len(where)
            where.append((i, text_of(node) if is_named else ""))
            return call("__execscope_note__", [ast.Constant(i), node], node)
        return node

    try:
        tree.body = statements(tree.body)
        return _compile(tree, filename, mode)
    except _BaseException:
        return None


def _record_program_failure(detail):
    """The `failure` note of the program's top level: its exception and the
    line (the candidate process's `Type: message (line N)`)."""
    import json

    failure = {"exception": detail[:DETAIL_MAX]}
    head, sep, tail = detail.rpartition(" (line ")
    if sep and tail.endswith(")") and tail[:-1].isdigit() and _len(tail) < 12:
        failure = {"exception": head, "program_line": _int(tail[:-1])}
    _record("failure", "c " + json.dumps(failure))


def _record_failure(name, exc, step, setup):
    """The `failure` note of step `name` (explain.py): what the test saw."""
    sources = {step[2]: (step[3], step[4])}
    if setup is not None and setup is not step:
        sources[setup[2]] = (setup[3], 0)
    try:
        import json

        failure = _failure(exc, sources)
        if failure:
            _record("failure", name + " " + json.dumps(failure))
    except _BaseException:
        pass


def _failure(exc, sources):
    """What the judge knows of why a step failed with `exc`: a dict of the
    run file's `failure` keys (src/sandbox/wire.rs), all but `assertion`.
    `sources` maps each file name of the tests' code to its text and how
    many lines the judge put before it."""
    out = {}
    line = source = None
    tb = exc.__traceback__
    while tb is not None:
        where = sources.get(tb.tb_frame.f_code.co_filename)
        if where is not None:
            source, offset = where
            line = max(1, tb.tb_lineno - offset)
        tb = tb.tb_next
    info = _assert_now[0]
    if info is not None and line is not None and not info[0] <= line <= info[1]:
        info = None
    ours = _type(exc) is AssertionError and info is not None
    if info is not None:
        line, end, out["text"], op, left, right, where = info
        if op is not None and left in _notes and right in _notes:
            out["op"] = op
            out["left"], out["right"] = _shown(_notes[left]), _shown(_notes[right])
            difference = _difference(_notes[left], _notes[right]) if op == "==" else None
            if difference:
                out["difference"] = difference
        shown = [[text, _shown(_notes[i])] for i, text in where if text and i in _notes and _worth_showing(_notes[i])]
        if shown:
            out["where"] = shown[-_WHERE_MAX:]
    elif line is not None:
        lines = source.split("\n")[offset:]
        if 0 < line <= _len(lines):
            out["text"] = lines[line - 1].strip()[:_VALUE_MAX]
    if line is not None:
        out["line"] = line
    if ours:
        if exc.args and exc.args != (_EXPRESSION_IS_FALSE,):
            out["message"] = _bounded(_str(exc.args[0]) if _len(exc.args) == 1 else _str(exc.args))
    else:
        out["exception"] = _bounded(_type(exc).__name__ + (": " + _str(exc) if _str(exc) else ""))
        program_line = getattr(exc, "_execscope_line", None)
        if _type(program_line) is int:
            out["program_line"] = program_line
    return out


def _worth_showing(v):
    """A value a reader learns from (not a function, class or module)."""
    t = _type(v)
    return _is_stand_in(v) or not (t is _Proxy or callable(v) or t is _type(sys))


def _bounded(text):
    if _len(text) <= _VALUE_MAX:
        return text
    half = _VALUE_MAX // 2 - 10
    return text[:half] + " ... " + text[-half:]


def _shown(v):
    """`v` as bounded text, asking the candidate nothing."""
    try:
        return _bounded(_text(v, 0))
    except _BaseException:
        return "<" + _type(v).__name__ + ">"


_SHOWN_ITEMS = 40


def _text(v, depth):
    t = _type(v)
    if t in _STAND_INS:
        return "<" + object.__getattribute__(v, "_kind") + " object>"
    if t is _Proxy:
        return "<" + object.__getattribute__(v, "_name") + " of the program>"
    if depth > 20:
        return "..."
    if t is str or t is bytes:
        return repr(v if _len(v) <= _VALUE_MAX else v[: _VALUE_MAX // 2] + v[-(_VALUE_MAX // 2) :])
    if t is int and v.bit_length() > 4000:
        return "<int of " + _str(v.bit_length()) + " bits>"
    if _isinstance(v, (list, tuple, set, frozenset)):
        items = list(v)
        inner = _items_text(items, lambda x: _text(x, depth + 1))
        if t is list:
            return "[" + inner + "]"
        if t is tuple:
            return "(" + inner + ("," if _len(items) == 1 else "") + ")"
        if not items and t in (set, frozenset):
            return t.__name__ + "()"
        return ("{" + inner + "}") if t is set else t.__name__ + "({" + inner + "})"
    if _isinstance(v, dict):
        inner = "{" + _items_text(list(v), lambda k: _text(k, depth + 1) + ": " + _text(v[k], depth + 1)) + "}"
        return inner if t is dict else t.__name__ + "(" + inner + ")"
    if t.__module__ == "collections" and t.__name__ == "deque":
        return "deque(" + _text(list(v), depth + 1) + ")"
    return repr(v)


def _items_text(items, render):
    """`items` rendered one by one and joined; past _SHOWN_ITEMS, the first
    and last halves of them with how many were left out between."""
    half = _SHOWN_ITEMS // 2
    if _len(items) <= _SHOWN_ITEMS:
        return ", ".join([render(x) for x in items])
    left_out = "... " + _str(_len(items) - _SHOWN_ITEMS) + " more ..."
    return ", ".join([render(x) for x in items[:half]] + [left_out] + [render(x) for x in items[-half:]])


def _plain(v, depth=0):
    """Whether `v` is data all through (no handle or proxy inside), so that
    comparing it runs only the judge's own code."""
    t = _type(v)
    if t in (str, bytes, int, float, bool, complex, _type(None)):
        return True
    if depth > 20 or t in _STAND_INS or t is _Proxy:
        return False
    if t in (list, tuple, set, frozenset):
        return all(_plain(x, depth + 1) for x in v)
    if t is dict:
        return all(_plain(k, depth + 1) and _plain(x, depth + 1) for k, x in v.items())
    return False


def _difference(left, right):
    """Where two data values first differ, in words; None when that cannot
    be said without running anything but the judge's code."""
    if not (_plain(left) and _plain(right)) or left == right:
        return None
    tl, tr = _type(left), _type(right)
    if tl is not tr and not (tl in (int, float) and tr in (int, float)):
        return tl.__name__ + " != " + tr.__name__
    if tl in (str, bytes, list, tuple):
        for i, (a, b) in enumerate(zip(left, right)):
            if a != b:
                return "index " + _str(i) + ": " + _shown(a) + " != " + _shown(b)
        n = min(_len(left), _len(right))
        if _len(left) > n:
            return "index " + _str(n) + ": " + _shown(left[n]) + " extra"
        return "index " + _str(n) + ": " + _shown(right[n]) + " missing"
    if tl in (set, frozenset):
        parts = []
        if left - right:
            parts.append("extra " + _shown(set(left - right)))
        if right - left:
            parts.append("missing " + _shown(set(right - left)))
        return "; ".join(parts)
    if tl is dict:
        for k in left:
            if k not in right:
                return "key " + _shown(k) + " extra"
            if left[k] != right[k]:
                return "key " + _shown(k) + ": " + _shown(left[k]) + " != " + _shown(right[k])
        for k in right:
            if k not in left:
                return "key " + _shown(k) + " missing"
    return None

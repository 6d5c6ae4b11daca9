#!/usr/bin/env python3
"""Builds tests/differential/corpus.jsonl from public code with doctests.

Usage (see README.md in this folder):

    python3 tests/differential/build_corpus.py \
        --more-itertools /path/to/more-itertools.git [--mi-commit COMMIT] \
        --thealgorithms /path/to/TheAlgorithms-Python.git [--ta-commit COMMIT] \
        [--out tests/differential/corpus.jsonl] [--ta-max 300] [--jobs 2]

Each path is a git directory (a bare clone or a `.git`); files are read with
`git --git-dir=PATH show COMMIT:path`, so no work tree is needed. COMMIT
defaults to the corpus's pinned commits below (then HEAD if absent).

For each function or class under test the program is the smallest closure of
its module that defines it: the stdlib imports, top-level definitions and
assignments it (or its doctests) needs, docstrings stripped, relative imports
dropped (more_itertools: recipes.py and more.py concatenated as one module).
Its doctest examples become checks (see `example_check`); every check of an
original is verified in CPython under two hash seeds and both ways of giving
the checks the program's names (shared namespace, and a copy of it); checks
that fail or disagree are dropped, docstring by docstring. Mutants change one
node inside the unit under test and are kept when they compile, finish in a
few seconds and behave the same under both hash seeds; mutants that fail at
least one check are preferred.
"""

import argparse
import ast
import builtins
import copy
import doctest
import hashlib
import json
import os
import random
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, "child.py")

MI_REPO = "more-itertools/more-itertools"
TA_REPO = "TheAlgorithms/Python"
MI_COMMIT = "2fe1b2eeb9d75f994113fe3ac76d14b6bcd6fb10"
TA_COMMIT = "f5988cc09713315817df6a7e327e258013a94440"

TA_DIRS = [
    "backtracking", "bit_manipulation", "boolean_algebra", "ciphers",
    "conversions", "data_compression", "data_structures", "divide_and_conquer",
    "dynamic_programming", "electronics", "financial", "geometry", "graphs",
    "greedy_methods", "hashes", "knapsack", "linear_algebra", "maths", "matrix",
    "other", "physics", "scheduling", "searches", "sorts", "strings",
]

STDLIB = set(sys.stdlib_module_names) | {"__future__"}
# Tokens that make a program or an example nondeterministic, slow or
# dependent on the machine.
PROGRAM_BANNED = re.compile("|".join([
    r"\brandom\b", r"\btime\b", r"\bmonotonic\b", r"\bopen\(", r"\binput\(",
    r"\burllib\b", r"\brequests\b", r"\bsocket\b", r"\bsubprocess\b", r"\bos\.",
    r"\bThread\b", r"\bthreading\b", r"\bmultiprocessing\b", r"import queue",
    r"from queue import", r"\bsleep\b", r"\bdatetime\b", r"\bsys\.(stdin|argv|stdout)",
    r"```", r"\bperf_counter\b", r"\bsecrets\b", r"\buuid\b", r"\btempfile\b",
    r"\bpathlib\b", r"\bshutil\b", r"\bexit\(", r"\bsetrecursionlimit\b", r"\burandom\b",
]))
EXAMPLE_BANNED = re.compile("|".join([
    r"\brandom\b", r"\btime\b", r"\btime_limited\b", r"\bmonotonic\b", r"\bsleep\b",
    r"\bopen\(", r"\binput\(", r"\bprint\(", r"\bsys\.", r"\bos\.", r"\bThread",
    r"\burllib\b", r"\brequests\b", r"\bdoctest\b", r"\bhelp\(", r"\bdir\(", r"\bid\(",
    r"\bhash\(", r"\bgetsizeof\b", r"__file__", r"\bglobals\(", r"\blocals\(", r"\bvars\(",
    r"\bgc\.", r"\btracemalloc\b", r"more_itertools", r"\btimeit\b", r"__name__", r"__doc__",
    r"__qualname__", r"__module__", r"\binspect\b", r"```", r"\bbreakpoint\b", r"\bexit\(",
    r"\bquit\(", r"\bpickle\b", r"\bweakref\b", r"__code__", r"__closure__", r"__dict__",
    r"\bsetrecursionlimit\b", r"\bsubprocess\b",
]))
MAX_PROGRAM_BYTES = 20000
MAX_CHECKS = 40
BUILD_TIMEOUT = 5.0
MUTANT_SLOW_S = 2.5


# ----------------------------------------------------------------------------
# reading the snapshots


def git_show(git_dir, commit, path):
    return subprocess.run(
        ["git", "--git-dir=" + git_dir, "show", "%s:%s" % (commit, path)],
        check=True, capture_output=True,
    ).stdout.decode("utf-8")


def git_ls(git_dir, commit):
    out = subprocess.run(
        ["git", "--git-dir=" + git_dir, "ls-tree", "-r", "--name-only", commit],
        check=True, capture_output=True,
    ).stdout.decode("utf-8")
    return out.splitlines()


def resolve(git_dir, commit):
    r = subprocess.run(
        ["git", "--git-dir=" + git_dir, "rev-parse", "--verify", commit + "^{commit}"],
        capture_output=True,
    )
    if r.returncode == 0:
        return r.stdout.decode().strip()
    head = subprocess.run(
        ["git", "--git-dir=" + git_dir, "rev-parse", "HEAD"],
        check=True, capture_output=True,
    ).stdout.decode().strip()
    print("note: %s not in %s, using HEAD %s" % (commit, git_dir, head), file=sys.stderr)
    return head


# ----------------------------------------------------------------------------
# module closures


def loads(node):
    """Names a node reads (over-approximated: every Name in it)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def binds(stmt):
    """Names a top-level statement binds."""
    out = set()
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.add(stmt.name)
        return out
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for a in stmt.names:
            out.add((a.asname or a.name).split(".")[0])
        return out
    todo = [stmt]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            out.add(n.name)
            continue  # its body binds its own locals
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                out.add((a.asname or a.name).split(".")[0])
        elif isinstance(n, ast.Lambda) or isinstance(n, ast.comprehension):
            pass
        todo.extend(ast.iter_child_nodes(n))
    return out


def free_loads(stmt):
    """Names a top-level statement may read from the module (crudely: names
    read anywhere in it, less a def's parameters and the names it assigns)."""
    read = loads(stmt)
    if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return read
    local = set()
    declared_global = set()
    for n in ast.walk(stmt):
        if n is stmt:
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            local.add(n.id)
        elif isinstance(n, ast.arg):
            local.add(n.arg)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            declared_global.update(n.names)
    # Decorators, defaults, bases and annotations are read at definition time.
    outer = set()
    if isinstance(stmt, ast.ClassDef):
        for b in stmt.bases + stmt.keywords + stmt.decorator_list:
            outer |= loads(b)
    else:
        for d in stmt.decorator_list + stmt.args.defaults + [x for x in stmt.args.kw_defaults if x]:
            outer |= loads(d)
    return (read - local) | declared_global | outer


def is_main_guard(stmt):
    return (
        isinstance(stmt, ast.If)
        and "__name__" in loads(stmt.test)
    )


def strip_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                body.pop(0)
                if not body:
                    body.append(ast.Pass())
    return tree


class Module:
    """A parsed module: its top-level statements, usable ones indexed by the
    names they bind."""

    def __init__(self, sources):
        self.stmts = []  # (stmt, binds, loads, ok)
        for src in sources:
            tree = ast.parse(src)
            for stmt in tree.body:
                self._add(stmt)
        self.by_name = {}
        for i, (stmt, b, _, _) in enumerate(self.stmts):
            for name in b:
                self.by_name.setdefault(name, []).append(i)

    def _add(self, stmt):
        if isinstance(stmt, ast.Expr) or is_main_guard(stmt):
            return
        if isinstance(stmt, ast.ImportFrom):
            if stmt.level:
                return  # more_itertools' `from .recipes import`: same module here
            if (stmt.module or "").split(".")[0] not in STDLIB:
                # A third-party import: its names are unavailable.
                self.stmts.append((stmt, binds(stmt), set(), False))
                return
            # One statement per alias, so a closure takes only what it needs.
            for a in stmt.names:
                one = ast.ImportFrom(module=stmt.module, names=[a], level=0)
                self.stmts.append((one, binds(one), set(), True))
            return
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                one = ast.Import(names=[a])
                ok = a.name.split(".")[0] in STDLIB
                self.stmts.append((one, binds(one), set(), ok))
            return
        b = binds(stmt)
        if any(n.startswith("__") and n.endswith("__") for n in b):
            return  # __all__, __lazy_modules__, __version__
        self.stmts.append((stmt, b, free_loads(stmt), True))

    def closure(self, roots):
        """Indices of the statements the names `roots` need, or None when one
        of them is a third-party or relative import."""
        todo = list(roots)
        seen_names = set()
        picked = set()
        while todo:
            name = todo.pop()
            if name in seen_names:
                continue
            seen_names.add(name)
            for i in self.by_name.get(name, []):
                if i in picked:
                    continue
                stmt, _, ld, ok = self.stmts[i]
                if not ok:
                    return None
                picked.add(i)
                todo.extend(ld)
        return sorted(picked)

    def render(self, picked, replace=None):
        body = []
        future = []
        for i in picked:
            stmt = self.stmts[i][0]
            if replace and i in replace:
                stmt = replace[i]
            stmt = strip_docstrings(copy.deepcopy(ast.Module(body=[stmt], type_ignores=[]))).body[0]
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                future.append(stmt)
            else:
                body.append(stmt)
        mod = ast.Module(body=future + body, type_ignores=[])
        return ast.unparse(ast.fix_missing_locations(mod)) + "\n"


# ----------------------------------------------------------------------------
# doctest examples -> checks

PARSER = doctest.DocTestParser()


def _is_expr(src):
    try:
        ast.parse(src, mode="eval")
        return True
    except SyntaxError:
        return False


def _indent(src, n=4):
    return "\n".join((" " * n + line) if line.strip() else line for line in src.splitlines())


def example_check(ex, class_names):
    """The check for one doctest example, or None to drop it."""
    src = ex.source.rstrip("\n")
    want = ex.want
    if doctest.SKIP in ex.options and ex.options[doctest.SKIP]:
        return None
    if EXAMPLE_BANNED.search(src):
        return None
    if ex.exc_msg is None and ("..." in want or "<BLANKLINE>" in want):
        return None
    try:
        tree = ast.parse(src)
        # Comments dropped, one canonical spelling.
        src = ast.unparse(tree)
    except (SyntaxError, ValueError, RecursionError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (
            node.level or (node.module or "").split(".")[0] not in STDLIB
        ):
            return None
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] not in STDLIB for a in node.names
        ):
            return None
    if ex.exc_msg is not None:
        last = [l for l in want.strip().splitlines() if l.strip()][-1]
        name = last.split(":", 1)[0].strip().split(".")[-1]
        if not name.isidentifier():
            return None
        builtin = getattr(builtins, name, None)
        is_builtin_exc = isinstance(builtin, type) and issubclass(builtin, BaseException)
        if not is_builtin_exc and name not in class_names:
            return None
        return "try:\n%s\nexcept %s as _e:\n    pass\nelse:\n    raise AssertionError('no exception')" % (
            _indent(src), name)
    if not want.strip():
        if _is_expr(src):
            return "_ = (%s)" % src
        return src
    if not _is_expr(src):
        return None
    text = want.rstrip("\n")
    try:
        lit = ast.literal_eval(text.strip())
    except Exception:
        lit = _NOLIT
    if lit is not _NOLIT and not (isinstance(lit, float) and lit != lit):
        rhs = text.strip() if "\n" not in text.strip() else repr(lit)
        return "assert (%s) == %s" % (src, rhs)
    return "assert repr(%s) == %r" % (src, text)


_NOLIT = object()


def doc_groups(node):
    """The doctest examples of a unit, one list per docstring, in source order:
    a function's own, or a class's then each of its methods'."""
    groups = []
    nodes = [node]
    if isinstance(node, ast.ClassDef):
        nodes += [n for n in ast.walk(node) if n is not node and isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    for n in nodes:
        doc = ast.get_docstring(n, clean=True)
        if not doc or ">>>" not in doc:
            continue
        try:
            exs = PARSER.get_examples(doc)
        except ValueError:
            continue
        if exs:
            groups.append(exs)
    return groups


# ----------------------------------------------------------------------------
# running in CPython


def run_child(program, checks, seed, mode, timeout=BUILD_TIMEOUT):
    """[(ok, exc)] per check, None for a program error or timeout."""
    env = dict(os.environ, PYTHONHASHSEED=str(seed))
    payload = json.dumps({"program": program, "checks": checks, "mode": mode})
    try:
        r = subprocess.run([sys.executable, "-s", CHILD], input=payload.encode(),
                           capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None
    lines = [json.loads(l) for l in r.stdout.decode().splitlines() if l.strip()]
    if not lines or lines[0].get("program") is not None:
        return None
    res = [(l["ok"], l["exc"]) for l in lines[1:]]
    if len(res) != len(checks):
        return None
    return res


def verify(program, groups):
    """Groups of checks that pass in CPython under both seeds and modes."""
    for _ in range(4):
        flat = [c for g in groups for c in g]
        if not flat:
            return []
        a = run_child(program, flat, 0, "shared")
        b = run_child(program, flat, 1, "copy")
        if a is None or b is None:
            return []
        bad = set()
        k = 0
        for gi, g in enumerate(groups):
            for _c in g:
                if not (a[k][0] and b[k][0]):
                    bad.add(gi)
                k += 1
        if not bad:
            return groups
        groups = [g for gi, g in enumerate(groups) if gi not in bad]
    return []


# ----------------------------------------------------------------------------
# mutants

SWAP_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add,
            ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv}
SWAP_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
            ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn,
            ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
SYM = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%",
       ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
       ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in", ast.Is: "is",
       ast.IsNot: "is not", ast.And: "and", ast.Or: "or"}


class Mutator(ast.NodeTransformer):
    """Counts mutation sites; with `target` set, applies that one."""

    def __init__(self, target=None):
        self.n = 0
        self.target = target
        self.sites = []
        self.done = None

    def _site(self, desc):
        i = self.n
        self.n += 1
        self.sites.append(desc)
        return i == self.target

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if type(node.op) in SWAP_BIN:
            new = SWAP_BIN[type(node.op)]
            d = "line %d: %s -> %s" % (node.lineno, SYM[type(node.op)], SYM[new])
            if self._site(d):
                node.op = new()
                self.done = d
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if type(node.op) in (ast.Add, ast.Sub):
            new = SWAP_BIN[type(node.op)]
            d = "line %d: %s= -> %s=" % (node.lineno, SYM[type(node.op)], SYM[new])
            if self._site(d):
                node.op = new()
                self.done = d
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        for j, op in enumerate(node.ops):
            if type(op) in SWAP_CMP:
                new = SWAP_CMP[type(op)]
                d = "line %d: %s -> %s" % (node.lineno, SYM[type(op)], SYM[new])
                if self._site(d):
                    node.ops[j] = new()
                    self.done = d
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        new = ast.Or if isinstance(node.op, ast.And) else ast.And
        d = "line %d: %s -> %s" % (node.lineno, SYM[type(node.op)], SYM[new])
        if self._site(d):
            node.op = new()
            self.done = d
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            d = "line %d: 'not x' -> 'x'" % node.lineno
            if self._site(d):
                self.done = d
                return node.operand
        return node

    def visit_Constant(self, node):
        v = node.value
        if isinstance(v, int) and not isinstance(v, bool):
            d = "line %d: constant %d -> %d" % (node.lineno, v, v + 1)
            if self._site(d):
                self.done = d
                return ast.copy_location(ast.Constant(v + 1), node)
        return node

    def visit_Return(self, node):
        self.generic_visit(node)
        if node.value is not None and not (
            isinstance(node.value, ast.Constant) and node.value.value is None
        ):
            d = "line %d: 'return %s' -> 'return None'" % (node.lineno, _short(node.value))
            if self._site(d):
                self.done = d
                return ast.copy_location(ast.Return(value=ast.Constant(None)), node)
        return node

    def visit_Yield(self, node):
        self.generic_visit(node)
        if node.value is not None:
            d = "line %d: 'yield %s' -> 'yield None'" % (node.lineno, _short(node.value))
            if self._site(d):
                self.done = d
                return ast.copy_location(ast.Yield(value=ast.Constant(None)), node)
        return node


def _short(node):
    s = ast.unparse(node)
    return s if len(s) <= 30 else s[:27] + "..."


# ----------------------------------------------------------------------------
# units


def features(unit_node, program, checks, name):
    f = set()
    if isinstance(unit_node, ast.ClassDef):
        f.add("class")
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(unit_node)):
        f.add("generator")
    if any(isinstance(n, ast.ClassDef) for n in ast.walk(ast.parse(program))):
        f.add("defines-class")
    text = "\n".join(checks)
    if any(c.startswith("try:") for c in checks):
        f.add("exception")
    callish = ("lambda", "key=", "func=", "pred=", "predicate=", "keyfunc=",
               "valuefunc=", "reducefunc=", "operator.", "itemgetter", "str.",
               "int,", "(len", "(abs", "(max", "(min", "(sum", ", str)", ", int)")
    if any(t in text for t in callish):
        f.add("callable-in")
    itertools_in = ("count(", "cycle(", "repeat(", "iter(", "islice(", "chain(",
                    "zip(", "map(", "range(", "(x for", "(i for", "(n for")
    if any(t in text for t in itertools_in):
        f.add("iterator-in")
    for n in ast.walk(unit_node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name \
                and not isinstance(unit_node, ast.ClassDef):
            f.add("recursion")
            break
    for c in checks:
        try:
            t = ast.parse(c)
        except SyntaxError:
            continue
        for n in ast.walk(t):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                    "append", "insert", "pop", "push", "add", "remove", "extend",
                    "enqueue", "dequeue", "put", "delete", "update", "sort", "clear"):
                f.add("in-place")
            if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Store):
                f.add("in-place")
    return sorted(f)


def units_of(module, path_label):
    """(name, stmt index, groups of examples) for each top-level function or
    class with doctests."""
    out = []
    for i, (stmt, _, _, ok) in enumerate(module.stmts):
        if not ok or not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            continue
        if stmt.name.startswith("_") and not stmt.name.startswith("__"):
            pass
        groups = doc_groups(stmt)
        if groups:
            out.append((stmt.name, i, groups))
    return out


def make_unit(module, name, idx, groups):
    """(program, check groups, picked) or None."""
    class_names = {s.name for s, _, _, _ in module.stmts if isinstance(s, ast.ClassDef)}
    cgroups = []
    total = 0
    for exs in groups:
        g = []
        for ex in exs:
            c = example_check(ex, class_names)
            if c is not None:
                g.append(c)
        if g:
            if total + len(g) > MAX_CHECKS and cgroups:
                break
            cgroups.append(g[:MAX_CHECKS])
            total += len(g[:MAX_CHECKS])
    if not cgroups:
        return None
    roots = {name}
    for g in cgroups:
        for c in g:
            roots |= loads(ast.parse(c))
    roots -= {"_e", "_"}
    picked = module.closure(roots)
    if picked is None or idx not in picked:
        return None
    program = module.render(picked)
    if len(program) > MAX_PROGRAM_BYTES:
        return None
    if PROGRAM_BANNED.search(program):
        return None
    return program, cgroups, picked


def mutants_of(module, idx, picked, checks, orig_results, seed_key):
    """Up to two (program, description) mutants of the unit at `idx`."""
    unit = strip_docstrings(copy.deepcopy(ast.Module(body=[module.stmts[idx][0]], type_ignores=[]))).body[0]
    counter = Mutator()
    counter.visit(copy.deepcopy(unit))
    n = counter.n
    if n == 0:
        return []
    order = list(range(n))
    random.Random(seed_key).shuffle(order)
    kinds = counter.sites
    order.sort(key=lambda t: "return None" in kinds[t])
    returns = 0
    killed, survived = [], []
    seen_programs = set()
    for target in order[:8]:
        m = Mutator(target)
        new = m.visit(copy.deepcopy(unit))
        if m.done is None:
            continue
        if "return None" in m.done:
            if returns:
                continue
            returns += 1
        ast.fix_missing_locations(new)
        try:
            program = module.render(picked, {idx: new})
            compile(program, "<mutant>", "exec")
        except (SyntaxError, ValueError, RecursionError):
            continue
        if program in seen_programs:
            continue
        seen_programs.add(program)
        import time as _t
        t0 = _t.monotonic()
        a = run_child(program, checks, 0, "shared", timeout=MUTANT_SLOW_S)
        if a is None:
            # Program error or timeout; a top-level error still makes a fine
            # mutant, a timeout does not (it only measures the clock).
            a2 = _program_error_only(program)
            if not a2:
                continue
            killed.append((program, m.done))
        else:
            if _t.monotonic() - t0 > MUTANT_SLOW_S * 0.8:
                continue
            b = run_child(program, checks, 1, "copy", timeout=MUTANT_SLOW_S)
            if b is None or [x[0] for x in a] != [x[0] for x in b]:
                continue
            if [x[0] for x in a] != [True] * len(checks):
                killed.append((program, m.done))
            else:
                survived.append((program, m.done))
        if len(killed) >= 2:
            break
    return (killed + survived)[:2]


def _program_error_only(program):
    payload = json.dumps({"program": program, "checks": [], "mode": "shared"})
    try:
        r = subprocess.run([sys.executable, "-s", CHILD], input=payload.encode(),
                           capture_output=True, timeout=MUTANT_SLOW_S)
    except subprocess.TimeoutExpired:
        return False
    lines = [json.loads(l) for l in r.stdout.decode().splitlines() if l.strip()]
    return bool(lines) and lines[0].get("program") is not None


# ----------------------------------------------------------------------------


def collect(args):
    """Candidate units: (priority, key, source dict, module, name, idx, groups)."""
    cands = []
    if args.more_itertools:
        commit = resolve(args.more_itertools, args.mi_commit)
        srcs = [git_show(args.more_itertools, commit, "more_itertools/recipes.py"),
                git_show(args.more_itertools, commit, "more_itertools/more.py")]
        module = Module(srcs)
        files = ["more_itertools/recipes.py", "more_itertools/more.py"]
        # Which file each top-level name came from.
        origin = {}
        for f, s in zip(files, srcs):
            for stmt in ast.parse(s).body:
                for nm in binds(stmt):
                    origin[nm] = f
        for name, idx, groups in units_of(module, "mi"):
            src = {"repo": MI_REPO, "commit": commit, "path": origin.get(name, files[1]),
                   "function": name}
            cands.append(("mi", 0, "mi/" + name, src, module, name, idx, groups))
    if args.thealgorithms:
        commit = resolve(args.thealgorithms, args.ta_commit)
        for path in sorted(git_ls(args.thealgorithms, commit)):
            if not path.endswith(".py") or path.split("/")[0] not in TA_DIRS:
                continue
            if "/test" in path or path.split("/")[-1].startswith("test_"):
                continue
            try:
                text = git_show(args.thealgorithms, commit, path)
                module = Module([text])
            except (SyntaxError, UnicodeDecodeError, ValueError, subprocess.CalledProcessError):
                continue
            for name, idx, groups in units_of(module, path):
                stmt = module.stmts[idx][0]
                is_gen = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(stmt))
                has_exc = any(ex.exc_msg is not None for g in groups for ex in g)
                prio = 0 if isinstance(stmt, ast.ClassDef) or is_gen or has_exc else 1
                src = {"repo": TA_REPO, "commit": commit, "path": path, "function": name}
                uid = "ta/" + path[:-3] + "/" + name
                cands.append(("ta", prio, uid, src, module, name, idx, groups))
    return cands


def build_one(cand):
    kind, _prio, uid, src, module, name, idx, groups = cand
    made = make_unit(module, name, idx, groups)
    if made is None:
        return None
    program, cgroups, picked = made
    cgroups = verify(program, cgroups)
    if not cgroups:
        return None
    checks = [c for g in cgroups for c in g]
    unit_node = module.stmts[idx][0]
    feats = features(unit_node, program, checks, name)
    records = [{"id": uid, "source": src, "program": program, "checks": checks,
                "mutant": None, "features": feats}]
    for k, (mprog, desc) in enumerate(mutants_of(module, idx, picked, checks, None, uid)):
        records.append({"id": "%s#m%d" % (uid, k + 1), "source": src, "program": mprog,
                        "checks": checks, "mutant": desc, "features": feats})
    return records


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--more-itertools", metavar="GIT_DIR")
    ap.add_argument("--mi-commit", default=MI_COMMIT)
    ap.add_argument("--thealgorithms", metavar="GIT_DIR")
    ap.add_argument("--ta-commit", default=TA_COMMIT)
    ap.add_argument("--out", default=os.path.join(HERE, "corpus.jsonl"))
    ap.add_argument("--ta-max", type=int, default=300,
                    help="originals taken from TheAlgorithms (classes and generators first)")
    ap.add_argument("--mi-max", type=int, default=10**6)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if not (args.more_itertools or args.thealgorithms):
        ap.error("give --more-itertools and/or --thealgorithms")

    cands = collect(args)
    # Deterministic order: more_itertools in source order; TheAlgorithms by
    # priority, then a hash of the id (spreads the pick across folders).
    mi = [c for c in cands if c[0] == "mi"]
    ta = sorted((c for c in cands if c[0] == "ta"),
                key=lambda c: (c[1], hashlib.sha1(c[2].encode()).hexdigest()))
    seen = set()
    out = []
    for group, cap in ((mi, args.mi_max), (ta, args.ta_max)):
        taken = 0
        pos = 0
        with ThreadPoolExecutor(args.jobs) as pool:
            while taken < cap and pos < len(group):
                batch = []
                while len(batch) < 8 and pos < len(group):
                    c = group[pos]
                    pos += 1
                    if c[2] in seen:
                        continue
                    seen.add(c[2])
                    batch.append(c)
                for recs in pool.map(build_one, batch):
                    if recs and taken < cap:
                        out.extend(recs)
                        taken += 1
                print("  %s: %d/%d candidates, %d taken" % (group[0][0] if group else "-", pos,
                      len(group), taken), file=sys.stderr)
    with open(args.out, "w") as f:
        for r in out:
            f.write(json.dumps(r, sort_keys=False) + "\n")
    n_orig = sum(1 for r in out if r["mutant"] is None)
    print("wrote %s: %d programs (%d originals, %d mutants), %d checks, %d bytes" % (
        args.out, len(out), n_orig, len(out) - n_orig, sum(len(r["checks"]) for r in out),
        os.path.getsize(args.out)))


if __name__ == "__main__":
    main()

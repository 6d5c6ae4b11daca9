# --- the judge's names -----------------------------------------------------------
#
# Which names the tests take from the program, and what the judge binds them
# to. The judge parses the program's text (parsing runs none of it) to see how
# it binds each name at its top level, and never takes the candidate
# process's word for what a name is:
#
#   import M [as N], from M import A [as N]
#                   the judge's own import, when N is M's own name (or A's),
#                   or the task's reference binds N the same way (MBPP's
#                   `import heapq as hq`); otherwise N stays unbound, so no
#                   program can hand the tests a judge function of its
#                   choosing (`import pickle as json`)
#   def, class      a proxy: calling it is a request to the candidate process
#   anything else   the candidate's value: data, or a handle; never a module
#                   or a standard-library object by name
#
# A name that hides a builtin or a standard module the tests use is flagged
# `shadowed-name`, unless the task's reference binds it the same way (MBPP's
# task 126 asks for `def sum`); with strict integrity the tests get the real
# one. So is a helper the prompt defines in full that the program defines
# again, differently.


def _requested(codes):
    """The names the test code reads as globals and does not bind itself
    (never an attribute name: the candidate learns nothing of the tests from
    the names it is asked for; never a dunder name: the program can never
    bind `__builtins__` or `__import__` for the tests)."""
    return sorted(n for n in _globals_loaded(codes) if not (n.startswith("__") and n.endswith("__")))


def _top_level(source, defs=None):
    """How `source` binds each name at its top level: ("module", M) for
    `import M [as N]`, ("from", M, A) for `from M import A [as N]`, "def" for
    a def or class, "other" for anything else (an assignment, a loop target,
    a binding under an `if` or `try`, or a name bound in two ways). Each
    top-level def or class goes into `defs` (name: [node, ...]) if given."""
    import ast

    try:
        tree = ast.parse(source)
    except _BaseException:
        return {}
    kinds = {}

    def put(name, how):
        kinds[name] = how if kinds.get(name, how) == how else "other"

    for stmt in tree.body:
        if _isinstance(stmt, ast.Import):
            for a in stmt.names:
                module = a.name if a.asname else a.name.split(".")[0]
                put(a.asname or module, ("module", module))
        elif _isinstance(stmt, ast.ImportFrom) and not stmt.level and stmt.module:
            for a in stmt.names:
                if a.name != "*":
                    put(a.asname or a.name, ("from", stmt.module, a.name))
        elif _isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            put(stmt.name, "def")
            if defs is not None:
                defs.setdefault(stmt.name, []).append(stmt)
        else:
            for node in ast.walk(stmt):
                if _isinstance(node, ast.Name) and _isinstance(node.ctx, ast.Store):
                    put(node.id, "other")
                elif _isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    put(node.name, "other")
                elif _isinstance(node, (ast.Import, ast.ImportFrom)):
                    for a in node.names:
                        put(a.asname or a.name.split(".")[0], "other")
    return kinds


def _own_import(name, how, reference):
    """The judge's own import for `name`, bound by the program as `how`, or
    None when the judge will not bind it."""
    same_as_reference = reference.get(name) == how
    if how[0] == "module":
        if same_as_reference or how[1].split(".")[-1] == name:
            return _module(how[1])
        return None
    module, attr = how[1], how[2]
    if same_as_reference:
        m = _module(module)
        obj = getattr(m, attr, None) if m is not None else None
        return obj if _type(obj) is not _type(sys) else _module(module + "." + attr)
    if attr == name:
        return _by_name(module, attr, True)
    return None


def _under_test(sources):
    """The names handed to a call at the top level of the tests (HumanEval's
    `check(has_close_elements)`): the function under test."""
    import ast

    names = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except _BaseException:
            continue
        for stmt in tree.body:
            if _isinstance(stmt, ast.Expr) and _isinstance(stmt.value, ast.Call):
                names.update(a.id for a in stmt.value.args if _isinstance(a, ast.Name))
    return names


def _redefined(defs, reference, under_test):
    """Names of helpers the task defines (not the function under test) that
    the program defines again, differently (HumanEval 38 and 50 test with a
    helper of the prompt's: `candidate(encode_shift(s)) == s`)."""
    import ast

    out = set()
    for name, nodes in defs.items():
        if _len(nodes) < 2 or reference.get(name) != "def" or name in under_test:
            continue
        body = [n for n in nodes[0].body if not (_isinstance(n, ast.Expr) and _isinstance(n.value, ast.Constant))]
        if body and ast.dump(nodes[-1]) != ast.dump(nodes[0]):
            out.add(name)
    return out


_STDLIB = getattr(sys, "stdlib_module_names", frozenset())


def _hides(name, value):
    """Whether `value`, bound to `name`, hides a builtin or a standard module."""
    if name in builtins.__dict__:
        return value is not builtins.__dict__[name]
    if name in _STDLIB:
        return value is not _module(name)
    return False


def _globals_loaded(codes):
    """Names the test code reads as globals and never binds itself, read off
    the bytecode (what `dis` says of LOAD_GLOBAL, LOAD_NAME and the global
    stores, without building its instruction objects)."""
    import dis

    op = dis.opmap
    load_global, load_name, extended = op["LOAD_GLOBAL"], op["LOAD_NAME"], op["EXTENDED_ARG"]
    binds = frozenset(op[n] for n in ("STORE_NAME", "STORE_GLOBAL", "DELETE_NAME", "DELETE_GLOBAL"))
    # From 3.11 LOAD_GLOBAL's argument is the name's index times two.
    shift = 1 if sys.version_info >= (3, 11) else 0
    loads, stores = set(), set()
    pending = [c for c in codes if _type(c) is _CodeType]
    while pending:
        code = pending.pop()
        names, raw, high = code.co_names, code.co_code, 0
        for i in range(0, _len(raw), 2):
            opcode, arg = raw[i], raw[i + 1] | high
            high = arg << 8 if opcode == extended else 0
            if opcode == load_global:
                loads.add(names[arg >> shift])
            elif opcode == load_name:
                loads.add(names[arg])
            elif opcode in binds:
                stores.add(names[arg])
        pending.extend(c for c in code.co_consts if _type(c) is _CodeType)
    return loads - stores


def _given_helpers(given, under_test):
    """The names the task's given code (HumanEval's prompt) binds, as the
    judge's own run of it makes them: its imports, constants and the
    functions it defines in full (not the stubs the program completes, not
    the function under test). The tests get these, whatever the program
    does to its own (redefines, patches through `globals()` or `__code__`,
    or spies on with a profiler: the test's data never reaches it)."""
    import ast

    if not given:
        return {}
    try:
        tree = ast.parse(given)
        space = {"__builtins__": builtins.__dict__}
        _exec(_compile(given, "<given>", "exec"), space)
    except _BaseException:
        return {}
    stubs = set()
    for stmt in tree.body:
        if _isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = [n for n in stmt.body if not (_isinstance(n, ast.Expr) and _isinstance(n.value, ast.Constant))]
            if not body or all(_isinstance(n, ast.Pass) for n in body):
                stubs.add(stmt.name)
    skip = stubs | set(under_test)
    return {n: v for n, v in space.items() if n not in skip and not n.startswith("__")}


def _bind(bindings, requested, namespace, task, strict):
    """Binds in `namespace` the program's names the tests use. `bindings` is
    the candidate process's answer: (name, claim, value) for each of them
    its namespace has, where a claim ("M" or "n") says the value is a module
    or a standard-library object, which the judge binds itself if the
    program's text binds it so; only names asked for count. `task`: how the
    reference binds its names, the program's text, the names under test.
    The program is parsed only when a name needs it."""
    what = lambda: "the program's names"
    asked = frozenset(requested)
    ref, program, under_test, helpers = task
    parsed = []

    def program_binds():
        if not parsed:
            defs = {}
            parsed.append(_top_level(program, defs))
            parsed.append(_redefined(defs, ref, under_test))
        return parsed

    for item in bindings:
        if _type(item) is not tuple or _len(item) != 3 or _type(item[0]) is not str:
            _lose("malformed (names)", what)
        name, claim, value = item
        if name not in asked:
            continue
        if name in helpers:
            # The task's own, run by the judge; a program that redefines
            # it is flagged below, whatever it did to it has no effect.
            if name in program_binds()[1]:
                _flag("shadowed-name")
            continue
        # A name the program may bind by an import, or a helper of the
        # reference's it may redefine: the program's text decides.
        claims = claim is not None
        helper = ref.get(name) == "def" and name not in under_test
        needs_text = claims or helper or name in builtins.__dict__ or name in _STDLIB
        binds, redefined = program_binds() if needs_text else ({}, ())
        how = binds.get(name)
        if _type(how) is tuple:
            value = _own_import(name, how, ref)
            if value is None:
                continue
        elif claims:
            # Only the program's imports name the judge's own objects.
            continue
        # A name the reference binds the same way is one the task asks for.
        # (A name the program's text does not bind, it bound at run time.)
        same_as_reference = how is not None and ref.get(name) == how
        hides = (not same_as_reference and _hides(name, value)) or name in redefined
        # (Every name asked for is one the tests read as a global.)
        if hides:
            _flag("shadowed-name")
            if strict:
                _bind_real(name, namespace)
                continue
        namespace[name] = value
    _binding_context[:] = [namespace, asked, ref, helpers, strict]


def _bind_real(name, namespace):
    """Binds the real builtin or standard module `name`, as if the program
    had not bound it."""
    namespace.pop(name, None)
    if name not in builtins.__dict__:
        module = _module(name)
        if module is not None:
            namespace[name] = module


# (namespace, names asked for, the reference's bindings, the helpers,
# strict) of the judge's run, once the program's names are bound.
_binding_context = []


def _rebound(slot, dec):
    """Names the tests read that the program bound anew while it ran
    (`global`, `globals()`, `exec`, `setattr` on its module): each binds
    as a top-level binding would, and one that hides a builtin, a standard
    module or a helper of the task's is flagged shadowed-name (strict
    integrity keeps the real one)."""
    items = dec.value(slot)
    if _type(items) is not tuple or not _binding_context:
        raise _NotData("not a list of names")
    namespace, asked, ref, helpers, strict = _binding_context
    for item in items:
        if _type(item) is not tuple or _len(item) != 3 or _type(item[0]) is not str:
            raise _NotData("not a name")
        name, claim, value = item
        if name not in asked:
            continue
        if claim == "M" and value == name:
            continue
        hides = name in helpers or (ref.get(name) is None and (claim is not None or _hides(name, value)))
        if hides:
            _flag("shadowed-name")
            if strict or name in helpers or claim is not None:
                continue
        if claim is None:
            namespace[name] = value

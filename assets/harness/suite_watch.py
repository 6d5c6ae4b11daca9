# --- what a unittest suite's program is watched for, in its own process -------
#
# A suite runs in the candidate's process (suite.py), so the program could
# forge its verdict from there. These watches catch the published ways of
# doing so and raise a flag for each; a determined program can evade them
# (the README says so), which is why such a verdict stays `in-process`:
#
#   skipped             a test method was skipped (`raise unittest.SkipTest`):
#                       it fails too (suite.py)
#   patched-framework   the unittest machinery (its modules, `TestCase`,
#                       `TestResult`, `TestSuite`, `TestLoader`, the runner,
#                       `unittest.mock`) or the tests' own class was changed
#   patched-clock       `time`'s clocks or `datetime`'s classes were replaced
#   always-equal        an assert method passed on an object of a class of the
#                       program's that defines `__eq__` or `__ne__`
#   frame-introspection the program reached the interpreter's frames (where
#                       the tests keep their expected values) or set a
#                       trace or profile hook
#
# The snapshot is taken, and the assert methods are wrapped, before the
# program's top level runs; it is compared after that top level, after each
# test method (its own patches have been undone by then) and at the end.

_FRAMEWORK_MODULES = (
    "unittest",
    "unittest.case",
    "unittest.result",
    "unittest.suite",
    "unittest.loader",
    "unittest.runner",
    "unittest.main",
    "unittest.util",
    "unittest.signals",
    "unittest.mock",
)
_CLOCK_MODULES = ("time", "datetime")
# Assert methods that compare with `==`: an object's own `__eq__` decides them.
_COMPARING = (
    "assertEqual",
    "assertNotEqual",
    "assertIn",
    "assertNotIn",
    "assertCountEqual",
    "assertListEqual",
    "assertTupleEqual",
    "assertSetEqual",
    "assertDictEqual",
    "assertSequenceEqual",
    "assertMultiLineEqual",
    "assertAlmostEqual",
    "assertNotAlmostEqual",
)
# Frames reached by these events, when the program's own code raised them.
_FRAME_ATTRIBUTES = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))
_FRAME_EVENTS = frozenset(
    (
        "sys._getframe",
        "sys._current_frames",
        "sys.settrace",
        "sys.setprofile",
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
    )
)
# Library frames that hand a caller's frames on (`inspect.stack()`).
_FRAME_HELPERS = ("/inspect.py", "/traceback.py")
_SCAN_MAX = 10000
# Bound now, before any program could rebind the builtins.
_dict = dict
_setattr = setattr
_getattr = getattr
_callable = callable
_SEQUENCES = (list, tuple, set, frozenset)
_CodeType = _type(_compile("", "", "exec"))

# Every flag the watches raise; the judge takes no other (suite_verdict.py).
_SUITE_FLAGS = ("skipped", "patched-framework", "patched-clock", "always-equal", "frame-introspection")
_suite_flags = []
_pristine = None
_watching = [False]
_program_class = {}


def _suite_flag(name):
    if name not in _suite_flags:
        _suite_flags.append(name)


def _watch_suite():
    """Before the program's top level: wraps the comparing assert methods,
    takes the snapshot and starts watching for frames."""
    global _pristine
    import unittest
    import unittest.mock  # noqa: F401  (its state is part of the snapshot)
    import datetime  # noqa: F401

    for name in _COMPARING:
        original = unittest.TestCase.__dict__.get(name)
        if original is not None:
            _setattr(unittest.TestCase, name, _watched_assert(original))
    _pristine = _framework_state(_FRAMEWORK_MODULES) + _framework_state(_CLOCK_MODULES)
    sys.addaudithook(_watch_frames)


def _framework_state(modules):
    """[(name, module, {attribute: value}, [(class, {attribute: value})])]:
    each module's functions and classes, and the attributes of its own classes."""
    state = []
    for name in modules:
        module = sys.modules.get(name)
        if module is None:
            continue
        values = {}
        classes = []
        for key, value in _dict(module.__dict__).items():
            if _isinstance(value, _type):
                values[key] = value
                if _str(_getattr(value, "__module__", "")).split(".")[0] == name.split(".")[0]:
                    classes.append((value, _dict(value.__dict__)))
            elif _callable(value):
                values[key] = value
        state.append((name, module, values, classes))
    return state


def _check_framework():
    """Flags what changed since the snapshot."""
    if _pristine is None:
        return
    for name, module, values, classes in _pristine:
        flag = "patched-clock" if name in _CLOCK_MODULES else "patched-framework"
        if flag in _suite_flags:
            continue
        now = module.__dict__
        if sys.modules.get(name) is not module or any(
            now.get(k, _MISSING) is not v for k, v in values.items()
        ):
            _suite_flag(flag)
            continue
        for cls, attributes in classes:
            current = cls.__dict__
            if _len(current) != _len(attributes) or any(
                current.get(k, _MISSING) is not v for k, v in attributes.items()
            ):
                _suite_flag(flag)
                break


def _class_state(cls):
    """The tests' own class's methods, to see that none is replaced."""
    return (cls, {k: v for k, v in _dict(cls.__dict__).items() if _callable(v)})


def _check_class(state):
    cls, methods = state
    if any(cls.__dict__.get(k, _MISSING) is not v for k, v in methods.items()):
        _suite_flag("patched-framework")


def _watched_assert(original):
    def watched(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        if "always-equal" not in _suite_flags and _any_program_eq(args, kwargs):
            _suite_flag("always-equal")
        return result

    for attribute in ("__name__", "__qualname__", "__doc__", "__module__"):
        _setattr(watched, attribute, _getattr(original, attribute))
    watched.__wrapped__ = original
    return watched


def _any_program_eq(args, kwargs):
    """Whether any argument (containers looked into) is an object of a class
    of the program's that defines its own `__eq__` or `__ne__`."""
    pending = [v for v in args] + [v for k, v in kwargs.items() if k != "msg"]
    seen = 0
    while pending and seen < _SCAN_MAX:
        value = pending.pop()
        seen += 1
        kind = _type(value)
        if kind in _SEQUENCES:
            pending.extend(value)
        elif kind is _dict:
            pending.extend(value.keys())
            pending.extend(value.values())
        elif _is_program_eq(kind):
            return True
    return False


def _is_program_eq(kind):
    known = _program_class.get(kind)
    if known is not None:
        return known
    found = False
    for cls in _type.__getattribute__(kind, "__mro__"):
        attributes = _type.__getattribute__(cls, "__dict__")
        for name in ("__eq__", "__ne__"):
            method = attributes.get(name)
            if method is None:
                continue
            code = _getattr(method, "__code__", None)
            filename = code.co_filename if _isinstance(code, _CodeType) else None
            module = attributes.get("__module__")
            if filename == "<candidate>" or (module == "__test__" and filename != "__test__.py"):
                found = True
    _program_class[kind] = found
    return found


def _watch_frames(event, args):
    """Audit hook: flags the program's own code reaching frames."""
    if _watching[0] or "frame-introspection" in _suite_flags:
        return
    if event == "object.__getattr__":
        if args[1] not in _FRAME_ATTRIBUTES:
            return
    elif event not in _FRAME_EVENTS:
        return
    _watching[0] = True
    try:
        frame = sys._getframe(1)
        if event == "sys._getframe":
            while frame is not None and frame.f_code.co_filename.endswith(_FRAME_HELPERS):
                frame = frame.f_back
        if frame is not None and _is_program_frame(frame):
            _suite_flag("frame-introspection")
    finally:
        _watching[0] = False


def _is_program_frame(frame):
    filename = frame.f_code.co_filename
    return filename == "<candidate>" or (
        frame.f_globals is _namespace and filename != "__test__.py"
    )

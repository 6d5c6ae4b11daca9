"""Plain CPython's verdict on each assertion of a program: reads
{"code": ..., "assertions": [...]} on stdin, execs the program once in a
fresh namespace, then each assertion in that namespace, in order (an
expression as `assert (expression)`, as the judge runs it), and prints a
JSON list of booleans: whether each ran without an exception. A program
whose top level raises prints null."""

import ast
import json
import sys


def main():
    spec = json.load(sys.stdin)
    space = {"__builtins__": __builtins__}
    try:
        exec(compile(spec["code"], "<candidate>", "exec"), space)
    except BaseException:
        print("null")
        return
    verdicts = []
    for source in spec["assertions"]:
        try:
            ast.parse(source, mode="eval")
            source = "assert (" + source + ")"
        except SyntaxError:
            pass
        try:
            exec(compile(source, "<test>", "exec"), space)
            verdicts.append(True)
        except BaseException:
            verdicts.append(False)
    print(json.dumps(verdicts))


if __name__ == "__main__":
    main()

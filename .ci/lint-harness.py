"""Lints the harness as the interpreter runs it: the files of
assets/harness/ joined in the order src/sandbox/mod.rs embeds them, checked
by pyflakes (undefined names, unused variables, redefinitions). Imports that
only preload a module for the fork servers' children are allowed. Exit 1 on
any other message."""

import pathlib
import re
import sys

from pyflakes import api, reporter

ROOT = pathlib.Path(__file__).resolve().parent.parent
order = re.findall(r'assets/harness/(\w+)\.py', (ROOT / "src/sandbox/mod.rs").read_text())
names = list(dict.fromkeys(order))
source = "".join((ROOT / "assets/harness" / (n + ".py")).read_text() for n in names)


class Collect(reporter.Reporter):
    def __init__(self):
        super().__init__(sys.stdout, sys.stderr)
        self.messages = []

    def flake(self, message):
        text = str(message)
        if "imported but unused" not in text:
            self.messages.append(text)


collect = Collect()
api.check(source, "harness.py", collect)
for m in collect.messages:
    print(m)
print("harness lint: %d files, %d problems" % (len(names), len(collect.messages)))
sys.exit(1 if collect.messages else 0)

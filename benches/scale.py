#!/usr/bin/env python3
"""Scale run: the 164 HumanEval tasks with 200 samples each (32,800 candidates,
made by repeating the real rexgavsie samples), through the release CLI. Prints
wall time, candidates/s, peak RSS of execscope, and the outcome counts.

    python3 benches/scale.py [--repeat 20] [--workers 16] [-- extra execscope flags]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import peak_rss_kib  # noqa: E402


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    data = os.environ.get("EXECSCOPE_DATA", os.path.join(root, "..", "shared", "data"))
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--workers", type=int, default=16)
    p.add_argument("--json", action="store_true", help="also write the run file")
    p.add_argument("extra", nargs="*")
    a = p.parse_args()
    samples = open(os.path.join(data, "generations/rexgavsie_gpt35instruct_n10/samples.jsonl")).read().splitlines()
    with tempfile.TemporaryDirectory() as work:
        big = os.path.join(work, "samples.jsonl")
        with open(big, "w") as f:
            for _ in range(a.repeat):
                f.write("\n".join(samples) + "\n")
        n = len(samples) * a.repeat
        cmd = [os.path.join(root, "target/release/execscope"), "run", "-q",
               "--tasks", os.path.join(data, "humaneval/HumanEval.jsonl.gz"),
               "--generations", big, "--workers", str(a.workers), *a.extra]
        if a.json:
            cmd += ["--json", os.path.join(work, "run.json")]
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        rss = peak_rss_kib(proc)
        out = proc.stdout.read().decode()
        elapsed = time.monotonic() - start
        if proc.returncode != 0:
            sys.exit(proc.stderr.read().decode())
        print(out)
        print(f"{n} candidates in {elapsed:.1f} s ({n / elapsed:.0f}/s), {a.workers} workers, "
              f"execscope peak RSS {rss / 1024:.1f} MiB{' (with run file)' if a.json else ''}")


if __name__ == "__main__":
    main()

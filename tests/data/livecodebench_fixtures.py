"""Writes the LiveCodeBench and APPS/TACO fixtures of tests/data/ by hand-made
rules: no LiveCodeBench problem with its tests is available here, so each
problem's tests are the samples of its statement (`question_content`) and the
failing input that o1-mini's graded run recorded
(livecodebench_o1mini_eval_all_subset.json), in LiveCodeBench's published
format (`public_test_cases` a JSON string of [{input, output, testtype}],
`private_test_cases` JSON or base64 + zlib + pickle of a JSON string,
`metadata` a JSON string with `func_name`). 2784's private test is a long
input made here (10,000 numbers, its output from an O(n log n) solution), in
place of the recorded one, which the record truncates.

Run: python3 tests/data/livecodebench_fixtures.py RESULTS_JSON
"""
import ast
import base64
import json
import pickle
import random
import sys
import zlib

HERE = __file__.rsplit("/", 1)[0]


def pickled(cases):
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode()


def call(*args):
    return "\n".join(json.dumps(a) for a in args)


def sum_of_power(nums):
    mod = 10**9 + 7
    nums = sorted(nums)
    result, acc = 0, 0
    for x in nums:
        sq = x * x % mod
        result = (result + sq * (x + acc)) % mod
        acc = (acc * 2 + x) % mod
    return result


def main(results_path):
    records = json.load(open(results_path))
    rng = random.Random(2784)
    heroes = sorted(rng.randint(1, 10**9) for _ in range(10000))
    assert sum_of_power([2, 1, 4]) == 141 and sum_of_power([1, 1, 1]) == 7
    f = lambda i, o: {"input": i, "output": o, "testtype": "functional"}
    s = lambda i, o: {"input": i, "output": o, "testtype": "stdin"}
    tests = {
        # Examples 1 and 2 of the statement; example 2 pickled.
        "2727": (
            [f(call(["7868190130M7522", "5303914400F9211", "9273338290F4010"]), "2")],
            pickled([f(call(["1313579440F2036", "2921522980M5644"]), "0")]),
        ),
        # Examples 1 and 2 (the record's failing input, [[24, 9], 1], is
        # example 1 after the program doubled nums[0] in place).
        "2730": ([f(call([12, 9], 1), "30"), f(call([8, 1, 2], 2), "35")], "[]"),
        "abc301_a": (
            [s("5\nTTAAT\n", "T\n"), s("6\nATTATA\n", "T\n"), s("1\nA\n", "A\n")],
            "[]",
        ),
        # Samples 1-3, then the recorded failing input.
        "abc301_d": (
            [s("?0?\n2\n", "1\n"), s("101\n4\n", "-1\n"), s("?0?\n1000000000000000000\n", "5\n")],
            json.dumps([s("??1\n6\n", "5\n")]),
        ),
        # Examples 1 and 2, then a long input (pickled).
        "2784": (
            [f(call([2, 1, 4]), "141"), f(call([1, 1, 1]), "7")],
            pickled([f(call(heroes), str(sum_of_power(heroes)))]),
        ),
        # Examples 1 and 2, then the recorded failing input.
        "3344": (
            [f(call([[3, 10], [5, 15], [10, 2], [4, 4]]), "12"), f(call([[1, 1], [1, 1], [1, 1]]), "0")],
            json.dumps([f(call([0, 0]), "0")]),
        ),
        "1873_A": (
            [s("6\nabc\nacb\nbac\nbca\ncab\ncba\n", "YES\nYES\nYES\nNO\nNO\nYES\n")],
            "[]",
        ),
    }
    problems, generations = [], []
    for r in records:
        public, private = tests[r["question_id"]]
        name = r["starter_code"].split("def ")[1].split("(")[0] if r["starter_code"] else None
        problems.append(
            {
                "question_title": r["question_title"],
                "question_content": r["question_content"],
                "platform": r["platform"],
                "question_id": r["question_id"],
                "contest_id": r["contest_id"],
                "contest_date": r["contest_date"],
                "starter_code": r["starter_code"],
                "difficulty": r["difficulty"],
                "public_test_cases": json.dumps(public),
                "private_test_cases": private,
                "metadata": json.dumps({"func_name": name} if name else {}),
            }
        )
        code_list = r["code_list"]
        if isinstance(code_list, str):
            code_list = ast.literal_eval(code_list)
        for code in code_list:
            generations.append({"task_id": r["question_id"], "generation": code})
    with open(HERE + "/livecodebench_problems.jsonl", "w") as out:
        for p in problems:
            out.write(json.dumps(p) + "\n")
    with open(HERE + "/livecodebench_o1mini_generations.jsonl", "w") as out:
        for g in generations:
            out.write(json.dumps(g) + "\n")
    # APPS/TACO: abc301_a as a stdin problem and 2730 as a call problem,
    # outputs wrapped in a list of one as APPS writes them.
    by_id = {r["question_id"]: r for r in records}
    apps = [
        {
            "problem_id": 1,
            "question": by_id["abc301_a"]["question_content"],
            "solutions": json.dumps([]),
            "starter_code": "",
            "input_output": json.dumps(
                {"inputs": ["5\nTTAAT\n", "6\nATTATA\n", "1\nA\n"], "outputs": ["T\n", "T\n", "A\n"]}
            ),
            "difficulty": "introductory",
        },
        {
            "problem_id": 2,
            "question": by_id["2730"]["question_content"],
            "solutions": json.dumps([]),
            "starter_code": by_id["2730"]["starter_code"],
            "input_output": json.dumps(
                {"fn_name": "maximumOr", "inputs": [[[12, 9], 1], [[8, 1, 2], 2]], "outputs": [[30], [35]]}
            ),
            "difficulty": "interview",
        },
    ]
    with open(HERE + "/apps_problems.jsonl", "w") as out:
        for p in apps:
            out.write(json.dumps(p) + "\n")


main(sys.argv[1])

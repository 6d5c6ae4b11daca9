//! The LiveCodeBench and APPS/TACO readers: detection by content, each test
//! case an assertion with its text, the pickled private tests (read only
//! when they are one string), and every bad record named by file, line and
//! field.

use execscope::input::InputError;
use execscope::spec::{self, TaskFormat, TaskSet};
use serde_json::json;

use crate::util;

/// base64(zlib(pickle.dumps(json.dumps([{"input": "1\n", "output": "1\n",
/// "testtype": "stdin"}])))), as Python 3.11 writes it (protocol 4).
const PICKLED_ONE_TEST: &str =
    "eJxrYJlqwwABPRbR1UqZeQWlJUpWCkqGMXlKOgpK+aUlqAIlqcUlJZUFqSCh4pKUzDyl2tgpegCU7BRF";
/// The same pickled with protocol 2 (its memo opcode is BINPUT).
const PICKLED_PROTOCOL_2: &str =
    "eJxrYIqwYGBgiK5WyswrKC1RslJQMozJU9JRUMovLUEVKEktLimpLEgFCRWXpGTmKdXGFjLoAQBhXBMb";
/// A pickle that would call `os.system("echo hi")` if it were unpickled.
const PICKLED_GLOBAL: &str = "eJxLzi/mKq4sLknN5dIIVk9NzshXyMhU5yoJ0gMAeEMIVg==";
/// pickle.dumps(("a", "b")): two strings in a tuple.
const PICKLED_TUPLE: &str = "eJxrYJnKzQABPYyJU3oYk6a0TdEDADDyBXI=";

/// A LiveCodeBench record with the given fields replacing the defaults.
fn record(fields: serde_json::Value) -> String {
    let mut base = json!({
        "question_title": "t",
        "question_content": "Add one.",
        "platform": "atcoder",
        "question_id": "q",
        "contest_id": "c",
        "contest_date": "2024-01-01T00:00:00",
        "starter_code": "",
        "difficulty": "easy",
        "public_test_cases": "[{\"input\": \"1\\n\", \"output\": \"2\\n\", \"testtype\": \"stdin\"}]",
        "private_test_cases": "[]",
        "metadata": "{}",
    });
    for (k, v) in fields.as_object().unwrap() {
        base[k] = v.clone();
    }
    base.to_string()
}

fn read(lines: &[String]) -> (TaskSet, std::path::PathBuf, tempfile::TempDir) {
    let dir = util::tempdir();
    let path = dir.path().join("problems.jsonl");
    std::fs::write(&path, lines.join("\n")).unwrap();
    (spec::load_tasks(&path).unwrap(), path, dir)
}

/// The one error of a file whose first line is good and whose second is `bad`.
fn error_of(bad: String) -> InputError {
    let (set, path, _dir) = read(&[record(json!({"question_id": "ok"})), bad]);
    assert_eq!(set.tasks.len(), 1, "{:?}", set.errors);
    assert_eq!(set.errors.len(), 1);
    let e = set.errors[0].clone();
    assert_eq!((e.file.as_path(), e.line), (path.as_path(), Some(2)));
    e
}

#[test]
fn livecodebench_problems_are_read_with_a_text_per_test_case() {
    let set = spec::load_tasks(&util::fixture("livecodebench_problems.jsonl")).unwrap();
    assert_eq!(set.format, TaskFormat::LiveCodeBench);
    assert!(set.errors.is_empty(), "{:?}", set.errors);
    let seniors = &set.tasks[0];
    assert_eq!(
        seniors.assertions,
        [
            "public test 1: countSeniors([\"7868190130M7522\", \"5303914400F9211\", \"9273338290F4010\"])",
            "private test 1: countSeniors([\"1313579440F2036\", \"2921522980M5644\"])",
        ]
    );
    assert!(
        seniors
            .prompt
            .ends_with("def countSeniors(self, details: List[str]) -> int:\n        ")
    );
    let winner = &set.tasks[2];
    assert_eq!(
        winner.assertions[0],
        "public test 1: stdin \"5\\nTTAAT\\n\""
    );
    // 2784's private test is 10,000 numbers, pickled: its text is cut.
    let heroes = &set.tasks[4].assertions[2];
    assert!(heroes.starts_with("private test 1: sumOfPower([") && heroes.contains(" … "));
    assert!(heroes.chars().count() <= 203);
    // A pickled test list (protocol 4) is read as its JSON.
    let (set, _, _dir) = read(&[record(json!({"private_test_cases": PICKLED_ONE_TEST}))]);
    assert_eq!(set.tasks[0].assertions.len(), 2);
}

#[test]
fn a_pickle_that_is_not_one_string_is_refused_naming_file_line_and_field() {
    for (pickled, says) in [
        (PICKLED_GLOBAL, "opcode 0x63 at byte 0"),
        (PICKLED_TUPLE, "opcode 0x8c"),
        (PICKLED_PROTOCOL_2, "opcode 0x71"),
        ("not base64 at all!", "not base64"),
    ] {
        let e = error_of(record(json!({"private_test_cases": pickled})));
        assert_eq!(e.field.as_deref(), Some("private_test_cases"));
        assert!(e.message.contains(says), "{}", e.message);
        assert!(
            e.message
                .starts_with("neither JSON nor base64 + zlib + pickle")
        );
    }
}

#[test]
fn bad_livecodebench_records_are_named_by_file_line_and_field() {
    let cases = [
        (
            json!({"public_test_cases": null}),
            "public_test_cases",
            "type",
        ),
        (
            json!({"public_test_cases": "[1]"}),
            "public_test_cases[0]",
            "type",
        ),
        (
            json!({"public_test_cases": "[{\"input\": \"1\", \"output\": \"1\", \"testtype\": \"stdout\"}]"}),
            "public_test_cases[0].testtype",
            "value",
        ),
        (
            json!({"public_test_cases": "[{\"input\": \"1\", \"testtype\": \"stdin\"}]"}),
            "public_test_cases[0].output",
            "required",
        ),
        (
            json!({"public_test_cases": "[{\"input\": \"1\", \"output\": \"1\", \"testtype\": \"functional\"}]"}),
            "public_test_cases[0].testtype",
            "format",
        ),
        (
            json!({"metadata": "{\"func_name\": \"f\"}", "public_test_cases": "[{\"input\": \"1\\nnot json\", \"output\": \"1\", \"testtype\": \"functional\"}]"}),
            "public_test_cases[0]",
            "format",
        ),
        (json!({"metadata": "{func_name: f}"}), "metadata", "type"),
        (
            json!({"metadata": "{\"func_name\": 3}"}),
            "metadata.func_name",
            "type",
        ),
        (
            json!({"private_test_cases": "{}"}),
            "private_test_cases",
            "json",
        ),
        (
            json!({"public_test_cases": "[]"}),
            "public_test_cases",
            "required",
        ),
        (json!({"question_id": "ok"}), "task_id", "unique"),
        (json!({"question_id": ["q"]}), "question_id", "type"),
    ];
    for (fields, field, rule) in cases {
        let e = error_of(record(fields.clone()));
        assert_eq!(
            (e.field.as_deref(), e.rule.as_str()),
            (Some(field), rule),
            "{fields}: {e}"
        );
    }
    let e = error_of(record(json!({})).replace("\"question_content\"", "\"content\""));
    assert_eq!(e.field.as_deref(), Some("question_content"));
}

fn apps(id: Option<u64>, input_output: serde_json::Value) -> String {
    let mut r = json!({
        "question": "Echo.",
        "solutions": "[\"print(input())\"]",
        "starter_code": "",
        "input_output": input_output.to_string(),
    });
    if let Some(id) = id {
        r["problem_id"] = json!(id);
    }
    r.to_string()
}

#[test]
fn apps_taco_records_are_read_and_bad_ones_named() {
    let good = json!({"inputs": ["1\n", ["a", "b"]], "outputs": ["1\n", "a\nb"]});
    // TACO has no id: the record's place in the file is its id.
    let (set, _, _dir) = read(&[apps(None, good.clone()), apps(None, good.clone())]);
    assert_eq!(set.format, TaskFormat::AppsTaco);
    assert!(set.errors.is_empty(), "{:?}", set.errors);
    assert_eq!(
        (set.tasks[0].id.as_str(), set.tasks[1].id.as_str()),
        ("0", "1")
    );
    assert_eq!(
        set.tasks[0].assertions,
        ["test 1: stdin \"1\\n\"", "test 2: stdin \"a\\nb\""]
    );
    assert_eq!(set.tasks[0].reference.as_deref(), Some("print(input())"));
    let cases = [
        (
            json!({"inputs": ["1"], "outputs": []}),
            "input_output",
            "format",
        ),
        (
            json!({"inputs": [], "outputs": []}),
            "input_output.inputs",
            "required",
        ),
        (
            json!({"inputs": [1], "outputs": ["1"]}),
            "input_output.inputs[0]",
            "type",
        ),
        (
            json!({"fn_name": "f", "inputs": ["x"], "outputs": [1]}),
            "input_output.inputs[0]",
            "type",
        ),
    ];
    for (io, field, rule) in cases {
        let (set, path, _dir) = read(&[apps(Some(1), good.clone()), apps(Some(2), io.clone())]);
        let e = &set.errors[0];
        assert_eq!((e.file.as_path(), e.line), (path.as_path(), Some(2)));
        assert_eq!(
            (e.field.as_deref(), e.rule.as_str()),
            (Some(field), rule),
            "{io}"
        );
    }
    let mut bad = apps(Some(3), good);
    bad = bad.replace("\\\"inputs\\\"", "\\\"inputz\\\"");
    let (set, _, _dir) = read(&[
        apps(Some(1), json!({"inputs": ["1"], "outputs": ["1"]})),
        bad,
    ]);
    assert_eq!(set.errors[0].field.as_deref(), Some("input_output"));
    assert_eq!(set.errors[0].rule, "json");
}

#[test]
fn pickled_tests_unpack_within_one_budget_for_the_whole_file() {
    // A red-team route: each record of a 3 MB file unpacked to 300 MB, so a
    // few dozen records took the machine's memory. The whole file now shares
    // one budget, 64 times its size and at least 1 GiB.
    use execscope::spec::pickled;
    assert_eq!(pickled::file_budget(1000), 1 << 30);
    assert_eq!(pickled::file_budget(100 << 20), 6400 << 20);
    let one = pickled::decode(PICKLED_ONE_TEST).unwrap();
    // What one record took is what the next may no longer take.
    let mut budget = 1 << 20;
    assert_eq!(
        pickled::decode_within(PICKLED_ONE_TEST, &mut budget).unwrap(),
        one
    );
    let used = (1 << 20) - budget;
    assert!(used > one.len() as u64, "{used}");
    let mut budget = used - 1;
    let e = pickled::decode_within(PICKLED_ONE_TEST, &mut budget).unwrap_err();
    assert!(e.contains("in all"), "{e}");
    assert_eq!(budget, used - 1);
    let mut budget = 5;
    let e = pickled::decode_within(PICKLED_ONE_TEST, &mut budget).unwrap_err();
    assert!(e.contains("in all"), "{e}");
    assert_eq!(budget, 5);
}

#[test]
fn tests_the_judges_python_cannot_read_are_refused_by_field() {
    // Red-team routes: a 6000-digit integer or lists nested 5000 deep in a
    // call's test made the judge end without a verdict, charged to the
    // candidate. They are the task file's fault, named at reading.
    let big = "9".repeat(6000);
    let deep = format!("{}1{}", "[".repeat(600), "]".repeat(600));
    for (inputs, outputs, field, says) in [
        (
            format!("[[{big}]]"),
            "[1]".to_string(),
            "input_output.inputs[0]",
            "digits",
        ),
        (
            "[[1]]".to_string(),
            format!("[{big}]"),
            "input_output.outputs[0]",
            "digits",
        ),
        (
            format!("[[{deep}]]"),
            "[1]".to_string(),
            "input_output.inputs[0]",
            "nested",
        ),
    ] {
        let io = format!("{{\"fn_name\": \"f\", \"inputs\": {inputs}, \"outputs\": {outputs}}}");
        let line = json!({"problem_id": 2, "question": "q", "solutions": "[]", "input_output": io})
            .to_string();
        let good = apps(
            Some(1),
            json!({"fn_name": "f", "inputs": [[1]], "outputs": [2]}),
        );
        let (set, _, _dir) = read(&[good, line]);
        assert_eq!(set.errors.len(), 1, "{field} {says}");
        let e = &set.errors[0];
        assert_eq!(e.field.as_deref(), Some(field), "{}", e.message);
        assert!(e.message.contains(says), "{}", e.message);
    }
    // A digit string inside a JSON string is text, not a number: read.
    let text = apps(
        Some(3),
        json!({"fn_name": "f", "inputs": [[big.clone()]], "outputs": ["x"]}),
    );
    assert!(read(&[text]).0.errors.is_empty());
    // LiveCodeBench functional tests: the same rule.
    let e = error_of(record(json!({
        "metadata": "{\"func_name\": \"f\"}",
        "public_test_cases": json!([{"input": "1", "output": big, "testtype": "functional"}]).to_string(),
    })));
    assert!(e.message.contains("digits"), "{}", e.message);
}

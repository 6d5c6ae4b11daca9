//! Readers: the lesson-70 validator rule by rule, the HumanEval and MBPP readers,
//! generation files, matching, and every kind of bad file.

use std::io::Write;
use std::path::{Path, PathBuf};

use execscope::generations::{self, GenerationFormat, TaskRef};
use execscope::plan::Plan;
use execscope::spec::{self, ProgramStyle, TaskFormat};

use crate::util::{fixture, tempdir};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn the_validator_reports_exactly_the_expected_error_for_every_rule() {
    let set = spec::load_tasks(&fixture("lesson70_rules.jsonl")).unwrap();
    let expected: Vec<(usize, String, Option<String>)> =
        std::fs::read_to_string(fixture("lesson70_rules.expected"))
            .unwrap()
            .lines()
            .map(|l| {
                let mut p = l.split('\t');
                let line = p.next().unwrap().parse().unwrap();
                let rule = p.next().unwrap().to_owned();
                let field = p.next().filter(|f| *f != "-").map(str::to_owned);
                (line, rule, field)
            })
            .collect();
    let got: Vec<(usize, String, Option<String>)> = set
        .errors
        .iter()
        .map(|e| (e.line.unwrap(), e.rule.clone(), e.field.clone()))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(set.format, TaskFormat::Lesson70);
    // Valid lines still load: one executable, two skipped.
    assert_eq!(
        set.tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["valid_code"]
    );
    assert_eq!(
        set.tasks[0].timeout_s,
        Some(30.0),
        "timeouts above 30 s are capped"
    );
    let skipped: Vec<_> = set
        .skipped
        .iter()
        .map(|s| (s.task_id.as_str(), s.category.as_str()))
        .collect();
    assert_eq!(skipped, [("valid_mcq", "mcq"), ("valid_last", "summary")]);
    // Messages name file, line and field.
    let shown = set.errors[2].to_string();
    assert!(
        shown.contains("lesson70_rules.jsonl:5: field `answer`: unknown field"),
        "{shown}"
    );
}

const HUMANEVAL: &str = r#"{"task_id": "HumanEval/0", "prompt": "def inc(x):\n", "entry_point": "inc", "canonical_solution": "    return x + 1\n", "test": "def check(c):\n    assert c(1) == 2\n"}
{"task_id": "HumanEval/1", "prompt": "def dec(x):\n", "entry_point": "dec", "canonical_solution": "    return x - 1\n", "test": "def check(c):\n    assert c(1) == 0\n"}
"#;

#[test]
fn humaneval_tasks_are_read_plain_and_gzipped() {
    let dir = tempdir();
    let plain = write(dir.path(), "he.jsonl", HUMANEVAL.as_bytes());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(HUMANEVAL.as_bytes()).unwrap();
    let zipped = write(dir.path(), "he.data", &gz.finish().unwrap());
    for path in [plain, zipped] {
        let set = spec::load_tasks(&path).unwrap();
        assert_eq!(set.format, TaskFormat::HumanEval);
        assert!(set.errors.is_empty(), "{:?}", set.errors);
        let t = &set.tasks[0];
        assert_eq!(
            t.assertions,
            vec!["def check(c):\n    assert c(1) == 2\n\ncheck(inc)".to_owned()]
        );
        assert!(
            matches!(&t.style, ProgramStyle::Completion { entry_point, .. } if entry_point == "inc")
        );
        assert_eq!(t.reference.as_deref(), Some("    return x + 1\n"));
    }
}

#[test]
fn mbpp_jsonl_and_sanitized_mbpp_are_read() {
    let dir = tempdir();
    let jsonl = write(
        dir.path(),
        "mbpp.jsonl",
        br#"{"text": "Add.", "code": "def add(a, b):\r\n\treturn a + b", "task_id": 11, "test_setup_code": "", "test_list": ["assert add(1, 2) == 3"], "challenge_test_list": []}"#,
    );
    let set = spec::load_tasks(&jsonl).unwrap();
    assert_eq!(set.format, TaskFormat::Mbpp);
    assert_eq!(set.tasks[0].id, "11");
    assert_eq!(
        set.tasks[0].assertions,
        vec!["assert add(1, 2) == 3".to_owned()]
    );

    let sanitized = write(
        dir.path(),
        "sanitized.json",
        br#"[
  {"source_file": "x", "task_id": 2, "prompt": "Add.", "code": "def add(a, b):\n  return a + b", "test_imports": ["import math"], "test_list": ["assert add(1, 2) == 3"]},
  {"source_file": "x", "task_id": 3, "prompt": "Bad.", "code": "x", "test_imports": [], "test_list": "not a list"}
]"#,
    );
    let set = spec::load_tasks(&sanitized).unwrap();
    assert_eq!(set.format, TaskFormat::MbppSanitized);
    assert_eq!(set.tasks.len(), 1);
    assert_eq!(set.tasks[0].setup, "import math");
    assert_eq!(set.errors.len(), 1);
    let e = &set.errors[0];
    assert_eq!(
        (e.line, e.field.as_deref(), e.rule.as_str()),
        (Some(3), Some("test_list"), "type")
    );
}

#[test]
fn generation_jsonl_accepts_all_three_text_fields_and_explicit_samples() {
    let dir = tempdir();
    let path = write(
        dir.path(),
        "g.jsonl",
        br#"{"task_id": "HumanEval/0", "completion": "a"}
{"task_id": "HumanEval/0", "generation": "b"}
{"task_id": "HumanEval/1", "solution": "c", "completion_id": 4}

{"task_id": "HumanEval/1", "completion": 5}
"#,
    );
    let set = generations::load_generations(&path).unwrap();
    assert_eq!(set.format, GenerationFormat::Jsonl);
    let texts: Vec<&str> = set.items.iter().map(|g| g.text.as_str()).collect();
    assert_eq!(texts, ["a", "b", "c"]);
    assert_eq!(set.items[2].sample, Some(4));
    assert_eq!(set.errors.len(), 1);
    assert_eq!(
        (set.errors[0].line, set.errors[0].field.as_deref()),
        (Some(5), Some("completion"))
    );
}

#[test]
fn bigcode_lists_map_to_tasks_in_task_file_order() {
    let dir = tempdir();
    let tasks = spec::load_tasks(&write(dir.path(), "he.jsonl", HUMANEVAL.as_bytes())).unwrap();
    let gens = generations::load_generations(&write(
        dir.path(),
        "generations.json",
        br#"[["def inc(x):\n    return x + 1\n", "def inc(x):\n    return x\n"], ["def dec(x):\n    return x - 1\n"], ["extra"]]"#,
    ))
    .unwrap();
    assert_eq!(gens.format, GenerationFormat::Bigcode);
    assert_eq!(gens.items[2].task, TaskRef::Index(1));
    let plan = Plan::build(&tasks, &gens);
    assert_eq!(plan.jobs.len(), 3);
    assert_eq!(
        plan.jobs
            .iter()
            .map(|j| (j.task, j.sample))
            .collect::<Vec<_>>(),
        [(0, 0), (0, 1), (1, 0)]
    );
    assert_eq!(plan.problems.len(), 1, "the third list has no task");
    assert!(plan.problems[0].message.contains("list 2 has no task"));
}

#[test]
fn unknown_task_ids_and_tasks_without_generations_are_reported() {
    let dir = tempdir();
    let tasks = spec::load_tasks(&write(dir.path(), "he.jsonl", HUMANEVAL.as_bytes())).unwrap();
    let gens = generations::load_generations(&write(
        dir.path(),
        "g.jsonl",
        b"{\"task_id\": \"HumanEval/0\", \"completion\": \"x\"}\n{\"task_id\": \"HumanEval/99\", \"completion\": \"y\"}\n{\"task_id\": \"HumanEval/0\", \"completion\": \"z\", \"sample\": 0}\n",
    ))
    .unwrap();
    let plan = Plan::build(&tasks, &gens);
    assert_eq!(plan.jobs.len(), 1);
    assert_eq!(plan.missing, ["HumanEval/1"]);
    let problems: Vec<(Option<usize>, &str)> = plan
        .problems
        .iter()
        .map(|p| (p.line, p.rule.as_str()))
        .collect();
    assert_eq!(problems, [(Some(2), "unknown_task"), (Some(3), "unique")]);
}

#[test]
fn bad_files_get_a_clear_error_naming_the_file() {
    let dir = tempdir();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.jsonl", b"   \n\n".to_vec(), "empty"),
        ("garbage.bin", vec![0xff, 0xfe, 0x00, 0x81, 0x10], "utf8"),
        ("notjson.jsonl", b"hello world\n".to_vec(), "json"),
        ("odd.jsonl", b"{\"name\": \"x\"}\n".to_vec(), "format"),
        (
            "gens.jsonl",
            b"{\"task_id\": \"a\", \"completion\": \"x\"}\n".to_vec(),
            "format",
        ),
        ("badgz.gz", vec![0x1f, 0x8b, 0x08, 0x00, 0x01], "gzip"),
    ];
    for (name, bytes, rule) in cases {
        let path = write(dir.path(), name, &bytes);
        let err = spec::load_tasks(&path).unwrap_err();
        assert_eq!(err.rule, rule, "{name}: {err}");
        assert!(err.to_string().contains(name), "{err}");
    }
    let err = spec::load_tasks(&dir.path().join("missing.jsonl")).unwrap_err();
    assert_eq!(err.rule, "read");
    assert!(err.to_string().contains("missing.jsonl"));
    let err =
        generations::load_generations(&write(dir.path(), "tasks.jsonl", HUMANEVAL.as_bytes()))
            .unwrap();
    assert_eq!(
        err.errors[0].rule, "format",
        "a task file opened as generations is named as such"
    );
}

#[test]
fn duplicate_task_ids_are_errors_on_the_later_line() {
    let dir = tempdir();
    let doubled = format!("{HUMANEVAL}{}", HUMANEVAL.lines().next().unwrap());
    let set = spec::load_tasks(&write(dir.path(), "dup.jsonl", doubled.as_bytes())).unwrap();
    assert_eq!(set.tasks.len(), 2);
    assert_eq!(set.errors.len(), 1);
    assert_eq!(
        (set.errors[0].line, set.errors[0].rule.as_str()),
        (Some(3), "unique")
    );
    assert!(set.errors[0].message.contains("first defined on line 1"));
}

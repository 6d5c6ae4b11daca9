//! Tests that are an input and an expected output (LiveCodeBench's
//! `public_test_cases` and `private_test_cases`, APPS/TACO's `input_output`),
//! graded as LiveCodeBench's `testing_util.py` grades them. The program runs
//! in the candidate process as that grader builds it (`stdin`: wrapped in a
//! function that reads the test's input and prints; `call`: a function or a
//! `Solution` method called on the test's arguments), and the judge compares
//! what it printed or returned with the expected output
//! (`assets/harness/stdio_verdict.py`): the expected outputs travel only to
//! the judge.

use std::time::Duration;

/// LiveCodeBench's time for one test, seconds (`--timeout`'s default).
pub const TEST_TIMEOUT_S: f64 = 6.0;

/// How the program takes a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The program reads the input on stdin and prints its answer.
    Stdin,
    /// The function (or `Solution` method) is called on the input's arguments.
    Call,
}

impl Mode {
    /// The candidate process's flag for this mode (`assets/harness/stdio.py`).
    pub fn flag(self) -> &'static str {
        match self {
            Mode::Stdin => "stdin",
            Mode::Call => "call",
        }
    }
}

/// A task's tests that are inputs and expected outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct StdioTests {
    /// How the program takes a test.
    pub mode: Mode,
    /// The function a test calls (`Call` mode).
    pub func_name: Option<String>,
    /// APPS/TACO's rule for calls: the expected output may be wrapped in a
    /// list of one.
    pub apps: bool,
    /// The tests as the judge reads them: a JSON list of `{"input": text,
    /// "output": text}` (LiveCodeBench, and APPS/TACO's stdin tests) or of
    /// `{"args": [...], "expected": value}` (APPS/TACO's calls).
    pub tests: String,
    /// How many tests.
    pub count: usize,
    /// Each test's time limit, seconds.
    pub test_timeout_s: f64,
}

impl StdioTests {
    /// The judge's spec (the setup field of its payload).
    pub fn spec(&self) -> String {
        let func = match &self.func_name {
            Some(name) => serde_json::Value::from(name.as_str()).to_string(),
            None => "null".to_owned(),
        };
        format!(
            "{{\"mode\": \"{}\", \"func_name\": {func}, \"apps\": {}, \"timeout\": {}, \"tests\": {}}}",
            self.mode.flag(),
            self.apps,
            self.test_timeout_s,
            self.tests
        )
    }

    /// The wall clock of one candidate: LiveCodeBench's global limit,
    /// `(per test + 1) x tests + 5` seconds (each test also has its own).
    pub fn timeout(&self) -> Duration {
        Duration::from_secs_f64((self.test_timeout_s + 1.0) * self.count as f64 + 5.0)
    }
}

/// The task of a problem whose statement is `question` (its starter code
/// after it, where there is one) and whose tests are `stdio`: the whole
/// program is the generation's first code block, as LiveCodeBench extracts.
pub(super) fn task(
    id: String,
    question: String,
    starter: &str,
    assertions: Vec<String>,
    reference: Option<String>,
    stdio: StdioTests,
) -> super::Task {
    let prompt = if starter.is_empty() {
        question
    } else {
        format!("{question}\n\n{starter}")
    };
    super::Task {
        id,
        prompt,
        style: super::ProgramStyle::Whole,
        setup: String::new(),
        assertions,
        post_process: crate::postprocess::PostProcess::ExtractCodeBlock,
        timeout_s: None,
        reference,
        tests: crate::plan::Tests::Stdio(std::sync::Arc::new(stdio)),
    }
}

/// `text` cut to `max` characters, its middle left out.
pub fn shown(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let half = max / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!("{head} … {tail}")
}

/// Most nested lists and objects in a test's JSON: the judge reads it with
/// Python's `json`, which recurses once per level.
const MAX_DEPTH: usize = 500;

/// Most digits of an integer in a test's JSON: Python refuses to read more
/// (`sys.get_int_max_str_digits()`, 4300 by default).
const MAX_DIGITS: usize = 4300;

/// Whether the judge's Python can read the JSON text `json` (already checked
/// to be JSON): not nested past [`MAX_DEPTH`], no integer past [`MAX_DIGITS`]
/// digits. Refused here, such a test is the task file's fault, named by its
/// field, rather than a judge that ends without a verdict.
pub(super) fn python_can_read(json: &str) -> Result<(), String> {
    let (mut depth, mut digits, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in json.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        digits = if b.is_ascii_digit() { digits + 1 } else { 0 };
        if digits > MAX_DIGITS {
            return Err(format!(
                "a number of more than {MAX_DIGITS} digits, which Python's json does not read"
            ));
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(format!(
                        "nested more than {MAX_DEPTH} deep, which the judge does not read"
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_and_the_timeout_follow_livecodebench() {
        let t = StdioTests {
            mode: Mode::Call,
            func_name: Some("f\"".into()),
            apps: false,
            tests: "[]".into(),
            count: 3,
            test_timeout_s: 6.0,
        };
        assert_eq!(
            t.spec(),
            r#"{"mode": "call", "func_name": "f\"", "apps": false, "timeout": 6, "tests": []}"#
        );
        assert_eq!(t.timeout(), Duration::from_secs(26));
        assert_eq!(shown("abcdef", 4), "ab … ef");
    }
}

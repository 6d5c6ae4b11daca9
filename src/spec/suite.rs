//! Tests that are a `unittest` suite (BigCodeBench's `class
//! TestCases(unittest.TestCase)`): every test method is an assertion. The
//! suite patches modules the program uses, so it runs in the candidate's own
//! process (`assets/harness/suite.py`) and its verdict is marked
//! `integrity: "in-process"`.

use std::collections::BTreeSet;
use std::sync::OnceLock;

/// BigCodeBench 0.2.5's time for one task's whole suite, seconds
/// (`BIGCODEBENCH_TIMEOUT_PER_TASK`'s default, 240, plus its 1).
pub const DEFAULT_TIMEOUT_S: f64 = 241.0;

/// A task's `unittest` suite.
#[derive(Debug)]
pub struct Suite {
    /// The test module's text.
    pub code: String,
    /// The top-level modules the task names: its `libs` and what its test and
    /// the code it gives import.
    pub needs: Vec<String>,
    /// The libraries the run's tasks need that the interpreter cannot
    /// import, its own `needs` among them (looked up once a run, before it
    /// starts: [`crate::environment`]); a failure on importing one of them is
    /// the environment's.
    pub missing: OnceLock<Vec<String>>,
}

impl PartialEq for Suite {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code && self.needs == other.needs
    }
}

impl Suite {
    /// A suite of `code` for a task naming `libs`, whose given code is `given`.
    pub fn new(code: String, libs: &[String], given: &str) -> Suite {
        let mut needs: BTreeSet<String> = libs.iter().map(|l| top_level(l).to_owned()).collect();
        needs.extend(imports(&code));
        needs.extend(imports(given));
        needs.retain(|n| !n.is_empty());
        Suite {
            code,
            needs: needs.into_iter().collect(),
            missing: OnceLock::new(),
        }
    }

    /// The libraries the interpreter lacks, once looked up.
    pub fn missing(&self) -> &[String] {
        self.missing.get().map_or(&[], Vec::as_slice)
    }
}

/// `a` of `a.b.c`.
fn top_level(module: &str) -> &str {
    module.trim().split('.').next().unwrap_or("")
}

/// The top-level modules `code` imports (`import a.b, c as d`, `from a
/// import b`; relative imports are left out), found line by line.
pub fn imports(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in logical_starts(code) {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("import ") {
            for part in rest.split('#').next().unwrap_or("").split(',') {
                let name = part.split_whitespace().next().unwrap_or("");
                out.push(top_level(name).to_owned());
            }
        } else if let Some(rest) = line.strip_prefix("from ").filter(|r| r.contains(" import")) {
            let name = rest.split_whitespace().next().unwrap_or("");
            if !name.starts_with('.') {
                out.push(top_level(name).to_owned());
            }
        }
    }
    out.retain(|n| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_'));
    out
}

/// The test methods of `class TestCases` in `code`, in the order unittest's
/// loader runs them (sorted by name), or `None` without such a class.
pub fn test_methods(code: &str) -> Option<Vec<String>> {
    let mut lines = logical_starts(code)
        .skip_while(|l| !(l.starts_with("class TestCases(") || l.starts_with("class TestCases:")));
    lines.next()?;
    let mut indent = None;
    let mut names = BTreeSet::new();
    for line in lines {
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let depth = line.len() - body.len();
        if depth == 0 {
            break;
        }
        let at = *indent.get_or_insert(depth);
        if depth != at {
            continue;
        }
        let def = body
            .strip_prefix("async def ")
            .or_else(|| body.strip_prefix("def "));
        if let Some(name) = def.and_then(|d| d.split(['(', ' ']).next()) {
            if name.starts_with("test") {
                names.insert(name.to_owned());
            }
        }
    }
    Some(names.into_iter().collect())
}

/// The lines of `code` that do not start inside a string literal (the lines
/// of a triple-quoted string after its first are left out).
fn logical_starts(code: &str) -> impl Iterator<Item = &str> {
    let mut open: Option<&'static str> = None;
    code.lines().filter(move |line| {
        let starts_outside = open.is_none();
        let mut rest: &str = line;
        loop {
            if let Some(quote) = open {
                match closing(rest, quote) {
                    Some(after) => {
                        rest = after;
                        open = None;
                    }
                    None => break,
                }
                continue;
            }
            let Some(i) = rest.find(['#', '\'', '"']) else {
                break;
            };
            let tail = &rest[i..];
            if tail.starts_with('#') {
                break;
            }
            let quote = ["\"\"\"", "'''", "\"", "'"]
                .into_iter()
                .find(|q| tail.starts_with(q))
                .unwrap_or("\"");
            rest = &tail[quote.len()..];
            if quote.len() == 3 {
                open = Some(quote);
            } else {
                // A one-line string ends on its line.
                rest = closing(rest, quote).unwrap_or("");
            }
        }
        starts_outside
    })
}

/// What follows the first unescaped `quote` in `text`, if there is one.
fn closing<'a>(text: &'a str, quote: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(i) = text[from..].find(quote) {
        let at = from + i;
        let backslashes = text[..at].chars().rev().take_while(|c| *c == '\\').count();
        if backslashes % 2 == 0 {
            return Some(&text[at + quote.len()..]);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_are_the_class_s_own_test_methods_sorted() {
        let code = "import unittest\nclass Helper:\n    def test_not(self): pass\nclass TestCases(unittest.TestCase):\n    def setUp(self):\n        def test_inner(): pass\n    def test_b(self):\n        pass\n\n    # a comment\n    async def test_a(self): pass\n    def testc(self): pass\nclass Other:\n    def test_x(self): pass\n";
        assert_eq!(
            test_methods(code).unwrap(),
            vec!["test_a", "test_b", "testc"]
        );
        assert_eq!(test_methods("import unittest\n"), None);
        let strings = concat!(
            "class TestCases(unittest.TestCase):\n",
            "    def setUp(self):\n",
            "        self.a = \"\"\"x\n",
            "y = 1\n",
            "\"\"\"\n",
            "        self.b = '\"\"\"'  # '''\n",
            "    def test_one(self): pass\n",
            "    def test_two(self):\n",
            "        s = '''\n",
            "    def test_not(self): pass\n",
            "'''\n",
            "    def test_three(self): pass\n",
        );
        assert_eq!(
            test_methods(strings).unwrap(),
            vec!["test_one", "test_three", "test_two"]
        );
    }

    #[test]
    fn imports_name_top_level_modules() {
        let code = "import os.path, json as j\nfrom faker import Faker\nfrom . import x\n    import pytz  # tz\n\"\"\"\nfrom the list\nimport this\n\"\"\"\n";
        assert_eq!(imports(code), vec!["os", "json", "faker", "pytz"]);
        let suite = Suite::new(code.into(), &["numpy".into(), "os".into()], "import math\n");
        assert_eq!(
            suite.needs,
            vec!["faker", "json", "math", "numpy", "os", "pytz"]
        );
    }
}

//! Why a candidate failed, as the judge saw it: the failing assertion's line
//! and text, the values it compared, each subexpression's value, the
//! exception an expression raised and where in the program (the run file's
//! `candidates[].failure`; `assets/harness/explain.py` makes it).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::CandidateResult;

/// Most characters of one value the host keeps (the judge sends at most
/// 2 KiB of each).
const VALUE_MAX: usize = 4096;
/// Most `where` entries the host keeps.
const WHERE_MAX: usize = 8;

/// What the judge recorded of one failed step; every part is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// The failing assertion, 1-based (absent when the program itself failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion: Option<u32>,
    /// The failing line of the assertion's code (for HumanEval, the line
    /// inside `check()`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// That assert's condition, or that line's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The comparison operator of a single comparison (`==`, `<`, `in`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    /// The comparison's left operand's value ("got", for `==`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<String>,
    /// The comparison's right operand's value ("expected", for `==`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right: Option<String>,
    /// The first place `left` and `right` differ, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<String>,
    /// Each call, attribute, subscript and name the assertion evaluated, with
    /// its value, in evaluation order.
    #[serde(default, rename = "where", skip_serializing_if = "Vec::is_empty")]
    pub where_: Vec<(String, String)>,
    /// The exception an expression raised: `Type: message`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
    /// The assert's own message (`"Test 3"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The line of the candidate's program where its exception was raised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program_line: Option<u32>,
}

impl Failure {
    /// The judge's record (JSON), bounded; None when it is not one.
    pub(super) fn from_judge(text: &str, assertion: Option<u32>) -> Option<Failure> {
        let mut f: Failure = serde_json::from_str(text).ok()?;
        f.assertion = assertion;
        for s in [
            &mut f.text,
            &mut f.op,
            &mut f.left,
            &mut f.right,
            &mut f.difference,
            &mut f.exception,
            &mut f.message,
        ]
        .into_iter()
        .flatten()
        {
            cut(s);
        }
        f.where_.truncate(WHERE_MAX);
        for (expr, value) in &mut f.where_ {
            cut(expr);
            cut(value);
        }
        Some(f)
    }

    /// One line for the grid and the CSV: "candidate(3) returned [3, 5, 7,
    /// 9]; expected [3, 5, 7]", "x < 3 is false, x = 5", "candidate(0) raised
    /// ZeroDivisionError: division by zero (program line 4)".
    pub fn summary(&self) -> String {
        let mut out = match (&self.op, &self.left, &self.right) {
            (Some(op), Some(left), Some(right)) => {
                let named = self.named(left);
                match (op.as_str(), named) {
                    ("==", Some(expr)) if is_call(expr) => {
                        format!("{expr} returned {left}; expected {right}")
                    }
                    ("==", _) => format!("got {left}; expected {right}"),
                    _ => format!("{left} {op} {right} is false"),
                }
            }
            _ => match (&self.exception, &self.text) {
                (Some(exc), Some(text)) => format!("{text} raised {exc}"),
                (Some(exc), None) => exc.clone(),
                (None, Some(text)) => format!("{text} is false"),
                (None, None) => String::new(),
            },
        };
        if self.exception.is_none() && self.op.as_deref() != Some("==") {
            let shown: Vec<String> = self
                .where_
                .iter()
                .filter(|(e, _)| self.text.as_deref() != Some(e.as_str()))
                .take(3)
                .map(|(e, v)| format!("{e} = {v}"))
                .collect();
            if !shown.is_empty() {
                out += &format!("; {}", shown.join(", "));
            }
        }
        if let Some(line) = self.program_line {
            out += &format!(" (program line {line})");
        }
        if let Some(message) = &self.message {
            out += &format!(" ({message})");
        }
        elide(&out, 300)
    }

    /// The failure in doctest's form (`Expected:` / `Got:`), for a terminal:
    /// a line per part, each part's control characters (newlines, escape
    /// sequences: the candidate's words) written as escapes.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut head = match self.assertion {
            Some(n) => format!("Failed: assertion {n}"),
            None => "Failed: the program".to_owned(),
        };
        if let Some(line) = self.line {
            head += &format!(", line {line}");
        }
        out.push(head);
        if let Some(text) = &self.text {
            out.push(format!("    {text}"));
        }
        match (self.op.as_deref(), &self.left, &self.right) {
            (Some("=="), Some(left), Some(right)) => {
                out.push("Expected:".into());
                out.push(format!("    {right}"));
                out.push("Got:".into());
                out.push(format!("    {left}"));
            }
            (Some(op), Some(left), Some(right)) => {
                out.push(format!("Left ({op}):"));
                out.push(format!("    {left}"));
                out.push("Right:".into());
                out.push(format!("    {right}"));
            }
            _ => {}
        }
        if let Some(d) = &self.difference {
            out.push(format!("Difference: {d}"));
        }
        if !self.where_.is_empty() {
            out.push("Where:".into());
            out.extend(self.where_.iter().map(|(e, v)| format!("    {e} = {v}")));
        }
        if let Some(exc) = &self.exception {
            out.push(format!("Raised: {exc}"));
        }
        if let Some(line) = self.program_line {
            out.push(format!("Program line: {line}"));
        }
        if let Some(message) = &self.message {
            out.push(format!("Message: {message}"));
        }
        out.into_iter()
            .map(|l| printable(&l).into_owned())
            .collect()
    }

    /// The expression whose value is `value`, when the assertion named it.
    fn named(&self, value: &str) -> Option<&str> {
        self.where_
            .iter()
            .rev()
            .find(|(_, v)| v == value)
            .map(|(e, _)| e.as_str())
    }
}

impl CandidateResult {
    /// Why it did not pass, in a line: the failure's summary where the judge
    /// recorded one, else the detail.
    pub fn explanation(&self) -> Cow<'_, str> {
        match &self.failure {
            Some(f) => Cow::Owned(f.summary()),
            None => Cow::Borrowed(&self.detail),
        }
    }
}

/// `text` with its control characters (newlines, carriage returns, escape
/// sequences) written as escapes, so that printing it to a terminal shows it
/// and does nothing else.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

fn is_call(expr: &str) -> bool {
    expr.ends_with(')')
}

fn cut(s: &mut String) {
    if s.len() > VALUE_MAX {
        let at = (0..=VALUE_MAX).rev().find(|&i| s.is_char_boundary(i));
        s.truncate(at.unwrap_or(0));
    }
}

/// `text` in at most about `max` characters, the middle left out.
fn elide(text: &str, max: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= max {
        return text.to_owned();
    }
    let half = max / 2 - 2;
    let head: String = chars[..half].iter().collect();
    let tail: String = chars[chars.len() - half..].iter().collect();
    format!("{head} … {tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comparison_reads_as_got_and_expected() {
        let f = Failure::from_judge(
            r#"{"line": 7, "text": "candidate(3) == [3, 5, 7]", "op": "==", "left": "[3, 5, 7, 9]",
                "right": "[3, 5, 7]", "difference": "index 3: 9 extra",
                "where": [["candidate(3)", "[3, 5, 7, 9]"]], "message": "Test 3"}"#,
            Some(1),
        )
        .unwrap();
        assert_eq!(
            f.summary(),
            "candidate(3) returned [3, 5, 7, 9]; expected [3, 5, 7] (Test 3)"
        );
        let lines = f.lines();
        assert_eq!(lines[0], "Failed: assertion 1, line 7");
        let at = lines.iter().position(|l| l == "Expected:").unwrap();
        assert_eq!(lines[at + 1], "    [3, 5, 7]");
        assert_eq!(lines[at + 3], "    [3, 5, 7, 9]");
        assert!(lines.contains(&"Difference: index 3: 9 extra".to_owned()));
    }

    #[test]
    fn an_exception_names_the_program_line_and_garbage_is_no_failure() {
        let f = Failure::from_judge(
            r#"{"text": "f(0) == 1", "exception": "ZeroDivisionError: division by zero", "program_line": 4}"#,
            Some(2),
        )
        .unwrap();
        assert_eq!(
            f.summary(),
            "f(0) == 1 raised ZeroDivisionError: division by zero (program line 4)"
        );
        assert!(Failure::from_judge("{not json", None).is_none());
        let long = format!(r#"{{"left": "{}"}}"#, "x".repeat(10_000));
        assert_eq!(
            Failure::from_judge(&long, None)
                .unwrap()
                .left
                .unwrap()
                .len(),
            VALUE_MAX
        );
    }
}

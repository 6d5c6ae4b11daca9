//! Tests that are inputs (HumanEval+'s `base_input` and `plus_input`): each
//! calls the entry point on one input, and the judge compares the output with
//! what the task's reference returned on it (`assets/harness/io.py` has the
//! rules, evalplus 0.3.1's). The reference's outputs and times are recorded
//! once per task file ([`crate::expected`]) and travel with every candidate
//! as JSON text the host never parses (they may hold `NaN` and integers of any
//! size, which only Python reads as it wrote them).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// evalplus's least time limit of one input, seconds.
pub const MIN_LIMIT_S: f64 = 1.0;
/// evalplus's limit of one input is this many times the reference's time.
pub const LIMIT_FACTOR: f64 = 4.0;
/// evalplus's most time for one group of inputs, seconds, before its extra 2.
pub const GROUP_MAX_S: f64 = 60.0;

/// One group of inputs (`base`, `plus`), each a test.
#[derive(Debug, Clone, PartialEq)]
pub struct IoGroup {
    /// `base` or `plus`.
    pub name: String,
    /// The inputs, as the task file's JSON text: a list of argument lists.
    pub inputs: String,
    /// How many inputs.
    pub count: usize,
}

/// What the reference returned on every input, and how long each took.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The judge's `recorded` note: `[{"outputs": [tree...], "times":
    /// [seconds...]}...]`, one object per group.
    pub json: Arc<str>,
    /// The reference's time on each input, seconds, group by group (the
    /// host's copy, for the task's timeout).
    pub times: Vec<Vec<f64>>,
}

/// A task's tests that are inputs.
#[derive(Debug, PartialEq)]
pub struct IoTests {
    /// The function every input calls.
    pub entry_point: String,
    /// The task's `atol` as written (a JSON number).
    pub atol: String,
    /// The groups, base first.
    pub groups: Vec<IoGroup>,
    /// The reference's outputs once recorded, or why they could not be.
    pub expected: OnceLock<Result<Recorded, String>>,
    /// Held while the reference is being recorded.
    pub recording: RecordingLock,
}

/// A lock that every task has one of; tasks are equal whatever its state.
#[derive(Debug, Default)]
pub struct RecordingLock(std::sync::Mutex<()>);

impl RecordingLock {
    /// Waits for the lock (a poisoned one is still a lock).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl PartialEq for RecordingLock {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl IoTests {
    /// How many tests in all.
    pub fn count(&self) -> usize {
        self.groups.iter().map(|g| g.count).sum()
    }

    /// How many tests the first (base) group has.
    pub fn base_count(&self) -> usize {
        self.groups.first().map_or(0, |g| g.count)
    }

    /// The recorded outputs, when they are there.
    pub fn recorded(&self) -> Option<&Recorded> {
        self.expected.get().and_then(|e| e.as_ref().ok())
    }

    /// The judge's spec (the setup field of its payload): the inputs and,
    /// unless `record`, the reference's outputs and times.
    pub fn spec(&self, record: bool) -> String {
        let mut out =
            String::with_capacity(64 + self.groups.iter().map(|g| g.inputs.len()).sum::<usize>());
        out.push_str("{\"entry_point\": ");
        out.push_str(&serde_json::Value::from(self.entry_point.as_str()).to_string());
        out.push_str(", \"atol\": ");
        out.push_str(&self.atol);
        out.push_str(", \"groups\": [");
        for (i, group) in self.groups.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str("{\"inputs\": ");
            out.push_str(&group.inputs);
            out.push('}');
        }
        out.push(']');
        if let (false, Some(recorded)) = (record, self.recorded()) {
            out.push_str(", \"expected\": ");
            out.push_str(&recorded.json);
        }
        out.push('}');
        out
    }

    /// evalplus's limit of each input, seconds, group by group.
    pub fn limits(&self) -> Option<Vec<Vec<f64>>> {
        let recorded = self.recorded()?;
        Some(
            recorded
                .times
                .iter()
                .map(|g| {
                    g.iter()
                        .map(|t| MIN_LIMIT_S.max(LIMIT_FACTOR * t))
                        .collect()
                })
                .collect(),
        )
    }

    /// The wall-clock time a candidate of this task gets: what evalplus
    /// gives each group's process (`min(60, sum of its limits) + 2`), summed;
    /// None until the reference's times are known.
    pub fn timeout(&self) -> Option<Duration> {
        let limits = self.limits()?;
        let secs: f64 = limits
            .iter()
            .map(|g| GROUP_MAX_S.min(g.iter().sum()) + 2.0)
            .sum();
        Some(Duration::from_secs_f64(secs))
    }
}

/// `text` (JSON) as Python would write it: `true`, `false` and `null`
/// outside strings become `True`, `False` and `None`.
pub fn json_as_python(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let word = [("true", "True"), ("false", "False"), ("null", "None")]
            .into_iter()
            .find(|(json, _)| rest.starts_with(json));
        if let Some((json, python)) = word {
            out.push_str(python);
            rest = &rest[json.len()..];
            continue;
        }
        in_string = c == '"';
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_words_become_python_outside_strings_only() {
        assert_eq!(
            json_as_python(r#"[true, "true \" null", null, [false]]"#),
            r#"[True, "true \" null", None, [False]]"#
        );
    }

    #[test]
    fn the_timeout_is_evalplus_per_group() {
        let io = IoTests {
            entry_point: "f".into(),
            atol: "0".into(),
            groups: vec![],
            expected: OnceLock::new(),
            recording: RecordingLock::default(),
        };
        assert_eq!(io.timeout(), None);
        let _ = io.expected.set(Ok(Recorded {
            json: Arc::from("[]"),
            times: vec![vec![0.001; 3], vec![0.5; 100]],
        }));
        // base: 3 x 1 s + 2; plus: min(60, 100 x 2 s) + 2.
        assert_eq!(io.timeout(), Some(Duration::from_secs_f64(5.0 + 62.0)));
    }
}

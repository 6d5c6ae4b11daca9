//! The two payloads, each a struct of named fields that [`encode`]s to the
//! fields the harness reads in order (`_fields_of`): the candidate process's
//! (`assets/harness/main.py`) and the judge's (`assets/harness/judge.py`).
//!
//! [`encode`]: CandidatePayload::encode

use super::{Switches, fields, push_field};
use crate::plan::{Program, Tests};
use crate::sandbox::{Interpreter, Limits};
use crate::spec::stdio_tests::Mode;

/// What the candidate process receives: the program and how to confine
/// imports, nothing of the tests.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::sandbox) struct CandidatePayload<'a> {
    /// The program's code.
    pub code: &'a str,
    /// The modules it may not import (sent one a line).
    pub denylist: &'a [String],
    /// The interpreter's `sys.path` (sent one a line).
    pub sys_path: &'a [String],
    /// The switches (`guard`, `confined`).
    pub switches: Switches,
    /// How the program takes its tests.
    pub takes: Takes,
}

/// How the candidate's program takes its tests: the last word of the
/// candidate's flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sandbox) enum Takes {
    /// The judge calls into it (assertions, tests that are inputs); no word.
    Calls,
    /// `unittest`: its suite runs here, in the program's module
    /// (`assets/harness/suite.py`).
    Unittest,
    /// `stdin` or `call`: it is built and fed here, as LiveCodeBench's
    /// grader does (`assets/harness/stdio.py`); the expected outputs are not
    /// sent.
    Stdio(Mode),
}

impl<'a> CandidatePayload<'a> {
    /// The payload for `program` under `limits` in `python`.
    pub fn of(program: &'a Program, limits: &'a Limits, python: &'a Interpreter) -> Self {
        let takes = match &program.tests {
            Tests::Assertions | Tests::Inputs(_) => Takes::Calls,
            Tests::Suite(_) => Takes::Unittest,
            Tests::Stdio(stdio) => Takes::Stdio(stdio.mode),
        };
        CandidatePayload {
            code: &program.code,
            denylist: &limits.denylist,
            sys_path: &python.sys_path,
            switches: Switches::of(limits),
            takes,
        }
    }

    /// The fields: code, denylist, `sys.path`, flags.
    pub fn encode(&self) -> Vec<u8> {
        let mut flags = self.switches.words();
        let word = match self.takes {
            Takes::Calls => None,
            Takes::Unittest => Some("unittest"),
            Takes::Stdio(mode) => Some(mode.flag()),
        };
        if let Some(word) = word {
            // After a space even when there is no switch (the harness splits).
            flags.push(' ');
            flags.push_str(word);
        }
        fields(&[
            self.code,
            &self.denylist.join("\n"),
            &self.sys_path.join("\n"),
            &flags,
        ])
    }
}

/// What the judge receives: the test setup, its flags, the task's reference
/// program and the candidate's program (each parsed for the names it binds
/// and how, and the latter compiled to see that it does; neither is run),
/// the code the task gives, the assertions.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::sandbox) struct JudgePayload<'a> {
    /// The test setup, or what replaces it: a suite's test module, the
    /// spec of tests that are inputs or stdio tests.
    pub setup: std::borrow::Cow<'a, str>,
    /// `strict`: the judge's strict mode.
    pub strict: bool,
    /// The kind of tests, which says how the judge reads `setup`.
    pub kind: JudgeKind,
    /// The task's reference program (may be empty).
    pub reference: &'a str,
    /// The candidate's program.
    pub code: &'a str,
    /// The code the task gives (HumanEval's prompt; may be empty).
    pub given: &'a str,
    /// One field each: the assertions, or a suite's methods' names; none
    /// for tests whose spec is the setup field.
    pub assertions: &'a [String],
}

/// The kind of the judge's tests: the words of its flags after `strict`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sandbox) enum JudgeKind {
    /// Assertions after the setup; no word.
    Assertions,
    /// `io`, and `record` when the reference's outputs are to be recorded
    /// (`assets/harness/io.py`).
    Inputs {
        /// Record the reference's outputs instead of judging against them.
        record: bool,
    },
    /// `unittest` (`assets/harness/suite_verdict.py`).
    Unittest,
    /// `stdio` (`assets/harness/stdio_verdict.py`).
    Stdio,
}

impl<'a> JudgePayload<'a> {
    /// The payload for `program`, in strict mode if `strict`.
    pub fn of(program: &'a Program, strict: bool) -> Self {
        let (setup, kind, assertions): (std::borrow::Cow<'a, str>, _, &[String]) =
            match &program.tests {
                Tests::Assertions => (
                    program.setup.as_str().into(),
                    JudgeKind::Assertions,
                    &program.assertions,
                ),
                Tests::Suite(suite) => (
                    suite.code.as_str().into(),
                    JudgeKind::Unittest,
                    &program.assertions,
                ),
                Tests::Inputs(io) => {
                    // Without the reference's outputs the judge records them.
                    let record = io.recorded().is_none();
                    (io.spec(record).into(), JudgeKind::Inputs { record }, &[])
                }
                Tests::Stdio(stdio) => (stdio.spec().into(), JudgeKind::Stdio, &[]),
            };
        JudgePayload {
            setup,
            strict,
            kind,
            reference: &program.reference,
            code: &program.code,
            given: &program.given,
            assertions,
        }
    }

    /// The fields: setup, flags, reference, code, given, then one per
    /// assertion.
    pub fn encode(&self) -> Vec<u8> {
        let mut flags = if self.strict { vec!["strict"] } else { vec![] };
        match self.kind {
            JudgeKind::Assertions => {}
            JudgeKind::Inputs { record } => {
                flags.push("io");
                if record {
                    flags.push("record");
                }
            }
            JudgeKind::Unittest => flags.push("unittest"),
            JudgeKind::Stdio => flags.push("stdio"),
        }
        let mut out = fields(&[
            &*self.setup,
            &flags.join(" "),
            self.reference,
            self.code,
            self.given,
        ]);
        for a in self.assertions {
            push_field(&mut out, a.as_bytes());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_name_the_kind_of_tests_after_the_switches() {
        let candidate = CandidatePayload {
            code: "",
            denylist: &[],
            sys_path: &[],
            switches: Switches {
                guard: false,
                confined: false,
            },
            takes: Takes::Unittest,
        };
        // A space before the word even with no switch, as it always was.
        assert!(candidate.encode().ends_with(b"9\n unittest"));
        let judge = JudgePayload {
            setup: "spec".into(),
            strict: false,
            kind: JudgeKind::Inputs { record: true },
            reference: "",
            code: "",
            given: "",
            assertions: &[],
        };
        assert_eq!(judge.encode(), fields(&["spec", "io record", "", "", ""]));
    }
}

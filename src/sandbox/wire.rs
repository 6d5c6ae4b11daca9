//! Every message between the host and the harness's two processes, written
//! down once; the harness files (`assets/harness/`) follow it line for line.
//!
//! **Host → candidate process** (stdin when fresh, the run frame of a fork
//! server otherwise): length-prefixed fields ([`push_field`]): the program's
//! code, the denylist (one name a line), `sys.path` (one a line), flags
//! (`guard`, `confined`; `unittest`, `stdin` or `call` for how the program
//! takes its tests). No test, expected value or verdict state.
//!
//! **Host → judge** (always a fork server's child): the test setup, flags
//! (`strict`; `io`, `unittest` or `stdio` for the kinds of tests that
//! replace the setup by their spec), the task's reference program and the candidate's program
//! (parsed and compiled, never run), the code the task gives (HumanEval's
//! prompt, which the judge runs for its helpers), then one field per
//! assertion.
//!
//! **Host ↔ fork server** (descriptor 0 of the server, a unix socket): the
//! server's set-up (8 bytes of length, then fields: `sys.path`, denylist,
//! flags, modules to preload, the children's confinement); then `R` with the
//! child's descriptors attached (`SCM_RIGHTS`: a candidate's stdout, stderr
//! and call channel; a judge's verdict pipe and call channel), 8 bytes of
//! length and the frame (rlimits, directory, the role's fields); `K` to reap
//! the child. The server answers `ready`, `pid N`, then `exit N` or
//! `signal N`, a line each.
//!
//! **Judge ↔ candidate process** (the call channel, a socket pair; each
//! message is 8 bytes of length then the message): the candidate sends the
//! program's state (`["ready"]`, `["syntax", detail]`, `["error", detail]`,
//! `["memory"]`), then answers requests. Requests (the judge's, marshal):
//! `["names", [name...]]`, `["call", target, [arg...], [[key, value]...]]`,
//! `["op", op, target, operand...]`, and for a `stdin` program `["stdin",
//! input]` (it runs once on that input; its answer is what it printed).
//! Answers (the candidate's, JSON, which
//! the judge decodes strictly): `["ok", bindings]` for names, `["ok", value,
//! mutated]` or `["raise", type, message, line, mutated, builtin]` (the
//! builtin exception the type derives from nearest). Values are trees
//! of None, bool, int, float, str and tagged lists (`assets/harness/codec.py`
//! lists the tags: containers, standard-library value types, handles,
//! program names, standard-library objects and modules by name).
//!
//! **Judge → host** (descriptor 3 of the judge, a pipe only the judge holds):
//! the verdict as notes `@<kind> <length>\n<text>`, parsed by [`parse`]; a
//! `failure` note is a step's name and a JSON object of the run file's
//! `failure` keys (see [`super::failure::Failure`]).

use super::{Interpreter, Limits};
use crate::plan::{Program, Tests};

/// Appends `field` as `<byte length>\n<bytes>`, the framing of every field
/// (the harness's `_fields_of` reads it back).
pub(super) fn push_field(out: &mut Vec<u8>, field: &[u8]) {
    out.extend_from_slice(field.len().to_string().as_bytes());
    out.push(b'\n');
    out.extend_from_slice(field);
}

/// `parts`, each framed by [`push_field`].
pub(super) fn fields<S: AsRef<[u8]>>(parts: &[S]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts {
        push_field(&mut out, part.as_ref());
    }
    out
}

/// `body` behind 8 bytes of its length (big-endian): a fork server's set-up
/// and run frames.
pub(super) fn sized(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + body.len());
    out.extend_from_slice(&(body.len() as u64).to_be_bytes());
    out.extend_from_slice(body);
    out
}

/// What the candidate process receives: the program and how to confine
/// imports, nothing of the tests.
pub(super) fn candidate_payload(
    program: &Program,
    limits: &Limits,
    python: &Interpreter,
) -> Vec<u8> {
    let mut flags = flags(limits);
    match &program.tests {
        Tests::Assertions | Tests::Inputs(_) => {}
        // Its tests run here, in the program's module (`assets/harness/suite.py`).
        Tests::Suite(_) => flags.push_str(" unittest"),
        Tests::Stdio(stdio) => {
            // The program is built and fed here, as LiveCodeBench's grader
            // does (`assets/harness/stdio.py`); the expected outputs are not sent.
            flags.push(' ');
            flags.push_str(stdio.mode.flag());
        }
    }
    fields(&[
        program.code.as_str(),
        &limits.denylist.join("\n"),
        &python.sys_path.join("\n"),
        &flags,
    ])
}

/// What the judge receives: the test setup, its flags, the task's reference
/// program and the candidate's program (each parsed for the names it binds
/// and how, and the latter compiled to see that it does; neither is run),
/// the assertions.
pub(super) fn judge_payload(program: &Program, strict: bool) -> Vec<u8> {
    let mut flags = if strict { vec!["strict"] } else { vec![] };
    let setup = match &program.tests {
        Tests::Inputs(io) => {
            // Tests that are inputs: the spec in place of the setup, no
            // assertion fields (`assets/harness/io.py`). Without the
            // reference's outputs the judge records them.
            let record = io.recorded().is_none();
            flags.push("io");
            if record {
                flags.push("record");
            }
            return fields(&[
                io.spec(record).as_str(),
                &flags.join(" "),
                &program.reference,
                &program.code,
                &program.given,
            ]);
        }
        Tests::Stdio(stdio) => {
            // Tests that are an input and an expected output: the spec in
            // place of the setup, no assertion fields
            // (`assets/harness/stdio_verdict.py`).
            flags.push("stdio");
            return fields(&[
                stdio.spec().as_str(),
                &flags.join(" "),
                &program.reference,
                &program.code,
                &program.given,
            ]);
        }
        Tests::Suite(suite) => {
            // The test module, in place of the setup; the assertions are
            // its methods' names (`assets/harness/suite_verdict.py`).
            flags.push("unittest");
            suite.code.as_str()
        }
        Tests::Assertions => program.setup.as_str(),
    };
    let mut out = fields(&[
        setup,
        &flags.join(" "),
        &program.reference,
        &program.code,
        &program.given,
    ]);
    for a in program.assertions.iter() {
        push_field(&mut out, a.as_bytes());
    }
    out
}

/// The candidate's switches: `guard` (the process guard) and `confined` (the
/// kernel confinement is in force, so modules of the interpreter's own path
/// may load a denied module for themselves).
pub(super) fn flags(limits: &Limits) -> String {
    let status = limits.confinement();
    let mut words = Vec::new();
    if limits.process_guard {
        words.push("guard");
    }
    if status.enabled && status.files && status.seccomp {
        words.push("confined");
    }
    words.join(" ")
}

/// The name of one step of the judge's run, as its notes spell it: the only
/// place `c`, `s` and `a1`, `a2`... are written on the host's side
/// (`assets/harness/judge.py` writes them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StepId {
    /// `c`: the candidate's program (compiled, then its top level run).
    Program,
    /// `s`: the test setup, or a suite's test module.
    Setup,
    /// `a<n>`: the `n`-th assertion or test, from 1.
    Assertion(usize),
}

impl StepId {
    /// The steps of a run with `total` assertions, in the judge's order.
    pub fn all(total: usize) -> impl Iterator<Item = StepId> {
        [StepId::Program, StepId::Setup]
            .into_iter()
            .chain((1..=total).map(StepId::Assertion))
    }
}

impl std::fmt::Display for StepId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepId::Program => f.write_str("c"),
            StepId::Setup => f.write_str("s"),
            StepId::Assertion(n) => write!(f, "a{n}"),
        }
    }
}

/// A step name the judge does not write (`a0`, `a01`, `x`...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct NotAStep;

impl std::str::FromStr for StepId {
    type Err = NotAStep;

    /// Reads exactly what [`StepId`]'s `Display` writes, nothing else.
    fn from_str(name: &str) -> Result<StepId, NotAStep> {
        match name {
            "c" => return Ok(StepId::Program),
            "s" => return Ok(StepId::Setup),
            _ => {}
        }
        let digits = name.strip_prefix('a').ok_or(NotAStep)?;
        if digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(NotAStep);
        }
        digits.parse().map(StepId::Assertion).map_err(|_| NotAStep)
    }
}

/// How one step (the program, the setup, an assertion) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Ok,
    Fail,
    Memory,
    /// The program does not compile (step `c` only).
    Syntax,
    /// The candidate process stopped answering, or broke the protocol.
    Lost,
    /// A test that is an input took longer than its limit.
    Timeout,
    /// Not run: an earlier step stopped the run.
    Skip,
}

/// The judge's verdict as it arrived (see `assets/harness/judge.py`).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Report {
    /// The judge's monotonic clock when it started (ns).
    pub start_ns: Option<u64>,
    /// When the program's top level had run (ns).
    pub ready_ns: Option<u64>,
    /// Each step's result, first record wins.
    pub steps: Vec<(StepId, Step)>,
    /// Why each failed step failed.
    pub details: Vec<(StepId, String)>,
    /// What the tests saw when each failed step failed (JSON, explain.py).
    pub failures: Vec<(StepId, String)>,
    /// The flags the judge raised.
    pub flags: Vec<String>,
    /// How and when the candidate process stopped answering.
    pub lost: Option<String>,
    /// Every step ran; the judge's clock then (ns).
    pub end_ns: Option<u64>,
    /// What the reference returned in record mode (JSON, `io.py`).
    pub recorded: Option<String>,
}

impl Report {
    /// The result of step `id`, if its record arrived.
    pub fn step(&self, id: StepId) -> Option<Step> {
        self.steps.iter().find(|(n, _)| *n == id).map(|(_, s)| *s)
    }

    /// The detail of step `id`, or empty.
    pub fn detail(&self, id: StepId) -> &str {
        of_step(&self.details, id).unwrap_or("")
    }

    /// What the tests saw when step `id` failed, if the judge said.
    pub fn failure(&self, id: StepId) -> Option<&str> {
        of_step(&self.failures, id)
    }

    /// Whether the judge finished.
    pub fn ended(&self) -> bool {
        self.end_ns.is_some()
    }
}

/// Most characters of a detail the host keeps.
pub(super) const DETAIL_MAX: usize = 16 * 1024;
/// Most characters of a failure record the host reads (its values are
/// bounded one by one when it is read: `failure.rs`).
const FAILURE_MAX: usize = 64 * 1024;

/// Reads the judge's notes; stops at the first byte that is not one.
pub(super) fn parse(data: &[u8]) -> Report {
    let mut report = Report::default();
    let mut pos = 0;
    while let Some((kind, text, used)) = note(&data[pos..]) {
        pos += used;
        let mut text = String::from_utf8_lossy(text).into_owned();
        let max = match kind {
            "failure" => FAILURE_MAX,
            "recorded" => usize::MAX,
            _ => DETAIL_MAX,
        };
        if text.len() > max {
            let cut = (0..=max).rev().find(|&i| text.is_char_boundary(i));
            text.truncate(cut.unwrap_or(0));
        }
        let (name, rest) = text.split_once(' ').unwrap_or((&text, ""));
        // A note about a step the judge does not name is not read.
        let id = name.parse::<StepId>().ok();
        match (kind, id) {
            ("start", _) => report.start_ns = text.parse().ok(),
            ("ready", _) => report.ready_ns = text.parse().ok(),
            ("end", _) => report.end_ns = text.parse().ok(),
            ("step", Some(id)) => {
                let step = match rest {
                    "ok" => Step::Ok,
                    "fail" => Step::Fail,
                    "memory" => Step::Memory,
                    "syntax" => Step::Syntax,
                    "lost" => Step::Lost,
                    "timeout" => Step::Timeout,
                    _ => Step::Skip,
                };
                if report.step(id).is_none() {
                    report.steps.push((id, step));
                }
            }
            ("detail", Some(id)) if of_step(&report.details, id).is_none() => {
                report.details.push((id, rest.to_owned()));
            }
            ("failure", Some(id)) if of_step(&report.failures, id).is_none() => {
                report.failures.push((id, rest.to_owned()));
            }
            ("flag", _) => super::flags::add_flag(&mut report.flags, &text),
            ("lost", _) => report.lost = Some(text),
            ("recorded", _) if report.recorded.is_none() => report.recorded = Some(text),
            _ => {}
        }
    }
    report
}

/// The text recorded for step `id` in `notes` (the first, which wins).
fn of_step(notes: &[(StepId, String)], id: StepId) -> Option<&str> {
    notes
        .iter()
        .find(|(n, _)| *n == id)
        .map(|(_, text)| text.as_str())
}

/// One note at the start of `data`: its kind, its text and the bytes it took.
fn note(data: &[u8]) -> Option<(&str, &[u8], usize)> {
    let rest = data.strip_prefix(b"@")?;
    let space = rest.iter().take(16).position(|&b| b == b' ')?;
    let kind = std::str::from_utf8(&rest[..space]).ok()?;
    let after = &rest[space + 1..];
    let nl = after.iter().take(20).position(|&b| b == b'\n')?;
    let len: usize = std::str::from_utf8(&after[..nl]).ok()?.parse().ok()?;
    let text = after.get(nl + 1..(nl + 1).checked_add(len)?)?;
    Some((kind, text, 1 + space + 1 + nl + 1 + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_judges_notes_are_read_in_order_and_first_results_win() {
        let data = b"@start 1\n5@ready 1\n6@step 4\nc ok@step 7\na1 fail@detail 8\na1 false@step 5\na1 ok@flag 12\nalways-equal@end 2\n99";
        let r = parse(data);
        assert_eq!(r.start_ns, Some(5));
        assert_eq!(r.ready_ns, Some(6));
        assert_eq!(
            r.steps,
            vec![
                (StepId::Program, Step::Ok),
                (StepId::Assertion(1), Step::Fail)
            ]
        );
        assert_eq!(r.detail(StepId::Assertion(1)), "false");
        assert_eq!(r.flags, vec!["always-equal".to_string()]);
        assert_eq!(r.end_ns, Some(99));
    }

    #[test]
    fn any_bytes_are_read_without_a_panic_and_a_long_detail_is_cut() {
        for data in [
            &b"@detail 18446744073709551615\nx"[..],
            b"@flag 99999999999999999999\n",
            b"@\n@ \n@x 1\n",
            b"\xff\xfe",
        ] {
            let r = parse(data);
            assert!(r.steps.is_empty() && !r.ended());
        }
        let mut long = format!("@detail {}\na1 ", 100_003).into_bytes();
        long.extend(std::iter::repeat_n(b'x', 100_000));
        assert_eq!(
            parse(&long).detail(StepId::Assertion(1)).len(),
            DETAIL_MAX - 3
        );
    }

    #[test]
    fn step_ids_read_back_exactly_what_they_write() {
        for id in StepId::all(12) {
            assert_eq!(id.to_string().parse(), Ok(id));
        }
        assert_eq!("a12".parse(), Ok(StepId::Assertion(12)));
        for name in [
            "",
            "a",
            "a0",
            "a01",
            "a+1",
            "a-1",
            "b1",
            "C",
            "s1",
            "c ",
            "a99999999999999999999999",
        ] {
            assert_eq!(name.parse::<StepId>(), Err(NotAStep), "{name:?}");
        }
    }

    #[test]
    fn notes_about_steps_the_judge_does_not_name_are_not_read() {
        let r = parse(
            b"@step 6
a01 ok@detail 4
x no@step 7
a1 fail",
        );
        assert_eq!(r.steps, vec![(StepId::Assertion(1), Step::Fail)]);
        assert!(r.details.is_empty());
    }
}

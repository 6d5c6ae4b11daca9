//! The judge's notes (`@<kind> <length>\n<text>`, written by
//! `assets/harness/judge.py`'s `_record`): the step names, the notes as a
//! typed [`Note`], and the [`Report`] they add up to.

/// The name of one step of the judge's run, as its notes spell it: the only
/// place `c`, `s` and `a1`, `a2`... are written on the host's side
/// (`assets/harness/judge.py` writes them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sandbox) enum StepId {
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
pub(in crate::sandbox) struct NotAStep;

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

/// How one step (the program, the setup, an assertion) ended: a `step`
/// note's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sandbox) enum Step {
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

impl Step {
    /// A `step` note's result word; one the host does not know reads as
    /// [`Step::Skip`].
    fn read(word: &str) -> Step {
        match word {
            "ok" => Step::Ok,
            "fail" => Step::Fail,
            "memory" => Step::Memory,
            "syntax" => Step::Syntax,
            "lost" => Step::Lost,
            "timeout" => Step::Timeout,
            _ => Step::Skip,
        }
    }
}

/// The judge's verdict as it arrived (see `assets/harness/judge.py`).
#[derive(Debug, Clone, Default, PartialEq)]
pub(in crate::sandbox) struct Report {
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

/// One note of the judge's, read.
#[derive(Debug, Clone, PartialEq)]
enum Note {
    /// `@start NS`: the judge's clock when it started.
    Start(Option<u64>),
    /// `@ready NS`: the program's top level had run.
    Ready(Option<u64>),
    /// `@end NS`: every step has run.
    End(Option<u64>),
    /// `@step NAME RESULT`.
    Step(StepId, Step),
    /// `@detail NAME TEXT`: why step NAME did not pass.
    Detail(StepId, String),
    /// `@failure NAME JSON`: what the tests saw when step NAME failed.
    Failure(StepId, String),
    /// `@flag NAME`: a flag the judge raised.
    Flag(String),
    /// `@lost TEXT`: how and when the candidate process stopped answering.
    Lost(String),
    /// `@recorded TIMES\nOUTPUTS`: what the reference returned (`io.py`).
    Recorded(String),
}

/// Most characters of a detail the host keeps.
pub(in crate::sandbox) const DETAIL_MAX: usize = 16 * 1024;
/// Most characters of a failure record the host reads (its values are
/// bounded one by one when it is read: `failure.rs`).
const FAILURE_MAX: usize = 64 * 1024;

impl Note {
    /// The note of `kind` whose text is `bytes`, cut to its kind's bound;
    /// none for a kind the host does not read or a step the judge does not
    /// name.
    fn read(kind: &str, bytes: &[u8]) -> Option<Note> {
        let mut text = String::from_utf8_lossy(bytes).into_owned();
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
        let step = || name.parse::<StepId>().ok();
        Some(match kind {
            "start" => Note::Start(text.parse().ok()),
            "ready" => Note::Ready(text.parse().ok()),
            "end" => Note::End(text.parse().ok()),
            "step" => Note::Step(step()?, Step::read(rest)),
            "detail" => Note::Detail(step()?, rest.to_owned()),
            "failure" => Note::Failure(step()?, rest.to_owned()),
            "flag" => Note::Flag(text),
            "lost" => Note::Lost(text),
            "recorded" => Note::Recorded(text),
            _ => return None,
        })
    }
}

impl Report {
    /// Adds `note`: a step's first result, detail and failure win, as does
    /// the first record; a later clock reading or loss replaces the earlier.
    fn add(&mut self, note: Note) {
        match note {
            Note::Start(ns) => self.start_ns = ns,
            Note::Ready(ns) => self.ready_ns = ns,
            Note::End(ns) => self.end_ns = ns,
            Note::Step(id, step) => {
                if self.step(id).is_none() {
                    self.steps.push((id, step));
                }
            }
            Note::Detail(id, text) => {
                if of_step(&self.details, id).is_none() {
                    self.details.push((id, text));
                }
            }
            Note::Failure(id, text) => {
                if of_step(&self.failures, id).is_none() {
                    self.failures.push((id, text));
                }
            }
            Note::Flag(flag) => crate::sandbox::flags::add_flag(&mut self.flags, &flag),
            Note::Lost(text) => self.lost = Some(text),
            Note::Recorded(text) => {
                self.recorded.get_or_insert(text);
            }
        }
    }
}

/// Reads the judge's notes; stops at the first byte that is not one.
pub(in crate::sandbox) fn parse(data: &[u8]) -> Report {
    let mut report = Report::default();
    let mut pos = 0;
    while let Some((kind, text, used)) = note(&data[pos..]) {
        pos += used;
        if let Some(note) = Note::read(kind, text) {
            report.add(note);
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

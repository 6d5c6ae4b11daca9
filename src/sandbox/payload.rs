//! The wire formats between host and harness: the length-prefixed fields of the
//! payload on the child's stdin (and of a fork server's frames), and the result
//! envelope on descriptor 3. Both are parsed by code
//! that imports nothing, so the harness starts fast.

use super::{Interpreter, Limits};
use crate::plan::Program;

/// Appends `field` as `<byte length>\n<bytes>`, the one framing of every
/// message to the harness (its `_fields_of` reads it back).
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

/// One candidate's secrets: the token its harness's records carry, and for
/// each step (`c` the code, `s` the setup, `a1`... the assertions) the secret
/// only that step's `ok` record carries. A candidate that reads the records
/// (it can put its own pipe on descriptor 3) learns the token and the secrets
/// of the steps that already passed, never those of the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Keys {
    pub token: String,
    /// (step name, secret), in the order the steps run.
    pub ok: Vec<(String, String)>,
}

impl Keys {
    /// Fresh keys for `program`'s steps.
    pub fn new(program: &Program) -> Keys {
        Keys::with(program, token)
    }

    /// Keys made by `secret` (placeholders for display).
    pub fn with(program: &Program, mut secret: impl FnMut() -> String) -> Keys {
        let mut steps = vec!["c".to_owned()];
        if !program.setup.is_empty() {
            steps.push("s".to_owned());
        }
        steps.extend((1..=program.assertions.len()).map(|i| format!("a{i}")));
        Keys {
            token: secret(),
            ok: steps.into_iter().map(|name| (name, secret())).collect(),
        }
    }

    fn ok_secret(&self, step: &str) -> Option<&str> {
        self.ok
            .iter()
            .find(|(n, _)| n == step)
            .map(|(_, s)| s.as_str())
    }
}

/// Encodes the payload: token, setup, code, denylist, sys.path, flags, the
/// steps' `ok` secrets (space-separated, in step order), then assertions,
/// each framed by [`push_field`].
pub(super) fn encode(
    keys: &Keys,
    program: &Program,
    limits: &Limits,
    python: &Interpreter,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(program.code.len() + program.setup.len() + 1024);
    let oks: Vec<&str> = keys.ok.iter().map(|(_, s)| s.as_str()).collect();
    for field in [
        &keys.token,
        &program.setup,
        &program.code,
        &limits.denylist.join("\n"),
        &python.sys_path.join("\n"),
        &flags(limits),
        &oks.join(" "),
    ] {
        push_field(&mut out, field.as_bytes());
    }
    for a in program.assertions.iter() {
        push_field(&mut out, a.as_bytes());
    }
    out
}

/// The harness's switches: `guard` (the process guard) and `confined` (the
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

/// How one step (the code, the setup, an assertion) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Ok,
    Fail,
    Memory,
    /// Not run: an earlier step stopped the run.
    Skip,
}

/// What arrived on descriptor 3 (see `assets/harness/core.py`): the records
/// that carry this candidate's token, which only the harness can write, and
/// the notes beside them, which the candidate could have written too.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Report {
    /// The harness's monotonic clock when it started (ns).
    pub start_ns: Option<u64>,
    /// Each step's result by name (`c`, `s`, `a1`...), first record wins.
    pub steps: Vec<(String, Step)>,
    /// The code did not compile; nothing ran.
    pub syntax: bool,
    /// Every step ran.
    pub ended: bool,
    /// Untrusted: why each failed step failed, by step name.
    pub details: Vec<(String, String)>,
    /// Untrusted: the flags the harness noted.
    pub flags: Vec<String>,
    /// Untrusted: the harness's clock after the last step (ns).
    pub end_ns: Option<u64>,
    /// Bytes that are neither a genuine record nor a note.
    pub forged: bool,
}

impl Report {
    /// The result of step `name`, if its record arrived.
    pub fn step(&self, name: &str) -> Option<Step> {
        self.steps.iter().find(|(n, _)| n == name).map(|(_, s)| *s)
    }

    /// The noted detail of step `name`, or empty.
    pub fn detail(&self, name: &str) -> &str {
        self.details
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, d)| d.as_str())
    }
}

/// Reads what arrived on descriptor 3 for the candidate with `keys`.
pub(super) fn parse(data: &[u8], keys: &Keys) -> Report {
    let mut report = Report::default();
    let marker = format!("{} ", keys.token);
    let mut rest = Vec::new();
    let mut pos = 0;
    while let Some(i) = find(&data[pos..], marker.as_bytes()) {
        rest.extend_from_slice(&data[pos..pos + i]);
        let start = pos + i + marker.len();
        let end = find(&data[start..], b"\n").map_or(data.len(), |e| start + e);
        record(&mut report, keys, &data[start..end]);
        pos = (end + 1).min(data.len());
    }
    rest.extend_from_slice(&data[pos..]);
    notes(&mut report, &rest);
    report
}

fn record(report: &mut Report, keys: &Keys, line: &[u8]) {
    let line = String::from_utf8_lossy(line);
    let words: Vec<&str> = line.split(' ').collect();
    let step = match words.as_slice() {
        ["start", ns] => return report.start_ns = ns.parse().ok(),
        ["end"] => return report.ended = true,
        ["c", "syntax"] => return report.syntax = true,
        [name, "ok", secret] if keys.ok_secret(name) == Some(*secret) => (*name, Step::Ok),
        [name, "fail"] => (*name, Step::Fail),
        [name, "memory"] => (*name, Step::Memory),
        [name, "skip"] => (*name, Step::Skip),
        // An `ok` without its step's secret, or anything else, was not
        // written by the harness.
        _ => return report.forged = true,
    };
    if report.step(step.0).is_none() {
        report.steps.push((step.0.to_owned(), step.1));
    }
}

/// Parses the notes (`@<kind> <length>\n<text>`) among `data`; anything else
/// marks the report as forged.
fn notes(report: &mut Report, data: &[u8]) {
    let mut pos = 0;
    while pos < data.len() {
        match note(&data[pos..]) {
            Some((kind, text, used)) => {
                pos += used;
                let text = String::from_utf8_lossy(text).into_owned();
                match kind {
                    "detail" => {
                        let (step, why) = text.split_once(' ').unwrap_or((&text, ""));
                        if !report.details.iter().any(|(n, _)| n == step) {
                            report.details.push((step.to_owned(), why.to_owned()));
                        }
                    }
                    "flag" if crate::integrity::is_flag(&text) => {
                        crate::integrity::add_flag(&mut report.flags, &text);
                    }
                    "end" => report.end_ns = text.parse().ok(),
                    _ => report.forged = true,
                }
            }
            None => {
                report.forged = true;
                pos += 1;
            }
        }
    }
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

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn is_token(word: &str) -> bool {
    word.len() == 32 && word.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `output` (a candidate's stdout or stderr) contains a line that
/// looks like the result channel: a note, a 32-digit hex token, or a record
/// after one.
pub(super) fn mimics_envelope(output: &str) -> bool {
    output.lines().any(|line| {
        ["@detail ", "@flag ", "@end "]
            .iter()
            .any(|p| line.starts_with(p))
            || is_token(line.split_once(' ').map_or(line, |(word, _)| word))
    })
}

/// A fresh random token (128 bits, hex).
pub(super) fn token() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // Fall back to time and address entropy; still unknown to the candidate.
        let t = super::sys::monotonic_ns() as u128 ^ (&bytes as *const _ as usize as u128) << 64;
        bytes = t.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Keys {
        Keys {
            token: "abc".into(),
            ok: vec![("c".into(), "k1".into()), ("a1".into(), "k2".into())],
        }
    }

    #[test]
    fn records_count_only_with_the_token_and_notes_are_read_around_them() {
        let data = b"abc start 5\nabc c ok k1\n@detail 8\na1 falsexyz a1 ok k2\nabc a1 fail\n@flag 12\nalways-equal@end 2\n99abc end\n";
        let r = parse(data, &keys());
        assert_eq!(r.start_ns, Some(5));
        assert_eq!(
            r.steps,
            vec![("c".into(), Step::Ok), ("a1".into(), Step::Fail)]
        );
        assert_eq!(r.detail("a1"), "false");
        assert_eq!(r.flags, vec!["always-equal".to_string()]);
        assert_eq!(r.end_ns, Some(99));
        assert!(r.ended);
        // "xyz a1 ok" is not a record of this candidate's: it is forged.
        assert!(r.forged);
    }

    #[test]
    fn a_clean_report_is_not_forged_and_an_unknown_flag_is_a_forgery() {
        let r = parse(b"abc start 1\n@flag 7\ntracingabc end\n", &keys());
        assert!(!r.forged && r.ended && r.flags == ["tracing"]);
        let r = parse(b"abc start 1\n@flag 4\nnopeabc end\n", &keys());
        assert!(r.forged && r.ended && r.flags.is_empty());
    }

    #[test]
    fn an_ok_record_counts_only_with_its_own_steps_secret() {
        // The token is known to a candidate that read the records; a step's
        // secret is not, until that step has passed.
        for forged in [&b"abc a1 ok\n"[..], b"abc a1 ok k1\n", b"abc a1 ok k3\n"] {
            let r = parse(forged, &keys());
            assert_eq!(r.step("a1"), None);
            assert!(r.forged);
        }
        assert_eq!(parse(b"abc a1 ok k2\n", &keys()).step("a1"), Some(Step::Ok));
    }

    #[test]
    fn any_bytes_a_candidate_writes_are_read_without_a_panic() {
        for data in [
            &b"@detail 18446744073709551615\nx"[..],
            b"@flag 99999999999999999999\n",
            b"@\n@ \n@x 1\n",
            b"abc ",
            b"abc \xff\xfe ok k1\n",
        ] {
            let r = parse(data, &keys());
            assert!(r.forged || r.steps.is_empty());
        }
    }

    #[test]
    fn output_that_looks_like_the_result_channel_is_noticed() {
        assert!(mimics_envelope("hello\n@flag 12\nalways-equal"));
        assert!(mimics_envelope("0123456789abcdef0123456789abcdef a1 ok"));
        assert!(!mimics_envelope("pass\n3 3\nall good @flag"));
    }
}

//! The wire formats between host and harness: the length-prefixed fields of the
//! payload on the child's stdin (and of a fork server's frames), and the result
//! envelope on descriptor 3. Both are parsed by code
//! that imports nothing, so the harness starts fast.

use super::{Interpreter, Limits, Outcome};
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

/// Encodes the payload: token, setup, code, denylist, sys.path, flags, then
/// assertions, each framed by [`push_field`].
pub(super) fn encode(
    token: &str,
    program: &Program,
    limits: &Limits,
    python: &Interpreter,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(program.code.len() + program.setup.len() + 1024);
    for field in [
        token,
        &program.setup,
        &program.code,
        &limits.denylist.join("\n"),
        &python.sys_path.join("\n"),
        &flags(limits),
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

/// The harness's report, once its token is checked.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Envelope {
    pub outcome: Outcome,
    pub passed: u32,
    pub per_assertion: Vec<bool>,
    /// Harness monotonic stamps (ns): start, code done, end.
    pub stamps: [u64; 3],
    pub detail: String,
}

/// Finds the genuine envelope in what arrived on descriptor 3. Anything not
/// starting with `token` (a forgery) is ignored.
pub(super) fn parse(data: &[u8], token: &str) -> Option<Envelope> {
    let marker = format!("{token}\n");
    let start = find_last(data, marker.as_bytes())? + marker.len();
    let rest = &data[start..];
    let mut lines = rest.splitn(6, |&b| b == b'\n');
    let outcome = Outcome::parse(std::str::from_utf8(lines.next()?).ok()?)?;
    let counts = std::str::from_utf8(lines.next()?).ok()?;
    let (passed, total) = counts.split_once(' ')?;
    let passed: u32 = passed.parse().ok()?;
    let total: usize = total.parse().ok()?;
    let bits = lines.next()?;
    if bits.len() != total || bits.iter().any(|b| *b != b'0' && *b != b'1') {
        return None;
    }
    let per_assertion: Vec<bool> = bits.iter().map(|b| *b == b'1').collect();
    if per_assertion.iter().filter(|p| **p).count() != passed as usize {
        return None;
    }
    let stamp_line = std::str::from_utf8(lines.next()?).ok()?;
    let stamps: Vec<u64> = stamp_line
        .split(' ')
        .filter_map(|s| s.parse().ok())
        .collect();
    let stamps: [u64; 3] = stamps.try_into().ok()?;
    let len: usize = std::str::from_utf8(lines.next()?).ok()?.parse().ok()?;
    let detail = lines.next()?;
    if detail.len() != len {
        return None;
    }
    Some(Envelope {
        outcome,
        passed,
        per_assertion,
        stamps,
        detail: String::from_utf8_lossy(detail).into_owned(),
    })
}

fn find_last(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
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

    #[test]
    fn a_genuine_envelope_parses() {
        let data = b"junk\nabc\npass\n2 2\n11\n1 2 3\n0\n";
        let e = parse(data, "abc").unwrap();
        assert_eq!(e.outcome, Outcome::Pass);
        assert_eq!(e.per_assertion, vec![true, true]);
        assert_eq!(e.stamps, [1, 2, 3]);
    }

    #[test]
    fn an_envelope_with_the_wrong_token_or_inconsistent_counts_is_rejected() {
        assert_eq!(parse(b"xyz\npass\n1 1\n1\n1 2 3\n0\n", "abc"), None);
        assert_eq!(parse(b"abc\npass\n2 2\n10\n1 2 3\n0\n", "abc"), None);
        assert_eq!(parse(b"abc\npass\n1 1\n1\n1 2 3\n5\nab", "abc"), None);
    }
}

//! Golden transcripts of the wire: for each message a small example's exact
//! bytes (`tests/data/wire_golden_<message>.bin`) and its parts by name
//! (`.txt`: a line a part, its name then its bytes as a JSON string), which
//! the harness's side can reproduce and read. `UPDATE_GOLDEN=true` rewrites
//! them.

use super::payload::{JudgeKind, Takes};
use super::{CandidatePayload, JudgePayload, Report, Step, StepId, Switches, fields, parse};
use crate::spec::stdio_tests::Mode;

/// Checks `bytes` against the golden `.bin` of `message`, `parts` against its
/// `.txt`, and that `frame` makes the one of the other.
fn golden(
    message: &str,
    bytes: &[u8],
    parts: &[(&str, &str)],
    frame: fn(&[(&str, &str)]) -> Vec<u8>,
) {
    let name = format!("wire_golden_{message}");
    let mut transcript =
        format!("# tests/data/{name}.bin, part by part: its name, then its bytes (JSON)\n");
    for (part, value) in parts {
        let value = serde_json::to_string(value).unwrap();
        transcript.push_str(&format!("{part} {value}\n"));
    }
    assert_eq!(frame(parts), bytes, "the parts, framed, are the message");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let (bin, txt) = (
        dir.join(format!("{name}.bin")),
        dir.join(format!("{name}.txt")),
    );
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "true") {
        std::fs::write(&bin, bytes).unwrap();
        std::fs::write(&txt, &transcript).unwrap();
    }
    assert_eq!(std::fs::read(&bin).unwrap(), bytes, "{}", bin.display());
    assert_eq!(std::fs::read_to_string(&txt).unwrap(), transcript);
}

/// Payload fields: each `<byte length>\n<bytes>`.
fn as_fields(parts: &[(&str, &str)]) -> Vec<u8> {
    let values: Vec<&str> = parts.iter().map(|(_, v)| *v).collect();
    fields(&values)
}

/// The judge's notes: each `@<kind> <byte length>\n<text>`.
fn as_notes(parts: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (kind, text) in parts {
        out.extend_from_slice(format!("@{kind} {}\n{text}", text.len()).as_bytes());
    }
    out
}

#[test]
fn the_candidate_payload_matches_its_golden_transcript() {
    let denylist = ["os".to_owned(), "subprocess".to_owned()];
    let sys_path = ["/usr/lib/python3.12".to_owned(), "/opt/lib".to_owned()];
    let payload = CandidatePayload {
        code: "print(input()[::-1])  # é\n",
        denylist: &denylist,
        sys_path: &sys_path,
        switches: Switches {
            guard: true,
            confined: true,
        },
        takes: Takes::Stdio(Mode::Stdin),
    };
    let parts = [
        ("code", payload.code),
        ("denylist", "os\nsubprocess"),
        ("sys_path", "/usr/lib/python3.12\n/opt/lib"),
        ("flags", "guard confined stdin"),
    ];
    golden("candidate", &payload.encode(), &parts, as_fields);
}

#[test]
fn the_judge_payload_matches_its_golden_transcript() {
    let assertions = [
        "assert f(1) == 2".to_owned(),
        "assert f('é') == 'é1'".to_owned(),
    ];
    let payload = JudgePayload {
        setup: "ONE = 1\n".into(),
        strict: true,
        kind: JudgeKind::Assertions,
        reference: "def f(x):\n    return x + ONE\n",
        code: "def f(x):\n    return x + 1  # é\n",
        given: "def f(x):\n",
        assertions: &assertions,
    };
    let parts = [
        ("setup", &*payload.setup),
        ("flags", "strict"),
        ("reference", payload.reference),
        ("code", payload.code),
        ("given", payload.given),
        ("assertion", &assertions[0]),
        ("assertion", &assertions[1]),
    ];
    golden("judge", &payload.encode(), &parts, as_fields);
}

#[test]
fn the_judges_notes_match_their_golden_transcript() {
    const FAILURE: &str = r#"{"op": "==", "left": "'é'", "right": "'e'"}"#;
    let parts = [
        ("start", "100"),
        ("ready", "250"),
        ("step", "c ok"),
        ("step", "s ok"),
        ("step", "a1 ok"),
        ("step", "a2 fail"),
        ("detail", "a2 AssertionError: 'é' != 'e'"),
        ("failure", &format!("a2 {FAILURE}")),
        ("flag", "always-equal"),
        ("end", "900"),
    ];
    let bytes = as_notes(&parts);
    golden("notes", &bytes, &parts, as_notes);
    let a2 = StepId::Assertion(2);
    assert_eq!(
        parse(&bytes),
        Report {
            start_ns: Some(100),
            ready_ns: Some(250),
            steps: vec![
                (StepId::Program, Step::Ok),
                (StepId::Setup, Step::Ok),
                (StepId::Assertion(1), Step::Ok),
                (a2, Step::Fail),
            ],
            details: vec![(a2, "AssertionError: 'é' != 'e'".into())],
            failures: vec![(a2, FAILURE.into())],
            flags: vec!["always-equal".into()],
            lost: None,
            end_ns: Some(900),
            recorded: None,
        }
    );
}

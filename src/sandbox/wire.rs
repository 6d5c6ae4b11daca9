//! Every message between the host and the harness's two processes, written
//! down once; the harness files (`assets/harness/`) follow it line for line.
//!
//! **Host → candidate process** (stdin when fresh, the run frame of a fork
//! server otherwise; [`CandidatePayload`]): length-prefixed fields
//! ([`push_field`]): the program's code, the denylist (one name a line),
//! `sys.path` (one a line), flags (`guard`, `confined`; `unittest`, `stdin`
//! or `call` for how the program takes its tests). No test, expected value
//! or verdict state.
//!
//! **Host → judge** (always a fork server's child; [`JudgePayload`]): the
//! test setup, flags (`strict`; `io`, `unittest` or `stdio` for the kinds of
//! tests that replace the setup by their spec), the task's reference program
//! and the candidate's program (parsed and compiled, never run), the code
//! the task gives (HumanEval's prompt, which the judge runs for its helpers),
//! then one field per assertion.
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
//!
//! [`payload`] builds the two payloads from named fields, [`notes`] reads
//! the judge's notes; `tests/data/wire_golden_*` hold a transcript of each
//! payload and of the notes that both sides must reproduce (`golden.rs`).

#[cfg(test)]
mod golden;
mod notes;
mod payload;

pub(super) use notes::{Report, Step, StepId, parse};
pub(super) use payload::{CandidatePayload, JudgePayload};

use super::Limits;

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

/// The candidate's switches, in its payload and a fork server's set-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Switches {
    /// `guard`: the process guard is on.
    pub guard: bool,
    /// `confined`: the kernel confinement is in force, so modules of the
    /// interpreter's own path may load a denied module for themselves.
    pub confined: bool,
}

impl Switches {
    /// The switches `limits` ask for.
    pub fn of(limits: &Limits) -> Switches {
        let status = limits.confinement();
        Switches {
            guard: limits.process_guard,
            confined: status.enabled && status.files && status.seccomp,
        }
    }

    /// The flags' words for them, space-separated.
    pub fn words(self) -> String {
        let mut words = Vec::new();
        if self.guard {
            words.push("guard");
        }
        if self.confined {
            words.push("confined");
        }
        words.join(" ")
    }
}

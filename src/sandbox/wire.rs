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
//! message is 8 bytes of length then the message; the judge writes
//! `marshal`, the candidate JSON, which the judge decodes strictly): first
//! the candidate sends the program's state (`["ready"]`, `["syntax",
//! detail]`, `["error", detail]`, `["memory"]`). From then on both sides
//! speak the object bridge (`assets/harness/bridge.py` says it in full): a
//! message is `[kind, body, nodes, released, bindings]`, where `body` is a
//! slot (a scalar, or `[k]`, node k), `nodes` a flat object graph (so a
//! value of any depth is a few levels of JSON), `released` the shared ids
//! the sender dropped, and `bindings` (the candidate's) the names the tests
//! read that the program bound anew at run time. Every object that crosses
//! gets a shared id (the judge's even, the candidate's odd): data (lists,
//! dicts, sets, tuples, bytearrays and the standard-library containers) is
//! replicated and synchronised before control passes (a changed object's
//! new contents go with the message), and anything else stays with its side
//! as a handle, every operation on it a request. Nodes: `["@", sid]` an
//! object both sides hold; `[tag, sid, ...]` a container (`l t s f d B o C
//! D q`; a known sid updates its object in place); `["N", sid, class,
//! item...]` and `["Q", sid, name, fields]` namedtuples and their classes;
//! `["K", sid, name, builtin, parent]` an exception class; `["X", class,
//! args, message, line, attrs]` an exception; `["h", sid, type, caps,
//! subclass]` a handle; value types (`i b c F E r T m`) and names (`p n M`).
//! Kinds: the judge's `names`, `stdin` and `suite` (whose answer is the
//! suite's raw results: `["ok", [[method, status, type, message, line]...],
//! [flag...]]`, the flags its watches raised (`assets/harness/suite_watch.py`),
//! or `["raise", type, message, line, [], builtin]`); either side's `call`
//! (target, args, `[[key, value]...]`; the judge's `pcall` is the same with
//! arguments and answer as plain data without ids, for tests that are
//! independent inputs) and `op` (op, operands), which the
//! other side may send back while it waits (a callback, nested to a bound);
//! and the answers `ok` (the value) and `raise` (the exception). The judge
//! serves only operations on the test's objects it handed over, never a
//! private attribute.
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

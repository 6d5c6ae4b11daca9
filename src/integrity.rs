//! Verdict integrity: the verdict is decided in a judge process in which no
//! code compiled from the candidate's text runs (see `sandbox::pair`), so
//! what it needs from the rest of the sandbox is that the candidate process
//! cannot reach the judge by another way than their call channel. The flags
//! and strict integrity are in [`crate::sandbox::flags`].

use crate::sandbox::Limits;

/// What verdict integrity lacks under `limits`, each with what a candidate
/// could do for it (empty: nothing).
pub fn missing(limits: &Limits) -> Vec<&'static str> {
    let mut missing = Vec::new();
    let status = limits.confinement();
    if !(status.enabled && status.files) {
        missing.push("the kernel's file confinement (without it the candidate process could write the judge's memory through /proc)");
    }
    if !(status.enabled && status.seccomp) {
        missing.push("the kernel's process confinement (without it the candidate process could trace the judge)");
    }
    missing
}

/// One line on verdict integrity under `limits`, for the CLI and the GUI.
pub fn describe(limits: &Limits) -> String {
    let missing = missing(limits);
    if missing.is_empty() {
        "verdict integrity: full (a judge process decides; no candidate code runs in it)".to_owned()
    } else {
        format!("verdict integrity: partial, missing {}", missing.join("; "))
    }
}

/// The line for a run with `suites` tasks whose tests are unittest suites
/// (BigCodeBench), which run in the candidate's process: their verdicts are
/// the candidate's word (`integrity: "in-process"`).
pub fn in_process_line(suites: usize) -> Option<String> {
    (suites > 0).then(|| {
        format!(
            "verdict integrity: in-process for {suites} task{} whose tests are unittest suites \
             (they patch the program's modules, so they run in its process; each result says \
             integrity: in-process)",
            if suites == 1 { "" } else { "s" }
        )
    })
}

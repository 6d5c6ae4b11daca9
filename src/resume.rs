//! Resuming a run from its journal ([`crate::report::Journal`]): the
//! journal's header is checked against the run about to start (the inputs'
//! SHA-256, the interpreter, every setting that can change a verdict), the
//! candidates it holds go into the store as they were judged, and only the
//! others run. The figures of the finished run are those of an uninterrupted
//! run: each candidate's verdict does not depend on when, in what order or
//! beside which others it ran, and the store keeps the plan's order.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use execscope::{engine, plan::Plan, report, resume, sandbox::Interpreter};
//! # fn f(plan: Arc<Plan>, python: Interpreter, settings: engine::RunSettings,
//! #      now: report::JournalHeader) -> Result<(), Box<dyn std::error::Error>> {
//! let read = report::read_journal("run.json.partial.jsonl".as_ref())?;
//! let resumption = resume::Resumption::from_journal(&plan, &read, &now)?;
//! let done = resume::run_blocking(&plan, resumption, &python, &settings, |_, _, _| {})?;
//! println!("{} candidates judged", done.store.finished());
//! # Ok(()) }
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::engine::{self, Completed, EngineEvent, RunSettings};
use crate::plan::Plan;
use crate::postprocess::PostProcess;
use crate::report::{
    InputRecord, JOURNAL_FORMAT, JournalError, JournalHeader, JournalRead, RunContext, RunFile,
    ShardRecord,
};
use crate::sandbox::{Interpreter, SandboxError};
use crate::store::Store;

/// Run-file settings that cannot change a verdict, left out of the check:
/// results depend neither on the worker count nor on the order, and
/// rechecks run after the run, on every candidate alike.
const NOT_VERDICTS: [&str; 4] = ["workers", "recheck", "recheck_all", "timeouts_from"];

/// Occurs when a run cannot go on from its journal.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// Occurs when the journal cannot be read, or is of another layout.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// Occurs when the inputs, the interpreter or a setting that decides
    /// verdicts are not those the journalled run began with.
    #[error(
        "{path} cannot be resumed: {}; run with the same inputs and settings, or without --resume to start over",
        differences.join("; ")
    )]
    Changed {
        /// The journal.
        path: PathBuf,
        /// What differs, one sentence each.
        differences: Vec<String>,
    },
    /// Occurs when a journalled candidate is not one of the run's, although
    /// the inputs hash the same (the journal was edited).
    #[error(
        "{path}, line {line}: task {task_id:?} sample {sample} is not a candidate of this run; run without --resume to start over"
    )]
    Stranger {
        /// The journal.
        path: PathBuf,
        /// Its line.
        line: usize,
        /// The task named there.
        task_id: String,
        /// The sample named there.
        sample: usize,
    },
}

/// The header of the run about to start: what a journal of it records.
pub fn header(
    settings: &RunSettings,
    python: &Interpreter,
    tasks: InputRecord,
    generations: InputRecord,
    post_process: Option<PostProcess>,
    shard: Option<ShardRecord>,
    planned: usize,
) -> JournalHeader {
    // The run file's own record of the settings, so each is named by its key.
    let record = RunFile::from_store(
        &Store::default(),
        &RunContext {
            settings,
            python,
            tasks: tasks.clone(),
            generations: generations.clone(),
            ks: &[],
            elapsed_s: 0.0,
            cancelled: false,
            skipped: &[],
            missing: &[],
            shard,
        },
    );
    let mut map: BTreeMap<String, serde_json::Value> = match serde_json::to_value(&record.settings)
    {
        Ok(serde_json::Value::Object(map)) => map.into_iter().collect(),
        _ => BTreeMap::new(),
    };
    for key in NOT_VERDICTS {
        map.remove(key);
    }
    map.insert("suite_timeout_s".into(), settings.suite_timeout_s.into());
    map.insert("suite_denylist".into(), settings.suite_denylist.into());
    map.insert(
        "post_process".into(),
        post_process
            .and_then(|p| serde_json::to_value(p).ok())
            .unwrap_or_default(),
    );
    JournalHeader {
        journal: JOURNAL_FORMAT.to_owned(),
        tasks,
        generations,
        python: record.python,
        shard,
        planned,
        settings: map,
    }
}

/// What differs between the run a journal began (`then`) and the run about
/// to go on from it (`now`), one sentence each; empty when it may go on.
pub fn differences(then: &JournalHeader, now: &JournalHeader) -> Vec<String> {
    let mut out = Vec::new();
    for (what, a, b) in [
        ("tasks", &then.tasks, &now.tasks),
        ("generations", &then.generations, &now.generations),
    ] {
        if a.sha256 != b.sha256 {
            out.push(format!(
                "the {what} file changed since the run began: SHA-256 {} then ({}), {} now ({})",
                a.sha256, a.path, b.sha256, b.path
            ));
        }
    }
    if then.python != now.python {
        out.push(format!(
            "the interpreter changed: {} (Python {}) then, {} (Python {}) now",
            then.python.executable, then.python.version, now.python.executable, now.python.version
        ));
    }
    if then.shard != now.shard {
        let shard = |s: &Option<ShardRecord>| {
            s.map_or("the whole run".to_owned(), |s| {
                format!("shard {}/{}", s.index, s.count)
            })
        };
        out.push(format!(
            "the slice changed: {} then, {} now",
            shard(&then.shard),
            shard(&now.shard)
        ));
    }
    let keys: std::collections::BTreeSet<&String> =
        then.settings.keys().chain(now.settings.keys()).collect();
    for key in keys {
        let (a, b) = (then.settings.get(key), now.settings.get(key));
        if a != b {
            let show = |v: Option<&serde_json::Value>| {
                v.map_or("unset".to_owned(), serde_json::Value::to_string)
            };
            out.push(format!(
                "the setting {key} changed: {} then, {} now",
                show(a),
                show(b)
            ));
        }
    }
    if out.is_empty() && then.planned != now.planned {
        out.push(format!(
            "the run planned {} candidates then, {} now",
            then.planned, now.planned
        ));
    }
    out
}

/// Where a run starts from: the candidates already judged (in the store),
/// and the jobs still to run.
#[derive(Debug, Clone)]
pub struct Resumption {
    /// Every candidate of the plan, the judged ones with their results.
    pub store: Store,
    /// Candidates read back from the journal.
    pub judged: usize,
    /// Seconds the earlier sessions ran.
    pub earlier_s: f64,
    /// Journal lines dropped because they did not read back (their
    /// candidates run again).
    pub dropped: Vec<usize>,
    /// Jobs still to run, as indices into the plan's jobs.
    remaining: Vec<usize>,
}

impl Resumption {
    /// A run from the beginning: nothing judged.
    pub fn fresh(plan: &Plan) -> Resumption {
        Resumption {
            store: Store::from_plan(plan),
            judged: 0,
            earlier_s: 0.0,
            dropped: Vec::new(),
            remaining: (0..plan.jobs.len()).collect(),
        }
    }

    /// The run of `plan` going on from journal `read`, once its header
    /// matches `now` (the run about to start).
    pub fn from_journal(
        plan: &Plan,
        read: &JournalRead,
        now: &JournalHeader,
    ) -> Result<Resumption, ResumeError> {
        let mut resumption = Resumption::fresh(plan);
        resumption.dropped = read.dropped.clone();
        let Some(then) = &read.header else {
            return Ok(resumption);
        };
        let differences = differences(then, now);
        if !differences.is_empty() {
            return Err(ResumeError::Changed {
                path: read.path.clone(),
                differences,
            });
        }
        let index: HashMap<(&str, usize), usize> = plan
            .jobs
            .iter()
            .enumerate()
            .filter_map(|(i, j)| Some(((plan.tasks.get(j.task)?.id.as_str(), j.sample), i)))
            .collect();
        let mut judged = vec![false; plan.jobs.len()];
        for (line, entry) in &read.entries {
            let Some(&job) = index.get(&(entry.task_id.as_str(), entry.sample)) else {
                return Err(ResumeError::Stranger {
                    path: read.path.clone(),
                    line: *line,
                    task_id: entry.task_id.clone(),
                    sample: entry.sample,
                });
            };
            resumption.earlier_s = resumption.earlier_s.max(entry.at_s);
            resumption.store.record(job, entry.clone().into_result());
            judged[job] = true;
        }
        resumption.judged = judged.iter().filter(|&&j| j).count();
        resumption.remaining = (0..plan.jobs.len()).filter(|&i| !judged[i]).collect();
        Ok(resumption)
    }

    /// Jobs still to run, as indices into the plan's jobs.
    pub fn remaining(&self) -> &[usize] {
        &self.remaining
    }

    /// The plan of the jobs still to run (`plan` itself when none was
    /// judged): its job `i` is job `remaining()[i]` of `plan`.
    pub fn rest(&self, plan: &Arc<Plan>) -> Arc<Plan> {
        if self.remaining.len() == plan.jobs.len() {
            return Arc::clone(plan);
        }
        Arc::new(Plan {
            tasks: plan.tasks.clone(),
            jobs: self
                .remaining
                .iter()
                .filter_map(|&i| plan.jobs.get(i).cloned())
                .collect(),
            problems: Vec::new(),
            missing: Vec::new(),
        })
    }
}

/// Runs the jobs of `plan` that `resumption` has not judged, calling
/// `on_event` for every event once it is recorded in the store, with job
/// indices and counts of the whole plan and the seconds the run has been
/// going over every session (the CLI journals from it). The time returned
/// is that of every session too.
pub fn run_blocking(
    plan: &Arc<Plan>,
    resumption: Resumption,
    python: &Interpreter,
    settings: &RunSettings,
    mut on_event: impl FnMut(&EngineEvent, &Store, f64),
) -> Result<Completed, SandboxError> {
    let rest = resumption.rest(plan);
    let Resumption {
        mut store,
        judged,
        earlier_s,
        remaining,
        ..
    } = resumption;
    let earlier = Duration::from_secs_f64(earlier_s.max(0.0));
    let total = plan.jobs.len();
    if remaining.is_empty() {
        return Ok(Completed {
            store,
            elapsed: earlier,
            failure: None,
        });
    }
    let (tx, rx) = flume::unbounded();
    let started = Instant::now();
    let handle = engine::start(rest, python.clone(), settings.clone(), tx, Arc::new(|| {}))?;
    let mut failure = None;
    let mut elapsed = earlier;
    let whole = |job: &usize| remaining.get(*job).copied().unwrap_or(usize::MAX);
    for event in rx.iter() {
        let event = match event {
            EngineEvent::Started { job } => EngineEvent::Started { job: whole(&job) },
            EngineEvent::Finished { job, result } => {
                let job = whole(&job);
                store.record(job, (*result).clone());
                EngineEvent::Finished { job, result }
            }
            EngineEvent::Progress { done, .. } => EngineEvent::Progress {
                done: done + judged,
                total,
            },
            EngineEvent::Failed { message } => {
                failure = Some(message.clone());
                EngineEvent::Failed { message }
            }
            EngineEvent::Done {
                elapsed: e,
                cancelled,
            } => {
                elapsed = earlier + e;
                EngineEvent::Done { elapsed, cancelled }
            }
        };
        on_event(&event, &store, (earlier + started.elapsed()).as_secs_f64());
        if matches!(event, EngineEvent::Done { .. }) {
            break;
        }
    }
    handle.join();
    Ok(Completed {
        store,
        elapsed,
        failure,
    })
}

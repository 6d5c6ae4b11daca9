//! A run of the app written to a run file (*Run to a run file…*): journalled
//! beside that file as it goes, as `run --json` is, so that after a crash or a
//! cancel the app offers to go on from the journal ([`ResumeOffer`]); the run
//! file is written when the run ends, and the journal removed.

use std::path::{Path, PathBuf};

use super::Workbench;
use crate::engine::{RunSettings, Waker};
use crate::report::{Export, InputRecord, Journal, JournalHeader, read_journal};
use crate::resume::{self, Resumption};

/// What the app finds beside the run file it is about to write.
#[derive(Debug, Clone, PartialEq)]
pub struct ResumeOffer {
    /// The run file.
    pub run_file: PathBuf,
    /// Its journal.
    pub journal: PathBuf,
    /// Candidates the journal holds.
    pub judged: usize,
    /// Candidates of the run.
    pub planned: usize,
    /// Lines dropped because they did not read back.
    pub dropped: usize,
    /// Why the run cannot go on from it (other inputs or settings, an older
    /// layout); `None` when it can.
    pub refused: Option<String>,
}

/// A run being written to a run file.
pub(super) struct Journalled {
    /// The journal it appends to.
    pub journal: Journal,
    /// The run file written when it ends.
    pub run_file: PathBuf,
    /// Seconds the earlier sessions ran.
    pub earlier_s: f64,
    /// The candidate each of the engine's jobs is (the engine runs only
    /// those not yet judged).
    pub jobs: Vec<usize>,
}

impl Workbench {
    /// The journal header of a run of the loaded inputs with `settings`.
    fn journal_header(&self, settings: &RunSettings) -> Result<JournalHeader, String> {
        let python = self.python.interpreter()?;
        let (Some(tasks), Some(gens), Some(plan)) = (&self.tasks, &self.generations, &self.plan)
        else {
            return Err("open a task file and a generations file first".into());
        };
        let record = |path: &Path, sha256: &str| InputRecord {
            path: path.display().to_string(),
            sha256: sha256.to_owned(),
        };
        Ok(resume::header(
            &self.with_calibration(settings.clone()),
            python,
            record(&tasks.path, &tasks.sha256),
            record(&gens.path, &gens.sha256),
            None,
            None,
            plan.jobs.len(),
        ))
    }

    /// What a run with `settings` to `run_file` would find: `None` when no
    /// journal is there, else how far it got and whether it can go on.
    pub fn resume_offer(&self, run_file: &Path, settings: &RunSettings) -> Option<ResumeOffer> {
        let journal = Journal::path_for(run_file);
        if !journal.exists() {
            return None;
        }
        let mut offer = ResumeOffer {
            run_file: run_file.to_path_buf(),
            journal: journal.clone(),
            judged: 0,
            planned: self.plan.as_ref().map_or(0, |p| p.jobs.len()),
            dropped: 0,
            refused: None,
        };
        let read = match read_journal(&journal) {
            Ok(read) => read,
            Err(e) => {
                offer.refused = Some(e.to_string());
                return Some(offer);
            }
        };
        offer.judged = read.entries.len();
        offer.dropped = read.dropped.len();
        let checked = self.journal_header(settings).and_then(|header| {
            let plan = self.plan.as_deref().ok_or("nothing to run")?;
            Resumption::from_journal(plan, &read, &header)
                .map(|r| r.judged)
                .map_err(|e| e.to_string())
        });
        match checked {
            Ok(judged) => offer.judged = judged,
            Err(why) => offer.refused = Some(why),
        }
        Some(offer)
    }

    /// Runs the loaded inputs with `settings`, journalled beside `run_file`,
    /// and writes `run_file` when the run ends. With `resume`, the run goes
    /// on from the journal there (only the candidates it lacks run);
    /// without, a journal there is replaced.
    pub fn run_to(&mut self, run_file: PathBuf, resume: bool, settings: RunSettings, waker: Waker) {
        if let Some(why) = self.cannot_run() {
            self.notify(format!("cannot run: {why}"), true);
            return;
        }
        let started = self.journal_header(&settings).and_then(|header| {
            let plan = self.plan.as_deref().ok_or("nothing to run")?;
            let path = Journal::path_for(&run_file);
            if resume && path.exists() {
                let read = read_journal(&path).map_err(|e| e.to_string())?;
                let resumption =
                    Resumption::from_journal(plan, &read, &header).map_err(|e| e.to_string())?;
                if read.header.is_some() {
                    let journal = Journal::resume(&read).map_err(|e| e.to_string())?;
                    return Ok((journal, resumption));
                }
            }
            let journal = Journal::create(&run_file, &header).map_err(|e| e.to_string())?;
            Ok((journal, Resumption::fresh(plan)))
        });
        let (journal, resumption) = match started {
            Ok(started) => started,
            Err(why) => {
                self.notify(format!("cannot run to {}: {why}", run_file.display()), true);
                return;
            }
        };
        if resumption.judged > 0 {
            self.notify(
                format!(
                    "resuming: {} of {} candidates judged already",
                    resumption.judged,
                    resumption.store.candidates.len()
                ),
                false,
            );
        }
        let journalled = Journalled {
            journal,
            run_file,
            earlier_s: resumption.earlier_s,
            jobs: resumption.remaining().to_vec(),
        };
        self.start_from(settings, waker, Some((resumption, journalled)));
    }

    /// Writes the run file of a journalled run that ended and removes its
    /// journal; a cancelled run keeps its journal to go on from.
    pub(super) fn finish_journalled(&mut self, journalled: Journalled, cancelled: bool) {
        let Journalled {
            journal, run_file, ..
        } = journalled;
        if cancelled {
            self.notify(
                format!(
                    "the journal beside {} keeps the results so far: run to it again to resume",
                    run_file.display()
                ),
                false,
            );
            return;
        }
        match self.export(Export::RunFile, &run_file) {
            Ok(()) => {
                journal.finish();
                self.notify(format!("saved {}", run_file.display()), false);
            }
            Err(e) => self.notify(e.to_string(), true),
        }
    }
}

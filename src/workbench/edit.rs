//! Edit and run again: the teaching loop. A candidate's program is edited,
//! run again in the same sandbox and settings through the judge, and its new
//! result shown beside the original; the run's figures change only when the
//! user keeps the edit (the candidate is then marked `edited`), and Undo
//! brings the original back.

use std::collections::HashMap;

use super::Workbench;
use crate::engine::RunSettings;
use crate::plan::{Program, Tests};
use crate::sandbox::CandidateResult;

/// The edit being made to one candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    /// The candidate (index into the store).
    pub index: usize,
    /// The program as edited.
    pub code: String,
    /// Where running it stands.
    pub state: EditState,
}

/// Where running an edit stands.
#[derive(Debug, Clone, PartialEq)]
pub enum EditState {
    /// Being edited; not run since the last change.
    Editing,
    /// Running in the sandbox.
    Running,
    /// Run: its result (for the code as it was when it ran).
    Ran {
        /// The code that ran.
        code: String,
        /// Its result.
        result: Box<CandidateResult>,
    },
    /// The sandbox itself could not run it.
    Failed(String),
}

/// The edits of a session: the one being made, and the originals of the
/// candidates whose edits were kept (for Undo).
#[derive(Debug, Default)]
pub struct Edits {
    /// The edit being made, if any.
    pub current: Option<Edit>,
    originals: HashMap<usize, (String, Option<CandidateResult>)>,
}

impl Edits {
    /// Whether candidate `index` carries a kept edit.
    pub fn is_kept(&self, index: usize) -> bool {
        self.originals.contains_key(&index)
    }

    /// Forgets everything (new results replaced the store).
    pub(super) fn clear(&mut self) {
        *self = Edits::default();
    }
}

impl Workbench {
    /// Starts editing candidate `index`'s program.
    pub fn begin_edit(&mut self, index: usize) {
        if let Some(c) = self.store.full(index) {
            self.edits.current = Some(Edit {
                index,
                code: c.code.clone(),
                state: EditState::Editing,
            });
        }
    }

    /// Stops editing without changing anything.
    pub fn cancel_edit(&mut self) {
        self.edits.current = None;
    }

    /// Runs the edited program in the background, with `settings` (the
    /// candidate's task, timeout and tests; a fresh interpreter).
    pub fn run_edit(&mut self, settings: RunSettings) {
        let Some(edit) = &self.edits.current else {
            return;
        };
        let Some(mut program) = self.program_of(edit.index) else {
            return;
        };
        let python = match self.python.interpreter() {
            Ok(p) => p.clone(),
            Err(e) => return self.notify(format!("cannot run the edit: {e}"), true),
        };
        program.code = edit.code.clone();
        let index = edit.index;
        let timeout = self.timeout_of(index, &settings);
        if let Some(edit) = &mut self.edits.current {
            edit.state = EditState::Running;
        }
        self.loader.rerun(index, program, timeout, python, settings);
    }

    /// Takes a finished run of an edit (dropped if the edit moved on).
    pub(super) fn edit_ran(
        &mut self,
        index: usize,
        code: String,
        result: Result<Box<CandidateResult>, String>,
    ) {
        let Some(edit) = &mut self.edits.current else {
            return;
        };
        if edit.index != index || edit.state != EditState::Running {
            return;
        }
        edit.state = match result {
            Ok(result) => EditState::Ran { code, result },
            Err(e) => EditState::Failed(e),
        };
    }

    /// Keeps the edit's result in the run: the candidate's program and result
    /// become the edit's, marked `edited`.
    pub fn keep_edit(&mut self) {
        let Some(Edit {
            index,
            state: EditState::Ran { code, result },
            ..
        }) = self.edits.current.take()
        else {
            return;
        };
        let Some(c) = self.store.candidates.get_mut(index) else {
            return;
        };
        let original = (std::mem::replace(&mut c.code, code), c.result.take());
        self.edits.originals.entry(index).or_insert(original);
        let mut result = *result;
        result.edited = true;
        c.result = Some(result);
        self.revision += 1;
    }

    /// Brings back candidate `index`'s original program and result.
    pub fn undo_edit(&mut self, index: usize) {
        let Some((code, result)) = self.edits.originals.remove(&index) else {
            return;
        };
        if let Some(c) = self.store.candidates.get_mut(index) {
            c.code = code;
            c.result = result;
            self.revision += 1;
        }
        if self
            .edits
            .current
            .as_ref()
            .is_some_and(|e| e.index == index)
        {
            self.edits.current = None;
        }
    }

    /// The timeout candidate `index` ran with under `settings` (the engine's
    /// rule, [`RunSettings::timeout_for`]).
    fn timeout_of(&self, index: usize, settings: &RunSettings) -> std::time::Duration {
        let task = self.store.candidates.get(index).map(|c| c.task);
        let id = task
            .and_then(|t| self.store.tasks.get(t))
            .map(|t| t.id.as_str());
        let own = self
            .plan
            .as_ref()
            .zip(task)
            .and_then(|(p, t)| p.tasks.get(t))
            .and_then(|t| t.timeout_s);
        settings.timeout_for(id, own)
    }

    /// The program candidate `index` runs: the plan's (with its task's
    /// reference and given code) when the results came from one, else what the
    /// store holds.
    pub fn program_of(&self, index: usize) -> Option<Program> {
        let planned = self.plan.as_ref().filter(|_| self.opened_run.is_none());
        if let Some(Ok(program)) = planned.and_then(|p| p.jobs.get(index)).map(|j| &j.program) {
            return Some(program.clone());
        }
        let c = self.store.full(index)?;
        let task = self.store.tasks.get(c.task)?;
        Some(Program {
            setup: c.setup.clone(),
            code: c.code.clone(),
            assertions: task.assertions.clone().into(),
            reference: std::sync::Arc::from(""),
            given: std::sync::Arc::from(""),
            tests: Tests::Assertions,
        })
    }
}

//! The embedded demo set: six small lesson-70 tasks (one of them not executable)
//! with five free-form generations each, chosen so a run shows every outcome,
//! including a denylist hit, an output overflow, a missing code block and an
//! "always equal" object that passes but is flagged.

use std::path::Path;

use crate::generations::{self, GenerationSet};
use crate::input::InputError;
use crate::spec::{self, TaskSet};

/// Name under which the demo tasks appear in messages and run files.
pub const TASKS_NAME: &str = "<demo>/tasks.jsonl";
/// Name under which the demo generations appear.
pub const GENERATIONS_NAME: &str = "<demo>/generations.jsonl";

const TASKS: &[u8] = include_bytes!("../assets/demo/tasks.jsonl");
const GENERATIONS: &[u8] = include_bytes!("../assets/demo/generations.jsonl");

/// The demo's tasks.
pub fn tasks() -> Result<TaskSet, InputError> {
    spec::parse_tasks(Path::new(TASKS_NAME), TASKS.to_vec())
}

/// The demo's generations.
pub fn generations() -> Result<GenerationSet, InputError> {
    generations::parse_generations(Path::new(GENERATIONS_NAME), GENERATIONS.to_vec())
}

//! Planning: match generations to tasks and build one [`Job`] per (task, sample),
//! with its program assembled (post-process, HumanEval prompt joining). Unknown
//! task ids and tasks without generations are reported, never dropped silently.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::generations::{GenerationSet, TaskRef};
use crate::input::InputError;
use crate::spec::io_tests::IoTests;
use crate::spec::stdio_tests::StdioTests;
use crate::spec::suite::Suite;
use crate::spec::{ProgramStyle, Task, TaskSet};

/// What runs for one candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The task's test setup, run after the candidate and before the assertions.
    pub setup: String,
    /// The candidate program.
    pub code: String,
    /// The task's assertion strings.
    pub assertions: Arc<[String]>,
    /// The task's own reference program (empty when it has none): the judge
    /// takes the names it defines as names the task asks for, so a program
    /// that defines one of them hides no builtin (MBPP's task 126 is `sum`).
    pub reference: Arc<str>,
    /// The code the task gives the program to start from (HumanEval's
    /// prompt; empty otherwise): the judge runs it itself for the helpers
    /// and constants the tests use (HumanEval 50's `encode_shift`), so no
    /// program can change them under the tests.
    pub given: Arc<str>,
    /// What kind of tests the task has (its [`Task::tests`]).
    pub tests: Tests,
}

/// The kind of tests a task has, and what the kinds other than assertions
/// carry. Every kind keeps one entry of `assertions` per test, which the
/// result's per-test marks follow; only [`Tests::Assertions`] runs them as
/// code.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Tests {
    /// Assertion strings, run after the setup (HumanEval, MBPP, lesson 70).
    #[default]
    Assertions,
    /// Tests that are inputs, whose outputs are compared with the
    /// reference's (HumanEval+); the setup is empty and the assertions
    /// describe the inputs.
    Inputs(Arc<IoTests>),
    /// A `unittest` suite (BigCodeBench), run in the candidate's process;
    /// the setup is empty and the assertions name its methods.
    Suite(Arc<Suite>),
    /// Tests that are an input and an expected output (LiveCodeBench,
    /// APPS/TACO); the setup is empty and the assertions describe them.
    Stdio(Arc<StdioTests>),
}

/// One candidate to evaluate.
#[derive(Debug, Clone)]
pub struct Job {
    /// Index into [`Plan::tasks`].
    pub task: usize,
    /// Sample number within the task.
    pub sample: usize,
    /// The raw generation.
    pub generation: String,
    /// The assembled program, or why there is none (`no code block`).
    pub program: Result<Program, String>,
}

/// Tasks, jobs and everything worth reporting about how they were matched.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The executable tasks, in task-file order.
    pub tasks: Vec<Task>,
    /// One job per candidate, ordered by task then sample.
    pub jobs: Vec<Job>,
    /// Generations naming unknown tasks, and duplicate sample numbers.
    pub problems: Vec<InputError>,
    /// Ids of tasks that have no generation.
    pub missing: Vec<String>,
}

impl Plan {
    /// Matches `generations` to `tasks` and assembles every program.
    pub fn build(tasks: &TaskSet, generations: &GenerationSet) -> Plan {
        let index: HashMap<&str, usize> = tasks
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.id.as_str(), i))
            .collect();
        let skipped: HashMap<&str, &str> = tasks
            .skipped
            .iter()
            .map(|s| (s.task_id.as_str(), s.category.as_str()))
            .collect();
        let mut per_task: Vec<BTreeMap<usize, (usize, &str)>> =
            vec![BTreeMap::new(); tasks.tasks.len()];
        let mut problems = Vec::new();
        for g in &generations.items {
            let task = match &g.task {
                TaskRef::Id(id) => match index.get(id.as_str()) {
                    Some(&t) => t,
                    None => {
                        if !skipped.contains_key(id.as_str()) {
                            problems.push(InputError::at(
                                &generations.path,
                                g.line,
                                Some("task_id"),
                                "unknown_task",
                                format!("no task {id:?} in {}", tasks.path.display()),
                            ));
                        }
                        continue;
                    }
                },
                TaskRef::Index(i) if *i < tasks.tasks.len() => *i,
                TaskRef::Index(i) => {
                    problems.push(InputError::file(
                        &generations.path,
                        "unknown_task",
                        format!(
                            "list {i} has no task: {} has {} executable tasks",
                            tasks.path.display(),
                            tasks.tasks.len()
                        ),
                    ));
                    continue;
                }
            };
            let samples = &mut per_task[task];
            let number = g.sample.unwrap_or(samples.len());
            if let Some((first, _)) = samples.get(&number) {
                problems.push(InputError::at(
                    &generations.path,
                    g.line,
                    Some("sample"),
                    "unique",
                    format!(
                        "sample {number} of task {:?} is given twice (first on line {first})",
                        tasks.tasks[task].id
                    ),
                ));
                continue;
            }
            samples.insert(number, (g.line, g.text.as_str()));
        }
        let mut jobs = Vec::new();
        let mut missing = Vec::new();
        for (t, (task, samples)) in tasks.tasks.iter().zip(&per_task).enumerate() {
            if samples.is_empty() {
                missing.push(task.id.clone());
            }
            let assertions: Arc<[String]> = task.assertions.clone().into();
            let reference = reference_program(task);
            for (&sample, &(_, text)) in samples {
                jobs.push(Job {
                    task: t,
                    sample,
                    generation: text.to_owned(),
                    program: assemble(task, text, &assertions, &reference),
                });
            }
        }
        Plan {
            tasks: tasks.tasks.clone(),
            jobs,
            problems,
            missing,
        }
    }

    /// Keeps shard `index` of `count` (1-based): every `count`-th job starting
    /// at job `index - 1`, so each shard gets a share of every slow task. The
    /// same inputs always give the same slices, on any machine.
    pub fn shard(mut self, shard: Shard) -> Plan {
        let keep = shard.index - 1;
        let mut j = 0;
        self.jobs.retain(|_| {
            let mine = j % shard.count == keep;
            j += 1;
            mine
        });
        self
    }
}

/// One slice of a run split across machines: `index` of `count`, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// Which slice, 1 to `count`.
    pub index: usize,
    /// How many slices in all.
    pub count: usize,
}

impl Shard {
    /// Parses `I/N` with 1 <= I <= N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("{text:?} is not a shard: write I/N with 1 <= I <= N, like 2/4");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// The program of `task`'s own reference solution, or empty.
pub fn reference_program(task: &Task) -> Arc<str> {
    let Some(reference) = &task.reference else {
        return Arc::from("");
    };
    match &task.style {
        ProgramStyle::Whole | ProgramStyle::Calibrated { .. } => Arc::from(reference.as_str()),
        ProgramStyle::Completion { prompt, .. } => Arc::from(format!("{prompt}{reference}")),
    }
}

/// Builds the program for one generation of `task` (`assertions` and
/// `reference` are the task's, shared by its samples).
pub fn assemble(
    task: &Task,
    generation: &str,
    assertions: &Arc<[String]>,
    reference: &Arc<str>,
) -> Result<Program, String> {
    let code = task
        .post_process
        .apply(generation)
        .map_err(|e| e.to_string())?;
    let code = match &task.style {
        ProgramStyle::Whole => code,
        ProgramStyle::Completion {
            prompt,
            entry_point,
        } => {
            if defines(&code, entry_point) {
                format!("{prompt}\n{code}")
            } else {
                format!("{prompt}{code}")
            }
        }
        ProgramStyle::Calibrated {
            complete_prompt,
            code_prompt,
            entry_point,
        } => {
            if defines(&code, entry_point) {
                format!("{code_prompt}\n    pass\n{code}")
            } else {
                format!("{complete_prompt}{code}")
            }
        }
    };
    Ok(Program {
        setup: task.setup.clone(),
        code,
        assertions: Arc::clone(assertions),
        reference: Arc::clone(reference),
        given: Arc::from(task.style.given()),
        tests: task.tests.clone(),
    })
}

/// Whether `code` has a line `def <name>(`.
fn defines(code: &str, name: &str) -> bool {
    code.lines().any(|line| {
        line.trim_start()
            .strip_prefix("def ")
            .map(str::trim_start)
            .and_then(|rest| rest.strip_prefix(name))
            .is_some_and(|rest| rest.trim_start().starts_with('('))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::postprocess::PostProcess;

    fn humaneval_task() -> Task {
        Task {
            id: "t".into(),
            prompt: "def f(x):\n    \"\"\"doc\"\"\"\n".into(),
            style: ProgramStyle::Completion {
                prompt: "def f(x):\n    \"\"\"doc\"\"\"\n".into(),
                entry_point: "f".into(),
            },
            setup: String::new(),
            assertions: vec!["check".into()],
            post_process: PostProcess::ExtractCodeBlock,
            timeout_s: None,
            tests: Tests::Assertions,
            reference: None,
        }
    }

    #[test]
    fn a_completion_is_appended_to_the_prompt() {
        let t = humaneval_task();
        let a: Arc<[String]> = t.assertions.clone().into();
        let p = assemble(&t, "    return x\n", &a, &Arc::from("")).unwrap();
        assert_eq!(p.code, "def f(x):\n    \"\"\"doc\"\"\"\n    return x\n");
    }

    #[test]
    fn a_whole_function_follows_the_prompt_after_a_newline() {
        let t = humaneval_task();
        let a: Arc<[String]> = t.assertions.clone().into();
        let p = assemble(
            &t,
            "Sure:\n```python\ndef f (x):\n    return x\n```",
            &a,
            &Arc::from(""),
        )
        .unwrap();
        assert_eq!(
            p.code,
            "def f(x):\n    \"\"\"doc\"\"\"\n\ndef f (x):\n    return x\n"
        );
    }

    #[test]
    fn defines_needs_the_exact_name() {
        assert!(defines("def f(x): pass", "f"));
        assert!(!defines("def fg(x): pass", "f"));
        assert!(!defines("x = f(1)", "f"));
    }
}

//! execscope: execution-based evaluation of model-generated code.
//!
//! The library owns everything but drawing: reading task and generation files
//! ([`spec`], [`generations`]), turning a free-form generation into a program
//! ([`postprocess`], [`plan`]), running each candidate in its own sandboxed Python
//! process ([`sandbox`]) on a pool of workers ([`engine`]), collecting results
//! ([`store`]), statistics ([`passk`]) and exports ([`report`]). The GUI and the CLI
//! are thin adapters over it.
//!
//! ```no_run
//! use execscope::{engine, plan, sandbox, spec, generations};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let tasks = spec::load_tasks(std::path::Path::new("HumanEval.jsonl.gz"))?;
//! let gens = generations::load_generations(std::path::Path::new("samples.jsonl"))?;
//! let plan = plan::Plan::build(&tasks, &gens);
//! let python = sandbox::Interpreter::resolve("python3")?;
//! let settings = engine::RunSettings::default();
//! let done = engine::run_blocking(&std::sync::Arc::new(plan), &python, &settings, |_, _| {})?;
//! println!("pass@1 = {:?}", done.store.summary(&[1]).pass_at_k);
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

mod cache;
pub mod calibrate;
pub mod demo;
pub mod engine;
pub mod environment;
pub mod expected;
pub mod generations;
#[cfg(feature = "gui")]
pub mod gui;
pub mod input;
pub mod integrity;
pub mod passk;
pub mod plan;
pub mod postprocess;
pub mod recheck;
pub mod report;
pub mod resume;
pub mod sandbox;
pub mod schedule;
pub mod spec;
pub mod store;
pub mod workbench;

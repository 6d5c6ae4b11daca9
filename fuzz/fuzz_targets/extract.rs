//! Post-processing and program assembly must never panic, whatever the text.
#![no_main]

use std::sync::Arc;

use execscope::plan;
use execscope::postprocess::PostProcess;
use execscope::spec::{ProgramStyle, Task};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for name in PostProcess::NAMES {
        if let Some(rule) = PostProcess::parse(name) {
            if let Ok(out) = rule.apply(&text) {
                if rule == PostProcess::ExtractCodeBlock {
                    assert!(text.contains(out.as_str()), "an extracted block is part of its generation");
                }
            }
        }
    }
    let task = Task {
        id: "fuzz".into(),
        prompt: "def f(x):\n".into(),
        style: ProgramStyle::Completion { prompt: "def f(x):\n".into(), entry_point: "f".into() },
        setup: String::new(),
        assertions: vec!["check".into()],
        post_process: PostProcess::ExtractCodeBlock,
        timeout_s: None,
        tests: plan::Tests::Assertions,
        reference: None,
    };
    let assertions: Arc<[String]> = task.assertions.clone().into();
    let _ = plan::assemble(&task, &text, &assertions, &plan::reference_program(&task));
});

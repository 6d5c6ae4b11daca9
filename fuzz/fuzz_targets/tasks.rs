//! Task-file parsing must never panic, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(set) = execscope::spec::parse_tasks(std::path::Path::new("fuzz.jsonl"), data.to_vec()) {
        for e in &set.errors {
            let _ = e.to_string();
        }
    }
});

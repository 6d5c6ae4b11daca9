//! The restricted reader of LiveCodeBench's pickled private tests must never
//! panic, and must take nothing but one string, whatever the bytes: a first
//! byte 0 fuzzes the pickle reader alone, anything else the whole path
//! (base64, zlib, pickle).
#![no_main]

use execscope::spec::pickled;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((0, pickle)) => {
            if let Ok(text) = pickled::read_pickle(pickle) {
                // Only a pickle that ends in STOP right after one string is read.
                assert_eq!(pickle.last(), Some(&b'.'));
                let _ = text.len();
            }
        }
        _ => {
            let _ = pickled::decode(&String::from_utf8_lossy(data));
        }
    }
});

//! House rules that a grep can check: GUI crates are named only in `src/gui/` and
//! `src/main.rs`, and no stubs are left in the code.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    files
}

#[test]
fn only_the_gui_module_and_main_name_gui_crates() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offenders = Vec::new();
    for file in sources() {
        let rel = file.strip_prefix(&src).unwrap();
        if rel.starts_with("gui") || rel == Path::new("main.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for word in ["egui", "eframe", "egui_extras", "egui_plot", "rfd"] {
            if text
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == word)
            {
                offenders.push(format!("{} names {word}", rel.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
}

#[test]
fn no_stubs_or_silenced_dead_code_are_left_in_the_sources() {
    let mut offenders = Vec::new();
    for file in sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        for stub in ["todo!(", "unimplemented!(", "allow(dead_code)"] {
            if text.contains(stub) {
                offenders.push(format!("{}: {stub}", file.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
}

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

/// The `src/gui/` modules each file names through `super::`.
fn gui_dependencies() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let gui = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/gui");
    let mut modules = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(&gui).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "mod" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut uses = std::collections::BTreeSet::new();
        // `use super::{a, b::C}` and paths such as `super::charts::f`.
        for (i, _) in text.match_indices("super::") {
            let rest = &text[i + "super::".len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group[..group.find('}').unwrap_or(0)]
                    .split(',')
                    .map(|s| s.trim().split("::").next().unwrap_or(""))
                    .collect(),
                None => vec![
                    rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                        .next()
                        .unwrap_or(""),
                ],
            };
            for dep in names {
                if !dep.is_empty() && dep != name && gui.join(format!("{dep}.rs")).exists() {
                    uses.insert(dep.to_owned());
                }
            }
        }
        modules.insert(name, uses);
    }
    modules
}

#[test]
fn the_gui_modules_form_no_cycle() {
    let deps = gui_dependencies();
    assert!(
        deps["compare"].contains("app"),
        "the parser sees uses: {deps:#?}"
    );
    // Depth-first search for a path back to the start.
    fn reaches(
        deps: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        from: &str,
        to: &str,
        seen: &mut Vec<String>,
    ) -> bool {
        for next in deps.get(from).into_iter().flatten() {
            if next == to {
                return true;
            }
            if !seen.contains(next) {
                seen.push(next.clone());
                if reaches(deps, next, to, seen) {
                    return true;
                }
            }
        }
        false
    }
    let cycles: Vec<&String> = deps
        .keys()
        .filter(|m| reaches(&deps, m, m, &mut Vec::new()))
        .collect();
    assert!(
        cycles.is_empty(),
        "modules on a cycle: {cycles:?}\n{deps:#?}"
    );
}

#[test]
fn the_gui_computes_no_figures_runs_no_engine_and_assembles_no_run_file() {
    let gui = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/gui");
    let mut offenders = Vec::new();
    for file in sources().into_iter().filter(|f| f.starts_with(&gui)) {
        let text = std::fs::read_to_string(&file).unwrap();
        for call in [
            "engine::start",
            "run_blocking",
            "RunFile::from_store",
            "with_figures_of",
            "RunContext",
            ".summary(",
            ".task_stats(",
            ".intervals(",
            ".band(",
            ".curve()",
            "passk::curve",
            "Comparison::",
            "Figures::",
            "describe_payload",
            "write_atomic",
            "Interpreter::resolve",
            "load_tasks",
            "load_generations",
            "RunFile::load",
        ] {
            if text.contains(call) {
                offenders.push(format!("{}: {call}", file.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
}

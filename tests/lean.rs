//! Big run files are read leaving each candidate's program, generation and
//! output in the file, read back when the candidate is opened: the figures
//! and every candidate seen whole are those of a full read.

use execscope::report::RunFile;

use crate::util::{self, fixture};

/// The demo run file, written as execscope writes run files (pretty JSON),
/// with texts that escape (quotes, braces, newlines) in every field.
fn written(dir: &std::path::Path) -> (std::path::PathBuf, RunFile) {
    let mut run = RunFile::load(&fixture("demo_run.json")).unwrap();
    for (i, c) in run.candidates.iter_mut().enumerate() {
        c.stdout = format!("out {i}: {{\"braces\": [1, 2]}}\n\\ end \u{e9}");
        c.generation = format!("```python\n{}\n```\n// \"quoted\" }} ]", c.code);
    }
    let path = dir.join("run.json");
    run.save(&path).unwrap();
    let full = RunFile::load(&path).unwrap();
    (path, full)
}

#[test]
fn a_lean_read_has_the_full_reads_figures_and_reads_each_candidate_back_whole() {
    let dir = util::tempdir();
    let (path, full) = written(dir.path());
    let lean = RunFile::load_lean(&path).unwrap();
    assert!(lean.texts.is_some());
    assert_eq!(lean.summary, full.summary);
    assert_eq!(lean.tasks, full.tasks);
    assert_eq!(lean.settings, full.settings);
    assert_eq!(lean.candidates.len(), full.candidates.len());
    for (l, f) in lean.candidates.iter().zip(&full.candidates) {
        assert!(l.code.is_empty() && l.generation.is_empty() && l.stdout.is_empty());
        assert_eq!(
            (&l.task_id, l.sample, l.outcome, &l.detail),
            (&f.task_id, f.sample, f.outcome, &f.detail)
        );
        assert_eq!(l.failure, f.failure);
    }
    let (lean_store, full_store) = (lean.to_store(), full.to_store());
    for i in 0..full_store.candidates.len() {
        assert_eq!(
            *lean_store.full(i).unwrap(),
            full_store.candidates[i],
            "candidate {i} read back"
        );
    }
    // Saved again, it is the same file.
    let again = full.clone().with_figures_of(&lean_store, &[1]);
    let whole = full.clone().with_figures_of(&full_store, &[1]);
    assert_eq!(again.to_json().unwrap(), whole.to_json().unwrap());
    let saved = dir.path().join("again.json");
    again.save(&saved).unwrap();
    assert_eq!(std::fs::read(&saved).unwrap(), whole.to_json().unwrap());
}

#[test]
fn a_run_file_changed_after_it_was_opened_says_so_instead_of_showing_another() {
    let dir = util::tempdir();
    let (path, _) = written(dir.path());
    let store = RunFile::load_lean(&path).unwrap().to_store();
    let before = store.full_or_error(3).unwrap().into_owned();
    assert!(!before.code.is_empty());
    std::fs::write(&path, b"{\"format\": \"execscope-run/1\"}\n").unwrap();
    // The last candidate read is kept; another one is not read from the new file.
    let err = store.full_or_error(4).unwrap_err();
    assert!(err.contains("changed since it was opened"), "{err}");
    assert!(err.contains("run.json"), "{err}");
}

#[test]
fn a_broken_candidate_is_named_by_line_and_a_gzip_file_is_read_whole() {
    let dir = util::tempdir();
    let (path, full) = written(dir.path());
    let text = std::fs::read_to_string(&path).unwrap();
    let broken = text.replacen("\"outcome\": \"pass\"", "\"outcome\": \"passed?\"", 1);
    let line = broken.lines().position(|l| l.contains("passed?")).unwrap() + 1;
    std::fs::write(&path, &broken).unwrap();
    let err = RunFile::load_lean(&path).unwrap_err().to_string();
    assert!(err.contains(&format!("line {line}")), "{err}");
    assert!(err.contains("run.json"), "{err}");

    let gz = dir.path().join("run.json.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, text.as_bytes()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let read = RunFile::load_lean(&gz).unwrap();
    assert!(read.texts.is_none());
    assert_eq!(read.candidates, full.candidates);
}

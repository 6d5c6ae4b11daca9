//! Helpers shared by both test binaries: the real interpreter (resolved once), a
//! unique temp dir per test, and the real-data folder.

use std::path::PathBuf;
use std::sync::OnceLock;

use execscope::sandbox::Interpreter;

/// The real python3, resolved once; panics clearly when it is missing.
pub fn python() -> &'static Interpreter {
    static PY: OnceLock<Interpreter> = OnceLock::new();
    PY.get_or_init(|| {
        Interpreter::resolve("python3")
            .unwrap_or_else(|e| panic!("these tests need a real python3 on PATH: {e}"))
    })
}

/// A fresh temporary directory, removed when dropped.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("execscope-test-")
        .tempdir()
        .expect("temp dir")
}

/// The shared real-data folder (`EXECSCOPE_DATA`, default `../shared/data`), or
/// `None` with a printed notice when it is absent (a user's clone).
pub fn data_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("EXECSCOPE_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"));
    if dir.join("README.md").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "notice: real data not found at {} (set EXECSCOPE_DATA); skipping",
            dir.display()
        );
        None
    }
}

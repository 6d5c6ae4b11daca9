//! Finding the Python interpreter once: a command such as `python3` (maybe a
//! version-manager shim costing ~100 ms per start) is resolved to its real
//! executable, its version and its default module search path, which candidates
//! receive explicitly so they can start without `site`. The harness is compiled
//! once by that interpreter, so that candidates load its code object instead of
//! compiling ~500 lines of source at every start (about 4 ms each).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;

use super::process::PYTHON_FLAGS;
use super::{CANDIDATE_HARNESS, HARNESS, SandboxError};

/// A resolved Python interpreter.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Interpreter {
    /// The real executable (`sys.executable`).
    pub executable: PathBuf,
    /// Its version, for example `3.11.7`.
    pub version: String,
    /// Its isolated module search path (site-packages included).
    pub sys_path: Vec<String>,
    /// The harness compiled by this interpreter (`marshal` format, which is
    /// particular to its version), for fork servers. Empty: they compile the
    /// source.
    #[serde(skip)]
    pub harness_code: Arc<[u8]>,
    /// The candidate process's harness, compiled likewise, for fresh
    /// candidates.
    #[serde(skip)]
    pub candidate_code: Arc<[u8]>,
}

/// Reads the harness source on stdin and writes its marshalled code object,
/// without docstrings (`optimize=2`: every candidate loads this code, and the
/// harness has no `assert` of its own for it to drop).
const COMPILE: &str = "import sys, marshal\nsys.stdout.buffer.write(marshal.dumps(compile(sys.stdin.buffer.read(), '<harness>', 'exec', optimize=2)))\n";

const DESCRIBE: &str = "import sys\nprint(sys.executable)\nprint('%d.%d.%d' % sys.version_info[:3])\nfor p in sys.path:\n    print(p)\n";

impl Interpreter {
    /// Resolves `command` (a name on PATH or a path) to the interpreter it runs.
    pub fn resolve(command: &str) -> Result<Interpreter, SandboxError> {
        let out = Command::new(command)
            .args(["-I", "-c", DESCRIBE])
            .stdin(Stdio::null())
            .output()
            .map_err(|error| SandboxError::InterpreterNotFound {
                command: command.to_owned(),
                error,
            })?;
        let unusable = |reason: String| SandboxError::InterpreterUnusable {
            command: command.to_owned(),
            reason,
        };
        if !out.status.success() {
            return Err(unusable(format!(
                "it exited with {}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        let executable = lines.next().unwrap_or("").trim().to_owned();
        let version = lines.next().unwrap_or("").trim().to_owned();
        if executable.is_empty() {
            return Err(unusable("it does not report sys.executable".into()));
        }
        let major_minor: Vec<u32> = version.split('.').filter_map(|p| p.parse().ok()).collect();
        if major_minor.len() < 2 || major_minor[0] != 3 || major_minor[1] < 8 {
            return Err(unusable(format!(
                "Python 3.8 or newer is needed (audit hooks), found {version:?}"
            )));
        }
        let sys_path = lines.filter(|p| !p.is_empty()).map(str::to_owned).collect();
        let executable = PathBuf::from(executable);
        let harness_code = compile_harness(&executable, HARNESS).map_err(unusable)?;
        let candidate_code = compile_harness(&executable, CANDIDATE_HARNESS).map_err(unusable)?;
        Ok(Interpreter {
            executable,
            version,
            sys_path,
            harness_code,
            candidate_code,
        })
    }
}

/// Has `executable` compile the harness; the reason if it cannot.
fn compile_harness(executable: &std::path::Path, source: &str) -> Result<Arc<[u8]>, String> {
    let mut child = Command::new(executable)
        .args(PYTHON_FLAGS)
        .args(["-c", COMPILE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("it cannot be started: {e}"))?;
    // The source is far below a pipe's capacity, so writing it before reading
    // the output cannot deadlock.
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(source.as_bytes())
            .map_err(|e| format!("it did not take the harness: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("it did not compile the harness: {e}"))?;
    if !out.status.success() || out.stdout.is_empty() {
        return Err(format!(
            "it cannot compile the harness ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(Arc::from(out.stdout))
}

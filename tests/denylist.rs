//! The import denylist: every default entry through every import form, the
//! configurable list, and `os.system`.

use std::time::Duration;

use execscope::sandbox::{DEFAULT_DENYLIST, Limits, Outcome};

use crate::util::{run, run_with};

fn import_forms(module: &str) -> Vec<String> {
    let mut forms = vec![
        format!("import {module}"),
        format!("from {module} import *"),
        format!("__import__('{module}')"),
        format!("import importlib\nimportlib.import_module('{module}')"),
        format!("import builtins\nbuiltins.__import__('{module}')"),
    ];
    if let Some((parent, child)) = module.rsplit_once('.') {
        forms.push(format!("from {parent} import {child}"));
        forms.push(format!(
            "import importlib\nimportlib.import_module('.{child}', '{parent}')"
        ));
    }
    forms
}

#[test]
fn every_default_entry_is_denied_through_every_import_form() {
    let mut checked = 0;
    for module in DEFAULT_DENYLIST {
        // One process per module: its forms run one after another, each must raise.
        let mut code = String::from("results = []\n");
        for form in import_forms(module) {
            code.push_str(&format!(
                "try:\n{}\n    results.append('imported')\nexcept ImportError as e:\n    results.append(str(e))\n",
                form.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
            ));
            checked += 1;
        }
        code.push_str("print('\\n'.join(results))\n");
        let r = run(&code, &["True"]);
        assert_eq!(r.outcome, Outcome::Pass, "{module}: {r:?}");
        for (line, form) in r.stdout.lines().zip(import_forms(module)) {
            assert!(
                line.starts_with("denied: "),
                "{module} via {form:?} gave {line:?}"
            );
        }
        assert_eq!(
            r.stdout.lines().count(),
            import_forms(module).len(),
            "{module}: {}",
            r.stdout
        );
    }
    assert!(checked >= 40, "{checked}");
}

#[test]
fn an_uncaught_denied_import_is_an_error_that_says_denied() {
    let r = run("import socket\n", &["True"]);
    assert_eq!(r.outcome, Outcome::Error);
    assert_eq!(r.detail, "ImportError: denied: socket (line 1)");
    let r = run("from urllib.request import urlopen\n", &["True"]);
    assert_eq!(r.outcome, Outcome::Error);
    assert!(r.detail.contains("denied: urllib"), "{}", r.detail);
}

#[test]
fn os_system_raises_instead_of_running_a_shell() {
    let r = run("import os\nos.system('echo escaped')\n", &["True"]);
    assert_eq!(r.outcome, Outcome::Error);
    assert!(r.detail.contains("denied: os.system"), "{}", r.detail);
    assert!(!r.stdout.contains("escaped"));
    let r = run("import posix\nposix.system('echo escaped')\n", &["True"]);
    assert!(r.detail.contains("denied: os.system"), "{}", r.detail);
}

#[test]
fn modules_not_on_the_list_import_normally() {
    let r = run(
        "import math, json, re, collections, itertools, functools, heapq, string, random, typing\nimport os.path\nx = math.sqrt(16)\n",
        &["x == 4"],
    );
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
}

#[test]
fn the_denylist_is_configurable() {
    let limits = Limits {
        denylist: vec!["json".into()],
        ..Limits::default()
    };
    let r = run_with("import json\n", &["True"], &limits, Duration::from_secs(3));
    assert_eq!(r.detail, "ImportError: denied: json (line 1)");
    let r = run_with(
        "import shutil\n",
        &["True"],
        &limits,
        Duration::from_secs(3),
    );
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
    let none = Limits {
        denylist: Vec::new(),
        process_guard: false,
        ..Limits::default()
    };
    let r = run_with("import socket\n", &["True"], &none, Duration::from_secs(3));
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
}

#[test]
fn standard_library_modules_that_need_a_denied_module_import_under_confinement_only() {
    let code = "import tempfile, pathlib, zipfile, logging.handlers, asyncio\nwith tempfile.TemporaryDirectory() as d:\n    p = pathlib.Path(d, 'x')\n    p.write_text('y')\n    ok = p.read_text() == 'y'\n";
    let r = run(code, &["ok"]);
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
    // Without the kernel confinement the strict rule stays.
    let strict = Limits {
        confine: false,
        ..Limits::default()
    };
    let r = run_with(code, &["ok"], &strict, Duration::from_secs(3));
    assert_eq!(r.outcome, Outcome::Error, "{r:?}");
    // shutil or urllib.parse first, depending on the Python build.
    assert!(r.detail.contains("ImportError: denied: "), "{}", r.detail);
}

#[test]
fn the_candidates_own_loads_of_a_denied_module_are_refused_in_every_form() {
    let shutil = "import os, tempfile\npath = os.path.join(os.path.dirname(tempfile.__file__), 'shutil.py')\n";
    for code in [
        // Its file under another name, three ways.
        format!("{shutil}import importlib.util\nspec = importlib.util.spec_from_file_location('x', path)\nm = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(m)\n"),
        format!("{shutil}import importlib.machinery\nimportlib.machinery.SourceFileLoader('y', path).load_module()\n"),
        format!("{shutil}import runpy\nrunpy.run_path(path)\n"),
        format!("{shutil}exec(compile(open(path).read(), 'z', 'exec'), {{}})\n"),
        // The same file by other names: bytes, relative, `..`, a symlink.
        format!("{shutil}exec(compile(open(path.encode()).read(), 'z', 'exec'), {{}})\n"),
        format!("{shutil}os.chdir(os.path.dirname(path))\nexec(compile(open('shutil.py').read(), 'z', 'exec'), {{}})\n"),
        format!("{shutil}exec(compile(open('/tmp/..' + path).read(), 'z', 'exec'), {{}})\n"),
        format!("{shutil}os.symlink(path, 'notes.txt')\nexec(compile(open('notes.txt').read(), 'z', 'exec'), {{}})\n"),
        "import glob, sys, importlib.util\nso = glob.glob([p for p in sys.path if p.endswith('lib-dynload')][0] + '/_ctypes*')[0]\nspec = importlib.util.spec_from_file_location('_ctypes', so)\nimportlib.util.module_from_spec(spec)\n".to_string(),
        // A library function importing a name it is handed.
        "import pkgutil\npkgutil.resolve_name('shutil:rmtree')\n".to_string(),
        "import pickle\npickle.loads(b'cshutil\\nrmtree\\n.')\n".to_string(),
        "import pickle, io\npickle._Unpickler(io.BytesIO(b'csubprocess\\nrun\\n.')).load()\n".to_string(),
        // Code it compiled, and a module it wrote.
        "exec('import shutil')\n".to_string(),
        "open('helper.py', 'w').write('import shutil\\n')\nimport sys\nsys.path.insert(0, '.')\nimport helper\n".to_string(),
        // The private C modules beneath.
        "import _ctypes\n".to_string(),
        "import _socket\n".to_string(),
        "import _posixsubprocess\n".to_string(),
    ] {
        let r = run(&code, &["True"]);
        assert_eq!(r.outcome, Outcome::Error, "{code}: {r:?}");
        assert!(r.detail.contains("denied"), "{code}: {}", r.detail);
    }
}

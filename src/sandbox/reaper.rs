//! Making sure nothing a candidate started outlives it, even what escaped its
//! process group with `setsid` or a double fork: on Linux the host becomes a
//! child subreaper, so orphaned descendants are re-parented to it, and after each
//! candidate every child of the host that is neither a running candidate nor in
//! the host's own session is killed and reaped. Also: removing a candidate's
//! working directory even when it made it hard to remove.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Mutex, Once, RwLock};

/// Spawns hold it shared while a new candidate is not yet registered; the orphan
/// sweep holds it exclusively, so it never mistakes a candidate for an orphan.
static SPAWNING: RwLock<()> = RwLock::new(());
/// Process ids of running candidates.
static LIVE: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

/// Makes the host a child subreaper (once).
fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        // SAFETY: prctl with integer arguments.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        }
    });
}

/// Spawns a candidate with `spawn` and registers it, atomically with respect to
/// the orphan sweep.
pub(super) fn spawn_registered<T>(
    spawn: impl FnOnce() -> std::io::Result<T>,
    pid_of: impl Fn(&T) -> i32,
) -> std::io::Result<T> {
    become_subreaper();
    let _shared = SPAWNING.read().unwrap_or_else(|e| e.into_inner());
    let child = spawn()?;
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashSet::new)
        .insert(pid_of(&child));
    Ok(child)
}

/// Forgets a reaped candidate and sweeps up whatever it left behind.
pub(super) fn finished(pid: i32) {
    if let Some(live) = LIVE.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        live.remove(&pid);
    }
    sweep_orphans();
}

/// Kills and reaps children of the host that are orphans of candidates.
fn sweep_orphans() {
    #[cfg(target_os = "linux")]
    {
        let _exclusive = SPAWNING.write().unwrap_or_else(|e| e.into_inner());
        // SAFETY: getsid(0) and getpid() have no preconditions.
        let (host_session, host) = unsafe { (libc::getsid(0), libc::getpid()) };
        // Killing an orphan can orphan its own children; a few rounds settle it.
        for _ in 0..8 {
            let live = LIVE
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
                .unwrap_or_default();
            let orphans: Vec<i32> = children_of(host)
                .into_iter()
                .filter(|pid| {
                    !live.contains(pid) && session_of(*pid).is_some_and(|s| s != host_session)
                })
                .collect();
            if orphans.is_empty() {
                return;
            }
            for pid in orphans {
                // SAFETY: signalling and reaping a child of ours.
                unsafe {
                    let group = libc::getpgid(pid);
                    if group > 0 && group != libc::getpgid(0) {
                        libc::killpg(group, libc::SIGKILL);
                    }
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, std::ptr::null_mut(), 0);
                }
            }
        }
    }
}

/// The children of process `pid`'s main thread, from procfs: where the kernel
/// puts an orphan it re-parents to a subreaper (the first of its threads that
/// is alive, and the main thread outlives the run). What worker threads spawned
/// themselves is listed under them, and is never an orphan.
#[cfg(target_os = "linux")]
fn children_of(pid: i32) -> Vec<i32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .map(|list| {
            list.split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The host's number of the child that fork server `server` numbers
/// `ns_pid` in its own pid namespace (each server is the first process of
/// one): the server's child whose last `NSpid` is `ns_pid`.
#[cfg(target_os = "linux")]
pub(super) fn child_of_server(server: i32, ns_pid: i32) -> Option<i32> {
    children_of(server).into_iter().find(|&child| {
        std::fs::read_to_string(format!("/proc/{child}/status"))
            .ok()
            .and_then(|status| {
                let line = status.lines().find_map(|l| l.strip_prefix("NSpid:"))?;
                line.split_whitespace().last()?.parse::<i32>().ok()
            })
            == Some(ns_pid)
    })
}

/// A fork server's child has the host's number off Linux (no namespaces).
#[cfg(not(target_os = "linux"))]
pub(super) fn child_of_server(_: i32, ns_pid: i32) -> Option<i32> {
    Some(ns_pid)
}

/// The session id of process `pid`.
#[cfg(target_os = "linux")]
fn session_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesised command: state ppid pgrp session ...
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(3)?.parse().ok()
}

/// Removes a candidate's working directory, restoring permissions it took away.
pub(super) fn remove_dir(dir: tempfile::TempDir) {
    let path = dir.path().to_path_buf();
    if dir.close().is_ok() || !path.exists() {
        return;
    }
    make_writable(&path);
    let _ = std::fs::remove_dir_all(&path);
}

/// Removes everything inside `dir` (a fork server's directory, which its next
/// candidate gets empty), restoring permissions a candidate took away.
pub(super) fn empty_dir(dir: &Path) {
    make_writable(dir);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let removed = match entry.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        if removed.is_err() {
            make_writable(&path);
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

fn make_writable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.is_dir() {
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700));
        if let Ok(entries) = std::fs::read_dir(path) {
            for entry in entries.flatten() {
                make_writable(&entry.path());
            }
        }
    }
}

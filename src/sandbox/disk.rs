//! The disk limit: what a candidate keeps in its directory (Landlock lets it
//! write nowhere else), measured while it runs and when it ends.

use std::time::Duration;

/// How often a running candidate's directory is measured against the disk
/// limit (Landlock lets it write nowhere else).
pub(super) const DISK_CHECK_EVERY: Duration = Duration::from_millis(50);
/// Most directory entries the disk check looks at: a candidate that makes
/// more is over the limit (the walk stays cheap for the host).
const DISK_ENTRIES_MAX: usize = 20_000;

/// Whether candidate `pid` keeps more than `limit` bytes on disk: the
/// allocated blocks in `dir` (sparse files count what they use; more entries
/// than the check looks at count as over), plus files it deleted but still
/// holds open, which no longer show in the directory.
pub(super) fn over_disk_limit(dir: &std::path::Path, pid: Option<libc::pid_t>, limit: u64) -> bool {
    let Some(in_dir) = in_directory(dir) else {
        return true;
    };
    in_dir.saturating_add(pid.map_or(0, deleted_but_open)) > limit
}

/// Bytes of the files beneath `dir`, or `None` past [`DISK_ENTRIES_MAX`] or
/// where a directory cannot be read for any reason but having just been
/// removed: a candidate that nests directories past what a path can name
/// (`PATH_MAX`) would otherwise hide files from the walk.
fn in_directory(dir: &std::path::Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    let mut pending = vec![dir.to_path_buf()];
    let (mut bytes, mut entries) = (0u64, 0usize);
    while let Some(d) = pending.pop() {
        let list = match std::fs::read_dir(&d) {
            Ok(list) => list,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return None,
        };
        for entry in list.flatten() {
            entries += 1;
            if entries > DISK_ENTRIES_MAX {
                return None;
            }
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            bytes = bytes.saturating_add(meta.blocks().saturating_mul(512));
            if meta.is_dir() {
                pending.push(entry.path());
            }
        }
    }
    Some(bytes)
}

/// Bytes of the deleted regular files process `pid` holds open (through
/// `/proc/<pid>/fd`; none where there is no procfs).
fn deleted_but_open(pid: libc::pid_t) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return 0;
    };
    fds.flatten()
        .filter_map(|fd| std::fs::metadata(fd.path()).ok())
        .filter(|meta| meta.is_file() && meta.nlink() == 0)
        .map(|meta| meta.blocks().saturating_mul(512))
        .fold(0, u64::saturating_add)
}

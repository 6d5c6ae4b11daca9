//! The disk limit: what a candidate keeps in its directory (Landlock lets it
//! write nowhere else), measured while it runs and when it ends.

use std::time::Duration;

/// How often a running candidate's directory is measured against the disk
/// limit (Landlock lets it write nowhere else).
pub(super) const DISK_CHECK_EVERY: Duration = Duration::from_millis(50);
/// Most directory entries the disk check looks at: a candidate that makes
/// more is over the limit (the walk stays cheap for the host).
const DISK_ENTRIES_MAX: usize = 20_000;

/// Whether `dir` holds more than `limit` bytes of allocated blocks (sparse
/// files count what they use), or more entries than the check looks at.
pub(super) fn over_disk_limit(dir: &std::path::Path, limit: u64) -> bool {
    use std::os::unix::fs::MetadataExt;
    let mut pending = vec![dir.to_path_buf()];
    let (mut bytes, mut entries) = (0u64, 0usize);
    while let Some(d) = pending.pop() {
        let Ok(list) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in list.flatten() {
            entries += 1;
            if entries > DISK_ENTRIES_MAX {
                return true;
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
    bytes > limit
}

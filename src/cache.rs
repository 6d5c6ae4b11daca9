//! The user's cache directory (`$XDG_CACHE_HOME`, else `~/.cache`), where
//! execscope keeps what it can make again: reference outputs, and the
//! directory that puts `python` on a container's PATH.

use std::path::PathBuf;

/// The cache directory, where the environment names one.
pub(crate) fn cache_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
}

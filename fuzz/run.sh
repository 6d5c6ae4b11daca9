#!/usr/bin/env bash
# Fuzzes the readers and the extraction for a bounded time each (default 30 s).
# Needs cargo-fuzz (`cargo install cargo-fuzz`); the toolchain's sanitizer
# support is used through RUSTC_BOOTSTRAP, so no nightly toolchain is needed.
# Any crash is saved under fuzz/artifacts/<target>/ and fails this script: turn
# it into a regression test in tests/readers.rs.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-30}"
export RUSTC_BOOTSTRAP=1
cargo fuzz build
for target in tasks generations extract results pickled; do
    mkdir -p "corpus/$target"
    cp -n seeds/"$target"/* "corpus/$target/" 2>/dev/null || true
    echo "fuzzing $target for ${seconds}s"
    cargo fuzz run "$target" "corpus/$target" -- -max_total_time="$seconds" 2>&1 | grep -E "^Done|ERROR|panicked" || true
    if ls "artifacts/$target"/crash-* >/dev/null 2>&1; then
        echo "fuzz target $target found a crash: see fuzz/artifacts/$target/" >&2
        exit 1
    fi
done

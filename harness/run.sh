#!/usr/bin/env bash
# Installs the harness's prerequisites and runs every engine on every workload.
#   harness/run.sh                       # defaults: N = 5,000,000, YCSB 1,000,000 records
#   harness/run.sh --num 500000 --records 200000 --out /tmp/h   # smaller run
# Extra arguments go to `cellbase-harness run` (see --help). The report lands in --out
# (default harness-out/): report.md, report.json, throughput-*.svg, ratios.svg.
set -euo pipefail
cd "$(dirname "$0")"
if ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 && ! ldconfig -p | grep -q libclang; then
    echo "installing libclang-dev (RocksDB's bindings need it)"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q libclang-dev clang
fi
command -v c++ >/dev/null || { echo "a C++ compiler is needed (apt-get install g++)"; exit 1; }
# RocksDB's C++ build takes ~18 minutes on 2 cores the first time.
cargo build --release
exec ./target/release/cellbase-harness run "$@"

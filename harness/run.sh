#!/usr/bin/env bash
# Installs the harness's prerequisites and runs every engine on every workload.
#   harness/run.sh                       # defaults: N = 5,000,000, YCSB 1,000,000 records
#   harness/run.sh --num 500000 --records 200000 --out /tmp/h   # smaller run
# Extra arguments go to `cellbase-harness run` (see --help). The report lands in --out
# (default harness-out/): report.md, report.json, throughput-*.svg, ratios.svg.
set -euo pipefail
cd "$(dirname "$0")"
# RocksDB's bindings (bindgen) load libclang itself: libclang.so or libclang-N.so. A machine
# with only libclang-cpp (clang's C++ library, which bindgen cannot use) still needs it.
have_libclang() {
    if [ -n "${LIBCLANG_PATH:-}" ] && ls "$LIBCLANG_PATH"/libclang*.so* 2>/dev/null \
        | grep -Eq '/libclang(-[0-9][0-9.]*)?\.so'; then
        return 0
    fi
    ls /usr/lib/llvm-*/lib/ /usr/lib/*-linux-gnu/ /usr/lib64/ /usr/local/lib/ 2>/dev/null \
        | grep -Eq '^libclang(-[0-9][0-9.]*)?\.so' && return 0
    ldconfig -p 2>/dev/null | grep -Eq '[[:space:]]libclang(-[0-9][0-9.]*)?\.so'
}
apt_install() {
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "cannot install $* (no apt-get here): install them and rerun" >&2
        exit 1
    fi
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q "$@"
}
if ! have_libclang; then
    echo "installing libclang-dev (RocksDB's bindings need libclang, not only libclang-cpp)"
    apt_install libclang-dev clang
fi
if ! command -v c++ >/dev/null 2>&1; then
    echo "installing g++ (RocksDB is C++)"
    apt_install g++
fi
# RocksDB's C++ build takes ~18 minutes on 2 cores the first time.
# `cargo run` finds the binary wherever CARGO_TARGET_DIR puts it.
exec cargo run --release --bin cellbase-harness -- run "$@"

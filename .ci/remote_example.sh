#!/usr/bin/env bash
# examples/remote.rs (the README's quick start through Db::connect) against a `cellbase thrift2`
# gateway started here over a temporary directory (docs/REMOTE.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
# shellcheck source=gateway-lib.sh
. "$ROOT/.ci/gateway-lib.sh"
cellbase_bin
cargo build -q --release --example remote
DATA=$(mktemp -d)
trap 'stop_gateway; rm -rf "$DATA"' EXIT
start_gateway thrift2 "$DATA"
"$TARGET/release/examples/remote" "thrift2://127.0.0.1:$port"
echo "examples/remote.rs: the quick start ran against cellbase thrift2 on port $port"

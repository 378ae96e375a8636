#!/usr/bin/env bash
# examples/remote.rs (the README's quick start through Db::connect) against a `cellbase thrift2`
# gateway started here over a temporary directory (docs/REMOTE.md).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p cellbase-cli --bin cellbase
cargo build -q --release --example remote
dir=$(mktemp -d)
out="$dir/out"
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
"$target/debug/cellbase" thrift2 --port 0 --db "$dir/db" >"$out" 2>"$dir/err" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 100); do
    [ -s "$out" ] && break
    sleep 0.1
done
port=$(head -1 "$out" | sed 's/.*://')
[ -n "$port" ] || { echo "cellbase thrift2 did not start:"; cat "$dir/err"; exit 1; }
"$target/release/examples/remote" "thrift2://127.0.0.1:$port"
echo "examples/remote.rs: the quick start ran against cellbase thrift2 on port $port"

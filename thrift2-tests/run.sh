#!/usr/bin/env bash
# Acceptance: thbase 1.3.14 (PyPI: the Apache Thrift gen-py client of HBase 2.x's Thrift2 IDL,
# and its high-level client) against `cellbase thrift2`, through every THBaseService method in
# all four transport/protocol modes (buffered|framed x binary|compact): test_thbase.py.
#
#   thrift2-tests/run.sh            # builds the release cli, caches the venv under target/
#
# Environment: PYTHON (default python3.11, else python3), CELLBASE_BIN (skip the build and use
# this binary), THRIFT2_TESTS_DIR (cache dir, default <target>/thrift2-tests).
# Exits non-zero unless all 52 tests pass (13 per mode) and the gateway stops cleanly on SIGTERM.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE="$ROOT/thrift2-tests"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
WORK=${THRIFT2_TESTS_DIR:-$TARGET/thrift2-tests}
EXPECTED=52
mkdir -p "$WORK"
start=$(date +%s)

PY=${PYTHON:-}
if [ -z "$PY" ]; then
    if command -v python3.11 >/dev/null 2>&1; then PY=python3.11; else PY=python3; fi
fi

# 1. The virtual environment, rebuilt only when requirements.txt changes. thbase goes in with
# --no-deps: its declared enum34 / typing backports break Python 3.11.
VENV="$WORK/venv"
STAMP="$VENV/.requirements"
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$HERE/requirements.txt" "$STAMP"; then
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$HERE/requirements.txt"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps thbase==1.3.14
    cp "$HERE/requirements.txt" "$STAMP"
fi

# 2. The server binary.
if [ -n "${CELLBASE_BIN:-}" ]; then
    BIN=$CELLBASE_BIN
else
    (cd "$ROOT" && cargo build --release -q -p cellbase-cli)
    BIN="$TARGET/release/cellbase"
fi

SERVER_PID=""
DATA=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    if [ -n "$DATA" ]; then rm -rf "$DATA"; fi
}
trap cleanup EXIT

# 3. One server on a free port over a fresh directory; the tests use their own tables per mode.
DATA=$(mktemp -d "$WORK/data.XXXXXX")
"$BIN" thrift2 --db "$DATA/db" --port 0 >"$DATA/server.out" 2>"$DATA/server.err" &
SERVER_PID=$!
port=""
for _ in $(seq 1 300); do
    port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$DATA/server.out" 2>/dev/null | head -n1 || true)
    if [ -n "$port" ] || ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "cellbase thrift2 did not start:"; cat "$DATA/server.err"
    exit 1
fi

failed=0
set +e
out=$(cd "$HERE" && THRIFT2_PORT="$port" "$VENV/bin/python" -m pytest -q -p no:cacheprovider test_thbase.py 2>&1)
rc=$?
set -e
passed=$(printf '%s\n' "$out" | grep -Eo '[0-9]+ passed' | tail -n1 | grep -Eo '[0-9]+' || echo 0)
if [ "$rc" -ne 0 ] || [ "$passed" != "$EXPECTED" ]; then
    printf '%s\n' "$out"
    echo "--- server stderr ---"; tail -n 50 "$DATA/server.err"
    echo "thbase: FAILED ($passed/$EXPECTED passed, pytest exit $rc)"
    failed=1
else
    echo "thbase: $passed/$EXPECTED passed (buffered/framed x binary/compact)"
fi

# 4. SIGTERM: the gateway closes the database cleanly and exits 0.
kill -TERM "$SERVER_PID"
set +e
wait "$SERVER_PID"
code=$?
set -e
SERVER_PID=""
if [ "$code" -ne 0 ] || ! grep -q "database closed cleanly" "$DATA/server.err"; then
    echo "cellbase thrift2 did not stop cleanly (exit $code):"; tail -n 20 "$DATA/server.err"
    failed=1
fi
echo "wall time: $(( $(date +%s) - start ))s"
exit $failed

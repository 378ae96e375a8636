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

# shellcheck source=../.ci/gateway-lib.sh
. "$ROOT/.ci/gateway-lib.sh"

# 1. The virtual environment, rebuilt only when requirements.txt changes. thbase goes in with
# --no-deps: its declared enum34 / typing backports break Python 3.11.
VENV="$WORK/venv"
make_venv "$VENV" "$HERE/requirements.txt" --no-deps thbase==1.3.14

# 2. The server binary.
cellbase_bin

DATA=""
cleanup() {
    stop_gateway
    if [ -n "$DATA" ]; then rm -rf "$DATA"; fi
}
trap cleanup EXIT

# 3. One server on a free port over a fresh directory; the tests use their own tables per mode.
DATA=$(mktemp -d "$WORK/data.XXXXXX")
start_gateway thrift2 "$DATA"

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

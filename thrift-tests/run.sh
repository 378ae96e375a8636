#!/usr/bin/env bash
# Acceptance: happybase 1.3.0's own test suite (from its PyPI sdist) against `cellbase thrift`,
# in all four transport/protocol modes (buffered|framed x binary|compact).
#
#   thrift-tests/run.sh            # builds the release cli, caches the venv under target/
#
# Environment: PYTHON (default python3.11, else python3), CELLBASE_BIN (skip the build and use
# this binary), THRIFT_TESTS_DIR (cache dir, default <target>/thrift-tests), MODES (default
# "buffered:binary framed:binary buffered:compact framed:compact").
# Then the info port's /metrics and /jmx through real parsers (info_check.py).
# Exits non-zero if any mode does not pass all 27 tests or the info check fails.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE="$ROOT/thrift-tests"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
WORK=${THRIFT_TESTS_DIR:-$TARGET/thrift-tests}
EXPECTED=27
MODES=${MODES:-"buffered:binary framed:binary buffered:compact framed:compact"}
mkdir -p "$WORK"
start=$(date +%s)

# shellcheck source=../.ci/gateway-lib.sh
. "$ROOT/.ci/gateway-lib.sh"

# 1. The virtual environment, rebuilt only when requirements.txt changes.
VENV="$WORK/venv"
make_venv "$VENV" "$HERE/requirements.txt"

# 2. happybase's own tests from its sdist (downloaded once; never committed).
SDIST="$WORK/dl/happybase-1.3.0.tar.gz"
if [ ! -f "$SDIST" ]; then
    "$VENV/bin/python" -m pip download -q --disable-pip-version-check --no-deps \
        --no-binary :all: happybase==1.3.0 -d "$WORK/dl"
fi
rm -rf "$WORK/src"
mkdir -p "$WORK/src"
tar xzf "$SDIST" -C "$WORK/src"
SUITE="$WORK/src/happybase-1.3.0"
cp "$HERE/conftest.py" "$SUITE/tests/conftest.py"

# 3. The server binary.
cellbase_bin

DATA=""
cleanup() {
    stop_gateway
    if [ -n "$DATA" ]; then rm -rf "$DATA"; fi
}
trap cleanup EXIT

# 4. Each mode against a fresh server on a free port with a fresh directory.
failed=0
summary=""
for mode in $MODES; do
    transport=${mode%%:*}
    protocol=${mode##*:}
    DATA=$(mktemp -d "$WORK/data.XXXXXX")
    start_gateway thrift "$DATA"
    set +e
    out=$(cd "$SUITE" && HAPPYBASE_HOST=127.0.0.1 HB_TEST_PORT="$port" \
        HAPPYBASE_TRANSPORT="$transport" HB_TEST_PROTOCOL="$protocol" \
        "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/ 2>&1)
    rc=$?
    set -e
    passed=$(printf '%s\n' "$out" | grep -Eo '[0-9]+ passed' | tail -n1 | grep -Eo '[0-9]+' || echo 0)
    if [ "$rc" -ne 0 ] || [ "$passed" != "$EXPECTED" ]; then
        printf '%s\n' "$out"
        echo "--- server stderr ---"; tail -n 50 "$DATA/server.err"
        failed=1
        summary+="$transport/$protocol: FAILED ($passed/$EXPECTED passed, pytest exit $rc)"$'\n'
    else
        summary+="$transport/$protocol: $passed/$EXPECTED passed"$'\n'
    fi
    stop_gateway
    rm -rf "$DATA"
    DATA=""
done

# 5. The info port (issue 23): /metrics through the Prometheus project's parser, /jmx as JSON.
DATA=$(mktemp -d "$WORK/data.XXXXXX")
"$BIN" thrift --db "$DATA/db" --port 0 --info-port 0 >"$DATA/server.out" 2>"$DATA/server.err" &
SERVER_PID=$!
port=""; info=""
for _ in $(seq 1 300); do
    port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$DATA/server.out" 2>/dev/null | head -n1 || true)
    info=$(sed -n 's|.*info server on http://\([0-9.:]*\)/.*|\1|p' "$DATA/server.err" 2>/dev/null | head -n1 || true)
    if { [ -n "$port" ] && [ -n "$info" ]; } || ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
    sleep 0.1
done
if [ -z "$port" ] || [ -z "$info" ]; then
    echo "cellbase thrift --info-port did not start:"; cat "$DATA/server.err"
    exit 1
fi
if out=$("$VENV/bin/python" "$HERE/info_check.py" "$port" "$info" 2>&1); then
    summary+="$out"$'\n'
else
    printf '%s\n' "$out"
    failed=1
    summary+="info port: FAILED"$'\n'
fi
stop_gateway
rm -rf "$DATA"
DATA=""

printf '%s' "$summary"
echo "wall time: $(( $(date +%s) - start ))s"
exit $failed

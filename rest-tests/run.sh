#!/usr/bin/env bash
# Acceptance: published HBase REST clients from PyPI (pinned in requirements.txt) against
# `cellbase rest`: hbase-rest-py with our suite (test_client.py: tables, put, get, multi-get,
# scanners and filters, delete, schema, namespaces) and its own tests from the wheel
# (hbase/test/test_admin.py), and starbase's own tests from its package
# (starbase/client/tests.py), all pointed at the gateway by conftest.py.
#
#   rest-tests/run.sh            # builds the release cli, caches the venv under target/
#
# Environment: PYTHON (default python3.11, else python3), CELLBASE_BIN (skip the build and use
# this binary), REST_TESTS_DIR (cache dir, default <target>/rest-tests).
# Exits non-zero unless every test passes.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE="$ROOT/rest-tests"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
WORK=${REST_TESTS_DIR:-$TARGET/rest-tests}
mkdir -p "$WORK"
start=$(date +%s)

# shellcheck source=../.ci/gateway-lib.sh
. "$ROOT/.ci/gateway-lib.sh"

# 1. The virtual environment, rebuilt only when requirements.txt changes.
VENV="$WORK/venv"
make_venv "$VENV" "$HERE/requirements.txt"

# 2. The suite: our tests plus the client's own, from the installed wheel.
SUITE="$WORK/suite"
rm -rf "$SUITE"
mkdir -p "$SUITE"
cp "$HERE/conftest.py" "$HERE/test_client.py" "$SUITE/"
OWN=$("$VENV/bin/python" -c 'import hbase, os; print(os.path.join(os.path.dirname(hbase.__file__), "test", "test_admin.py"))')
cp "$OWN" "$SUITE/test_hbase_rest_py_admin.py"
STARBASE=$("$VENV/bin/python" -c 'import starbase.client, os; print(os.path.join(os.path.dirname(starbase.client.__file__), "tests.py"))')
cp "$STARBASE" "$SUITE/test_starbase_own.py"
# starbase's tests that cannot pass against any HBase 2.x REST server, or here:
#  - test_25_insert_binary_file downloads an image from the internet (CI has no internet);
#  - test_02_cluster_version expects HBase 0.94's bare-string /version/cluster JSON
#    (HBase 2.x's StorageClusterVersionModel writes {"Version": "..."});
#  - the others expect HBase 0.94's 503/500 for a missing table where HBase 2.x's
#    ResourceBase.processException answers 404 (TableNotFoundException).
SB="test_starbase_own.py::StarbaseClient"
DESELECT=(
    "$SB"02TableTest::test_25_insert_binary_file
    "$SB"01ConnectionTest::test_02_cluster_version
    "$SB"01ConnectionTest::test_04_drop_table_schema
    "$SB"02TableTest::test_30_drop_non_existing_table_fail_silently
    "$SB"02TableTest::test_34_remove_row_of_non_existing_table_fail_silently
    "$SB"03TableTestDisabledIfExists::test_02_insert_row
    "$SB"03TableTestDisabledIfExists::test_03_update_row
    "$SB"03TableTestDisabledIfExists::test_04_remove_row
)
DESELECT_ARGS=()
for d in "${DESELECT[@]}"; do DESELECT_ARGS+=(--deselect "$d"); done

# 3. The server binary.
cellbase_bin

DATA=$(mktemp -d "$WORK/data.XXXXXX")
cleanup() {
    stop_gateway
    rm -rf "$DATA"
}
trap cleanup EXIT

# 4. A fresh gateway on a free port.
start_gateway rest "$DATA"

set +e
(cd "$SUITE" && CELLBASE_REST="http://127.0.0.1:$port" \
    "$VENV/bin/python" -m pytest -q -p no:cacheprovider -W ignore::DeprecationWarning "${DESELECT_ARGS[@]}" .)
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
    echo "--- server stderr ---"; tail -n 50 "$DATA/server.err"
fi
echo "rest-tests wall time: $(( $(date +%s) - start ))s"
exit $rc

# Shared by the gateway client suites (thrift-tests/, thrift2-tests/, rest-tests/) and
# .ci/remote_example.sh: sourced, never run. Each caller sets ROOT (the repository) and TARGET
# (cargo's target directory) first.

# PY: the Python to build a venv with (PYTHON, else python3.11, else python3).
pick_python() {
    PY=${PYTHON:-}
    if [ -z "$PY" ]; then
        if command -v python3.11 >/dev/null 2>&1; then PY=python3.11; else PY=python3; fi
    fi
}

# make_venv VENV REQUIREMENTS [PIP_ARGS...]: a virtual environment with REQUIREMENTS (and then
# `pip install PIP_ARGS` when given), rebuilt only when REQUIREMENTS changes.
make_venv() {
    local venv=$1 reqs=$2
    shift 2
    local stamp="$venv/.requirements"
    if [ ! -x "$venv/bin/python" ] || ! cmp -s "$reqs" "$stamp"; then
        pick_python
        rm -rf "$venv"
        "$PY" -m venv "$venv"
        "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$reqs"
        if [ $# -gt 0 ]; then
            "$venv/bin/python" -m pip install -q --disable-pip-version-check "$@"
        fi
        cp "$reqs" "$stamp"
    fi
}

# BIN: the `cellbase` binary (CELLBASE_BIN, else the release build, built now).
cellbase_bin() {
    if [ -n "${CELLBASE_BIN:-}" ]; then
        BIN=$CELLBASE_BIN
    else
        (cd "$ROOT" && cargo build --release -q -p cellbase-cli)
        BIN="$TARGET/release/cellbase"
    fi
}

# start_gateway SUBCOMMAND DATA [ARGS...]: `$BIN SUBCOMMAND --db DATA/db --port 0 ARGS...` in
# the background, its output in DATA/server.out and .err; sets SERVER_PID and port (exits 1
# with the server's stderr when it does not start within 30 s).
SERVER_PID=""
start_gateway() {
    local sub=$1 data=$2
    shift 2
    : >"$data/server.out"
    "$BIN" "$sub" --db "$data/db" --port 0 "$@" >"$data/server.out" 2>"$data/server.err" &
    SERVER_PID=$!
    port=""
    for _ in $(seq 1 300); do
        port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$data/server.out" 2>/dev/null | head -n1 || true)
        if [ -n "$port" ] || ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
        sleep 0.1
    done
    if [ -z "$port" ]; then
        echo "cellbase $sub did not start:"; cat "$data/server.err"
        exit 1
    fi
}

# stop_gateway: kills the server started last, if any, and waits for it.
stop_gateway() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=""
    fi
}

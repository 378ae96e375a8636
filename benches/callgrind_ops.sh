#!/usr/bin/env bash
# Callgrind instruction counts of four operations through the public API (a Put with SyncWal, a
# memstore Get, a block-file Get, a 100-row scan; plus a memstore scan and a scan over 8
# row-disjoint files of a sequential load), from
# examples/callgrind_ops.rs, so that two commits can be compared exactly on a noisy machine.
#
#   benches/callgrind_ops.sh [REV] [OUTDIR]
#
# Without REV: this checkout. With REV: a temporary git worktree of REV (removed afterwards)
# into which this checkout's examples/callgrind_ops.rs is copied (it uses only the public API,
# so it builds against older commits too). Each measurement runs RUNS times (default 3) under
#   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=PATTERN
# and the table gives the median instructions per operation. Counts repeat to ~0.01 %; now and
# then a run is ~0.2 % higher (glibc's memcmp near a page end, randomly seeded hash tables in
# the engine's heap layout): compare the medians. Needs valgrind (apt-get install valgrind).
#
# Environment: RUNS (default 3), SUPPLEMENTARY=1 to add examples/put_cost.rs and
# examples/readprof.rs rows, ENCODINGS=1 to add examples/block_encoding.rs rows (a Get of a
# 10-column row and a 100-row scan, DATA_BLOCK_ENCODING NONE against FAST_DIFF; the example
# must exist at REV), ONLY="put_syncwal scan_100rows" to run only the named rows.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
REV=${1:-}
OUT=${2:-$REPO/target/callgrind_ops/${REV:-HEAD}}
if [ -n "$REV" ]; then
    WT=$(mktemp -d /tmp/callgrind-ops-XXXXXX)
    git -C "$REPO" worktree add --detach "$WT" "$REV" >/dev/null
    trap 'git -C "$REPO" worktree remove --force "$WT"' EXIT
else
    WT=$REPO
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RUNS=${RUNS:-3}
SUPPLEMENTARY=${SUPPLEMENTARY:-0}
ENCODINGS=${ENCODINGS:-0}
ONLY=${ONLY:-}

command -v valgrind >/dev/null || { echo "valgrind not installed" >&2; exit 1; }

# --- build -------------------------------------------------------------------------------
[ "$WT" = "$REPO" ] || cp "$REPO/examples/callgrind_ops.rs" "$WT/examples/"
examples=(--example callgrind_ops)
if [ "$SUPPLEMENTARY" = 1 ]; then
    examples+=(--example put_cost --example readprof)
fi
if [ "$ENCODINGS" = 1 ]; then
    examples+=(--example block_encoding)
fi
# A worktree of REV always builds into its own target directory: sharing one with another
# tree (an exported CARGO_TARGET_DIR) can reuse that tree's artifacts and measure it twice.
if [ "$WT" = "$REPO" ]; then TD=${CARGO_TARGET_DIR:-$WT/target}; else TD=$WT/target; fi
echo "building in $WT ..." >&2
(cd "$WT" && CARGO_TARGET_DIR="$TD" cargo build --release --quiet "${examples[@]}") \
    > "$OUT/build.log" 2>&1 || { cat "$OUT/build.log" >&2; exit 1; }
BIN="$TD/release/examples"

# --- measurements ------------------------------------------------------------------------
# name | toggle pattern | command (relative to $BIN) | how many ops (a number, or "parse":
# the driver prints "<mode>: N ops")
MEASUREMENTS=(
    "put_syncwal|callgrind_ops::measure_put*|callgrind_ops put|parse"
    "get_memstore|callgrind_ops::measure_get*|callgrind_ops memget|parse"
    "get_blockfile|callgrind_ops::measure_get*|callgrind_ops fileget|parse"
    "scan_100rows|callgrind_ops::measure_scan*|callgrind_ops scan|parse"
    "scan_100rows_memstore|callgrind_ops::measure_scan*|callgrind_ops memscan|parse"
    "scan_100rows_8files_run|callgrind_ops::measure_scan*|callgrind_ops runscan|parse"
)
if [ "$SUPPLEMENTARY" = 1 ]; then
    MEASUREMENTS+=(
        "sup:put_cost_1_asyncwal|*Table>::put|put_cost 1|20000"
        "sup:readprof_point|*readprof::measure*|readprof point|parse"
        "sup:readprof_seek|*readprof::measure*|readprof seek|parse"
        "sup:readprof_ycsbe|*readprof::measure*|readprof ycsbe|parse"
    )
fi
if [ "$ENCODINGS" = 1 ]; then
    MEASUREMENTS+=(
        "enc:get_10cells_none|block_encoding::measure_get*|block_encoding get NONE|parse"
        "enc:get_10cells_fast_diff|block_encoding::measure_get*|block_encoding get FAST_DIFF|parse"
        "enc:scan_100rows_none|block_encoding::measure_scan*|block_encoding scan NONE|parse"
        "enc:scan_100rows_fast_diff|block_encoding::measure_scan*|block_encoding scan FAST_DIFF|parse"
    )
fi

commit=$(git -C "$WT" rev-parse --short=12 HEAD)
subject=$(git -C "$WT" log -1 --format=%s HEAD | cut -c1-80)
dirty=$(git -C "$WT" status --porcelain --untracked-files=no | wc -l)

{
    echo "# cellbase callgrind instruction counts"
    echo "# worktree: $WT"
    echo "# commit:   $commit ($subject)$([ "$dirty" -gt 0 ] && echo " + $dirty modified tracked files")"
    echo "# date:     $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "# tools:    $(rustc --version), $(valgrind --version), cargo build --release"
    echo "# driver:   examples/callgrind_ops.rs $(sha256sum "$REPO/examples/callgrind_ops.rs" | cut -c1-12)"
    echo "# runs per measurement: $RUNS; Ir = instructions inside the toggled function (inclusive)"
    echo
} > "$OUT/table.txt"

rows=()
fail=0
for m in "${MEASUREMENTS[@]}"; do
    IFS='|' read -r name toggle cmd ops_spec <<< "$m"
    if [ -n "$ONLY" ] && ! grep -qw -- "$name" <<< "$ONLY"; then
        continue
    fi
    irs=()
    ops=
    for run in $(seq 1 "$RUNS"); do
        f="$OUT/${name//:/_}.$run"
        # shellcheck disable=SC2086
        valgrind --tool=callgrind --collect-atstart=no --toggle-collect="$toggle" \
            --callgrind-out-file="$f.out" "$BIN"/$cmd > "$f.log" 2>&1 || {
            echo "FAILED: $name run $run (see $f.log)" >&2
            fail=1
            continue 2
        }
        ir=$(awk '/^totals:/ {print $2}' "$f.out")
        if [ -z "$ir" ] || [ "$ir" = 0 ]; then
            echo "FAILED: $name run $run collected nothing (toggle '$toggle' never entered?)" >&2
            fail=1
            continue 2
        fi
        irs+=("$ir")
        if [ "$ops_spec" = parse ]; then
            o=$(grep -oE '^[a-z0-9]+: [0-9]+ ops' "$f.log" | awk '{print $2}' | head -1)
        else
            o=$ops_spec
        fi
        if [ -n "$ops" ] && [ "$o" != "$ops" ]; then
            echo "FAILED: $name: ops differ between runs ($ops vs $o)" >&2
            fail=1
        fi
        ops=$o
        echo "  $name run $run: $ir Ir, $ops ops" >&2
    done
    rows+=("$name|$toggle|$ops|${irs[*]}")
done

awk -v runs="$RUNS" '
    BEGIN {
        FS = "|"
        hdr = sprintf("%-26s %-24s", "measurement", "toggle-collect")
        for (r = 1; r <= runs; r++) hdr = hdr sprintf(" %13s", "total Ir #" r)
        hdr = hdr sprintf(" %8s %7s %12s %10s", "spread", "ops", "median Ir/op", "min Ir/op")
        print hdr
    }
    NF < 4 { next }
    {
        n = split($4, ir, " ")
        line = sprintf("%-26s %-24s", $1, $2)
        for (r = 1; r <= n; r++) line = line sprintf(" %13d", ir[r])
        for (r = n + 1; r <= runs; r++) line = line sprintf(" %13s", "-")
        # sort the totals (insertion sort) for min, max and median
        for (i = 2; i <= n; i++) {
            v = ir[i]; j = i - 1
            while (j >= 1 && ir[j] > v) { ir[j + 1] = ir[j]; j-- }
            ir[j + 1] = v
        }
        med = (n % 2) ? ir[(n + 1) / 2] : (ir[n / 2] + ir[n / 2 + 1]) / 2
        line = line sprintf(" %7.3f%% %7d %12.1f %10.1f", 100 * (ir[n] - ir[1]) / med, $3, med / $3, ir[1] / $3)
        print line
    }' < <(printf '%s\n' "${rows[@]}") >> "$OUT/table.txt"

{
    echo
    echo "# spread = (max - min) / median of the runs' totals; median Ir/op = median total / ops;"
    echo "# min Ir/op = min total / ops. Compare medians."
    echo "# Rows without 'sup:' are the acceptance measurements (driver examples/callgrind_ops.rs);"
    echo "# 'sup:' rows are the repo's own drivers (examples/put_cost.rs, examples/readprof.rs);"
    echo "# 'enc:' rows examples/block_encoding.rs (ops = Gets or scans; 10 cells per row)."
    for l in "$OUT"/*.1.log; do
        echo "# $(basename "$l" .1.log): $(grep -E ' ops|puts of' "$l" | head -1)"
    done
} >> "$OUT/table.txt"

cat "$OUT/table.txt"
exit $fail

#!/usr/bin/env bash
# What `memlint report --html` costs and how quickly its page opens: for a
# generated workspace of $RECORDS records (default 10000 and 100000), the
# time to write the page, its size, and in headless Chromium (driven by
# tests/browser/cdp.py) the time until the page is usable (its script has
# run: the overview is shown and every view answers), then the time to
# open Find, to search (the first search right at load included), to open
# the timeline and a record page with its body. Each
# browser figure is the median of $RUNS (5) loads.
#
#   benches/report_html.sh
#   RECORDS=100000 WS=/tmp/ws100k-copy benches/report_html.sh
#
# Needs python3, chromium, and the generator ../shared/bench/gen_workspace.py
# beside the repository (or $GEN) unless $WS names a workspace (it must be
# writable: the report refreshes .memlint/). Builds this memlint with
# `cargo build --release` unless $MEMLINT names a binary.

set -euo pipefail

CRATE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GEN="${GEN:-$CRATE/../shared/bench/gen_workspace.py}"
RUNS="${RUNS:-5}"
BENCH_DIR="${BENCH_DIR:-${TMPDIR:-/tmp}/memlint-bench-html}"
command -v chromium >/dev/null || { echo "no chromium; nothing measured"; exit 0; }
if [ -z "${MEMLINT:-}" ]; then
    (cd "$CRATE" && cargo build --release --quiet)
    MEMLINT="${CARGO_TARGET_DIR:-$CRATE/target}/release/memlint"
fi
mkdir -p "$BENCH_DIR"
cat > "$BENCH_DIR/steps.json" <<'JSON'
[{"name": "find_ms", "eval": "(() => { const t = performance.now(); location.hash = '#find'; return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now() - t)))); })()"},
 {"name": "search_ms", "eval": "(() => { const t = performance.now(); const q = document.getElementById('q'); q.value = 'cache'; q.dispatchEvent(new Event('input')); return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now() - t)))); })()"},
 {"name": "search_again_ms", "eval": "(() => { const t = performance.now(); const q = document.getElementById('q'); q.value = 'cache sqlite'; q.dispatchEvent(new Event('input')); return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now() - t)))); })()"},
 {"name": "timeline_ms", "eval": "(() => { const t = performance.now(); location.hash = '#timeline'; return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now() - t)))); })()"},
 {"name": "record_ms", "eval": "(() => { const t = performance.now(); location.hash = '#r/4321'; return new Promise(r => { const i = setInterval(() => { if (document.getElementById('record').dataset.loaded === '4321') { clearInterval(i); r(performance.now() - t); } }, 5); }); })()"}]
JSON

measure() { # $1: workspace
    local ws="$1" page="$BENCH_DIR/report-$(basename "$1").html"
    rm -f "$page"
    local t0 t1
    t0=$(date +%s.%N)
    "$MEMLINT" --root "$ws" -q report --html "$page"
    t1=$(date +%s.%N)
    echo "$(basename "$ws"): records $(grep -o '[0-9]* records ·' "$page" | head -1 | cut -d' ' -f1)," \
        "write $(python3 -c "print(round($t1 - $t0, 2))") s (index warm after the first run)," \
        "page $(stat -c %s "$page") bytes"
    for _ in $(seq "$RUNS"); do
        python3 "$CRATE/tests/browser/cdp.py" "$page" "$BENCH_DIR/steps.json"
    done | python3 -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin]
med = lambda k: round(statistics.median(r["results"][k] if k in r["results"] else r[k] for r in runs))
print("  usable after %d ms; find %d ms, search %d ms, search again %d ms, timeline %d ms, record %d ms (median of %d loads); console errors: %d" % (
    med("ready_ms"), med("find_ms"), med("search_ms"), med("search_again_ms"), med("timeline_ms"), med("record_ms"), len(runs), sum(len(r["errors"]) for r in runs)))'
}

if [ -n "${WS:-}" ]; then
    measure "$WS"
    exit 0
fi
if [ ! -f "$GEN" ]; then
    echo "no generator at $GEN; nothing measured"
    exit 0
fi
for n in ${RECORDS:-10000 100000}; do
    ws="$BENCH_DIR/ws-$n"
    [ -d "$ws" ] || python3 "$GEN" --out "$ws" --records "$n" --git >/dev/null
    "$MEMLINT" --root "$ws" -q report --html "$BENCH_DIR/warmup.html" >/dev/null || true
    rm -f "$BENCH_DIR/warmup.html"
    measure "$ws"
done

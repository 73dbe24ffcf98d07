#!/usr/bin/env bash
# Measures `memlint server` on a generated workspace
# (../shared/bench/gen_workspace.py, $SIZE records, default 100000): the
# first diagnostics after start, pulled and pushed diagnostics after a
# change, and the idle memory (benches/server_timing.py).
#
#   benches/server.sh
#   SIZE=10000 benches/server.sh

set -euo pipefail

CRATE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GEN="${GEN:-$CRATE/../shared/bench/gen_workspace.py}"
WORK="${BENCH_DIR:-${TMPDIR:-/tmp}/memlint-bench}/server"
SIZE="${SIZE:-100000}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${TMPDIR:-/tmp}/memlint-bench-target}"
BIN="$CARGO_TARGET_DIR/release/memlint"

(cd "$CRATE" && cargo build --release --quiet)
mkdir -p "$WORK"
WS="$WORK/ws-$SIZE"
[ -d "$WS" ] || python3 "$GEN" --out "$WS" --records "$SIZE" >/dev/null
"$BIN" --root "$WS" index >/dev/null
python3 "$CRATE/benches/server_timing.py" "$BIN" "$WS" "${RUNS:-20}"

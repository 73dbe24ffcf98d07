#!/usr/bin/env bash
# Checks `memlint mcp` with tools other than ours and measures it:
#
# 1. The MCP Inspector's CLI mode (npm @modelcontextprotocol/inspector,
#    pinned below) lists the tools and calls each one on fixtures/example.
# 2. The MCP conformance suite (npm @modelcontextprotocol/conformance) is
#    tried: its server scenarios connect over Streamable HTTP and it needs
#    Node.js >= 22, so for a stdio-only server it reports what does not
#    apply rather than failing.
# 3. Timing on a generated workspace (../shared/bench/gen_workspace.py,
#    $SIZE records, default 100000): start to initialized, and a
#    memory_search round trip next to `memlint search` (target <= 2x).
#
#   benches/mcp.sh              # all three
#   SKIP_TIMING=1 benches/mcp.sh

set -euo pipefail

CRATE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GEN="${GEN:-$CRATE/../shared/bench/gen_workspace.py}"
WORK="${BENCH_DIR:-${TMPDIR:-/tmp}/memlint-bench}/mcp"
SIZE="${SIZE:-100000}"
INSPECTOR="@modelcontextprotocol/inspector@0.17.5"
CONFORMANCE="@modelcontextprotocol/conformance@0.1.16"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${TMPDIR:-/tmp}/memlint-bench-target}"
BIN="$CARGO_TARGET_DIR/release/memlint"

(cd "$CRATE" && cargo build --release --quiet)
mkdir -p "$WORK"

echo "== MCP Inspector CLI ($INSPECTOR)"
if [ ! -x "$WORK/node/node_modules/.bin/mcp-inspector" ]; then
    mkdir -p "$WORK/node"
    (cd "$WORK/node" && npm install --silent --no-audit --no-fund "$INSPECTOR" "$CONFORMANCE")
fi
INSPECT="$WORK/node/node_modules/.bin/mcp-inspector"
EXAMPLE="$WORK/example"
rm -rf "$EXAMPLE" && cp -r "$CRATE/fixtures/example" "$EXAMPLE"
(cd "$EXAMPLE" && git init -q && git add -A &&
    git -c user.name=bench -c user.email=bench@example.com commit -qm snapshot)
call() {
    local what="$1"
    shift
    if out=$("$INSPECT" --cli "$BIN" --root "$EXAMPLE" mcp "$@" 2>&1); then
        echo "ok    $what"
    else
        echo "FAIL  $what"
        echo "$out" | tail -5
        failed=1
    fi
}
failed=0
call "tools/list" --method tools/list
call "memory_search" --method tools/call --tool-name memory_search --tool-arg query=bank
call "memory_read" --method tools/call --tool-name memory_read --tool-arg target=use-float-amounts
call "memory_write" --method tools/call --tool-name memory_write --tool-arg kind=decision \
    --tool-arg 'title=Inspect the memory' --tool-arg 'sources=["file:docs/bank-api.md"]'
call "memory_update" --method tools/call --tool-name memory_update \
    --tool-arg target=inspect-the-memory --tool-arg 'tags=["mcp"]'
call "memory_context" --method tools/call --tool-name memory_context
call "memory_recent" --method tools/call --tool-name memory_recent --tool-arg limit=2
call "memory_log" --method tools/call --tool-name memory_log
call "session_memory" --method tools/call --tool-name session_memory --tool-arg action=export \
    --tool-arg id=CMEM-20261102-174500

echo "== MCP conformance suite ($CONFORMANCE)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 22 ]; then
    echo "not run: it needs Node.js >= 22 (this is $(node --version)); its server"
    echo "scenarios connect over Streamable HTTP, which a stdio server does not serve"
else
    "$WORK/node/node_modules/.bin/conformance" server --help | head -20 || true
fi

if [ -z "${SKIP_TIMING:-}" ]; then
    echo "== timing on $SIZE records"
    if [ ! -f "$GEN" ]; then
        echo "not run: $GEN is absent"
    else
        WS="$WORK/ws-$SIZE"
        [ -d "$WS" ] || python3 "$GEN" --out "$WS" --records "$SIZE" >/dev/null
        "$BIN" --root "$WS" index >/dev/null
        python3 "$CRATE/benches/mcp_timing.py" "$BIN" "$WS" "retry backoff"
    fi
fi
exit "$failed"

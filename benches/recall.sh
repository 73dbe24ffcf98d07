#!/usr/bin/env bash
# Recall quality of `memlint search` on the LoCoMo development split
# (../shared/recall): ../shared/recall/eval.py (recall@5/@10 next to bm25s,
# with and without a Snowball stemmer), then the same questions per category
# (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop) from
# benches/recall_categories.py, then the evidence the prompt hook puts before
# the agent, by tuning and held-out part, beside bm25s laid out the same way
# (benches/prompt_recall.py, a session per question). Builds a release binary
# first.
#
#   benches/recall.sh
#
# Needs python3 (eval.py installs bm25s and PyStemmer on first run). Without
# ../shared/recall it says so and exits 0.
set -euo pipefail
CRATE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RECALL="${RECALL:-$CRATE/../shared/recall}"
if [ ! -f "$RECALL/eval.py" ]; then
    echo "benches/recall.sh: $RECALL/eval.py is not there; skipped" >&2
    exit 0
fi
cargo build --release --quiet --manifest-path "$CRATE/Cargo.toml"
BIN="${CARGO_TARGET_DIR:-$CRATE/target}/release/memlint"
python3 "$RECALL/eval.py" "$BIN" || true
python3 "$CRATE/benches/recall_categories.py" "$BIN" "$RECALL/locomo-dev.json.gz"
python3 "$CRATE/benches/prompt_recall.py" "$BIN" "$RECALL/locomo-dev.json.gz" --fresh

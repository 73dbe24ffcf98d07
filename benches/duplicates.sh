#!/usr/bin/env bash
# What `content/duplicate` (and the sketches it needs) costs `memlint check`:
# cold checks (no .memlint/) and warm checks after one record's text
# changed (so the duplicate pairs are computed again), of
#
#   before  a memlint built without the rule ($BEFORE, e.g. the release
#           binary of the main branch)
#   off     this memlint with `content/duplicate: off` (no sketch is made)
#   on      this memlint with the rule on (the default)
#
# on a generated workspace ($RECORDS records, default 100000). Each time is
# the median of $RUNS (5) rounds, the three timed in alternation within a
# round (benches/alternate.py), each on its own hard-linked copy of the
# workspace (their indexes differ). Targets: cold on <= 1.25x cold before,
# warm on <= 1.1x warm before. It then prints how many `content/duplicate`
# findings the workspace has.
#
#   BEFORE=/path/to/old/memlint benches/duplicates.sh
#   RECORDS=10000 BEFORE=… benches/duplicates.sh
#
# Needs python3 and the generator ../shared/bench/gen_workspace.py beside
# the repository (or $GEN). Builds this memlint with `cargo build --release`
# unless $AFTER names a binary.

set -euo pipefail

CRATE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GEN="${GEN:-$CRATE/../shared/bench/gen_workspace.py}"
RECORDS="${RECORDS:-100000}"
RUNS="${RUNS:-5}"
BENCH_DIR="${BENCH_DIR:-${TMPDIR:-/tmp}/memlint-bench-dups}"
BEFORE="${BEFORE:?set BEFORE to a memlint binary built without content/duplicate}"

if [ ! -f "$GEN" ]; then
    echo "no generator at $GEN; nothing measured"
    exit 0
fi
if [ -z "${AFTER:-}" ]; then
    (cd "$CRATE" && cargo build --release --quiet)
    AFTER="${CARGO_TARGET_DIR:-$CRATE/target}/release/memlint"
fi

ws="$BENCH_DIR/ws-$RECORDS"
if [ ! -f "$ws/CONTEXT.md" ]; then
    mkdir -p "$BENCH_DIR"
    python3 "$GEN" --out "$ws" --records "$RECORDS" --force >/dev/null
fi
for side in before off on; do
    rm -rf "$BENCH_DIR/$side"
    cp -al "$ws" "$BENCH_DIR/$side"
    rm -rf "$BENCH_DIR/$side/.memlint" "$BENCH_DIR/$side/.memlint.yml"
done
printf 'rules: {content/duplicate: off}\n' >"$BENCH_DIR/off/.memlint.yml"

# The record whose text changes before each warm run (in place: the copies
# share it), so that every warm run re-reads it and recomputes the pairs.
touched="$(cd "$ws" && ls knowledge/*.md | head -1)"
touch_one="printf '\nEdited.\n' >> '$ws/$touched'"
cp "$ws/$touched" "$BENCH_DIR/touched.orig"

check() { echo "$1" --root "$2" check --format json; }

: >"$BENCH_DIR/times"
python3 "$CRATE/benches/alternate.py" "$RUNS" \
    cold-before "rm -rf '$BENCH_DIR/before/.memlint'" $(check "$BEFORE" "$BENCH_DIR/before") :: \
    cold-off "rm -rf '$BENCH_DIR/off/.memlint'" $(check "$AFTER" "$BENCH_DIR/off") :: \
    cold-on "rm -rf '$BENCH_DIR/on/.memlint'" $(check "$AFTER" "$BENCH_DIR/on") \
    >>"$BENCH_DIR/times"
for side in before off on; do
    bin="$AFTER"
    [ "$side" = before ] && bin="$BEFORE"
    $(check "$bin" "$BENCH_DIR/$side") >/dev/null || true
done
python3 "$CRATE/benches/alternate.py" "$RUNS" \
    warm-before "$touch_one" $(check "$BEFORE" "$BENCH_DIR/before") :: \
    warm-off "$touch_one" $(check "$AFTER" "$BENCH_DIR/off") :: \
    warm-on "$touch_one" $(check "$AFTER" "$BENCH_DIR/on") \
    >>"$BENCH_DIR/times"

median() { awk -v n="$1" '$1 == n { t = $2 } END { print t }' "$BENCH_DIR/times"; }
ratio() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }
verdict() { python3 -c 'import sys; print("ok" if float(sys.argv[1]) <= float(sys.argv[2]) else "MISSED")' "$1" "$2"; }

echo "$RECORDS records, median of $RUNS (seconds):"
for kind in cold warm; do
    b="$(median "$kind-before")" f="$(median "$kind-off")" o="$(median "$kind-on")"
    r="$(ratio "$o" "$b")"
    limit=1.25
    [ "$kind" = warm ] && limit=1.1
    echo "  $kind: before $b, rule off $f, rule on $o; on/before $r (target <= $limit: $(verdict "$r" "$limit"))"
done
/usr/bin/time -f '  peak RSS of a cold check, rule on: %M KiB' \
    sh -c "rm -rf '$BENCH_DIR/on/.memlint'; $(check "$AFTER" "$BENCH_DIR/on") > '$BENCH_DIR/on.json'" 2>&1 | tail -1 || true
/usr/bin/time -f '  peak RSS of a cold check, before: %M KiB' \
    sh -c "rm -rf '$BENCH_DIR/before/.memlint'; $(check "$BEFORE" "$BENCH_DIR/before") > /dev/null" 2>&1 | tail -1 || true
python3 - "$BENCH_DIR/on.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
n = sum(1 for x in d["diagnostics"] if x["rule"] == "content/duplicate")
print(f"  content/duplicate findings: {n}")
EOF
# The edits of the touched record are undone (in place: the copies share it).
cat "$BENCH_DIR/touched.orig" >"$ws/$touched"

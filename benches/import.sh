#!/usr/bin/env bash
# What `memlint import` and `memlint export agents-md` cost.
#
#   import  10,000 generated basic-memory notes (front matter, observations,
#           [[relations]] to other notes, committed in one git commit so
#           the dates come from git history), imported into an empty
#           workspace with no .memlint/; against a cold `memlint check` of
#           the result (.memlint/ removed). Target: import <= 2x check.
#   export  `memlint export agents-md` on a copy of a 100k-record workspace
#           ($WS100K, default /tmp/ws100k; hard-linked copy), the index warm,
#           against `memlint context` on the same copy. Target: export <=
#           context. Timed twice: the first export (writes the block) and a
#           later one (block up to date).
#
# Each time is the median of $RUNS (default 5) runs.
#
#   benches/import.sh                      # builds the release binary
#   AFTER=target/release/memlint NOTES=2000 benches/import.sh

set -euo pipefail

CRATE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NOTES="${NOTES:-10000}"
RUNS="${RUNS:-5}"
WS100K="${WS100K:-/tmp/ws100k}"
BENCH_DIR="${BENCH_DIR:-${TMPDIR:-/tmp}/memlint-bench-import}"
if [ -z "${AFTER:-}" ]; then
    (cd "$CRATE" && cargo build --release --quiet)
    AFTER="${CARGO_TARGET_DIR:-$CRATE/target}/release/memlint"
fi
AFTER="$(cd "$(dirname "$AFTER")" && pwd)/$(basename "$AFTER")"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() { # seconds a command takes
    local t0 t1
    t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}

rm -rf "$BENCH_DIR"; mkdir -p "$BENCH_DIR"
SRC="$BENCH_DIR/src"
mkdir -p "$SRC/notes"
python3 - "$SRC/notes" "$NOTES" <<'EOF'
import sys, random
out, n = sys.argv[1], int(sys.argv[2])
random.seed(7)
words = "cache index queue retry lock shard replica schema token parser budget worker stream batch merge".split()
for i in range(n):
    title = f"Note {i} on {random.choice(words)} {random.choice(words)}"
    kind = "decision" if i % 10 == 0 else "note"
    rel = [f"Note {random.randrange(n)} on" for _ in range(2)]
    body = "\n".join(f"- [{random.choice(['fact','idea','risk'])}] {' '.join(random.choices(words, k=12))} #{random.choice(words)}" for _ in range(6))
    links = "\n".join(f"- relates_to [[{t}]]" for t in rel)
    with open(f"{out}/note-{i:05}.md", "w") as f:
        f.write(f"---\ntitle: {title}\ntype: {kind}\npermalink: notes/note-{i:05}\ntags:\n- {random.choice(words)}\n- bench\n---\n\n# {title}\n\n## Observations\n{body}\n\n## Relations\n{links}\n")
EOF
(cd "$SRC" && git init -q . && git add notes && git -c gc.auto=0 -c maintenance.auto=false -c user.name=b -c user.email=b@example.invalid commit -qm notes)

imports=(); checks=()
for r in $(seq "$RUNS"); do
    W="$BENCH_DIR/run$r"; rm -rf "$W"; cp -a "$SRC" "$W"
    (cd "$W" && "$AFTER" init >/dev/null 2>&1)
    rm -rf "$W/.memlint"
    imports+=("$(cd "$W" && seconds "$AFTER" import basic-memory notes)")
    rm -rf "$W/.memlint"
    checks+=("$(cd "$W" && seconds "$AFTER" check)")
done
written=$(cd "$BENCH_DIR/run1" && ls memory/decisions knowledge | grep -c '\.md$' || true)
imp=$(printf '%s\n' "${imports[@]}" | median)
chk=$(printf '%s\n' "${checks[@]}" | median)
echo "import of $NOTES basic-memory notes: ${imp}s (median of $RUNS), records written: $written"
echo "cold check of the result:           ${chk}s"
echo "ratio import/check: $(echo "$imp / $chk" | bc -l | cut -c1-5) (target <= 2)"

if [ ! -d "$WS100K" ]; then
    echo "no workspace at $WS100K; export not measured"
    exit 0
fi
E="$BENCH_DIR/ws100k"
cp -al "$WS100K" "$E"
rm -rf "$E/.memlint"
(cd "$E" && "$AFTER" context >/dev/null 2>&1 && "$AFTER" context >/dev/null 2>&1)
contexts=(); firsts=(); agains=()
for r in $(seq "$RUNS"); do
    rm -f "$E/AGENTS.md"
    contexts+=("$(cd "$E" && seconds "$AFTER" context)")
    firsts+=("$(cd "$E" && seconds "$AFTER" export agents-md)")
    agains+=("$(cd "$E" && seconds "$AFTER" export agents-md)")
done
ctx=$(printf '%s\n' "${contexts[@]}" | median)
first=$(printf '%s\n' "${firsts[@]}" | median)
again=$(printf '%s\n' "${agains[@]}" | median)
echo "context on 100k:              ${ctx}s"
echo "export agents-md (writes):    ${first}s"
echo "export agents-md (unchanged): ${again}s"

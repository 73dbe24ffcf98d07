#!/usr/bin/env bash
# Git-mode benchmark (SPEC §4 `check --staged`, `check --base`): on a
# generated 100k-record workspace with git history, stage 3 modified records
# and compare
#   memlint check --staged     with  git diff --cached --name-only  (≤ 3×)
#   memlint check --staged     with  a full memlint check           (≤ 0.1×)
#   memlint check --base HEAD~1 (3 records changed in the last commit)
#                              with  a full memlint check           (≤ 0.2×)
#
# Usage: benches/git.sh [RECORDS] (default 100000). Needs python3, git and
# ../shared/bench/gen_workspace.py beside the repository. Builds a release
# binary in $CARGO_TARGET_DIR (default /tmp/git-rel) and the workspace in
# $BENCH_DIR (default /tmp/memlint-bench-git-N); both are reused.
set -euo pipefail
cd "$(dirname "$0")/.."
records=${1:-100000}
gen=../shared/bench/gen_workspace.py
dir=${BENCH_DIR:-/tmp/memlint-bench-git-$records}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/git-rel}
cargo build --release --quiet
bin=$CARGO_TARGET_DIR/release/memlint

if [ ! -f "$dir/.bench-ready" ]; then
    python3 "$gen" --out "$dir" --records "$records" --git --force >/dev/null
    touch "$dir/.bench-ready"
    echo .bench-ready >>"$dir/.git/info/exclude"
fi
cd "$dir"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
# Start from the generated history: no staged or unstaged changes.
git reset -q --hard
base=$(git rev-parse HEAD)
if git log -1 --format=%s | grep -q '^bench:'; then
    git reset -q --hard HEAD~1
    base=$(git rev-parse HEAD)
fi

# Three records changed: a decision, a request and a knowledge record.
changed=()
for d in memory/decisions memory/requests knowledge; do
    changed+=("$(git ls-files "$d" | sed -n '100p')")
done
for f in "${changed[@]}"; do
    printf '\nA line added for the benchmark.\n' >>"$f"
done
git add "${changed[@]}"

# Best of N wall-clock seconds of a command (output discarded).
best() {
    local n=$1
    shift
    python3 - "$n" "$@" <<'PY'
import subprocess, sys, time
n = int(sys.argv[1]); cmd = sys.argv[2:]
best = None
for _ in range(n):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t
    best = dt if best is None else min(best, dt)
print(f"{best:.4f}")
PY
}

git diff --cached --name-only >/dev/null # warm the caches
diff_cached=$(best 7 git diff --cached --name-only)
staged=$(best 7 "$bin" check --staged)
full=$(best 3 "$bin" check)
git commit -q -m "bench: 3 records changed"
base_check=$(best 7 "$bin" check --base HEAD~1)
git reset -q --hard "$base"

ratio() { python3 -c "print(f'{$1 / $2:.3f}')"; }
echo "records:                         $records"
echo "git diff --cached --name-only:   ${diff_cached}s"
echo "memlint check --staged:          ${staged}s  ($(ratio "$staged" "$diff_cached")× git diff --cached; limit 3×)"
echo "memlint check (full):            ${full}s"
echo "  --staged / full:               $(ratio "$staged" "$full")  (limit 0.1)"
echo "memlint check --base HEAD~1:     ${base_check}s"
echo "  --base / full:                 $(ratio "$base_check" "$full")  (limit 0.2)"

#!/usr/bin/env python3
"""What `sources/drifted` and `content/duplicate` cost `memlint check`, as
the ratios their targets name, in one run:

  cold check (no .memlint/), both rules on / both off     target <= 1.25x
  warm check after one citing record's text changed, on / off   <= 1.1x
  `check --staged` (one cited file staged), this build / --before  <= 1.5x
  `check --base HEAD~10 --format json`, this build / --before      <= 1.5x

"on" and "off" are this build on two full copies of one workspace, "off"
with `rules: {content/duplicate: off, sources/drifted: off}`; --before is
another memlint (one built without the rules) on a third copy. The copies
are full copies, not hard links (linking shared inodes again changes their
ctime, and the git index stops vouching for the records), and each has
its git index refreshed first, as a checkout has.

Each round runs every side once, in an order that alternates between
rounds (the first run of a round is often the slower), after preparing it
(untimed); one warm-up round comes first. Per side, the median CPU time
(user + system, which other load on the machine barely moves) and the
median wall time; per ratio, the median of the rounds' ratios (a round's
runs met the same machine), CPU and wall. The workspace is
../shared/bench/gen_workspace.py --git and then benches/drift_sources.py
(records citing 200 source files, 2,000 commits changing them), made once
in --dir and reused.

    benches/drift.py                              # 100k records, 5 rounds
    benches/drift.py --records 10000 --rounds 9
    benches/drift.py --before /path/to/old/memlint --formats json,human
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

CRATE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OFF = "rules:\n  content/duplicate: off\n  sources/drifted: off\n"
GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")


def sh(args, cwd=None):
    subprocess.run(args, cwd=cwd, check=True, env=GIT_ENV,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def timed(command, cwd):
    """CPU seconds (user + system of the child) and wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def workspace(a):
    ws = os.path.join(a.dir, f"ws-{a.records}")
    if os.path.isfile(os.path.join(ws, ".bench-ready")):
        return ws
    gen = os.path.join(CRATE, "..", "shared", "bench", "gen_workspace.py")
    if not os.path.isfile(gen):
        print(f"no generator at {gen}; nothing measured")
        sys.exit(0)
    shutil.rmtree(ws, ignore_errors=True)
    os.makedirs(a.dir, exist_ok=True)
    sh([sys.executable, gen, "--out", ws, "--records", str(a.records), "--git", "--force"])
    sh([sys.executable, os.path.join(CRATE, "benches", "drift_sources.py"), "--root", ws])
    with open(os.path.join(ws, ".git", "info", "exclude"), "a") as f:
        f.write(".bench-ready\n.memlint.yml\n")
    open(os.path.join(ws, ".bench-ready"), "w").close()
    return ws


def copy(ws, dest, config=None):
    shutil.rmtree(dest, ignore_errors=True)
    sh(["cp", "-a", ws, dest])
    shutil.rmtree(os.path.join(dest, ".memlint"), ignore_errors=True)
    if config:
        with open(os.path.join(dest, ".memlint.yml"), "w") as f:
            f.write(config)
    # As in a checkout: the index vouches for the files it holds.
    sh(["git", "update-index", "-q", "--refresh"], cwd=dest)
    return dest


def citing_record(root):
    """The first decision that cites a file: the record each warm round
    edits."""
    d = os.path.join(root, "memory", "decisions")
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name)) as f:
            if "  - file:" in f.read():
                return os.path.join("memory", "decisions", name)
    sys.exit("no decision cites a file: was benches/drift_sources.py run?")


def append(root, rel):
    """Edits the record's text as an agent editing it does: one more line at
    the end of its body each time (so that the record never returns to its
    committed text, which would have it judged against the history again)."""
    with open(os.path.join(root, rel), "a") as f:
        f.write("Edited for the benchmark.\n")


def rounds(n, sides):
    """Times `sides` (name, prepare, command, cwd) in n alternated rounds
    after one warm-up round; the (cpu, wall) of each side per round."""
    out = {name: [] for name, _, _, _ in sides}
    for r in range(n + 1):
        order = sides if r % 2 == 0 else list(reversed(sides))
        for name, prepare, command, cwd in order:
            prepare()
            t = timed(command, cwd)
            if r > 0:
                out[name].append(t)
    return out


def report(label, times, a, b, target):
    (ca, wa), (cb, wb) = ([statistics.median(x[i] for x in times[s]) for i in (0, 1)] for s in (a, b))
    rc = statistics.median(x[0] / y[0] for x, y in zip(times[a], times[b]))
    rw = statistics.median(x[1] / y[1] for x, y in zip(times[a], times[b]))
    print(f"| {label} | {ca:.3f} / {cb:.3f} | {rc:.2f}x | {wa:.3f} / {wb:.3f} | {rw:.2f}x | {target} |",
          flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=100000)
    p.add_argument("--rounds", type=int, default=5, help="timed rounds (cold); warm runs twice as many")
    p.add_argument("--bin", help="the memlint to measure (default: cargo build --release)")
    p.add_argument("--before", help="a memlint built without the rules, for --staged and --base")
    p.add_argument("--formats", default="json,human", help="output formats of the cold and warm checks")
    p.add_argument("--dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "memlint-bench-drift"))
    a = p.parse_args()
    bin_ = a.bin
    if not bin_:
        sh(["cargo", "build", "--release", "--quiet"], cwd=CRATE)
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(CRATE, "target"))
        bin_ = os.path.join(target, "release", "memlint")
    bin_ = os.path.abspath(bin_)
    ws = workspace(a)
    on = copy(ws, os.path.join(a.dir, "on"))
    off = copy(ws, os.path.join(a.dir, "off"), OFF)
    record = citing_record(ws)
    print(f"memlint {bin_}, workspace {ws} ({a.records} records), {a.rounds} rounds")
    print("| run | CPU s, on / off | CPU ratio | wall s, on / off | wall ratio | target |")
    print("|---|---|---|---|---|---|")
    for fmt in a.formats.split(","):
        check = [bin_, "check", "--format", fmt]
        cold = lambda d: lambda: shutil.rmtree(os.path.join(d, ".memlint"), ignore_errors=True)
        t = rounds(a.rounds, [("on", cold(on), check, on), ("off", cold(off), check, off)])
        report(f"cold check, {fmt}", t, "on", "off", "<= 1.25x")
        warm = lambda d: lambda: append(d, record)
        t = rounds(2 * a.rounds, [("on", warm(on), check, on), ("off", warm(off), check, off)])
        report(f"warm check after editing `{record}`, {fmt}", t, "on", "off", "<= 1.1x")
    if a.before:
        before = copy(ws, os.path.join(a.dir, "before"))
        old = os.path.abspath(a.before)
        for d, b in ((on, bin_), (before, old)):
            subprocess.run([b, "check", "--format", "json"], cwd=d, check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(os.path.join(d, "src", "mod0000.rs"), "a") as f:
                f.write("fn staged_for_the_benchmark() {}\n")
            sh(["git", "add", "src/mod0000.rs"], cwd=d)
        staged = ["check", "--staged", "--format", "json"]
        nothing = lambda: None
        t = rounds(2 * a.rounds, [("new", nothing, [bin_, *staged], on),
                                  ("before", nothing, [old, *staged], before)])
        report("`check --staged`, one cited file staged (this build / before)", t, "new", "before", "<= 1.5x")
        base = ["check", "--base", "HEAD~10", "--format", "json"]
        t = rounds(2 * a.rounds, [("new", nothing, [bin_, *base], on),
                                  ("before", nothing, [old, *base], before)])
        report("`check --base HEAD~10` (this build / before)", t, "new", "before", "<= 1.5x")
        for d in (on, before):
            sh(["git", "reset", "-q", "--hard"], cwd=d)


if __name__ == "__main__":
    main()

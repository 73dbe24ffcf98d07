#!/usr/bin/env python3
"""How long `memlint new` takes on a large workspace, beside a process floor (`true`) timed in the
same run.

usage: new_timing.py MEMLINT WORKSPACE [RUNS]

WORKSPACE is changed (records are added to it, `.memlint/`): pass a copy. The index is built
first; then RUNS times each (default 15, interleaved so that a busy machine slows all alike):
  - `true`
  - `memlint new decision TITLE --source file:CONTEXT.md --body-file -` with a title and body of
    random words (written)
  - the same title again under another slug (refused: a record says nearly the same)
Prints the medians; the target is at most 150 ms on 100k records."""
import os, secrets, statistics, subprocess, sys, time

memlint, ws = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 15


def words(n):
    return " ".join("q" + secrets.token_hex(4) for _ in range(n))


def timed(argv, stdin=None, want=None):
    t = time.perf_counter()
    r = subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ws)
    ms = (time.perf_counter() - t) * 1000
    if want is not None and r.returncode != want:
        sys.exit(f"{argv}: exit {r.returncode}, wanted {want}: {r.stderr.decode(errors='replace')}")
    return ms


subprocess.run([memlint, 'index', '--root', ws], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
times = {'true': [], 'new (written)': [], 'new (refused)': []}
for i in range(runs):
    title, body = words(4), (words(40) + "\n").encode()
    times['true'].append(timed(['true']))
    new = [memlint, 'new', 'decision', title, '--source', 'file:CONTEXT.md', '--body-file', '-',
           '--root', ws]
    times['new (written)'].append(timed(new, body, want=0))
    times['new (refused)'].append(timed(new + ['--slug', 'z' + secrets.token_hex(8)], body))
med = {k: statistics.median(v) for k, v in times.items()}
print(f"-- {runs} runs each, medians")
for k, v in med.items():
    print(f"{k:14s} {v:8.1f} ms   {v / med['true']:6.1f}x true")
print(f"new: {med['new (written)']:.1f} ms {'ok' if med['new (written)'] <= 150 else 'MISS'} (target 150 ms)")

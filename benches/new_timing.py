#!/usr/bin/env python3
"""How long `memlint new` takes on a large workspace, beside a process floor (`true`) timed in the
same run.

usage: new_timing.py [--watch] MEMLINT WORKSPACE [RUNS] [MEMLINT2 WORKSPACE2 ...]

WORKSPACE is changed (records are added to it, `.memlint/`): pass a copy, and a copy of its own
for each further MEMLINT (to compare builds: "before" and "after"). Each index is built first
(and, with --watch, a watcher started in each workspace); then RUNS times each (default 15,
interleaved, the builds alternating within each round, so that a busy machine slows all alike):
  - `true`
  - `memlint new decision TITLE --source file:CONTEXT.md --body-file -` with a title and body of
    random words (written)
  - the same title again under another slug (refused: a record says nearly the same)
Prints the medians of the wall time and of the CPU time (user + system, of the process and its
children); the target is at most 150 ms on 100k records."""
import os, resource, secrets, statistics, subprocess, sys, time

args = sys.argv[1:]
watch = '--watch' in args
args = [a for a in args if a != '--watch']
if len(args) < 2:
    sys.exit(__doc__)
runs = 15
pairs = []
rest = list(args)
while rest:
    if len(rest) >= 2 and not rest[0].isdigit():
        pairs.append((os.path.abspath(rest[0]), os.path.abspath(rest[1])))
        rest = rest[2:]
    else:
        runs = int(rest[0])
        rest = rest[1:]


def words(n):
    return " ".join("q" + secrets.token_hex(4) for _ in range(n))


def run(argv, cwd, stdin=None, want=None):
    """(wall ms, CPU ms) of one run; the CPU time is what the children reaped meanwhile used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, cwd=cwd)
    _, err = p.communicate(stdin)
    wall = (time.perf_counter() - t) * 1000
    code = p.returncode
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000
    if want is not None and code != want:
        sys.exit(f"{argv}: exit {code}, wanted {want}: {err.decode(errors='replace')}")
    return wall, cpu


names = ['true'] + [f'{kind} #{i + 1}' if len(pairs) > 1 else kind
                    for i in range(len(pairs)) for kind in ('new (written)', 'new (refused)')]
for memlint, ws in pairs:
    subprocess.run([memlint, 'index', '--root', ws], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    if watch:
        subprocess.run([memlint, 'watch', 'start', '--root', ws], stdout=subprocess.DEVNULL)
if watch:
    time.sleep(1)
walls = {k: [] for k in names}
cpus = {k: [] for k in names}
try:
    for i in range(runs):
        title, body = words(4), (words(40) + "\n").encode()
        w, c = run(['true'], '/')
        walls['true'].append(w)
        cpus['true'].append(c)
        for j, (memlint, ws) in enumerate(pairs):
            tag = f' #{j + 1}' if len(pairs) > 1 else ''
            new = [memlint, 'new', 'decision', title, '--source', 'file:CONTEXT.md',
                   '--body-file', '-', '--root', ws]
            w, c = run(new, ws, body, want=0)
            walls['new (written)' + tag].append(w)
            cpus['new (written)' + tag].append(c)
            w, c = run(new + ['--slug', 'z' + secrets.token_hex(8)], ws, body, want=1)
            walls['new (refused)' + tag].append(w)
            cpus['new (refused)' + tag].append(c)
finally:
    if watch:
        for memlint, ws in pairs:
            subprocess.run([memlint, 'watch', 'stop', '--root', ws], stdout=subprocess.DEVNULL)
wall = {k: statistics.median(v) for k, v in walls.items()}
cpu = {k: statistics.median(v) for k, v in cpus.items()}
print(f"-- {runs} runs each, medians{' (a watcher running)' if watch else ''}")
for j, (memlint, ws) in enumerate(pairs):
    if len(pairs) > 1:
        print(f"#{j + 1}: {memlint} on {ws}")
print(f"{'':18s} {'wall':>9s} {'':9s} {'CPU':>9s}")
for k in names:
    print(f"{k:18s} {wall[k]:7.1f} ms {wall[k] / wall['true']:6.1f}x  {cpu[k]:7.1f} ms")
for j in range(len(pairs)):
    tag = f' #{j + 1}' if len(pairs) > 1 else ''
    k = 'new (written)' + tag
    print(f"new{tag}: wall {wall[k]:.1f} ms, CPU {cpu[k]:.1f} ms: "
          f"{'ok' if cpu[k] <= 150 else 'MISS'} (target 150 ms)")

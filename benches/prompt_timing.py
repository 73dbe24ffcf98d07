#!/usr/bin/env python3
"""How long the prompt hook takes, as the runtime waits for it, beside a warm `memlint search` and
a process floor (`true`) timed in the same run.

usage: prompt_timing.py MEMLINT WORKSPACE [RUNS]

WORKSPACE is changed (`.memlint/`): pass a copy. The index is built first (as the session-start
hook builds it); then, without and with `memlint watch` running, RUNS times each (default 30,
interleaved so that a busy machine slows all alike):
  - `true`
  - `memlint search QUERY --limit 10` (warm)
  - `memlint hook prompt` with a UserPromptSubmit JSON on standard input (a new session each
    time, so that it injects every time)
Prints the medians and the ratios; the hook's target is at most the warm search, and at most
20 ms with the watcher running."""
import json, os, statistics, subprocess, sys, time

memlint, ws = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 30
QUERIES = ["how do we retry failed payment webhooks", "which database index speeds up the search",
           "why did we choose gix over libgit2", "release checklist for the cli"]


def timed(argv, stdin=None):
    t = time.perf_counter()
    subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ws)
    return (time.perf_counter() - t) * 1000


def measure(label):
    times = {'true': [], 'search': [], 'hook prompt': []}
    for i in range(runs):
        q = QUERIES[i % len(QUERIES)]
        times['true'].append(timed(['true']))
        times['search'].append(timed([memlint, 'search', q, '--limit', '10', '--root', ws]))
        payload = json.dumps({'session_id': f'bench-{label}-{i}', 'hook_event_name': 'UserPromptSubmit',
                              'cwd': ws, 'prompt': q}).encode()
        times['hook prompt'].append(timed([memlint, 'hook', 'prompt'], payload))
    med = {k: statistics.median(v) for k, v in times.items()}
    floor = med['true']
    print(f"-- {label} ({runs} runs each, medians)")
    for k, v in med.items():
        print(f"{k:12s} {v:8.1f} ms   {v / floor:6.1f}x true")
    ok = med['hook prompt'] <= med['search']
    print(f"hook prompt vs warm search: {med['hook prompt'] / med['search']:.2f}x {'ok' if ok else 'MISS'}")
    return med


subprocess.run([memlint, 'index', '--root', ws], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
subprocess.run([memlint, 'search', 'warm', '--root', ws], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
measure('no watcher')
subprocess.run([memlint, 'watch', 'start', '--root', ws], stdout=subprocess.DEVNULL)
time.sleep(1)
try:
    med = measure('watcher running')
    print(f"hook prompt with the watcher: {med['hook prompt']:.1f} ms {'ok' if med['hook prompt'] <= 20 else 'MISS'} (target 20 ms)")
finally:
    subprocess.run([memlint, 'watch', 'stop', '--root', ws], stdout=subprocess.DEVNULL)

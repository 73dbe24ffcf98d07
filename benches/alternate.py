#!/usr/bin/env python3
"""Times several commands in alternation and prints the median of each.

    alternate.py RUNS NAME PREPARE COMMAND... [:: NAME PREPARE COMMAND...]...

Each round runs every command once, in the order given, after its PREPARE
shell command (untimed; may be empty); one warm-up round comes first and is
not counted. Prints one line per command: NAME MEDIAN_SECONDS, then the
seconds of each round in order (so that callers can pair the runs of one
round).

Compared commands are timed in alternation, not one series after the other:
on a shared machine whose speed drifts over seconds, a ratio of two medians
then compares runs made under the same conditions.
"""

import statistics
import subprocess
import sys
import time


def parse(args):
    groups, current = [], []
    for arg in args:
        if arg == "::":
            groups.append(current)
            current = []
        else:
            current.append(arg)
    groups.append(current)
    out = []
    for g in groups:
        if len(g) < 3:
            sys.exit("alternate.py: each group needs NAME PREPARE COMMAND...")
        out.append((g[0], g[1], g[2:]))
    return out


def once(prepare, command):
    if prepare:
        subprocess.run(prepare, shell=True, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    start = time.perf_counter()
    subprocess.run(command, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    groups = parse(sys.argv[2:])
    times = {name: [] for name, _, _ in groups}
    for round_ in range(runs + 1):
        for name, prepare, command in groups:
            t = once(prepare, command)
            if round_ > 0:
                times[name].append(t)
    for name, _, _ in groups:
        rounds = " ".join("%.4f" % t for t in times[name])
        print(name, "%.4f" % statistics.median(times[name]), rounds)


if __name__ == "__main__":
    main()

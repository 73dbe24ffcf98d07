#!/usr/bin/env python3
"""What `sources/drifted` costs a cold `check` in a history of pull requests
merged into main (merge commits, records written in as many of them), the
shape most repositories on GitHub have, against the same changes applied
one after the other without merges:

  cold check (no .memlint/), this build (and --before), CPU and wall

The workspace: 200 source files of 60 lines; --prs pull requests, each
1-3 commits changing a few lines of a few files, a third of them writing
a decision citing a file (whole or a range of lines), in every pull
request or only in the last tenth (memory kept since lately); one in five
branched from main a few merges back; each merged with a merge commit
(or, in the linear twin, committed on main). Dates follow the order of
the commits. Made once with `git fast-import` in --dir and reused.

    benches/drift_merges.py
    benches/drift_merges.py --prs 3000 --before /path/to/old/memlint
"""

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import time

CRATE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORDS = ("alpha beta gamma delta cache queue worker index shard lock token retry "
         "backoff batch stream parser lexer buffer socket thread pool arena page").split()


def stream(prs, merges, adopted, seed=7):
    """The fast-import stream of the history, and how many records it writes."""
    rnd = random.Random(seed)
    files = [f"src/mod{i:03}.rs" for i in range(200)]
    out = []
    mark = [0]
    clock = [1_700_000_000]

    def data(text):
        raw = text.encode()
        out.append(b"data %d\n" % len(raw) + raw + b"\n")

    def commit(ref, parents, changed, message):
        mark[0] += 1
        clock[0] += 60
        out.append(f"commit {ref}\nmark :{mark[0]}\ncommitter bench <bench@example.com> {clock[0]} +0000\n".encode())
        data(message)
        if parents:
            out.append(f"from :{parents[0]}\n".encode())
            out.extend(f"merge :{p}\n".encode() for p in parents[1:])
        for path, text in changed.items():
            out.append(f"M 100644 inline {path}\n".encode())
            data(text)
        out.append(b"\n")
        return mark[0]

    def text(lines):
        return "\n".join(lines) + "\n"

    state = {f: [f"fn line_{j}() {{}}" for j in range(60)] for f in files}
    main = commit("refs/heads/main", [], {f: text(l) for f, l in state.items()}, "Start")
    tips = [(main, state)]
    records = 0
    for pr in range(prs):
        base_mark, base = tips[max(0, len(tips) - 1 - rnd.choice([0] * 8 + [1, 3]))]
        branch = {f: list(l) for f, l in base.items()}
        lines_changed = {}
        tip = base_mark
        written = {}
        for c in range(rnd.randint(1, 3)):
            changed = {}
            for _ in range(rnd.randint(1, 3)):
                f, j = rnd.choice(files), rnd.randrange(60)
                branch[f][j] = f"fn line_{j}() {{ /* {pr}.{c} */ }}"
                lines_changed.setdefault(f, set()).add(j)
                changed[f] = text(branch[f])
            if rnd.random() < 0.35 and pr >= adopted:
                f = rnd.choice(files)
                start = rnd.randrange(50)
                cite = f"file:{f}#L{start + 1}-L{start + 5}" if rnd.random() < 0.5 else f"file:{f}"
                path = f"memory/decisions/pr-{records:05}.md"
                records += 1
                body = " ".join(rnd.choice(WORDS) for _ in range(40))
                changed[path] = (f"---\ntitle: Decision {records}\nstatus: active\ndate: 2026-01-01\n"
                                 f"sources:\n  - {cite}\n---\n\n{body} {path}\n")
                written[path] = changed[path]
            if merges:
                tip = commit(f"refs/heads/pr{pr}", [tip], changed, f"Change {pr}.{c}")
            else:
                last_mark, last = tips[-1]
                now = {f: list(l) for f, l in last.items()}
                for f in changed:
                    for j in lines_changed.get(f, ()):
                        now[f][j] = branch[f][j]
                on_main = {f: text(now[f]) if f in now else changed[f] for f in changed}
                tips.append((commit("refs/heads/main", [last_mark], on_main, f"Change {pr}.{c}"), now))
        if merges:
            last_mark, last = tips[-1]
            now = {f: list(l) for f, l in last.items()}
            merged = {}
            for f, js in lines_changed.items():
                for j in js:
                    now[f][j] = branch[f][j]
                merged[f] = text(now[f])
            merged.update(written)
            tips.append((commit("refs/heads/main", [last_mark, tip], merged, f"Merge pull request #{pr}"), now))
            out.append(f"reset refs/heads/pr{pr}\nfrom 0000000000000000000000000000000000000000\n\n".encode())
    return b"".join(out), records


def workspace(directory, prs, merges, adopted):
    ws = os.path.join(directory, f"{'merges' if merges else 'linear'}-{prs}-{adopted}")
    if os.path.isfile(os.path.join(ws, ".bench-ready")):
        return ws
    subprocess.run(["rm", "-rf", ws], check=True)
    subprocess.run(["git", "init", "-q", "-b", "main", ws], check=True)
    data, records = stream(prs, merges, adopted)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=ws, input=data, check=True)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=ws, check=True)
    with open(os.path.join(ws, ".git", "info", "exclude"), "a") as f:
        f.write(".bench-ready\n")
    open(os.path.join(ws, ".bench-ready"), "w").close()
    commits = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=ws, check=True,
                             capture_output=True, text=True).stdout.strip()
    print(f"{ws}: {commits} commits, {records} records")
    return ws


def cold(binary, ws):
    subprocess.run(["rm", "-rf", os.path.join(ws, ".memlint")], check=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([binary, "check", "--format", "json"], cwd=ws, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default=os.path.join(CRATE, "target", "release", "memlint"))
    p.add_argument("--before", help="another memlint to time on the same workspaces")
    p.add_argument("--prs", type=int, default=1500)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--dir", default=os.path.join(CRATE, "target", "bench-drift-merges"))
    a = p.parse_args()
    if not os.path.isfile(a.bin):
        sys.exit(f"no memlint at {a.bin}: cargo build --release first")
    builds = [("this build", a.bin)] + ([("before", a.before)] if a.before else [])
    print("| history | records written | build | cold CPU (s) | cold wall (s) |")
    print("|---|---|---|---|---|")
    # Records in pull requests from the first on, and from the last tenth
    # on (memory kept since lately in an old repository).
    for adopted, written in ((0, "throughout"), (a.prs * 9 // 10, "in the last tenth")):
        for merges in (True, False):
            ws = workspace(a.dir, a.prs, merges, adopted)
            for name, binary in builds:
                runs = [cold(binary, ws) for _ in range(a.rounds)]
                cpu = statistics.median(r[0] for r in runs)
                wall = statistics.median(r[1] for r in runs)
                history = "merges" if merges else "linear"
                print(f"| {history} | {written} | {name} | {cpu:.3f} | {wall:.3f} |")


if __name__ == "__main__":
    main()

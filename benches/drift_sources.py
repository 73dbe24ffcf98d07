#!/usr/bin/env python3
"""Adds cited source files and a history that changes them to a workspace
made by ../shared/bench/gen_workspace.py --git, for measuring
`sources/drifted` (docs/benchmarks.md).

Every tenth decision, request or knowledge record gets a `file:` source (a
whole file or a line range) on one of --files source files under src/; the
records and files are committed, then --commits commits (2,000 by default:
"a few thousand commits changing them", as issue 45 asks) each rewrite a
line of a few source files. Deterministic for a given workspace (but for
the commits' dates). The commits are made with git's plumbing (the changed
files hashed, the tree written, the commit made): `git commit -a` would
look at all 65k files of the workspace 2,000 times.
"""
import argparse
import os
import random
import re
import subprocess


ENV = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")


def git(root, *args):
    subprocess.run(["git", *args], cwd=root, check=True, env=ENV, stdout=subprocess.DEVNULL)


def out(root, *args):
    return subprocess.run(["git", *args], cwd=root, check=True, env=ENV,
                          stdout=subprocess.PIPE, text=True).stdout.strip()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", required=True, help="a workspace made with gen_workspace.py --git")
    p.add_argument("--files", type=int, default=200, help="source files to create (default 200)")
    p.add_argument("--commits", type=int, default=2000, help="commits changing them (default 2000)")
    p.add_argument("--seed", default="1")
    a = p.parse_args()
    rnd = random.Random(a.seed)
    src = os.path.join(a.root, "src")
    os.makedirs(src, exist_ok=True)
    names = [f"src/mod{i:04}.rs" for i in range(a.files)]
    for n in names:
        with open(os.path.join(a.root, n), "w") as f:
            f.write("".join(f"fn line_{j}() {{}}\n" for j in range(60)))
    records = []
    for d in ("memory/decisions", "memory/requests", "knowledge"):
        full = os.path.join(a.root, d)
        if os.path.isdir(full):
            records += sorted(os.path.join(full, x) for x in os.listdir(full) if x.endswith(".md"))
    cited = 0
    for i, path in enumerate(records):
        if i % 10:
            continue
        with open(path) as f:
            text = f.read()
        n = rnd.choice(names)
        first = rnd.randint(1, 50)
        source = f"file:{n}" if rnd.random() < 0.5 else f"file:{n}#L{first}-L{first + 5}"
        new, k = re.subn(r"^sources:\n", f"sources:\n  - {source}\n", text, count=1, flags=re.M)
        if k:
            with open(path, "w") as f:
                f.write(new)
            cited += 1
    git(a.root, "add", "-A")
    git(a.root, "commit", "-q", "-m", "Cite source files")
    for c in range(a.commits):
        changed = rnd.sample(names, max(1, a.files // 20))
        for n in changed:
            full = os.path.join(a.root, n)
            with open(full) as f:
                lines = f.readlines()
            j = rnd.randrange(len(lines))
            lines[j] = f"fn changed_{c}_{j}() {{}}\n"
            with open(full, "w") as f:
                f.writelines(lines)
        git(a.root, "update-index", "--", *changed)
        tree = out(a.root, "write-tree")
        commit = out(a.root, "commit-tree", tree, "-p", "HEAD", "-m", f"Change sources {c}")
        git(a.root, "update-ref", "HEAD", commit)
    print(f"{cited} records cite one of {a.files} files; {a.commits} commits changed them")


if __name__ == "__main__":
    main()

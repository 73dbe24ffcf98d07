#!/usr/bin/env python3
"""recall@5 and recall@10 of `memlint search` per LoCoMo question category
(1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop), on the same
workspaces as ../shared/recall/eval.py builds: one knowledge record per
dialogue turn (title: speaker and date; body: the turn and an image caption).

usage: recall_categories.py MEMLINT DATA_GZ"""
import gzip, json, os, re, shutil, subprocess, sys, tempfile
import concurrent.futures as cf

memlint, data = sys.argv[1], sys.argv[2]
NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def slug(did):
    s, t = did[1:].split(":")
    return f"d{int(s)}-{int(t)}"


def quoted(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def build(ws, conv):
    os.makedirs(os.path.join(ws, "knowledge"))
    c = conv["conversation"]
    for key, turns in c.items():
        if not key.startswith("session_") or not isinstance(turns, list):
            continue
        date = c.get(key + "_date_time", "")
        for t in turns:
            text = t["text"] + (f" [shares an image: {t['blip_caption']}]" if t.get("blip_caption") else "")
            with open(os.path.join(ws, "knowledge", slug(t["dia_id"]) + ".md"), "w", encoding="utf-8") as f:
                f.write(f"---\ntitle: {quoted((t['speaker'] + ', ' + date)[:120])}\n"
                        f"description: {quoted('Turn ' + t['dia_id'])}\nmodel_invocation: false\n"
                        f"date: 2023-01-01\nsources:\n  - https://example.org/locomo\n---\n\n{text}\n")


def ask(ws, question):
    r = subprocess.run([memlint, "search", question, "--limit", "10", "--format", "json", "--root", ws],
                       capture_output=True, text=True, timeout=60)
    return [os.path.basename(x["path"])[:-3] for x in json.loads(r.stdout)["results"]]


tot = {}
tmp = tempfile.mkdtemp(prefix="memlint-recall-cat-")
for ci, conv in enumerate(json.load(gzip.open(data))):
    ws = os.path.join(tmp, f"c{ci}")
    build(ws, conv)
    ids = {os.path.basename(p)[:-3] for p in os.listdir(os.path.join(ws, "knowledge"))}
    qa = [q for q in conv["qa"] if q.get("category") in NAMES and q.get("evidence")
          and all(re.fullmatch(r"D\d+:\d+", e) and slug(e) in ids for e in q["evidence"])]
    subprocess.run([memlint, "index", "--root", ws], capture_output=True)
    with cf.ThreadPoolExecutor(4) as ex:
        ranked = list(ex.map(lambda q: ask(ws, q["question"]), qa))
    for q, r in zip(qa, ranked):
        gold = [slug(e) for e in q["evidence"]]
        n, r5, r10 = tot.get(q["category"], (0, 0.0, 0.0))
        tot[q["category"]] = (n + 1, r5 + sum(g in r[:5] for g in gold) / len(gold),
                              r10 + sum(g in r[:10] for g in gold) / len(gold))
    shutil.rmtree(ws, ignore_errors=True)
shutil.rmtree(tmp, ignore_errors=True)
for cat in sorted(tot):
    n, r5, r10 = tot[cat]
    print(f"category {cat} {NAMES[cat]:12s} {n:4d} questions  recall@5 {100 * r5 / n:5.1f}%  recall@10 {100 * r10 / n:5.1f}%")

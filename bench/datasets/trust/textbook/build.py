#!/usr/bin/env python3
"""Rebuild chunks.json and questions.jsonl for the blind textbook QA set.

Pure standard library. Usage:  python3 build.py
- book_text.py      : the textbook text (6 chapters, pre-chunked, page numbers)
- questions_src.py  : the questions (kind, question, facts, wrong_facts, source, history, covers_instead)
The dev/test split is stratified by kind with a fixed seed (SEED below).
The script also runs consistency checks and exits non-zero if one fails.
"""
import json
import os
import random
import re
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import book_text  # noqa: E402
import questions_src  # noqa: E402

SEED = 20241127
DEV_FRACTION = 0.4

# Topics the book deliberately does NOT cover (near-miss gaps). None may appear in the corpus.
FORBIDDEN = [
    r"ros1_bridge", r"\bbridge\b", r"Galactic", r"Foxy", r"Rolling", r"Kilted", r"deadline", r"lifespan",
    r"liveliness", r"\bbag\b", r"ros2 bag", r"YAML launch", r"launch\.yaml", r"composable", r"container",
    r"\bSDF\b", r"legged", r"quadruped", r"Cartographer", r"Windows", r"micro-ROS", r"ESP32", r"Zenoh",
    r"keepout", r"costmap filter", r"robot_localization", r"\bEKF\b", r"SROS", r"encrypt", r"security",
    r"Gazebo", r"depth camera on Pipit", r"z_resolution", r"charging time", r"hours to charge",
]

# Abbreviations: the long form must be defined exactly once, as "Long Form (ABBR)".
ABBREVIATIONS = {
    "ROS": "Robot Operating System",
    "LTS": "Long-Term Support",
    "RMW": "ROS Middleware interface",
    "DDS": "Data Distribution Service",
    "IMU": "Inertial Measurement Unit",
    "QoS": "Quality of Service",
    "URDF": "Unified Robot Description Format",
    "SLAM": "Simultaneous Localization and Mapping",
    "AMCL": "Adaptive Monte Carlo Localization",
    "RPP": "Regulated Pure Pursuit",
    "MPPI": "Model Predictive Path Integral",
    "BT": "Behavior Tree",
}


def build_chunks():
    counters = defaultdict(int)
    chunks = []
    for ch, section, page, text in book_text.CHUNKS:
        counters[ch] += 1
        chunks.append({
            "id": "chapter-%02d-chunk-%03d" % (ch, counters[ch]),
            "content": text,
            "metadata": {"chapter": book_text.CHAPTER_TITLES[ch], "section": section, "page": page},
        })
    return chunks


def assign_splits(questions):
    by_kind = defaultdict(list)
    for qq in questions:
        by_kind[qq["kind"]].append(qq["id"])
    rng = random.Random(SEED)
    dev = set()
    for kind in sorted(by_kind):
        ids = sorted(by_kind[kind])
        rng.shuffle(ids)
        n_dev = round(DEV_FRACTION * len(ids))
        dev.update(ids[:n_dev])
    for qq in questions:
        qq["split"] = "dev" if qq["id"] in dev else "test"


def build_questions():
    out = []
    for i, src in enumerate(questions_src.Q, 1):
        out.append({
            "id": "textbook-%03d" % i,
            "split": None,
            "kind": src["kind"],
            "question": src["question"],
            "facts": src["facts"],
            "wrong_facts": src["wrong_facts"],
            "source": src["source"],
            "history": src["history"],
            "covers_instead": src["covers_instead"],
        })
    assign_splits(out)
    return out


def check(chunks, questions):
    errors, warnings = [], []
    by_id = {c["id"]: c for c in chunks}
    corpus = "\n".join(c["content"] for c in chunks)
    low_corpus = corpus.lower()

    # chunk shape
    pages = [c["metadata"]["page"] for c in chunks]
    if pages != sorted(pages):
        errors.append("page numbers not non-decreasing")
    per_ch = Counter(c["metadata"]["chapter"] for c in chunks)
    for ch, n in per_ch.items():
        if not 12 <= n <= 16:
            errors.append("chapter %s has %d chunks" % (ch, n))
    for c in chunks:
        n = len(c["content"].split())
        if not 120 <= n <= 300:
            errors.append("%s has %d words" % (c["id"], n))

    # gaps really are gaps
    for pat in FORBIDDEN:
        m = re.search(pat, corpus, flags=re.I if pat[0].islower() else 0)
        if m:
            errors.append("forbidden gap term %r found: ...%s..." % (pat, corpus[max(0, m.start() - 40):m.end() + 40]))

    # abbreviations defined once, long form used once
    for abbr, long_form in ABBREVIATIONS.items():
        defs = corpus.count("%s (%s" % (long_form, abbr))
        longs = len(re.findall(re.escape(long_form), corpus, flags=re.I))
        if defs != 1:
            errors.append("abbreviation %s defined %d times" % (abbr, defs))
        if longs != 1:
            errors.append("long form %r used %d times" % (long_form, longs))

    # questions
    kinds = Counter(q["kind"] for q in questions)
    for qq in questions:
        k, qid = qq["kind"], qq["id"]
        if k in ("near-miss", "off-topic"):
            if qq["facts"] or qq["source"] is not None:
                errors.append("%s: %s must have no facts/source" % (qid, k))
            if k == "near-miss" and not qq["covers_instead"]:
                errors.append("%s: near-miss without covers_instead" % qid)
            continue
        if qq["source"] not in by_id:
            errors.append("%s: unknown source %r" % (qid, qq["source"]))
            continue
        if not qq["facts"]:
            errors.append("%s: no facts" % qid)
            continue
        text = by_id[qq["source"]]["content"].lower()
        if qq["facts"][0].lower() not in text:
            errors.append("%s: first fact %r not in source %s" % (qid, qq["facts"][0], qq["source"]))
        for f in qq["facts"][1:]:
            if f.lower() not in text:
                warnings.append("%s: variant %r not verbatim in source %s" % (qid, f, qq["source"]))
        if k == "follow-up" and len(qq["history"]) != 1:
            errors.append("%s: follow-up needs one history item" % qid)
        if k != "follow-up" and qq["history"]:
            errors.append("%s: history on non-follow-up" % qid)
        for w in qq["wrong_facts"]:
            if w.lower() not in low_corpus:
                errors.append("%s: wrong fact %r not in corpus" % (qid, w))
            for f in qq["facts"]:
                if w.lower() in f.lower():
                    errors.append("%s: wrong fact %r is contained in right fact %r" % (qid, w, f))
                if f.lower() in w.lower():
                    warnings.append("%s: right fact %r is contained in wrong fact %r" % (qid, f, w))
    for qq in questions:
        if qq["kind"] == "near-miss":
            for w in qq["wrong_facts"]:
                if w.lower() not in low_corpus:
                    warnings.append("%s: near-miss wrong fact %r not in corpus" % (qq["id"], w))
    return errors, warnings, kinds


def main():
    chunks = build_chunks()
    questions = build_questions()
    errors, warnings, kinds = check(chunks, questions)
    with open(os.path.join(HERE, "chunks.json"), "w", encoding="utf-8") as fh:
        json.dump(chunks, fh, ensure_ascii=False, indent=2)
        fh.write("\n")
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for qq in questions:
            fh.write(json.dumps(qq, ensure_ascii=False) + "\n")
    table = Counter((q["kind"], q["split"]) for q in questions)
    print("chunks: %d   questions: %d" % (len(chunks), len(questions)))
    for k in sorted(kinds):
        print("  %-13s total %3d  dev %3d  test %3d" % (k, kinds[k], table[(k, "dev")], table[(k, "test")]))
    print("  %-13s total %3d  dev %3d  test %3d" % ("ALL", len(questions),
          sum(1 for q in questions if q["split"] == "dev"), sum(1 for q in questions if q["split"] == "test")))
    for w in warnings:
        print("WARN", w)
    for e in errors:
        print("ERROR", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Rebuild corpus.jsonl for the entity-records retrieval set, and (from the
hand-written queries_written.jsonl) queries.jsonl and qrels/{train,test}.tsv.

Records:
  deb:<package>  installed Debian packages: name, one-line summary and the first
                 paragraph of the long description (dpkg-query).
  py:<name>      installed Python distributions (the project venv, then the
                 pyenv interpreter's site-packages; first occurrence of a name
                 wins): name, Summary, Keywords and Topic/Framework/Environment/
                 Intended Audience classifiers from METADATA.
Text is cut to at most MAX_WORDS words.  The package "ragline" is excluded.
"""
import email.parser, glob, json, os, random, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261127
MAX_WORDS = 80
SITES = [os.environ.get("SITE", "/work/main/.venv/lib/python3.11/site-packages")] + \
    sorted(glob.glob("/root/.pyenv/versions/*/lib/python3*/site-packages"))
EXCLUDE = {"ragline"}


def cut(text, n=MAX_WORDS):
    w = text.split()
    return " ".join(w[:n]) + (" ..." if len(w) > n else "")


def debian_records():
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\x1f${Description}\x1e"],
                         capture_output=True, text=True, check=True).stdout
    recs = {}
    for item in out.split("\x1e"):
        if "\x1f" not in item:
            continue
        pkg, desc = item.split("\x1f", 1)
        pkg = pkg.strip()
        lines = desc.split("\n")
        summary = lines[0].strip()
        para = []
        for ln in lines[1:]:
            s = ln.strip()
            if s == "." or not s:
                if para:
                    break
                continue
            para.append(s)
        text = f"{pkg}: {summary}." + (" " + " ".join(para) if para else "")
        recs[pkg] = {"_id": f"deb:{pkg}", "title": pkg, "text": cut(text)}
    return [recs[k] for k in sorted(recs)]


KEEP_CLS = ("Topic ::", "Framework ::", "Environment ::", "Intended Audience ::")


def python_records():
    seen, recs = set(), []
    for site in SITES:
        for f in sorted(glob.glob(os.path.join(site, "*.dist-info", "METADATA"))):
            with open(f, encoding="utf-8", errors="replace") as fh:
                raw = fh.read()
            msg = email.parser.Parser().parsestr(raw, headersonly=True)
            name = (msg.get("Name") or "").strip()
            key = re.sub(r"[-_.]+", "-", name).lower()
            if not name or key in seen or key in EXCLUDE or "ragline" in raw.lower():
                continue
            seen.add(key)
            summary = " ".join((msg.get("Summary") or "").split())
            kw = " ".join((msg.get("Keywords") or "").split())
            cls = [c.strip() for c in msg.get_all("Classifier") or [] if c.strip().startswith(KEEP_CLS)]
            text = f"{name}: {summary}" if summary else name
            if kw:
                text += f" Keywords: {kw}."
            if cls:
                text += " Classifiers: " + "; ".join(cls) + "."
            recs.append({"_id": f"py:{name}", "title": name, "text": cut(text)})
    return sorted(recs, key=lambda r: r["_id"].lower())


def build_queries(ids):
    qpath = os.path.join(HERE, "queries_written.jsonl")
    if not os.path.exists(qpath):
        return
    qs = [json.loads(l) for l in open(qpath) if l.strip()]
    with open(os.path.join(HERE, "queries.jsonl"), "w") as f:
        for q in qs:
            f.write(json.dumps({"_id": q["_id"], "text": q["text"]}, ensure_ascii=False) + "\n")
    qids = sorted(q["_id"] for q in qs)
    rng = random.Random(SEED)
    rng.shuffle(qids)
    train = set(qids[:round(len(qids) * 0.4)])
    os.makedirs(os.path.join(HERE, "qrels"), exist_ok=True)
    ft = open(os.path.join(HERE, "qrels", "train.tsv"), "w")
    fs = open(os.path.join(HERE, "qrels", "test.tsv"), "w")
    for fh in (ft, fs):
        fh.write("query-id\tcorpus-id\tscore\n")
    for q in qs:
        fh = ft if q["_id"] in train else fs
        for d, s in q["rel"].items():
            if d not in ids:
                print("UNKNOWN DOC", q["_id"], d, file=sys.stderr)
            fh.write(f"{q['_id']}\t{d}\t{s}\n")
    ft.close(); fs.close()
    print(f"queries {len(qs)} train {len(train)} test {len(qs) - len(train)}")


if __name__ == "__main__":
    recs = debian_records() + python_records()
    with open(os.path.join(HERE, "corpus.jsonl"), "w") as f:
        for r in recs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("records", len(recs), "deb", sum(r["_id"].startswith("deb:") for r in recs),
          "py", sum(r["_id"].startswith("py:") for r in recs))
    build_queries({r["_id"] for r in recs})

#!/usr/bin/env python3
"""Sanity checks for questions.jsonl against the built documents in docs/.

For every question with a source: the first fact must occur in the source
document's extracted text (case-insensitive, whitespace-normalised); other
facts are listed if they occur nowhere (bare or reworded variants may not).
Every wrong_fact must occur somewhere in the corpus.  Also prints counts.
"""
import collections, json, os, re, sys
HERE = os.path.dirname(os.path.abspath(__file__))

def text_of(path):
    if path.endswith(".pdf"):
        from pypdf import PdfReader
        pages = []
        for p in PdfReader(path).pages:
            # drop the running header (first line) and footer ("Page x of y")
            lines = (p.extract_text() or "").splitlines()
            lines = [l for l in lines if not l.startswith("Godavari Urban Co-operative Bank Ltd.  |")
                     and not re.fullmatch(r"\s*Page \d+ of \d+\s*", l)]
            pages.append("\n".join(lines))
        t = "\n".join(pages)
    else:
        import docx
        d = docx.Document(path)
        parts = [p.text for p in d.paragraphs]
        for tb in d.tables:
            for row in tb.rows:
                parts.append(" | ".join(c.text for c in row.cells))
        t = "\n".join(parts)
    return re.sub(r"\s+", " ", t).lower()

docs = {f: text_of(os.path.join(HERE, "docs", f)) for f in sorted(os.listdir(os.path.join(HERE, "docs")))}
allt = " ".join(docs.values())
qs = [json.loads(l) for l in open(os.path.join(HERE, "questions.jsonl"), encoding="utf-8")]
bad = 0
for q in qs:
    n = lambda s: re.sub(r"\s+", " ", s).lower()
    if q["source"]:
        if q["source"] not in docs:
            print("NO SUCH SOURCE", q["id"], q["source"]); bad += 1; continue
        src = docs[q["source"]]
        if not q["facts"] or n(q["facts"][0]) not in src:
            print("FIRST FACT NOT IN SOURCE", q["id"], q["facts"][:1], q["source"]); bad += 1
        for f in q["facts"][1:]:
            if n(f) not in allt:
                print("  note: variant not literal in corpus", q["id"], repr(f))
    else:
        assert q["facts"] == [], q["id"]
    for w in q["wrong_facts"]:
        if n(w) not in allt:
            print("WRONG FACT NOT IN CORPUS", q["id"], repr(w)); bad += 1
    for f in q["facts"]:
        for w in q["wrong_facts"]:
            if n(f) in n(w) or n(w) in n(f):
                print("  note: fact/wrong overlap", q["id"], repr(f), repr(w))
    assert (q["kind"] == "follow-up") == bool(q["history"]), q["id"]
    assert ("covers_instead" in q) == (q["kind"] == "near-miss"), q["id"]
c = collections.Counter((q["kind"], q["split"]) for q in qs)
for k in ["answerable", "paraphrase", "abbreviation", "near-miss", "off-topic", "follow-up"]:
    print(f"{k:13s} dev={c[(k,'dev')]:3d} test={c[(k,'test')]:3d} total={c[(k,'dev')]+c[(k,'test')]}")
print("total", len(qs), "dev", sum(v for (k, s), v in c.items() if s == "dev"))
print("problems:", bad)
sys.exit(1 if bad else 0)

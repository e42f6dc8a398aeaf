#!/usr/bin/env python3
"""Rebuild corpus.jsonl for the pypi-readmes retrieval set, and (from the
hand-written queries_written.jsonl / qrels_written.tsv) queries.jsonl and
qrels/{train,test}.tsv.

Corpus source: long descriptions in the METADATA files of the installed
third-party packages in SITE (default /work/main/.venv/lib/python3.11/site-packages).
Each README is split at its headings (markdown '#' headings outside code
fences, rst underlined titles); long sections are cut into ~250-word pieces;
tiny sections (<15 words) are merged into the next one.  Sections after a
changelog / history heading are dropped, and at most MAX_PASSAGES passages
are kept per package.
"""
import email.parser, glob, json, os, random, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SITE = os.environ.get("SITE", "/work/main/.venv/lib/python3.11/site-packages")
SEED = 20261127
MAX_PASSAGES = 14
TARGET_WORDS = 250
EXCLUDE = {"ragline"}

PACKAGES = [l.strip() for l in open(os.path.join(HERE, "packages.txt")) if l.strip() and not l.startswith("#")]

STOP_HEADINGS = re.compile(r"^(change ?log|changes|release notes|release history|history|news|what'?s new)\b|^v?\d+\.\d+(\.\d+)?\b|^\[?\d+\.\d+", re.I)
RST_UNDER = re.compile(r"^([=\-~^*+#`'\"_:.])\1{2,}\s*$")


def load_meta(name):
    want = re.sub(r"[-_.]+", "-", name).lower()
    for f in sorted(glob.glob(os.path.join(SITE, "*.dist-info", "METADATA"))):
        with open(f, encoding="utf-8", errors="replace") as fh:
            raw = fh.read()
        msg = email.parser.Parser().parsestr(raw)
        n = re.sub(r"[-_.]+", "-", msg.get("Name", "")).lower()
        if n == want:
            body = msg.get_payload()
            if not body or not body.strip():
                body = msg.get("Description", "") or ""
                body = re.sub(r"\n {8}\|?", "\n", body)
            return msg.get("Name"), body, raw
    return None, None, None


def sections(body):
    """Yield (heading, text) pairs."""
    lines = body.replace("\r\n", "\n").split("\n")
    out, head, buf = [], "", []
    fence = False
    i = 0
    while i < len(lines):
        ln = lines[i]
        if re.match(r"^\s*(```|~~~)", ln):
            fence = not fence
            buf.append(ln); i += 1; continue
        if not fence:
            m = re.match(r"^(#{1,6})\s+(.+?)\s*#*\s*$", ln)
            if m:
                out.append((head, buf)); head, buf = m.group(2).strip(), []
                i += 1; continue
            # rst: title line followed by underline (optionally overline before)
            if (i + 1 < len(lines) and ln.strip() and not RST_UNDER.match(ln)
                    and RST_UNDER.match(lines[i + 1]) and len(lines[i + 1].strip()) >= len(ln.strip()) - 1
                    and not ln.startswith(" ")):
                if buf and RST_UNDER.match(buf[-1]):
                    buf.pop()
                out.append((head, buf)); head, buf = ln.strip(), []
                i += 2; continue
            # setext markdown / html heading <h2>
            m = re.match(r"^\s*<h[1-6][^>]*>(.*?)</h[1-6]>\s*$", ln)
            if m:
                out.append((head, buf)); head, buf = re.sub(r"<[^>]+>", "", m.group(1)).strip(), []
                i += 1; continue
        buf.append(ln); i += 1
    out.append((head, buf))
    return [(h, "\n".join(b).strip()) for h, b in out]


def words(t):
    return len(re.findall(r"\w+", t))


def passages_for(name, body):
    res = []
    carry_head, carry = None, ""
    for head, text in sections(body):
        head = re.sub(r"[*_`\[\]]|\(http[^)]*\)", "", head).strip()
        if STOP_HEADINGS.search(head) and res:
            break
        if carry:
            text = (carry + "\n\n" + text).strip()
            head = carry_head or head
            carry, carry_head = "", None
        if words(text) < 15:
            if text.strip():
                carry, carry_head = text, head
            continue
        # cut long sections at paragraph boundaries
        paras = re.split(r"\n\s*\n", text)
        cur, part = [], 0
        for p in paras:
            cur.append(p)
            if words("\n\n".join(cur)) >= TARGET_WORDS:
                res.append((head, "\n\n".join(cur).strip()))
                cur = []
        if cur:
            rest = "\n\n".join(cur).strip()
            if res and res[-1][0] == head and words(rest) < 40:
                res[-1] = (head, res[-1][1] + "\n\n" + rest)
            else:
                res.append((head, rest))
    if carry and words(carry) >= 8:
        res.append((carry_head or "", carry))
    return res[:MAX_PASSAGES]


def build_corpus():
    recs = []
    for pkg in PACKAGES:
        name, body, raw = load_meta(pkg)
        if name is None:
            print("missing", pkg, file=sys.stderr); continue
        if name.lower() in EXCLUDE or "ragline" in raw.lower():
            continue
        for n, (head, text) in enumerate(passages_for(name, body)):
            recs.append({"_id": f"{pkg}#{n}", "title": f"{pkg}: {head or 'Overview'}", "text": text})
    with open(os.path.join(HERE, "corpus.jsonl"), "w") as f:
        for r in recs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return recs


def build_queries():
    qpath = os.path.join(HERE, "queries_written.jsonl")
    if not os.path.exists(qpath):
        return
    qs = [json.loads(l) for l in open(qpath) if l.strip()]
    with open(os.path.join(HERE, "queries.jsonl"), "w") as f:
        for q in qs:
            f.write(json.dumps({"_id": q["_id"], "text": q["text"]}, ensure_ascii=False) + "\n")
    ids = sorted(q["_id"] for q in qs)
    rng = random.Random(SEED)
    rng.shuffle(ids)
    ntrain = round(len(ids) * 0.4)
    train = set(ids[:ntrain])
    os.makedirs(os.path.join(HERE, "qrels"), exist_ok=True)
    ft = open(os.path.join(HERE, "qrels", "train.tsv"), "w")
    fs = open(os.path.join(HERE, "qrels", "test.tsv"), "w")
    for fh in (ft, fs):
        fh.write("query-id\tcorpus-id\tscore\n")
    for q in qs:
        fh = ft if q["_id"] in train else fs
        for doc, score in q["rel"].items():
            fh.write(f"{q['_id']}\t{doc}\t{score}\n")
    ft.close(); fs.close()
    print(f"queries {len(qs)} train {len(train)} test {len(qs)-len(train)}")


if __name__ == "__main__":
    recs = build_corpus()
    print("passages", len(recs), "packages", len({r['_id'].split('#')[0] for r in recs}))
    ids = {r["_id"] for r in recs}
    build_queries()
    qpath = os.path.join(HERE, "queries_written.jsonl")
    if os.path.exists(qpath):
        for l in open(qpath):
            q = json.loads(l)
            for d in q["rel"]:
                if d not in ids:
                    print("UNKNOWN DOC", q["_id"], d, file=sys.stderr)

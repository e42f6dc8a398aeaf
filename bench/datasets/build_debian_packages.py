"""Build ``bench/datasets/debian-packages``: Debian package descriptions in BEIR format.

Query: a package's one-line summary ("Description:" first line). Relevant: the
package whose long description it is. Corpus: every installed package with a long
description of at least MIN_CHARS characters, titled by the package name, the
summary left out. Packages that share a long description (a library and its -dev
package, say) or a summary are dropped: their judgement would be ambiguous.

Material: the dpkg status database of this machine (``dpkg-query``), because the
apt lists here are fetched without their long descriptions (Acquire::Languages
"none"), so ``apt-cache`` only knows summaries. Another machine with other packages
installed builds a different set; the committed files are the ones measured.

    .venv/bin/python bench/datasets/build_debian_packages.py   # rewrites the folder
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from beir_writer import write_beir

OUT = Path(__file__).resolve().parent / "debian-packages"
MIN_CHARS = 120  # shorter long descriptions hold too little to find a package by


def packages() -> dict[str, tuple[str, str]]:
    """package → (summary, long description as plain paragraphs)."""
    raw = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\x1f${Description}\x1e"], check=True,
                         capture_output=True, text=True).stdout
    found: dict[str, tuple[str, str]] = {}
    for entry in raw.split("\x1e"):
        if "\x1f" not in entry:
            continue
        name, description = entry.strip("\n").split("\x1f", 1)
        summary, _, rest = description.partition("\n")
        paragraphs, lines = [], []
        for line in rest.split("\n"):
            line = line.removeprefix(" ")
            if line.strip() == ".":  # Debian's paragraph break
                paragraphs.append(" ".join(lines))
                lines = []
            elif line.strip():
                lines.append(line.strip())
        paragraphs.append(" ".join(lines))
        found[name.strip()] = (summary.strip(), "\n\n".join(p for p in paragraphs if p))
    return found


def main() -> None:
    found = {name: pair for name, pair in packages().items() if len(pair[1]) >= MIN_CHARS}
    shared_text = Counter(text for _, text in found.values())
    shared_summary = Counter(summary.lower() for summary, _ in found.values())
    kept = {name: (summary, text) for name, (summary, text) in sorted(found.items())
            if shared_text[text] == 1 and shared_summary[summary.lower()] == 1}
    corpus = ({"_id": name, "title": name, "text": text} for name, (_, text) in kept.items())
    queries = {f"q-{name}": summary for name, (summary, _) in kept.items()}
    qrels = {f"q-{name}": {name: 1} for name in kept}
    counts = write_beir(OUT, corpus, queries, qrels)
    print(f"{OUT}: {counts}")


if __name__ == "__main__":
    main()

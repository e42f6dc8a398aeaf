"""The import picture of src/ragline between its top-level packages and modules:
how many there are, which import which, the cycles between them, and the imports
that run against the layer order of ``[tool.importlinter]`` (pyproject.toml).

    .venv/bin/python scripts/import_graph.py            # the summary
    .venv/bin/python scripts/import_graph.py --edges    # and every package-level import

Type-only imports (under ``TYPE_CHECKING``) count: a design dependency is one even
when it costs nothing at run time. ``make check`` enforces the layers; this prints
the figures behind them.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]


def room(module: str) -> str:
    """``ragline.store.sqlite.search`` → ``ragline.store``."""
    return ".".join(module.split(".")[:2])


def layers() -> dict[str, int]:
    """Each package's layer index from the contract (0 = top)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    return {name.strip(): i for i, layer in enumerate(contract["layers"]) for name in layer.split("|")}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one room (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", action="store_true", help="print every package-level import")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    graph = grimp.build_graph("ragline", include_external_packages=False)
    edges: dict[str, set[str]] = defaultdict(set)
    rooms = {room(m) for m in graph.modules if m != "ragline"}
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = room(module), room(imported)
            if a != b and "ragline" not in (a, b):  # the package root only hands names on
                edges[a].add(b)
    order = layers()
    upward = [(a, b) for a in sorted(edges) for b in sorted(edges[a])
              if a in order and b in order and order[b] < order[a]]
    unplaced = sorted(r for r in rooms if r not in order and r != "ragline.__main__")
    print(f"{len(rooms)} packages and modules, {sum(len(v) for v in edges.values())} imports between them")
    print(f"cycles between them: {len(cycles(edges))}")
    for component in cycles(edges):
        print("  " + " ↔ ".join(component))
    print(f"imports running up the layer order: {len(upward)}")
    for a, b in upward:
        print(f"  {a} -> {b}")
    if unplaced:
        print("not in the layer contract: " + ", ".join(unplaced))
    if args.edges:
        for a in sorted(edges):
            print(f"{a} -> {', '.join(sorted(edges[a]))}")
    return 1 if upward or cycles(edges) else 0


if __name__ == "__main__":
    raise SystemExit(main())

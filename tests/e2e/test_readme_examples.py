"""The README's integration examples run as printed: each ```python block of its
"Integrations" section (and of docs/integrations.md) is run in a fresh interpreter against a real server holding
``make run``'s sample knowledge base (the ``demo`` tenant's ``bank`` collection),
given the URL and key the way the README says (``RAGLINE_URL``, ``RAGLINE_API_KEY``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ragline import Engine, Scope
from ragline.demo import COLLECTION, SAMPLE_DIR, TENANT, demo_key
from ragline.settings import EmbedderSettings, Settings

from tests.server_harness import LiveServer

ROOT = Path(__file__).resolve().parents[2]


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, re.DOTALL)


def _readme_examples() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Integrations\n"):]
    return _python_blocks(section[:section.index("\n## ", 1)])


README_EXAMPLES = _readme_examples()
EXAMPLES = README_EXAMPLES + _python_blocks((ROOT / "docs" / "integrations.md").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings(home=tmp_path_factory.mktemp("readme") / "home", embedder=EmbedderSettings(name="hashing"))
    engine = Engine(settings)
    key = demo_key(engine)
    engine.ingest([SAMPLE_DIR], Scope(TENANT, (COLLECTION,)))
    with LiveServer(settings, engine) as server:
        yield server, key
    engine.close()


def test_the_section_has_an_example_per_integration() -> None:
    joined = "\n".join(README_EXAMPLES)
    assert len(README_EXAMPLES) >= 4
    for needle in ("ragline.client", "mcp", "integrations.langchain", "integrations.llamaindex", "opentelemetry"):
        assert needle in joined, needle


@pytest.mark.parametrize("code", EXAMPLES, ids=[f"example{n}" for n in range(1, len(EXAMPLES) + 1)])
def test_example_runs(demo: tuple[LiveServer, str], code: str) -> None:
    server, key = demo
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAGLINE_")},
           "RAGLINE_URL": server.url, "RAGLINE_API_KEY": key, "RAGLINE_HOME": str(server.app.state.settings.home),
           "RAGLINE_EMBEDDER__NAME": "hashing"}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                         stdin=subprocess.DEVNULL, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    assert re.search(r"[\w-]+\.(md|txt|html|csv)", run.stdout), run.stdout[-2000:]  # it shows the sources

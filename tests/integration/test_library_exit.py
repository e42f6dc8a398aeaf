"""The library in a script that never calls ``Engine.close()``: at exit the engine
is closed for it, so what its background threads hold (usage, message embeddings)
is written and no thread is killed inside ONNX Runtime."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys
from ragline import Engine, Scope, Settings
from ragline.settings import EmbedderSettings
engine = Engine(Settings(home=sys.argv[1], embedder=EmbedderSettings(name="hashing")))
scope = Scope("acme", ("kb",))
engine.ingest([sys.argv[2]], scope)
turn = engine.conversations.ask("How much does an unarranged overdraft cost?", scope)
print(turn.data["conversation_id"])
"""  # no close(), no __main__ guard: what a user's script looks like

CHECK = """
import json, sys
from ragline import Engine, Settings
from ragline.settings import EmbedderSettings
engine = Engine(Settings(home=sys.argv[1], embedder=EmbedderSettings(name="hashing")))
report = engine.usage_report("acme")
pending = engine.store.conversations.unembedded_messages(100)
print(json.dumps({"report": report, "unembedded": len(pending)}))
engine.close()
"""


def test_a_script_without_close_writes_what_it_holds_and_exits_cleanly(tmp_path: Path) -> None:
    doc = tmp_path / "overdraft.md"
    doc.write_text("# Overdraft\n\nAn unarranged overdraft costs 5 EUR per day, capped at 30 EUR per month.\n")
    home = tmp_path / "home"
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(home), str(doc)], capture_output=True, text=True, check=False,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert "terminate called" not in run.stderr
    check = subprocess.run([sys.executable, "-c", CHECK, str(home)], capture_output=True, text=True, timeout=120,
                           check=False)
    assert check.returncode == 0, check.stderr
    data = json.loads(check.stdout.strip().splitlines()[-1])
    assert data["unembedded"] == 0  # the question and its answer were embedded before exit
    # the question and the embedding work were metered, not lost with the process
    assert data["report"]["questions"] == 1 and data["report"]["texts_embedded"] >= 1, data["report"]

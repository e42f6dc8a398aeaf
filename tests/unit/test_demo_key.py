"""The ``make run`` demo key. (The key and job tables themselves are held to the
store contract: tests/contract/store_contract.py.)"""

from __future__ import annotations

from pathlib import Path

from ragline.demo import KEY_FILE, demo_key
from ragline.engine import Engine
from ragline.settings import Settings


def test_demo_key_is_kept_and_replaced_when_revoked(tmp_path: Path) -> None:
    engine = Engine(Settings(home=tmp_path / "home"))
    try:
        key = demo_key(engine)
        assert demo_key(engine) == key  # the printed key stays valid across runs
        assert (tmp_path / "home" / KEY_FILE).stat().st_mode & 0o077 == 0  # owner-only
        info = engine.verify_api_key(key)
        engine.revoke_api_key("demo", info.id)
        fresh = demo_key(engine)
        assert fresh != key and engine.verify_api_key(fresh).tenant == "demo"
    finally:
        engine.close()

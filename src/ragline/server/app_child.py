"""One app process of a server of several (``front.py``):
``python -m ragline.server.app_child PARENT_PID SOCKET STEP_ASIDE_FILE INDEX``.

The first line on stdin is the front's settings as JSON (the app sees exactly the
front's configuration, however it was built). The process serves the whole API
(``create_app``) on the Unix socket ``SOCKET`` until SIGTERM, and dies with the
front (``children.die_with_parent``). Byte ``INDEX`` of ``STEP_ASIDE_FILE``, which the
front keeps up to date, says when this process's requests step aside at their pause
points for another process's (``FairGate.outside``)."""

from __future__ import annotations

import mmap
import signal
import sys


def main(argv: list[str] | None = None) -> int:
    parent, socket, flags, index = argv if argv is not None else sys.argv[1:]
    from ..children import die_with_parent

    die_with_parent(int(parent))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the front, which stops us
    from ..settings import Settings
    from .app import run_app

    settings = Settings.model_validate_json(sys.stdin.readline())
    with open(flags, "rb") as handle:
        shared = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    position = int(index)
    run_app(settings, uds=socket, outside=lambda: shared[position] != 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())

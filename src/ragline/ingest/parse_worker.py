"""The parser worker: ``python -m ragline.ingest.parse_worker MEMORY_MB PARENT_PID``.

``ParserSandbox`` starts this module as a plain subprocess rather than through
multiprocessing, whose spawn and forkserver modes re-import the parent's
``__main__``: that ran unguarded scripts twice and failed under ``python -`` and
``python -c``. This process imports only ragline and its loaders, never the
caller's code. It speaks the protocol in ``parsing`` on its stdin and stdout.

The worker dies with its parent: ``PR_SET_PDEATHSIG`` (Linux), a watchdog on the
parent pid (other systems, and the moment before the prctl), and exit on stdin EOF.
Nothing in ragline imports this module: ``-m`` must find it unimported.
"""

from __future__ import annotations

import os
import signal
import sys

from ..children import die_with_parent
from .parsing import handle, read_frame, write_frame


def _cap_memory(megabytes: int) -> None:
    import resource

    limit = megabytes * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):  # some platforms refuse; the time limit still holds
        pass


def main(argv: list[str] | None = None) -> int:
    memory_mb, parent = (int(a) for a in (argv if argv is not None else sys.argv[1:]))
    die_with_parent(parent)
    # Ctrl+C in a terminal signals the whole process group: the parent decides when
    # this worker stops (stdin EOF or a kill), so a file in flight is not reported as a crash.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Keep the protocol on private descriptors; loaders that print (or read stdin)
    # get stderr and /dev/null instead of corrupting the stream.
    requests, replies = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    _cap_memory(memory_mb)
    from . import loaders  # the parsers are imported before saying ready, not during a file's time
    from .loaders import archive  # noqa: F401

    loaders.LOADERS  # noqa: B018 - the registry is lazy elsewhere (a search never loads it); not here

    write_frame(replies, {"ready": os.getpid()})
    while True:
        request = read_frame(requests)
        if request is None:  # the parent closed our stdin or died
            return 0
        write_frame(replies, handle(request))


if __name__ == "__main__":
    sys.exit(main())

"""The server's ingestion process: ``python -m ragline.server.worker_child PARENT_PID THREADS NICE``.

``WorkerProcess`` starts it so that ingestion (chunking, embedding, writing) runs
at a lower CPU priority (``server.job_nice``, and the idle scheduling class with
``server.job_idle``) and outside the server's interpreter: one tenant's big
upload then cannot take the GIL and the cores that answer other tenants' searches.
The first line on stdin is the server's settings as JSON (the child sees exactly
the server's configuration, however it was built); each later line wakes idle
workers (a job was queued); EOF or SIGTERM stops the workers, which finish or
release their jobs. Each finished job run is reported as one JSON line on stdout
(``{"state", "seconds"}``) for the server's metrics. The process dies with the server (``children.die_with_parent``);
a job it held is taken again when its lease expires.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading


class _ReportedMetrics:
    """The one metric a job runner records, sent to the server as a JSON line."""

    def __init__(self, fd: int) -> None:
        self.fd, self.lock = fd, threading.Lock()

    def job_finished(self, state: str, seconds: float) -> None:
        line = json.dumps({"state": state, "seconds": round(seconds, 6)}).encode() + b"\n"
        with self.lock:
            try:
                os.write(self.fd, line)
            except OSError:  # the server is gone; we are about to be too
                pass


def idle_class() -> bool:
    """Put this thread (and the threads it starts later) in Linux's idle scheduling class,
    so ingestion runs only on CPU time nothing else in the server wants (False where
    the platform has no such class or refuses it)."""
    if not hasattr(os, "SCHED_IDLE"):
        return False
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except OSError as exc:
        logging.getLogger("ragline.server").warning(json.dumps({"event": "job_idle_class_refused", "error": str(exc)}))
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parent, threads, nice = (int(a) for a in (argv if argv is not None else sys.argv[1:]))
    from ..children import die_with_parent

    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the server, which stops us
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if nice:
        os.nice(nice)
    reports = os.dup(1)
    os.dup2(2, 1)  # anything else that prints goes to the log, not into the reports
    from ..engine import Engine
    from ..settings import Settings
    from .jobs import JobRunner
    from .observe import configure_logging
    from .uploads import Uploads

    configure_logging()
    log = logging.getLogger("ragline.server")
    settings = Settings.model_validate_json(sys.stdin.readline())
    if settings.server.job_idle:
        idle_class()  # before any worker thread starts: they inherit it
    engine = Engine(settings)
    runner = JobRunner(engine, Uploads.from_settings(settings, engine), workers=threads, metrics=_ReportedMetrics(reports))
    try:
        for build in (lambda: (engine.embedder, engine.embedding_cache, engine.sandbox), engine.connect):
            build()  # a store that is down: the workers retry until it is back
        runner.start()
        for _ in sys.stdin:
            runner.notify()
    except KeyboardInterrupt:  # SIGTERM: stop like on EOF
        log.info(json.dumps({"event": "job_process_stopping", "reason": "SIGTERM"}))
    except Exception as exc:
        log.error(json.dumps({"event": "job_process_failed", "error": str(exc)}), exc_info=exc)
        return 1
    finally:
        runner.stop(timeout=settings.server.shutdown_timeout_s + 5)
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Issue 16, process hygiene: the parser sandbox works from any script (no
``__main__`` guard, ``python -``, ``python -c``), keeps its limits, and leaves no
process behind, whether its parent is SIGKILLed or ``make run`` / ``make test``
are stopped with SIGTERM. Real processes throughout, checked with psutil."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest

from ragline.errors import LoaderError
from ragline.ingest.sandbox import ParserSandbox
from ragline.settings import LimitSettings

ROOT = Path(__file__).resolve().parents[2]

# The README's Python example, on the fast embedder, with NO `if __name__ == "__main__":` guard.
SCRIPT = textwrap.dedent("""
    import json
    from ragline import Engine, Scope, Settings
    from ragline.settings import EmbedderSettings

    print("SCRIPT-RUN", flush=True)
    engine = Engine(Settings(home="home", embedder=EmbedderSettings(name="hashing")))
    scope = Scope("acme", ("handbook",))
    summary = engine.ingest(["docs/"], scope)
    print("SUMMARY " + json.dumps(summary.to_dict()), flush=True)
    for hit in engine.search("how do I report a lost card?", scope, k=5).hits:
        print("HIT", hit.source)
""")


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _wait_gone(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [p for p in pids if not _gone(p)]
        if not alive:
            return []
        time.sleep(0.2)
    return [p for p in pids if not _gone(p)]


def _describe(pids: list[int]) -> list[str]:
    out = []
    for pid in pids:
        try:
            out.append(f"{pid}: {' '.join(psutil.Process(pid).cmdline())[:120]}")
        except psutil.NoSuchProcess:
            pass
    return out


def _docs(folder: Path) -> None:
    (folder / "docs").mkdir()
    (folder / "docs" / "cards.md").write_text("# Cards\n\nReport a lost card by phone at any hour.\n")
    (folder / "docs" / "faq.html").write_text("<h1>FAQ</h1><p>Lost cards are blocked within an hour.</p>")
    (folder / "docs" / "fees.txt").write_text("A SEPA wire transfer costs 2 EUR.\n")


@pytest.mark.parametrize("how", ["script", "stdin", "dash-c"])
def test_the_readme_example_works_without_a_main_guard(tmp_path: Path, how: str) -> None:
    _docs(tmp_path)
    (tmp_path / "example.py").write_text(SCRIPT)
    argv = {"script": [sys.executable, "example.py"], "stdin": [sys.executable, "-"],
            "dash-c": [sys.executable, "-c", SCRIPT]}[how]
    done = subprocess.run(argv, check=False, input=SCRIPT if how == "stdin" else None, capture_output=True, text=True,
                          cwd=tmp_path, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("SCRIPT-RUN") == 1, done.stdout  # the script ran once, not again in a worker
    summary = json.loads(done.stdout.split("SUMMARY ", 1)[1].splitlines()[0])
    assert (summary["added"], summary["failed"]) == (3, []), summary
    assert "HIT docs/cards.md" in done.stdout


def test_time_limit_memory_cap_and_worker_reuse(tmp_path: Path) -> None:
    ok = tmp_path / "ok.txt"
    ok.write_text("small and fine")
    hog = tmp_path / "hog.json"  # json.loads and the flattening need far more than 512 MB
    hog.write_text("[" + ",".join(["0"] * 6_000_000) + "]")
    sandbox = ParserSandbox(LimitSettings(parse_memory_mb=512, parse_timeout_s=60))
    try:
        sandbox.parse(ok, "ok.txt")
        first = sandbox.worker_pid
        sandbox.parse(ok, "ok.txt")
        assert sandbox.worker_pid == first  # one worker, reused across files
        started = time.monotonic()
        with pytest.raises(LoaderError) as info:
            sandbox.parse(hog, "hog.json")
        assert info.value.path == "hog.json" and "memory" in info.value.reason, info.value.reason
        assert time.monotonic() - started < 50  # the cap stopped it, not the time limit
        assert sandbox.parse(ok, "ok.txt")[0].text == "small and fine"  # and the next file is fine
    finally:
        sandbox.close()

    slow = tmp_path / "slow.html"
    slow.write_text("<html><body>" + "<div><p>deep text</p></div>" * 300_000 + "</body></html>")
    sandbox = ParserSandbox(LimitSettings(parse_timeout_s=0.05))
    try:
        sandbox.parse(ok, "ok.txt")
        before = sandbox.worker_pid
        with pytest.raises(LoaderError, match=r"parsing took longer than 0.05 s"):
            sandbox.parse(slow, "slow.html")
        assert _wait_gone([before], 5) == []  # the stuck worker was killed …
        assert sandbox.parse(ok, "ok.txt")[0].text == "small and fine"  # … and replaced
        assert sandbox.worker_pid != before
    finally:
        sandbox.close()
    assert _wait_gone([p for p in (before,) if p], 5) == []


def test_file_size_is_checked_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 3 * 1024 * 1024)
    sandbox = ParserSandbox(LimitSettings(max_file_mb=1))
    try:
        with pytest.raises(LoaderError, match=r"over the 1.0 MB limit"):
            sandbox.parse(big, "big.txt")
    finally:
        sandbox.close()


def test_a_worker_started_from_a_short_lived_thread_outlives_the_thread(tmp_path: Path) -> None:
    """PR_SET_PDEATHSIG fires when the forking *thread* exits: request threads come and go."""
    ok = tmp_path / "ok.txt"
    ok.write_text("fine")
    sandbox = ParserSandbox(LimitSettings())
    try:
        thread = threading.Thread(target=sandbox.parse, args=(ok, "ok.txt"))
        thread.start()
        thread.join()
        pid = sandbox.worker_pid
        time.sleep(0.5)
        assert pid is not None and not _gone(pid)
        sandbox.parse(ok, "ok.txt")
        assert sandbox.worker_pid == pid
    finally:
        sandbox.close()
    assert _wait_gone([pid], 5) == []


def test_worker_exits_on_stdin_eof() -> None:
    from ragline.ingest.parsing import read_frame

    worker = subprocess.Popen([sys.executable, "-m", "ragline.ingest.parse_worker", "4096", str(os.getpid())],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert "ready" in read_frame(worker.stdout.fileno(), time.monotonic() + 60)
        worker.stdin.close()
        assert worker.wait(10) == 0
    finally:
        if worker.poll() is None:
            worker.kill()


def test_no_orphan_when_the_parent_is_sigkilled(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("some text")
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import time
        from pathlib import Path
        from ragline.ingest.sandbox import ParserSandbox
        from ragline.settings import LimitSettings
        sandbox = ParserSandbox(LimitSettings())
        sandbox.parse(Path("a.txt"), "a.txt")
        print("parsed", flush=True)
        time.sleep(600)
    """)], cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "parsed"
        helpers = [c.pid for c in psutil.Process(holder.pid).children(recursive=True)]
        assert helpers
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        assert _wait_gone(helpers, 10) == [], _describe(helpers)
        assert len(helpers) == 1  # one worker: no forkserver or resource tracker beside it
    finally:
        if holder.poll() is None:
            holder.kill()
        for pid in helpers if "helpers" in locals() else []:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.postgres
@pytest.mark.timeout(180)
def test_the_test_postgres_stops_when_the_test_process_is_sigkilled(tmp_path: Path) -> None:
    """``tests/pg_server``'s server is detached from the test process (``pg_ctl``): a
    watchdog stops it and removes its folder when that process dies without exit hooks."""
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import time
        from tests.pg_server import start_server
        srv = start_server()
        print(srv.pgdata, flush=True)
        time.sleep(600)
    """)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    pgdata = Path(holder.stdout.readline().strip())
    try:
        postmaster = int((pgdata / "postmaster.pid").read_text().split()[0])
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        assert _wait_gone([postmaster], 60) == [], _describe([postmaster])
        deadline = time.monotonic() + 30  # a hang guard, not a speed check
        while pgdata.parent.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not pgdata.parent.exists()
    finally:
        if holder.poll() is None:
            holder.kill()


# -- make run / make test stopped by SIGTERM -------------------------------------
needs_make = pytest.mark.skipif(not (shutil.which("make") and shutil.which("setpriv")),
                                reason="needs GNU make and util-linux setpriv (Linux)")


def _make(target: str, env: dict[str, str], log: Path) -> psutil.Process:
    # -o: treat the install stamp as up to date, so the test never reinstalls the venv.
    process = subprocess.Popen(["make", "-o", ".venv/.installed", target], cwd=ROOT, env=env,
                               stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True)
    return psutil.Process(process.pid)


def _stop_make(make: psutil.Process, log: Path) -> None:
    tree = [make.pid] + [c.pid for c in make.children(recursive=True)]
    assert len(tree) >= 3, (tree, log.read_text()[-2000:])  # make, the command, its helper process(es)
    make.send_signal(signal.SIGTERM)
    left = _wait_gone(tree, 45)
    if left:
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert left == [], (_describe(left), log.read_text()[-2000:])


def _wait_for(log: Path, text: str, make: psutil.Process, seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    while text not in log.read_text(errors="replace"):
        assert make.is_running() and make.status() != psutil.STATUS_ZOMBIE, log.read_text()[-3000:]
        assert time.monotonic() < deadline, log.read_text()[-3000:]
        time.sleep(0.3)


@needs_make
@pytest.mark.timeout(300)
def test_make_run_stopped_by_sigterm_leaves_no_process(tmp_path: Path) -> None:
    env = {**os.environ, "RAGLINE_HOME": str(tmp_path / "home"), "RAGLINE_SERVER__PORT": "0",
           "RAGLINE_EMBEDDER__NAME": "hashing"}
    log = tmp_path / "run.log"
    make = _make("run", env, log)
    try:
        _wait_for(log, "Press Ctrl+C", make)
        _stop_make(make, log)
    finally:
        for child in make.children(recursive=True) if make.is_running() else []:
            child.kill()


PIDFILE = "RAGLINE_TEST_SIGTERM_PIDFILE"


@needs_make
@pytest.mark.skipif(not os.access("/usr/bin/chromium", os.X_OK), reason="make test would install chromium first")
@pytest.mark.timeout(300)
def test_make_test_stopped_by_sigterm_leaves_no_process(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    env = {**os.environ, PIDFILE: str(pidfile), "RAGLINE_EMBEDDER__NAME": "hashing",
           "PYTEST_ADDOPTS": f"-p no:cacheprovider -q {Path(__file__).relative_to(ROOT)}::test_sigterm_drill_target"}
    log = tmp_path / "test.log"
    make = _make("test", env, log)
    try:
        deadline = time.monotonic() + 120
        while not pidfile.exists():
            assert make.is_running() and make.status() != psutil.STATUS_ZOMBIE, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.3)
        helpers = [int(p) for p in pidfile.read_text().split()]
        assert all(not _gone(p) for p in helpers)
        _stop_make(make, log)
        assert _wait_gone(helpers, 5) == []
    finally:
        for child in make.children(recursive=True) if make.is_running() else []:
            child.kill()


@pytest.fixture
def _drill_server():
    """Stands in for the servers other tests start: its teardown must run on SIGTERM."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    yield process
    process.terminate()
    process.wait(10)


@pytest.mark.skipif(PIDFILE not in os.environ, reason="run by the make test drill only")
def test_sigterm_drill_target(tmp_path: Path, _drill_server: subprocess.Popen) -> None:
    (tmp_path / "a.txt").write_text("text")
    sandbox = ParserSandbox(LimitSettings())
    sandbox.parse(tmp_path / "a.txt", "a.txt")
    Path(os.environ[PIDFILE]).write_text(f"{sandbox.worker_pid} {_drill_server.pid}")
    time.sleep(600)

"""Deployment drill: the documented deployment (docs/scaling.md, "Replicas") as written —
one PostgreSQL, and ``deploy/Procfile`` run by honcho: two ``ragline serve`` replicas on
two ports and two ``ragline worker`` processes, each with its own home. Two tenants
search, ask and upload through both replicas while a third, capped tenant floods both;
mid-ingest one replica and the worker running a job are SIGKILLed.

    .venv/bin/python -m bench.drills.deployment [--files 8] [--words 60000] [--seconds 30]

Checks: every acknowledged upload's job ends indexed (no lost jobs), its file kept in the
database (none on any process's disk: a worker on another machine needs no shared one); the chunk ids in
PostgreSQL equal those of a clean ingest of the same files into a fresh store (no lost
or duplicated chunks); no request to the surviving replica failed; the capped tenant's
requests per minute held across both replicas. Writes bench/drills/results/deployment.json.
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg

from ragline.engine import Engine
from ragline.models import Scope, document_id
from ragline.settings import EmbedderSettings, Settings

from .common import ADMIN, create_tenant, free_port, stats, wait_ready, write

REPO = Path(__file__).resolve().parents[2]
PROCFILE = REPO / "deploy" / "Procfile"
ENV_EXAMPLE = REPO / "deploy" / "ragline.env.example"
COLLECTION = "docs"
TENANTS = ("acme", "globex")
CAPPED = "capped"
TOPICS = ["overdraft fees", "card replacement", "international transfers", "savings interest", "fraud reporting",
          "mortgage overpayment", "branch opening hours", "account closure"]


@dataclass
class Deployment:
    urls: list[str]
    root: Path
    db_url: str
    honcho: subprocess.Popen
    left_running: int = 0  # ragline processes still there once honcho had stopped (then killed)

    def admin(self, n: int = 0) -> httpx.Client:
        return httpx.Client(base_url=self.urls[n], headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60)

    def tenant(self, name: str) -> str:
        with self.admin() as admin:
            return create_tenant(admin, name)


def _env_file(path: Path, values: dict[str, str]) -> None:
    """The example env file with this drill's values in place of the placeholders."""
    lines, seen = [], set()
    for line in ENV_EXAMPLE.read_text().splitlines():
        key = line.split("=", 1)[0]
        if "=" in line and not line.startswith("#") and key in values:
            line, _ = f"{key}={shlex.quote(values[key])}", seen.add(key)
        lines.append(line)
    lines += [f"{k}={shlex.quote(v)}" for k, v in values.items() if k not in seen]
    path.write_text("\n".join(lines) + "\n")


def _port_pair() -> int:
    """A base port with base and base + 100 free (honcho gives web2 the base + 100)."""
    for _ in range(50):
        base = free_port()
        if base + 100 < 65536:
            import socket

            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", base + 100))
                except OSError:
                    continue
            return base
    raise RuntimeError("no free pair of ports")


@contextmanager
def deployment(root: Path, lease_s: float, rpm: int) -> Iterator[Deployment]:
    from tests.pg_server import start_server, stop_server  # the embedded PostgreSQL + pgvector wheel

    pg_root = root / "pg"
    pg_root.mkdir(parents=True)
    pg_root.chmod(0o755)
    root.chmod(0o755)
    srv = start_server(pg_root)
    honcho, deploy = None, None
    try:
        with psycopg.connect(srv.get_uri(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE ragline")
        db_url = srv.get_uri("ragline")
        _env_file(root / "ragline.env", {
            "RAGLINE_STORE__URL": db_url, "RAGLINE_SERVER__ADMIN_KEY": ADMIN, "RAGLINE_HOME": str(root / "home"),
            "RAGLINE_SERVER__JOB_LEASE_S": f"{lease_s:g}", "RAGLINE_EMBEDDER__NAME": "hashing",
            "RAGLINE_QUOTAS__TENANTS": f'{{"{CAPPED}": {{"requests_per_minute": {rpm}}}}}'})
        base = _port_pair()
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        env = {k: v for k, v in env.items() if not k.startswith("RAGLINE_")}  # the env file decides
        with open(root / "honcho.log", "ab") as log:
            honcho = subprocess.Popen([str(Path(sys.executable).parent / "honcho"), "start", "-f", str(PROCFILE),
                                       "-e", str(root / "ragline.env"), "-p", str(base), "--no-colour"],
                                      cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
                                      start_new_session=True)
        urls = [f"http://127.0.0.1:{base}", f"http://127.0.0.1:{base + 100}"]
        for url in urls:
            try:
                wait_ready(url, timeout=90)
            except RuntimeError:
                raise RuntimeError(f"{url} did not become ready; the processes said:\n"
                                   + (root / "honcho.log").read_text()[-3000:]) from None
        deploy = Deployment(urls, root, db_url, honcho)
        yield deploy
    finally:
        if honcho is not None:
            left = _stop(honcho)
            if deploy is not None:
                deploy.left_running = left
        stop_server(srv)


def _stop(process: subprocess.Popen) -> int:
    """Stop honcho as a user would (SIGTERM: it stops each process group it started);
    returns how many ragline processes were still running after it, then killed."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(40)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    left = _ragline_pids()
    for pid in left:  # nothing may outlive the drill
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return len(left)


_OWN: set[str] = set()  # homes of this drill's processes (to find them, and only them)


def _ragline_pids(command: str | None = None, port: int | None = None) -> list[int]:
    """Processes of this drill (their RAGLINE_HOME under one of ``_OWN``) running
    ``ragline <command>`` (on ``port``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        args = [a.decode(errors="replace") for a in argv if a]
        home = next((e.decode(errors="replace")[len("RAGLINE_HOME="):] for e in environ
                     if e.startswith(b"RAGLINE_HOME=")), "")
        if not any(home.startswith(own) for own in _OWN) or not any(a.endswith("/ragline") for a in args[:2]):
            continue
        if command is not None and command not in args:
            continue
        if port is not None and str(port) not in args:
            continue
        found.append(int(entry.name))
    return found


def _file(rng: random.Random, tenant: str, n: int, words: int) -> tuple[str, bytes]:
    topic = rng.choice(TOPICS)
    sentences = []
    while sum(len(s.split()) for s in sentences) < words:
        sentences.append(f"Section {len(sentences)} of {tenant} note {n} explains {topic} under policy "
                         f"{rng.randrange(10**6)} with reference {rng.randrange(10**9)}.")
    return f"{tenant}-{n}.md", f"# {topic.title()} {n}\n\n{' '.join(sentences)}\n".encode()


@dataclass
class Ledger:
    """Everything the load sent and got back."""

    requests: list[tuple[int, str, str, float, int | str]] = field(default_factory=list)  # replica, tenant, kind, ms, status
    kept: dict[str, dict[str, bytes]] = field(default_factory=dict)  # tenant → source → bytes (acknowledged)
    unknown: dict[str, set[str]] = field(default_factory=dict)  # uploads with no answer (their replica died)
    jobs: list[str] = field(default_factory=list)
    capped: list[tuple[float, int | str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def upload(self, client: httpx.Client, replica: int, tenant: str, name: str, data: bytes) -> None:
        started = time.perf_counter()
        try:
            response = client.post(f"/v1/collections/{COLLECTION}/documents", files=[("files", (name, data))])
            status: int | str = response.status_code
        except httpx.HTTPError as exc:
            response, status = None, type(exc).__name__
        with self.lock:
            self.requests.append((replica, tenant, "upload", (time.perf_counter() - started) * 1000, status))
            if response is not None and status == 202:
                self.kept.setdefault(tenant, {})[name] = data
                self.jobs += [j["id"] for j in response.json()["jobs"]]
            elif status != 429:
                self.unknown.setdefault(tenant, set()).add(name)


def _load(deploy: Deployment, keys: dict[str, str], ledger: Ledger, stop: threading.Event, words: int) -> list:
    threads = []

    def user(replica: int, tenant: str, seed: int) -> None:
        rng = random.Random(seed)
        with httpx.Client(base_url=deploy.urls[replica], headers={"Authorization": f"Bearer {keys[tenant]}"},
                          timeout=60) as client:
            n = 0
            while not stop.is_set():
                kind = rng.choices(["search", "ask", "upload"], weights=[6, 3, 1])[0]
                if kind == "upload":
                    n += 1
                    ledger.upload(client, replica, tenant, *_file(rng, tenant, 1000 * (seed + 1) + n, words // 4))
                    continue
                started = time.perf_counter()
                try:
                    if kind == "search":
                        status: int | str = client.post("/v1/search", json={
                            "query": rng.choice(TOPICS), "collection": COLLECTION}).status_code
                    else:
                        status = client.post("/v1/ask", json={"question": f"What about {rng.choice(TOPICS)}?",
                                                              "collection": COLLECTION}).status_code
                except httpx.HTTPError as exc:
                    status = type(exc).__name__
                    time.sleep(0.2)  # a dead replica: do not spin
                with ledger.lock:
                    ledger.requests.append((replica, tenant, kind, (time.perf_counter() - started) * 1000, status))

    def capped(replica: int) -> None:
        with httpx.Client(base_url=deploy.urls[replica], headers={"Authorization": f"Bearer {keys[CAPPED]}"},
                          timeout=60) as client:
            while not stop.is_set():
                try:
                    status: int | str = client.get("/v1/collections").status_code
                except httpx.HTTPError as exc:
                    status = type(exc).__name__
                    time.sleep(0.2)
                with ledger.lock:
                    ledger.capped.append((time.monotonic(), status))

    for replica in (0, 1):
        for t, tenant in enumerate(TENANTS):
            threads.append(threading.Thread(target=user, args=(replica, tenant, 10 * replica + t), daemon=True))
        threads.append(threading.Thread(target=capped, args=(replica,), daemon=True))
    for thread in threads:
        thread.start()
    return threads


def _running_job(db_url: str) -> tuple[str, int] | None:
    """A job being ingested, and the pid of the worker process holding it."""
    with psycopg.connect(db_url) as conn:
        row = conn.execute("SELECT id, worker FROM jobs WHERE state IN ('parsing', 'embedding') AND worker IS NOT "
                           "NULL AND lease_until > extract(epoch from now()) ORDER BY started LIMIT 1").fetchone()
    if row is None:
        return None
    pid = int(row[1].split(":")[1])  # host:pid:runner:thread (server/jobs.py)
    return row[0], pid


def _chunk_ids(engine: Engine, tenant: str, skip: set[str]) -> list[str]:
    scope = Scope(tenant, (COLLECTION,), None)
    ids: list[str] = []
    for doc in engine.list_documents(scope):
        if doc.id not in skip:
            ids += [h.chunk_id for h in engine.passages(scope, doc.id)]
    return ids


def _clean_ingest(root: Path, kept: dict[str, dict[str, bytes]]) -> dict[str, list[str]]:
    """The chunk ids a fresh store gets from the same files, ingested one by one."""
    engine = Engine(Settings(home=root, embedder=EmbedderSettings(name="hashing")))
    try:
        out = {}
        for tenant, files in kept.items():
            scope = Scope(tenant, (COLLECTION,), None)
            folder = root / "files" / tenant
            folder.mkdir(parents=True)
            for name, data in files.items():
                (folder / name).write_bytes(data)
                engine.ingest_file(folder / name, scope, source=name)
            out[tenant] = _chunk_ids(engine, tenant, set())
        return out
    finally:
        engine.close()


def run(files: int, words: int, seconds: float, output: Path | None = None, *, rpm: int = 30,
        lease_s: float = 5.0, timeout: float = 600.0) -> dict:
    """Run the drill; ``rpm``: the capped tenant's quota, low enough to bite in ``seconds``."""
    root = Path(tempfile.mkdtemp(prefix="ragline-deploy-"))
    _OWN.add(str(root / "home"))
    ledger = Ledger()
    events: dict[str, float | str | int | None] = {}
    with deployment(root, lease_s, rpm) as deploy:
        keys = {t: deploy.tenant(t) for t in (*TENANTS, CAPPED)}
        rng = random.Random(7)
        for tenant in TENANTS:  # the files every check compares, through both replicas
            with httpx.Client(timeout=60, headers={"Authorization": f"Bearer {keys[tenant]}"}) as c:
                for n in range(files):
                    replica = n % 2
                    c.base_url = httpx.URL(deploy.urls[replica])
                    ledger.upload(c, replica, tenant, *_file(rng, tenant, n, words))
        stop = threading.Event()
        started = time.monotonic()
        threads = _load(deploy, keys, ledger, stop, words)
        web1_port = int(deploy.urls[0].rsplit(":", 1)[1])
        victim = None
        while victim is None and time.monotonic() - started < seconds / 2:  # mid-ingest: a job running
            victim = _running_job(deploy.db_url)
            time.sleep(0.05)
        killed_at = time.monotonic()
        if victim is not None:
            os.kill(victim[1], signal.SIGKILL)
            events.update(worker_killed_pid=victim[1], worker_killed_job=victim[0])
        replica_pids = _ragline_pids("serve", web1_port)
        for pid in replica_pids:
            os.kill(pid, signal.SIGKILL)
        events.update(replica_killed_pids=str(replica_pids), killed_after_s=round(killed_at - started, 2))
        back = None
        while time.monotonic() - started < seconds:
            if back is None:
                try:
                    if httpx.get(deploy.urls[0] + "/readyz", timeout=1).status_code == 200 and \
                            not set(_ragline_pids("serve", web1_port)) & set(replica_pids):
                        back = round(time.monotonic() - killed_at, 2)
                except httpx.HTTPError:
                    pass
            time.sleep(0.2)
        stop.set()
        for thread in threads:
            thread.join(90)
        load_s = time.monotonic() - started
        events["replica_back_after_s"] = back
        # Every acknowledged job must end indexed: wait for the queue to drain.
        deadline = time.monotonic() + timeout
        with psycopg.connect(deploy.db_url) as conn:
            while time.monotonic() < deadline:
                pending = conn.execute("SELECT count(*) FROM jobs WHERE state NOT IN ('indexed', 'failed')"
                                       ).fetchone()[0]
                conn.commit()
                if not pending:
                    break
                time.sleep(0.5)
            states = dict(conn.execute("SELECT id, state FROM jobs").fetchall())
            tries = dict(conn.execute("SELECT id, tries FROM jobs").fetchall())
        # Kept in the database, none on a process's disk: a worker elsewhere would read them.
        events["uploads_on_local_disk"] = sum(1 for p in (root / "home").rglob("*")
                                              if p.is_file() and "uploads" in p.relative_to(root / "home").parts)
        engine = Engine(Settings(home=root / "check", embedder=EmbedderSettings(name="hashing"),
                                 store={"url": deploy.db_url}))
        try:
            unknown = {t: {document_id(Scope(t, (COLLECTION,), None), s) for s in names}
                       for t, names in ledger.unknown.items()}
            drill = {t: _chunk_ids(engine, t, unknown.get(t, set())) for t in TENANTS}
        finally:
            engine.close()
    events["left_running_after_stop"] = deploy.left_running
    clean = _clean_ingest(root / "clean", ledger.kept)
    result = _figures(ledger, events, states, tries, drill, clean, files=files, words=words, seconds=seconds,
                      load_s=load_s, rpm=rpm, lease_s=lease_s, output=output)
    if result["passed"]:
        shutil.rmtree(root, ignore_errors=True)
    else:  # the logs of every process stay for a look
        print(f"kept for inspection: {root} (honcho.log, home/*/)", file=sys.stderr)
    return result


def _figures(ledger: Ledger, events: dict, states: dict, tries: dict, drill: dict, clean: dict, *, files: int,
             words: int, seconds: float, load_s: float, rpm: int, lease_s: float, output: Path | None) -> dict:
    def failed(status: int | str) -> bool:
        return not isinstance(status, int) or status >= 500

    per_replica = {}
    for replica in (0, 1):
        rows = [r for r in ledger.requests if r[0] == replica]
        per_replica[f"web{replica + 1}"] = {
            "requests": len(rows), "failed": sum(failed(r[4]) for r in rows),
            "statuses": {s: sum(1 for r in rows if str(r[4]) == s) for s in sorted({str(r[4]) for r in rows})},
            **{kind: stats([r[3] for r in rows if r[2] == kind and r[4] in (200, 202)])
               for kind in ("search", "ask", "upload")}}
    lost_chunks = {t: len(set(clean.get(t, [])) - set(drill.get(t, []))) for t in TENANTS}
    extra_chunks = {t: len(set(drill.get(t, [])) - set(clean.get(t, []))) for t in TENANTS}
    repeated = {t: len(drill.get(t, [])) - len(set(drill.get(t, []))) for t in TENANTS}
    lost_jobs = [j for j in ledger.jobs if states.get(j) != "indexed"]
    admitted = [t for t, s in ledger.capped if s == 200]
    capped_s = (max(t for t, _ in ledger.capped) - min(t for t, _ in ledger.capped)) if ledger.capped else 0.0
    allowed = rpm + int(capped_s * rpm / 60) + 1
    result = {
        "files_per_tenant": files, "words_per_file": words, "seconds": seconds, "load_s": round(load_s, 1),
        "job_lease_s": lease_s, "deployment": "deploy/Procfile (honcho) + one embedded PostgreSQL",
        "events": events, "replicas": per_replica,
        "survivor_failed_requests": per_replica["web2"]["failed"],
        "jobs": {"acknowledged": len(ledger.jobs), "indexed": sum(states.get(j) == "indexed" for j in ledger.jobs),
                 "failed": sum(states.get(j) == "failed" for j in ledger.jobs), "lost": len(lost_jobs),
                 "retried": sum(tries.get(j, 0) > 1 for j in ledger.jobs)},
        "uploads_unanswered": sum(len(v) for v in ledger.unknown.values()),
        "uploads_on_local_disk": events.pop("uploads_on_local_disk"),
        "chunks": {"clean": sum(len(v) for v in clean.values()), "drill": sum(len(v) for v in drill.values()),
                   "lost": sum(lost_chunks.values()), "extra": sum(extra_chunks.values()),
                   "duplicated": sum(repeated.values())},
        "quota": {"tenant": CAPPED, "requests_per_minute": rpm, "seconds": round(capped_s, 1),
                  "sent": len(ledger.capped), "admitted": len(admitted), "allowed_at_most": allowed,
                  "refused": sum(s == 429 for _, s in ledger.capped), "holds": len(admitted) <= allowed},
    }
    result["passed"] = (result["survivor_failed_requests"] == 0 and result["jobs"]["lost"] == 0
                        and result["uploads_on_local_disk"] == 0 and events["left_running_after_stop"] == 0
                        and result["chunks"]["lost"] == 0 and result["chunks"]["extra"] == 0
                        and result["chunks"]["duplicated"] == 0 and result["quota"]["holds"])
    write("deployment", result, output)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=8, help="files per tenant uploaded before the load")
    parser.add_argument("--words", type=int, default=60_000, help="words per file (the load's uploads: a quarter)")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the load")
    parser.add_argument("--rpm", type=int, default=30, help="the capped tenant's requests per minute")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    result = run(args.files, args.words, args.seconds, args.output, rpm=args.rpm)
    sys.exit(0 if result["passed"] else 1)


if __name__ == "__main__":
    main()

"""Tenancy drill: what one hostile tenant costs another on one server.

A real ``ragline serve`` holds two tenants. The victim sends searches one after
another and we record their latency: first alone, then while the hostile tenant
floods the server from another process (``--hostile-threads`` connections, each
sending the longest searches the API takes with k=100, or uploads of 40,000-word
documents, which the server's ingestion process then chunks and embeds). The
hostile client runs at a lower CPU priority and in its own session: on a 2-core
machine it stands in for clients on other machines, and should not be what slows
the victim down (with autogroup scheduling, the kernel shares CPU between sessions
first, so in the drill's session its CPU was charged to the victim client's share).

Besides the client-side figures, each phase reports what the server's request log
says about the victim's searches (``victim_server_side``, and the p95 of each part:
authentication, waiting for a slot, search stages, stepping aside, the rest) and
the CPU share of the server, its job process and the hostile client.

    .venv/bin/python -m bench.drills.tenancy [--seconds 20] [--hostile-threads 6]

Writes bench/drills/results/tenancy.json; the target is p95_ratio <= 2.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from .common import serve, stats, write

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

WORDS = [f"word{i}" for i in range(5000)]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choices(WORDS, k=words))


def victim(url: str, key: str, seconds: float) -> tuple[list[float], int]:
    """Searches one after another for ``seconds``: latencies, and non-200 answers."""
    rng, times, errors = random.Random(1), [], 0
    deadline = time.monotonic() + seconds
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as client:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            response = client.post("/v1/search", json={"query": _text(rng, 8), "collection": "docs", "k": 5})
            times.append((time.perf_counter() - started) * 1000)
            errors += response.status_code != 200
    return times, errors


def hostile(url: str, key: str, threads: int, seconds: float, mix: str = "both") -> dict[str, int]:
    """The flood (run in its own process by ``main``): response counts by status."""
    rng = random.Random(100)
    uploads = [json.dumps({"documents": [{"text": _text(rng, 40_000), "source": f"big-{i}"}]}) for i in range(4)]
    searches = [json.dumps({"query": _text(rng, 1200)[:10_000], "collection": "spam", "k": 100}) for _ in range(8)]
    counts: dict[str, int] = {}
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def flood(n: int) -> None:
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
            i = 0
            while time.monotonic() < deadline:
                i += 1
                if mix == "upload" or (mix == "both" and n % 3 == 0):
                    response = client.post("/v1/collections/spam/documents/text", content=uploads[i % len(uploads)])
                else:
                    response = client.post("/v1/search", content=searches[i % len(searches)])
                with lock:
                    counts[str(response.status_code)] = counts.get(str(response.status_code), 0) + 1

    workers = [threading.Thread(target=flood, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return counts


def _process_cpu(pid: int) -> float:
    """CPU seconds of one process and its reaped children (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / CLOCK_TICKS


def _cpu_seconds(session: int) -> dict[str, float]:
    """CPU seconds used so far by the server (the process leading ``session``) and by
    the other processes of its session (the job process and its helpers)."""
    used = {"server": 0.0, "children": 0.0}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session:  # fields[3] is the session id; [11], [12] user and system ticks
            role = "server" if int(entry.name) == session else "children"
            used[role] += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return used


class _Phase:
    """What the server did for the victim while a phase ran: the latency its request
    log reports for the victim's searches (the time inside the app, without the wait
    to be read off the socket), and the CPU seconds of the server and its job process."""

    def __init__(self, log: Path, session: int) -> None:
        self.log, self.session = log, session
        self.offset = log.stat().st_size
        self.cpu = _cpu_seconds(session)
        self.started = time.monotonic()

    def end(self) -> dict:
        cpu = _cpu_seconds(self.session)
        wall = time.monotonic() - self.started
        victim_ms, hostile, victim_parts = [], {}, {}
        with open(self.log, "rb") as handle:
            handle.seek(self.offset)
            for raw in handle:
                try:
                    line = json.loads(raw[raw.index(b"{"):])
                except ValueError:
                    continue
                if line.get("event") != "request":
                    continue
                if line.get("tenant") == "victim":
                    victim_ms.append(float(line["ms"]))
                    stages = sum((line.get("stages_ms") or {}).values())
                    parts = {"admit": line.get("admit_ms", 0.0), "gate": line.get("gate_ms", 0.0), "search": stages,
                             "paused": line.get("paused_ms", 0.0)}
                    parts["other"] = line["ms"] - sum(parts.values())
                    for name, ms in parts.items():
                        victim_parts.setdefault(name, []).append(ms)
                else:
                    name = f"{line.get('status')} {line.get('error') or ''}".strip()
                    hostile[name] = hostile.get(name, 0) + 1
        return {"victim_server_side": stats(victim_ms), "hostile_server_side": hostile,
                "victim_server_parts_p95_ms": {k: stats(v).get("p95_ms") for k, v in victim_parts.items()},
                "cpu_share": {k: round((cpu[k] - self.cpu[k]) / wall, 2) for k in cpu}}


def run(seconds: float, hostile_threads: int, output: Path | None = None, env: dict[str, str] | None = None,
        mix: str = "both") -> dict:
    with serve(env) as server:
        keys = {t: server.tenant(t) for t in ("victim", "hostile")}
        rng = random.Random(0)
        with server.client(keys["victim"]) as c:
            docs = [{"text": _text(rng, 300), "source": f"d{i}"} for i in range(200)]
            jobs = c.post("/v1/collections/docs/documents/text", json={"documents": docs}).json()["jobs"]
            while any(c.get(f"/v1/jobs/{j['id']}").json()["state"] != "indexed" for j in jobs[-3:]):
                time.sleep(0.5)
        with server.client(keys["hostile"]) as c:
            c.post("/v1/collections/spam/documents/text",
                   json={"documents": [{"text": _text(rng, 3000), "source": "s"}]}).raise_for_status()
            time.sleep(2)
        victim(server.url, keys["victim"], 2)  # warm-up
        log, session = server.home / "server.log", server.process.pid
        phase = _Phase(log, session)
        solo, solo_errors = victim(server.url, keys["victim"], seconds)
        solo_server = phase.end()
        flood = subprocess.Popen(["nice", "-n", "10", sys.executable, "-m", "bench.drills.tenancy", "--as-hostile",
                                  server.url, keys["hostile"], str(hostile_threads), str(seconds + 4), mix],
                                 stdout=subprocess.PIPE, cwd=Path(__file__).parents[2], start_new_session=True)
        time.sleep(2)
        phase = _Phase(log, session)
        flood_cpu = _process_cpu(flood.pid)
        attacked, attacked_errors = victim(server.url, keys["victim"], seconds)
        attacked_server = phase.end()
        attacked_server["cpu_share"]["hostile_client"] = round(
            (_process_cpu(flood.pid) - flood_cpu) / (time.monotonic() - phase.started), 2)
        counts = json.loads(flood.communicate(timeout=seconds + 180)[0] or b"{}")
    alone, under = stats(solo), stats(attacked)
    result = {
        "seconds": seconds, "hostile_threads": hostile_threads, "mix": mix, "victim_alone": alone, "victim_with_hostile": under,
        "victim_errors": solo_errors + attacked_errors, "hostile_responses": counts,
        "server_alone": solo_server, "server_with_hostile": attacked_server,
        "p95_ratio": round(under["p95_ms"] / alone["p95_ms"], 2), "target_p95_ratio": 2.0}
    write("tenancy", result, output)
    return result


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--as-hostile":
        url, key, threads, seconds, mix = sys.argv[2:7]
        print(json.dumps(hostile(url, key, int(threads), float(seconds), mix)))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--hostile-threads", type=int, default=6)
    parser.add_argument("--mix", choices=("both", "search", "upload"), default="both",
                        help="what the hostile threads send: searches, uploads, or both (a third upload)")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    run(args.seconds, args.hostile_threads, args.output, mix=args.mix)


if __name__ == "__main__":
    main()

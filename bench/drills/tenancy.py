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

The drill measures what one tenant costs another, not what other work on the machine
costs the server: where it may (root), it raises the CPU weight of the server's session
and of its own (the victim client's) to that of a machine of their own (autogroup nice
−10: about nine times a session at 0), and reports whether it could
(``server_favoured``). The hostile client keeps an ordinary session's weight.

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

from .common import RESULTS, serve, stats, write

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


MIXES = {
    "get": "document lists, jobs, usage and collections (GET lookups)",
    "query": "search, ask and chat, in turn",
    "mixed": "search and chat, and a third of the connections uploading 40,000-word documents",
    "search": "the longest searches the API takes",
    "upload": "40,000-word uploads",
    "both": "searches, and a third of the connections uploading",
}
"""What the hostile connections send (``--mix``)."""

THREADS = {"get": 12, "query": 6, "mixed": 6}
"""Hostile connections per mix in ``--matrix`` (issue 29's figures: 12 GET threads, 6 others)."""

QUOTA_RATE = 100.0
"""Requests per second the bounded hostile client sends in all: the default tenant quota
(``quotas.requests_per_minute`` 6,000), what the server admits from it anyway."""


def _requests(rng: random.Random, mix: str) -> list[tuple[str, str, str | None, bool]]:
    """(method, path, JSON body, is an upload) the hostile connections cycle through."""
    question = _text(rng, 1200)[:10_000]
    lookups = [("GET", path, None, False) for path in (
        "/v1/collections/spam/documents", "/v1/jobs", "/v1/usage", "/v1/collections", "/v1/usage/matches?collection=spam")]
    search = ("POST", "/v1/search", json.dumps({"query": question, "collection": "spam", "k": 100}), False)
    ask = ("POST", "/v1/ask", json.dumps({"question": question, "collection": "spam"}), False)
    chat = ("POST", "/v1/chat/completions",
            json.dumps({"model": "spam", "messages": [{"role": "user", "content": question}]}), False)
    upload = [("POST", "/v1/collections/spam/documents/text",
               json.dumps({"documents": [{"text": _text(rng, 40_000), "source": f"big-{i}"}]}), True) for i in range(4)]
    return {"get": lookups, "query": [search, ask, chat], "mixed": [search, chat], "search": [search],
            "upload": upload, "both": [search]}[mix] + (upload if mix in ("mixed", "both") else [])


def hostile(url: str, key: str, threads: int, seconds: float, mix: str = "both", rate: float = 0.0) -> dict[str, int]:
    """The flood (run in its own process by ``main``): response counts by status. With
    ``rate`` the connections together send at most that many requests per second
    (each paces itself to ``rate / threads``); without, each sends as fast as answered."""
    rng = random.Random(100)
    requests = _requests(rng, mix)
    uploads = [r for r in requests if r[3]]
    others = [r for r in requests if not r[3]]
    counts: dict[str, int] = {}
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    interval = threads / rate if rate else 0.0

    def flood(n: int) -> None:
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        mine = uploads if uploads and (mix == "upload" or n % 3 == 0) else others
        with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
            i, due = n, time.monotonic() + interval * n / max(1, threads)
            while time.monotonic() < deadline:
                if interval:
                    time.sleep(max(0.0, due - time.monotonic()))
                    due += interval
                method, path, body, _ = mine[i % len(mine)]
                i += 1
                response = client.request(method, path, content=body)
                with lock:
                    counts[str(response.status_code)] = counts.get(str(response.status_code), 0) + 1

    workers = [threading.Thread(target=flood, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return counts


FAVOURED_NICE = -10
"""The autogroup nice of the server's and the victim's sessions (``favour``)."""


def favour(pid: int) -> bool:
    """Give the session ``pid`` leads the CPU weight of autogroup nice ``FAVOURED_NICE``
    (Linux, root); False where the kernel or the user does not allow it."""
    try:
        Path(f"/proc/{pid}/autogroup").write_text(str(FAVOURED_NICE))
    except OSError:
        return False
    return True


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
        mix: str = "both", rate: float = 0.0) -> dict:
    """One victim-alone then victim-flooded measurement; ``rate`` bounds the hostile
    client (requests per second in all; 0: unbounded, the worst case)."""
    with serve(env) as server:
        favoured = favour(server.process.pid) and favour(os.getpid())
        keys = {t: server.tenant(t) for t in ("victim", "hostile")}
        rng = random.Random(0)
        with server.client(keys["victim"]) as c:
            docs = [{"text": _text(rng, 300), "source": f"d{i}"} for i in range(200)]
            jobs = c.post("/v1/collections/docs/documents/text", json={"documents": docs}).json()["jobs"]
            while any(c.get(f"/v1/jobs/{j['id']}").json()["state"] != "indexed" for j in jobs[-3:]):
                time.sleep(0.5)
        with server.client(keys["hostile"]) as c:
            spam = [{"text": _text(rng, 3000), "source": "s"}] + [
                {"text": _text(rng, 300), "source": f"s{i}"} for i in range(50)]  # a list worth serializing
            c.post("/v1/collections/spam/documents/text", json={"documents": spam}).raise_for_status()
            time.sleep(3)
        victim(server.url, keys["victim"], 2)  # warm-up
        log, session = server.home / "server.log", server.process.pid
        phase = _Phase(log, session)
        solo, solo_errors = victim(server.url, keys["victim"], seconds)
        solo_server = phase.end()
        flood = subprocess.Popen(["nice", "-n", "10", sys.executable, "-m", "bench.drills.tenancy", "--as-hostile",
                                  server.url, keys["hostile"], str(hostile_threads), str(seconds + 4), mix, str(rate)],
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
        "seconds": seconds, "hostile_threads": hostile_threads, "mix": mix, "hostile": MIXES[mix],
        "bound": f"at most {rate:g} requests/s in all" if rate else "unbounded", "hostile_rate": rate,
        "hostile_sent_per_s": round(sum(counts.values()) / (seconds + 4), 1), "victim_alone": alone, "victim_with_hostile": under,
        "victim_errors": solo_errors + attacked_errors, "hostile_responses": counts, "server_favoured": favoured,
        "server_alone": solo_server, "server_with_hostile": attacked_server,
        "p95_ratio": round(under["p95_ms"] / alone["p95_ms"], 2), "target_p95_ratio": 2.0}
    write("tenancy", result, output)
    return result


def matrix(seconds: float, output: Path | None = None, rate: float = QUOTA_RATE) -> dict:
    """Every flood of issue 29 (GET lookups; search, ask and chat; those with uploads),
    each unbounded (the worst case: the flooding client on the server's machine, as fast
    as it is answered) and bounded to ``rate`` requests/s: victim p95 solo → flooded."""
    runs, load_before = [], os.getloadavg()[0]
    for mix in ("get", "query", "mixed"):
        for bound in (0.0, rate):
            name = f"tenancy-{mix}-{'bounded' if bound else 'worst'}"
            result = run(seconds, THREADS[mix], (output.parent if output else RESULTS) / f"{name}.json", mix=mix,
                         rate=bound)
            runs.append({"mix": mix, "hostile": MIXES[mix], "threads": THREADS[mix], "bound": result["bound"],
                         "hostile_sent_per_s": result["hostile_sent_per_s"],
                         "victim_p95_alone_ms": result["victim_alone"]["p95_ms"],
                         "victim_p95_flooded_ms": result["victim_with_hostile"]["p95_ms"],
                         "p95_ratio": result["p95_ratio"], "victim_errors": result["victim_errors"],
                         "hostile_responses": result["hostile_responses"],
                         "cpu_share": result["server_with_hostile"]["cpu_share"],
                         "server_favoured": result["server_favoured"], "file": f"{name}.json"})
    table = {"seconds": seconds, "bounded_rate": rate, "target_p95_ratio": 2.0,
             "server_favoured": all(r["server_favoured"] for r in runs),
             "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],  # others' work on the machine
             "runs": runs,
             "met": {f"{r['mix']} {'bounded' if r['bound'] != 'unbounded' else 'worst'}": r["p95_ratio"] <= 2.0
                     for r in runs}}
    write("tenancy", table, output)
    return table


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--as-hostile":
        url, key, threads, seconds, mix, rate = sys.argv[2:8]
        print(json.dumps(hostile(url, key, int(threads), float(seconds), mix, float(rate))))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--hostile-threads", type=int, default=6)
    parser.add_argument("--mix", choices=tuple(MIXES), default="both",
                        help="what the hostile threads send: " + "; ".join(f"{k}: {v}" for k, v in MIXES.items()))
    parser.add_argument("--rate", type=float, default=0.0,
                        help="bound the hostile client to this many requests/s in all (0: unbounded, the worst case)")
    parser.add_argument("--matrix", action="store_true",
                        help=f"every flood ({', '.join(THREADS)}), unbounded and at --rate (default {QUOTA_RATE:g}/s)")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    if args.matrix:
        matrix(args.seconds, args.output, args.rate or QUOTA_RATE)
    else:
        run(args.seconds, args.hostile_threads, args.output, mix=args.mix, rate=args.rate)


if __name__ == "__main__":
    main()

"""Providers drill: a real server asking a fake LLM provider that misbehaves in the
ways issue 29 measured — a 60 MB answer (streamed, and whole), a provider dripping
a byte at a time, and one that never answers. Each ask must end by the call's
deadline with an extractive answer, and the server's peak memory must stay near
where it started (the bytes it read are capped; the provider could write only
what the sockets buffer beyond that).

    .venv/bin/python -m bench.drills.providers [--quick]

Writes bench/drills/results/providers.json.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .common import serve, write
from .faults import FEES, _index

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

MB = 1024 * 1024


def _rss_mb(pid: int, field: str) -> float:
    """A process's VmRSS or VmHWM (its peak) in MB, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def _fallback_reason(text: str, streamed: bool) -> str | None:
    """The answer's ``fallback_reason``, from its JSON or its stream's ``done`` event."""
    import json

    if not streamed:
        return json.loads(text).get("fallback_reason")
    for line in text.splitlines():
        if line.startswith("data:") and "fallback_reason" in line:
            return json.loads(line[5:]).get("fallback_reason")
    return None


def run(quick: bool, output: Path | None = None) -> dict:
    from tests.fakes.llm import Drip, FakeLLMServer, Huge, Slow

    timeout, deadline = (1.0, 3.0) if quick else (5.0, 10.0)
    megabytes = 60.0
    cases = {"huge_streamed": (Huge(megabytes), True), "huge_whole": (Huge(megabytes), False),
             "dripping": (Drip(0.05), True), "hanging": (Slow(10 * deadline), False)}
    if quick:
        cases = {name: cases[name] for name in ("huge_streamed", "dripping")}
    env = {"RAGLINE_GENERATOR__NAME": "openai", "RAGLINE_GENERATOR__API_KEY": "fake",
           "RAGLINE_GENERATOR__TIMEOUT": str(timeout), "RAGLINE_GENERATOR__DEADLINE_S": str(deadline),
           "RAGLINE_GENERATOR__RETRY_BACKOFF": "0.5"}
    results: dict[str, dict] = {}
    for name, (behaviour, streamed) in cases.items():
        with FakeLLMServer(default=behaviour) as fake, \
                serve({**env, "RAGLINE_GENERATOR__BASE_URL": fake.base_url}) as server, \
                server.client(server.tenant("acme"), timeout=120) as client:
            _index(client, FEES)
            rss_before = _rss_mb(server.process.pid, "VmRSS")
            started = time.perf_counter()
            body = {"question": "How much is an unarranged overdraft?", "collection": "docs", "stream": streamed}
            response = client.post("/v1/ask", json=body)
            seconds = time.perf_counter() - started
            text = response.text
            reason = _fallback_reason(text, streamed)
            time.sleep(0.3)  # the fake notices the closed connection
            results[name] = {
                "status": response.status_code, "seconds": round(seconds, 2), "deadline_s": deadline,
                "within_deadline": seconds <= deadline + 1.0,  # + the ask's own retrieval and fallback
                "extractive_fallback": '"generator": "extractive"' in text.replace('":"', '": "')
                or '"generator":"extractive"' in text,
                "answered": "5 EUR" in text, "fallback_reason": reason, "provider_requests": len(fake.requests),
                "provider_wrote_mb": round(fake.spout.sent / MB, 2),
                "server_rss_before_mb": rss_before, "server_peak_rss_mb": _rss_mb(server.process.pid, "VmHWM")}
    result = {"timeout_s": timeout, "deadline_s": deadline, "max_reply_mb": 4.0, "answer_mb": megabytes,
              "cases": results}
    write("providers", result, output)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    run(args.quick, args.output)


if __name__ == "__main__":
    main()

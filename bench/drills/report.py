"""Render bench/drills/results/*.json as bench/drills/results.md (run by `make drills`)."""

from __future__ import annotations

import json
from pathlib import Path

from .common import RESULTS
from .tenancy import FAVOURED_NICE


def _latency(row: dict) -> str:
    return f"{row.get('p50_ms', '–')} / {row.get('p95_ms', '–')} / {row.get('max_ms', '–')}"


def render() -> str:
    lines = ["# Drill figures", "", ("Written by `make drills` (`python -m bench.drills.report`); each section names "
             "its command. Machine: the run's `cpus` cores, nothing else running unless said."), ""]
    load = _read("load")
    if load:
        lines += ["## Load (`python -m bench.drills.load`)", "",
                  (f"{load['clients']} clients, {load['seconds']:g} s, embedder {load['embedder']}, run {load['when']}: "
                  f"**{load['qps']} requests/s**, {load['errors']} errors."), "",
                  "| kind | requests | p50 / p95 / max ms |", "| --- | --- | --- |"]
        lines += [f"| {kind} | {row.get('requests', 0)} | {_latency(row)} |" for kind, row in load["latency"].items()]
        lines.append("")
    tenancy = _read("tenancy")
    if tenancy and "runs" in tenancy:
        lines += ["## Tenancy (`python -m bench.drills.tenancy --matrix`)", "",
                  (f"Victim: one tenant searching one request at a time, {tenancy['seconds']:g} s alone then "
                   f"{tenancy['seconds']:g} s flooded; hostile: another tenant from another process on the same "
                   f"machine (nice 10), unbounded (the worst case) or bounded to {tenancy['bounded_rate']:g} "
                   f"requests/s in all (the default rate quota). Run {tenancy['when']} on {tenancy['cpus']} cores"
                   + (f", load average {tenancy['load_average'][0]} → {tenancy['load_average'][1]} (other work on "
                      "the machine)" if "load_average" in tenancy else "") + "."
                   + (f" The server's and the victim's sessions had the CPU weight of a machine of their own "
                      f"(autogroup nice {FAVOURED_NICE}), the hostile client an ordinary one."
                      if tenancy.get("server_favoured") else "")), "",
                  "| hostile load | bound | sent/s | victim p95 solo → flooded | ratio (target ≤ 2) |",
                  "| --- | --- | --- | --- | --- |"]
        lines += [(f"| {r['threads']} threads: {r['hostile']} | {r['bound']} | {r['hostile_sent_per_s']} | "
                   f"{r['victim_p95_alone_ms']} → {r['victim_p95_flooded_ms']} ms | **{r['p95_ratio']}×** |")
                  for r in tenancy["runs"]]
        lines.append("")
    elif tenancy:
        lines += ["## Tenancy (`python -m bench.drills.tenancy`)", "",
                  (f"Victim searches one after another; hostile tenant floods from {tenancy['hostile_threads']} "
                  f"connections in another process; {tenancy['seconds']:g} s each, run {tenancy['when']}."), "",
                  "| victim | requests | p50 / p95 / max ms |", "| --- | --- | --- |",
                  f"| alone | {tenancy['victim_alone']['requests']} | {_latency(tenancy['victim_alone'])} |",
                  (f"| with the hostile tenant | {tenancy['victim_with_hostile']['requests']} | "
                  f"{_latency(tenancy['victim_with_hostile'])} |"), "",
                  (f"p95 ratio **{tenancy['p95_ratio']}** (target ≤ {tenancy['target_p95_ratio']}); victim errors "
                  f"{tenancy['victim_errors']}; hostile responses {tenancy['hostile_responses']}."), ""]
    lock = _read("write_lock")
    if lock:
        lines += ["## Write lock (`python -m bench.drills.write_lock`)", "",
                  (f"One {lock['chunks']:,}-chunk document: its write transaction held the lock "
                  f"**{lock['write_transaction_s']} s** (ingest {lock['ingest_s']} s in all); another tenant's small "
                  f"writes meanwhile waited at most **{lock['other_tenant_max_wait_s']} s** (p50 "
                  f"{lock['other_tenant_p50_wait_ms']} ms, {lock['other_tenant_writes']} writes). Run {lock['when']}."), ""]
    faults = _read("faults")
    if faults:
        lines += ["## Faults (`python -m bench.drills.faults`)", "", f"Run {faults['when']}.", ""]
        for name, result in faults["results"].items():
            lines += [f"### {name}", "", "```json", json.dumps(result, indent=2), "```", ""]
    providers = _read("providers")
    if providers:
        lines += ["## Providers (`python -m bench.drills.providers`)", "",
                  (f"A fake LLM provider answering {providers['answer_mb']:g} MB, dripping a byte at a time, or "
                  f"never answering; timeout {providers['timeout_s']:g} s, deadline {providers['deadline_s']:g} s, "
                  f"reply cap {providers['max_reply_mb']:g} MB. Run {providers['when']}."), "",
                  "| case | status | ask s | provider requests | provider wrote MB | server RSS before / peak MB | "
                  "fallback reason |", "| --- | --- | --- | --- | --- | --- | --- |"]
        lines += [f"| {name} | {c['status']} | {c['seconds']} | {c['provider_requests']} | {c['provider_wrote_mb']} | "
                  f"{c['server_rss_before_mb']} / {c['server_peak_rss_mb']} | {c.get('fallback_reason')} |"
                  for name, c in providers["cases"].items()]
        lines.append("")
    lanes = _read("ingest_lanes")
    if lanes:
        refused, slow = lanes["refused"], lanes["slow_file"]
        lines += ["## Ingestion lanes (`python -m bench.drills.ingest_lanes`)", "",
                  (f"{lanes['file_mb']} MB of 200,000 nested `<div>`s: {refused['state']} after "
                  f"{refused['seconds']} s from upload ({refused['error']}). With the structure limit raised (the "
                  f"file holds a parser for its {lanes['parse_timeout_s']:g} s time limit), another tenant's small "
                  f"text waited **{slow['small_job_wait_s']} s** from upload to {slow['small_job_state']} "
                  f"(target ≤ {slow['target_s']:g} s; the long job was {slow['long_job_state_then']} then). "
                  f"Run {lanes['when']}."), ""]
    owners = _read("owners")
    if owners:
        lines += ["## Owners (`python -m bench.drills.owners`)", "",
                  ("Owner ann's key searches a shared handbook (keyword and hybrid, three queries) and reads the "
                   "collection's counts, before and after owner bob stores 23 private documents full of the same "
                   f"words. Run {owners['when']}."), "",
                  "| backend | largest score change | same hits | counts for ann before → after | bob's chunks "
                  "seen by ann | `usage/matches?owner=bob` with ann's key |", "| --- | --- | --- | --- | --- | --- |"]
        lines += [f"| {r['backend']} | {r['scores_moved']:.3g} | {r['same_hits']} | {r['counts_before']} → "
                  f"{r['counts_after']} | {r['bob_hits_seen']} | {r['usage_matches_other_owner']} |"
                  for r in owners["runs"]]
        lines.append("")
    deploy = _read("deployment")
    if deploy:
        jobs, chunks, quota, events = deploy["jobs"], deploy["chunks"], deploy["quota"], deploy["events"]
        lines += ["## Deployment (`python -m bench.drills.deployment`)", "",
                  (f"{deploy['deployment']}: two replicas, two workers. {deploy['files_per_tenant']} files of "
                   f"{deploy['words_per_file']:,} words per tenant, then {deploy['load_s']:g} s of search, ask and "
                   f"upload from two tenants through both replicas; {events['killed_after_s']} s in, replica web1 "
                   f"and the worker ingesting job {events.get('worker_killed_job')} were SIGKILLed (web1 answered "
                   f"again after {events.get('replica_back_after_s')} s). Run {deploy['when']} on "
                   f"{deploy['cpus']} cores."), "",
                  "| replica | requests | failed | search p50 / p95 / max ms | ask p50 / p95 / max ms |",
                  "| --- | --- | --- | --- | --- |"]
        lines += [f"| {name}{' (killed)' if name == 'web1' else ''} | {r['requests']} | {r['failed']} | "
                  f"{_latency(r['search'])} | {_latency(r['ask'])} |" for name, r in deploy["replicas"].items()]
        lines += ["", (f"Requests to the surviving replica that failed: **{deploy['survivor_failed_requests']}**. "
                       f"Jobs: {jobs['acknowledged']} acknowledged, {jobs['indexed']} indexed, **{jobs['lost']} lost**, "
                       f"{jobs['retried']} of them run again (their worker died). Chunks: {chunks['drill']:,} stored "
                       f"against {chunks['clean']:,} from a clean ingest of the same files: **{chunks['lost']} lost, "
                       f"{chunks['extra']} extra, {chunks['duplicated']} duplicated** ({deploy['uploads_unanswered']} "
                       f"uploads unanswered by the dying replica left out of both); uploads kept on a process's disk: "
                       f"{deploy.get('uploads_on_local_disk', '–')} (all in the database). Quota: tenant "
                       f"{quota['tenant']} at {quota['requests_per_minute']} a minute sent {quota['sent']} requests "
                       f"over {quota['seconds']} s through both replicas, **{quota['admitted']} admitted** (at most "
                       f"{quota['allowed_at_most']} allowed), {quota['refused']} refused. "
                       f"All checks: **{'passed' if deploy['passed'] else 'FAILED'}**."), ""]
    fuzz = _read("fuzz")
    if fuzz:
        lines += ["## Hostile input (`python -m bench.drills.fuzz`)", "",
                  (f"{fuzz['loaders']['cases']} loader cases ({fuzz['loaders']['real_files_mutated']} real PDFs "
                  f"mutated), outcomes {fuzz['loaders']['outcomes']}, unexpected exceptions "
                  f"**{fuzz['loaders']['unexpected_count']}**; {fuzz['filters']['cases']} filter cases, outcomes "
                  f"{fuzz['filters']['outcomes']}, unexpected **{fuzz['filters']['unexpected_count']}**. "
                  f"Run {fuzz['when']}, {fuzz['seconds']} s."), ""]
    return "\n".join(lines)


def _read(name: str) -> dict | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def main() -> None:
    out = Path(__file__).parent / "results.md"
    out.write_text(render())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

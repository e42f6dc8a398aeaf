"""Search hits sorted or filtered by their match counters.

A hit's counters are read with it (the store's ``get_hits``): those written by the
meter's last flush (every ``usage.flush_interval_s`` seconds). Filters on them apply
to the retrieved candidates: the engine fetches a few times ``k`` when one is asked
for, then keeps ``k``."""

from __future__ import annotations

from ..errors import ConfigError
from ..models import Hit

SORTS = ("score", "match_count", "last_matched_at")
CANDIDATES_PER_HIT = 4  # hits fetched per hit wanted when counters filter or sort


def check_usage_options(sort: str | None, min_matches: int | None, max_matches: int | None) -> bool:
    """Whether any option asks for counters; ``ConfigError`` naming a bad one."""
    if sort is not None and sort not in SORTS:
        raise ConfigError(f"unknown sort {sort!r}; choose one of: {', '.join(SORTS)}")
    for name, value in (("min_matches", min_matches), ("max_matches", max_matches)):
        if value is not None and value < 0:
            raise ConfigError(f"{name} must be 0 or more, got {value}")
    return sort not in (None, "score") or min_matches is not None or max_matches is not None


def by_counters(hits: list[Hit], *, sort: str | None = None, min_matches: int | None = None,
                max_matches: int | None = None) -> list[Hit]:
    """The hits whose ``match_count`` lies in [min_matches, max_matches], in ``sort``
    order (best first; the search's order breaks ties)."""
    kept = [h for h in hits if (min_matches is None or h.match_count >= min_matches)
            and (max_matches is None or h.match_count <= max_matches)]
    if sort == "match_count":
        kept.sort(key=lambda h: -h.match_count)
    elif sort == "last_matched_at":
        kept.sort(key=lambda h: -(h.last_matched_at or 0.0))
    return kept

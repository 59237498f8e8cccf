"""One workspace's share of a question: its candidates, fetched in rounds until the policy keeps enough.

The federated query (:mod:`lucasrag_query._query`) runs :func:`fetch` for every workspace at once; each
round asks LightRAG's index and the chunk store's keyword ranking for more, judges only the rows it had
not judged, and stops once enough survive, the store has no more to give, or the over-fetch bound is
reached.
"""

from __future__ import annotations

import asyncio
import math

from lucasrag.lexical import fuse_rankings
from lucasrag_query._indexes import OpenWorkspace
from lucasrag_query.filters import Filters
from lucasrag_query.policy import Candidate
from lucasrag_query.temporal import TemporalSignals

#: Over-fetch at most this many times the per-workspace candidate count
#: when the policy filter removes candidates.
MAX_OVERFETCH = 8


def _iso(periods) -> list[tuple[str, str]]:
    return [(a.isoformat(), b.isoformat()) for a, b in periods]


def eligible_count(store, gate: TemporalSignals, filters: Filters | None = None) -> int:
    """How many of a store's chunks the band rule can keep (care aside): the present ones,
    plus the archival ones the archive admits; with a date filter, only those dated inside it (the
    archive is open for it), under its folders if it has them. Over-fetching past it cannot find more."""
    if filters is not None and (span := filters.iso_period) is not None:
        return sum(store.band_counts([span], filters.folders).values())
    counts = store.band_counts()
    present = sum(n for band, n in counts.items() if band != "archival")
    if not gate.archival_open:
        return present
    if gate.whole_archive:
        return present + counts.get("archival", 0)
    return present + store.band_counts(_iso(gate.periods)).get("archival", 0)


async def _read(store, read, *args):
    """``read(*args)``, off the event loop when the store waits on a server (PostgreSQL): the workspaces'
    reads then overlap instead of queueing behind each other on the loop; an in-memory read runs here."""
    return await asyncio.to_thread(read, *args) if store.waits_on_server else read(*args)


async def fetch(
    ws: OpenWorkspace,
    text: str,
    vector,
    need: int,
    keep,
    periods=(),
    graph: bool = True,
    keywords=(),
    gate: TemporalSignals | None = None,
    filters: Filters | None = None,
) -> tuple[list[Candidate], list[str]]:
    """Up to ``need`` candidates that survive the policy, asking LightRAG for
    more while the policy filter thins the list, and no more once all ``eligible``
    chunks (the store's count of those the band rule keeps) are in. The vector (or
    graph) hits and the keyword hits are fused by reciprocal rank. A query
    naming a period also brings the nearest chunks dated in it. With a date
    filter among the caller's ``filters``, only chunks dated inside it (and under
    its folders) pass: their nearest are the whole share, so the filter costs no
    extra rounds.
    Returns the candidates and the ids of those reached through the entity graph."""
    store = ws.store
    if filters is not None and (span := filters.iso_period) is not None:
        dated = await _read(store, store.nearest_dated, vector, [span], need, filters.folders)
    else:  # half the share at most, so the best matches outside the period still compete
        dated = await _read(store, store.nearest_dated, vector, _iso(periods), need // 2)
    eligible = None if gate is None else await _read(store, eligible_count, store, gate, filters)
    target = need if eligible is None else min(need, eligible)
    fetch = need
    # Each round's list mostly repeats the last one's: its rows are read and judged once.
    known: dict[str, Candidate | None] = {}  # chunk id → candidate (None: not in the chunk store)
    kept_ids: set[str] = set()
    ranking: dict = {}  # the vector ranking, worked out once for every round (see WorkspaceIndex.search)
    # The keyword ranking, read once for as many as the last round could ask: a store's first k are the first k of
    # its longer list, and each read scores every chunk holding a term (PostgreSQL: 50-70 ms at 100,000 notes).
    keyword_ranking: list[str] | None = None
    while True:
        hits = await ws.index.search(  # texts come from the chunk store (records below)
            text, fetch, query_vector=vector, graph=graph, ranking=ranking, rank_ahead=need * MAX_OVERFETCH, texts=False
        )
        if keywords and keyword_ranking is None:
            keyword_ranking = await _read(store, store.keyword_search, keywords, need * MAX_OVERFETCH)
        matched = (keyword_ranking or [])[:fetch]
        ids = list(dict.fromkeys([*dated, *fuse_rankings([[h.chunk_id for h in hits], matched])]))
        new = [i for i in ids if i not in known]
        records = await _read(store, store.get, new)
        known.update((i, ws.candidate(records[i]) if i in records else None) for i in new)
        # the policy judges each candidate on its own metadata, so judging only the new ones is enough
        kept_ids.update(c.chunk_id for c in keep([known[i] for i in new if known[i] is not None]))
        candidates = [c for c in (known[i] for i in ids) if c is not None]
        exhausted = len(hits) < fetch and len(matched) < fetch
        kept = sum(c.chunk_id in kept_ids for c in candidates)
        if kept >= target or exhausted or fetch >= need * MAX_OVERFETCH:
            return candidates, [h.chunk_id for h in hits if h.graph]
        # Ask for as many as the survival rate so far says are needed (at least twice as
        # many): a closed archive in a twenty-year vault keeps one candidate in six or so,
        # and plain doubling would take three more rounds to get there.
        fetch = min(need * MAX_OVERFETCH, max(fetch * 2, math.ceil(fetch * need / max(kept, 1) * 1.25)))

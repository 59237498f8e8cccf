"""LoCoMo's session-level protocol with every chosen conversation pooled in one vault.

Basic Memory's protocol: all sessions of all conversations in one index (272 sessions for
the ten), each question answered against the whole pool. The vault holds one folder per
conversation (``<sample_id>/sessions/YYYY-MM-DD session N.md``); a session key is
``<sample_id>/D<N>``, so a chunk of another conversation's session ``D3`` is a miss.
Questions are scored per half of the fixed split (by their conversation's half); a pool
of fewer than ten conversations is a smaller haystack, and easier, than the anchors'.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from lucasrag.settings import Settings
from lucasrag_harness.evaluation.baselines import BM25, FlatIndex, build_flat_index
from lucasrag_harness.evaluation.locomo import ADVERSARIAL, SESSION_CATEGORIES, Conversation, write_vault
from lucasrag_harness.evaluation.locomo_eval import (
    BM25_CHUNKS,
    BM25_SESSIONS,
    FLAT,
    LUCASRAG,
    RESCORE_OFF,
    TEMPORAL_OFF,
    TOP_K,
    Ingest,
    Log,
    _strip_markers,
)
from lucasrag_harness.evaluation.sessions import SessionScores, chunk_sessions, evidence_sessions, ranked_sessions

#: temporal preference off as well: in a pool "now" follows the latest conversation, so the
#: recency preference ranks an older conversation's sessions lower whatever the question
POOLED_SYSTEMS = (LUCASRAG, RESCORE_OFF, TEMPORAL_OFF, FLAT, BM25_CHUNKS, BM25_SESSIONS)


def _conversation_of(path: str) -> str:
    """``conv-26/sessions/2023-05-08 session 1.md`` → ``conv-26``."""
    return path.split("/", 1)[0]


def run_pooled(
    chosen: list[tuple[str, Conversation]],
    out: Path,
    *,
    ingest: Ingest,
    questions_per_conversation: int | None = None,
    log: Log = print,
) -> dict:
    """Ingest the chosen conversations into one vault under ``out/pooled`` and score every
    question (adversarial included) at session level; returns the report's ``sessions`` part."""
    from lucasrag.embedding import get_embedder
    from lucasrag.index.stores import open_chunk_store
    from lucasrag_query import _loop, query
    from lucasrag_query.options import QueryOptions

    vault, data = out / "pooled" / "vault", out / "pooled" / "data"
    for _, conv in chosen:
        write_vault(conv, vault / conv.sample_id)
    wanted = {c.sample_id for _, c in chosen}
    for stale in [p for p in vault.iterdir() if p.is_dir() and p.name not in wanted] if vault.is_dir() else []:
        for note in stale.glob("sessions/*.md"):
            note.unlink()
    now = max(c.now for _, c in chosen)
    settings = Settings.from_env(vault=vault.resolve(), data=data.resolve(), now=now)
    t0 = time.perf_counter()
    ingest(settings)
    ingest_s = time.perf_counter() - t0
    store = open_chunk_store(settings, "personal")
    try:
        records = store.all_records()
    finally:
        store.close()
    _loop.run(build_flat_index(settings, records))
    conversation_of_text = {r.text: _conversation_of(r.path) for r in records}
    log(f"pooled: {len(chosen)} conversations → {len(records)} chunks; ingest {ingest_s:.1f}s")

    def sessions_of(text: str) -> list[str]:
        prefix = conversation_of_text.get(text)
        return chunk_sessions(text, f"{prefix}/") if prefix else []

    texts = [r.text for r in records]
    bm25_chunks = BM25([_strip_markers(t) for t in texts])
    session_keys = [f"{c.sample_id}/D{s.number}" for _, c in chosen for s in c.sessions]
    bm25_sessions = BM25([_strip_markers("\n".join(t.line() for t in s.turns)) for _, c in chosen for s in c.sessions])
    halves = dict.fromkeys(h for h, _ in chosen)
    scores = {h: {name: SessionScores(name) for name in POOLED_SYSTEMS} for h in halves}
    flat = _loop.run(FlatIndex.open(settings))
    fused_order = replace(settings, rescore=False)
    started, asked = time.perf_counter(), 0
    try:
        for half, conv in chosen:
            questions = [*conv.questions, *conv.adversarial]
            if questions_per_conversation:
                questions = [
                    *conv.questions[:questions_per_conversation],
                    *conv.adversarial[:questions_per_conversation],
                ]
            for q in questions:
                asked += 1
                category = SESSION_CATEGORIES[q.category]
                gold = set(evidence_sessions(q.evidence, f"{conv.sample_id}/"))
                for name, options, asked_with in (
                    (LUCASRAG, QueryOptions(), settings),
                    (RESCORE_OFF, QueryOptions(), fused_order),
                    (TEMPORAL_OFF, QueryOptions(temporal_preference=False), settings),
                ):
                    result = query(q.text, top_k=TOP_K, settings=asked_with, options=options)
                    scores[half][name].add(
                        category, gold, ranked_sessions([r.text for r in result.results], sessions_of)
                    )
                vector = get_embedder(settings.embedding_model).embed_query([q.text])[0]
                hits = _loop.run(flat.search(q.text, TOP_K, vector))
                scores[half][FLAT].add(category, gold, ranked_sessions(hits, sessions_of))
                top = [texts[i] for i in bm25_chunks.top(q.text, TOP_K)]
                scores[half][BM25_CHUNKS].add(category, gold, ranked_sessions(top, sessions_of))
                scores[half][BM25_SESSIONS].add(
                    category, gold, [session_keys[i] for i in bm25_sessions.top(q.text, 10)]
                )
    finally:
        _loop.run(flat.close())
    log(f"pooled: {asked} questions × {len(POOLED_SYSTEMS)} systems in {time.perf_counter() - started:.1f}s")
    return {
        "protocol": f"pooled ({len(chosen)} conversations, {len(session_keys)} sessions in one vault)",
        "chunks": len(records),
        "ingest_seconds": round(ingest_s, 1),
        "halves": {
            h: [s.to_dict(SESSION_CATEGORIES[ADVERSARIAL]) for s in by_system.values()]
            for h, by_system in scores.items()
        },
    }

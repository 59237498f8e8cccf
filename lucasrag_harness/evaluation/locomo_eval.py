"""Run the LoCoMo retrieval evaluation: convert, ingest, query every system, score.

One vault and one data folder per conversation under ``out`` (``<sample_id>/vault``,
``<sample_id>/data``); both are reused on a re-run, and since the pipeline is
incremental and vectors are cached, a second run embeds nothing but the queries.
Every system answers from the same chunks: the ones the ingest wrote to the
``personal`` chunk store, read back after the ingest.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from lucasrag.settings import Settings
from lucasrag_harness.evaluation.baselines import BM25, FlatIndex, build_flat_index
from lucasrag_harness.evaluation.locomo import (
    ADVERSARIAL,
    CATEGORIES,
    SESSION_CATEGORIES,
    Conversation,
    EvidenceStats,
    load_locomo,
    names_a_date,
    write_vault,
)
from lucasrag_harness.evaluation.recall import KS, TURN_MARKER, SystemScores
from lucasrag_harness.evaluation.sessions import SessionScores, chunk_sessions, evidence_sessions, ranked_sessions

#: builds the indexes of a vault: ``lucasrag_assets.ingest.run_ingest`` (settings → IngestSummary)
Ingest = Callable[[Settings], Any]

Log = Callable[[str], None]
TOP_K = max(KS)

LUCASRAG = "LucasRAG query()"
BANDING_OFF = "LucasRAG, banding off"
DEFERENCE_OFF = "LucasRAG, deference off"
TEMPORAL_OFF = "LucasRAG, temporal preference off"
GRAPH_OFF = "LucasRAG, entity graph off"
KEYWORDS_OFF = "LucasRAG, keyword match off (vector only)"
RERANK_OFF = "LucasRAG, reranker off (embedding similarity)"
FLAT = "flat LightRAG (naive mode)"
BM25_CHUNKS = "BM25, same chunks"
BM25_TURNS = "BM25, one turn per document"
BM25_TURNS_EQUAL = "BM25, one turn per document, k × turns-per-chunk turns"
BM25_SESSIONS = "BM25, one session per document (k1 1.5, b 0.75)"
LUCASRAG_SESSION_SUM = "LucasRAG query(), session score = sum of its chunks' scores"
#: the fused order as it was before the learned second stage (LUCASRAG_RESCORE=0), beside it in one run
RESCORE_OFF = "LucasRAG, second stage off (fused order)"
#: the systems of the session-level protocol (each ranked list mapped to sessions by first appearance)
SESSION_SYSTEMS = (LUCASRAG, RESCORE_OFF, LUCASRAG_SESSION_SUM, FLAT, BM25_CHUNKS, BM25_SESSIONS)

#: The fixed split for honest tuning: locomo10.json's conversations in file order, the first five
#: (conv-26, -30, -41, -42, -43) to tune on, the last five (conv-44, -47, -48, -49, -50) to report.
HALVES: dict[str, tuple[int, int]] = {"tune": (0, 5), "report": (5, 10)}


def select_conversations(convs: list, half: str, conversations: int | None) -> list[tuple[str, object]]:
    """``(half, conversation)`` pairs: the chosen half (or both, ``"all"``), the first ``conversations``
    of each half when given."""
    if half not in (*HALVES, "all"):
        raise ValueError(f"unknown half {half!r} (expected tune, report or all)")
    chosen = []
    for name, (a, b) in HALVES.items():
        if half in (name, "all"):
            chosen += [(name, c) for c in convs[a:b][: conversations or None]]
    return chosen


def session_sum_ranking(items: list[tuple[str, float]], sessions_of) -> list[str]:
    """Sessions ranked by the sum of their chunks' scores (ties: first appearance)."""
    totals: dict[str, float] = {}
    for text, score in items:
        for s in sessions_of(text):
            totals[s] = totals.get(s, 0.0) + score
    return sorted(totals, key=lambda s: -totals[s])  # sorted() is stable: ties keep first appearance


def _variants(settings: Settings, ablations: bool = True) -> dict[str, object]:
    """The ``query()`` systems: the defaults and, with ``ablations``, one option switched off per row."""
    from lucasrag_query.options import QueryOptions

    if not ablations:
        return {LUCASRAG: QueryOptions()}
    variants = {
        LUCASRAG: QueryOptions(),
        BANDING_OFF: QueryOptions(banding=False),
        DEFERENCE_OFF: QueryOptions(deference=False),
        TEMPORAL_OFF: QueryOptions(temporal_preference=False),
        GRAPH_OFF: QueryOptions(graph=False),
        KEYWORDS_OFF: QueryOptions(keywords=False),
    }
    if settings.reranker_url:
        variants[RERANK_OFF] = QueryOptions(rerank=False)
    return variants


def _strip_markers(text: str) -> str:
    return TURN_MARKER.sub(" ", text)


def _prepare(conv: Conversation, root: Path, log: Log, ingest: Ingest, **overrides) -> tuple[Settings, dict]:
    """Write the vault, ingest it, build the flat index; return settings and facts.
    ``overrides`` replace settings (``graph=True`` for the graph evaluation)."""
    from lucasrag.index import open_chunk_store
    from lucasrag_query import _loop

    vault, data = root / conv.sample_id / "vault", root / conv.sample_id / "data"
    notes_written = write_vault(conv, vault)
    settings = Settings.from_env(vault=vault.resolve(), data=data.resolve(), now=conv.now, **overrides)
    t0 = time.perf_counter()
    summary = ingest(settings)
    ingest_s = time.perf_counter() - t0
    meta = summary.index_metadata.get("personal", {})
    store = open_chunk_store(settings, "personal")
    try:
        records = store.all_records()
    finally:
        store.close()
    t0 = time.perf_counter()
    flat_report = _loop.run(build_flat_index(settings, records))
    flat_s = time.perf_counter() - t0
    facts = {
        "sample_id": conv.sample_id,
        "now": conv.now.isoformat(),
        "sessions": len(conv.sessions),
        "turns": conv.turns,
        "questions": len(conv.questions),
        "notes_written": notes_written,
        "notes_indexed": sum(summary.per_workspace.values()),
        "notes_not_personal": sum(n for ws, n in summary.per_workspace.items() if ws != "personal"),
        "quarantined": len(summary.quarantined),
        "invalid": len(summary.invalid),
        "chunks": len(records),
        "archival_chunks": sum(1 for r in records if r.band == "archival"),
        "turns_in_chunks": sum(len(TURN_MARKER.findall(r.text)) for r in records),
        "chunk_words": [len(r.text.split()) for r in records],
        "texts_embedded": int(meta.get("texts_embedded", 0)),
        "ingest_seconds": round(ingest_s, 2),
        "flat_index_seconds": round(flat_s, 2),
        "flat_texts_embedded": flat_report.texts_embedded,
    }
    log(
        f"{conv.sample_id}: {len(conv.sessions)} sessions, {conv.turns} turns → {len(records)} chunks; "
        f"ingest {ingest_s:.1f}s ({facts['texts_embedded']} texts embedded), flat index {flat_s:.1f}s"
    )
    return settings, {"facts": facts, "records": records}


def _evaluate(
    conv: Conversation,
    settings: Settings,
    records,
    scores: dict[str, SystemScores],
    limit: int | None,
    log: Log,
    date_cue_only: bool = False,
    sessions: dict[str, SessionScores] | None = None,
    ablations: bool = True,
) -> None:
    from lucasrag.embedding import get_embedder
    from lucasrag_query import _loop, query

    texts = [r.text for r in records]
    bm25_chunks = BM25([_strip_markers(t) for t in texts])
    turns = [t.line() for s in conv.sessions for t in s.turns]
    bm25_turns = BM25([_strip_markers(t) for t in turns])
    # Equal-turns baseline: rank j covers the turns ranked round((j-1)·m)+1 .. round(j·m),
    # m = this conversation's mean turns per chunk, so R@k counts as many turns as k chunks hold.
    per_chunk = sum(len(TURN_MARKER.findall(t)) for t in texts) / max(len(texts), 1)
    bounds = [round(j * per_chunk) for j in range(TOP_K + 1)]
    variants = _variants(settings, ablations)
    flat = _loop.run(FlatIndex.open(settings))
    questions = [q for q in conv.questions if names_a_date(q.text)] if date_cue_only else conv.questions
    questions = questions[:limit] if limit else questions
    adversarial = (
        [] if sessions is None or date_cue_only else list(conv.adversarial[:limit] if limit else conv.adversarial)
    )
    session_ids = [f"D{s.number}" for s in conv.sessions]
    bm25_sessions = BM25([_strip_markers("\n".join(t.line() for t in s.turns)) for s in conv.sessions])
    started = time.perf_counter()
    try:
        for q in [*questions, *adversarial]:
            scored = q.category in CATEGORIES  # the chunk-level table: categories 1-4 only
            category, cue = SESSION_CATEGORIES[q.category], names_a_date(q.text)
            gold = set(evidence_sessions(q.evidence))
            for name, options in variants.items() if scored else [(LUCASRAG, variants[LUCASRAG])]:
                t0 = time.perf_counter()
                # the chunk-level table ranks passages: every passage in its own place
                result = query(q.text, top_k=TOP_K, settings=settings, options=options, chunks=True)
                ms = (time.perf_counter() - t0) * 1000
                if scored:
                    scores[name].add(category, q.evidence, [r.text for r in result.results], ms, cue)
                if sessions is not None and name == LUCASRAG:
                    # sessions: the product's list, one place per note (a LoCoMo session is a note)
                    grouped = query(q.text, top_k=TOP_K, settings=settings, options=options)
                    sessions[LUCASRAG].add(category, gold, ranked_sessions([r.text for r in grouped.results]))
                    by_sum = session_sum_ranking([(r.text, r.score) for r in result.results], chunk_sessions)
                    sessions[LUCASRAG_SESSION_SUM].add(category, gold, by_sum)
                    fused = query(q.text, top_k=TOP_K, settings=replace(settings, rescore=False), options=options)
                    sessions[RESCORE_OFF].add(category, gold, ranked_sessions([r.text for r in fused.results]))
            t0 = time.perf_counter()
            vector = get_embedder(settings.embedding_model).embed_query([q.text])[0]
            hits = _loop.run(flat.search(q.text, TOP_K, vector))
            flat_ms = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            top = bm25_chunks.top(q.text, TOP_K)
            bm25_ms = (time.perf_counter() - t0) * 1000
            if sessions is not None:
                sessions[FLAT].add(category, gold, ranked_sessions(hits))
                sessions[BM25_CHUNKS].add(category, gold, ranked_sessions([texts[i] for i in top]))
                sessions[BM25_SESSIONS].add(category, gold, [session_ids[i] for i in bm25_sessions.top(q.text, 10)])
            if not scored:
                continue
            scores[FLAT].add(category, q.evidence, hits, flat_ms, cue)
            scores[BM25_CHUNKS].add(category, q.evidence, [texts[i] for i in top], bm25_ms, cue)
            t0 = time.perf_counter()
            top = bm25_turns.top(q.text, TOP_K)
            scores[BM25_TURNS].add(
                category, q.evidence, [turns[i] for i in top], (time.perf_counter() - t0) * 1000, cue
            )
            t0 = time.perf_counter()
            top = bm25_turns.top(q.text, bounds[-1])
            grouped = ["\n\n".join(turns[i] for i in top[a:b]) for a, b in zip(bounds, bounds[1:])]
            scores[BM25_TURNS_EQUAL].add(category, q.evidence, grouped, (time.perf_counter() - t0) * 1000, cue)
    finally:
        _loop.run(flat.close())
    log(
        f"{conv.sample_id}: {len(questions)} questions × {len(scores)} systems"
        f" (+ {len(adversarial)} adversarial, session protocol) in {time.perf_counter() - started:.1f}s"
    )


def run_locomo(
    data_path: Path,
    out: Path,
    *,
    ingest: Ingest,
    conversations: int | None = None,
    questions_per_conversation: int | None = None,
    log: Log = print,
    date_cue_only: bool = False,
    half: str = "all",
    ablations: bool = True,
) -> dict:
    """Evaluate and return a JSON-serialisable report (see ``lucasrag_harness.commands.locomo`` for the tables).

    ``half`` picks the tuning half (conversations 1–5), the report half (6–10) or both;
    ``conversations`` keeps the first N of each chosen half. The chunk-level figures cover
    every chosen conversation; the session-level ones are reported per half.
    ``ingest`` builds the indexes of a vault (``lucasrag_assets.ingest.run_ingest``; the harness
    does not import the write side, its callers pass it in). ``ablations=False`` runs ``query()`` with
    its defaults only (the baselines still run): a third of the query time."""
    started = time.perf_counter()
    chosen = select_conversations(load_locomo(data_path), half, conversations)
    convs = [c for _, c in chosen]
    evidence = EvidenceStats()
    for c in convs:
        evidence.add(c.evidence)
    probe = Settings.from_env()
    systems = [*_variants(probe, ablations), FLAT, BM25_CHUNKS, BM25_TURNS, BM25_TURNS_EQUAL]
    scores = {name: SystemScores(name) for name in systems}
    halves = dict.fromkeys(h for h, _ in chosen)
    sessions = {h: {name: SessionScores(name) for name in SESSION_SYSTEMS} for h in halves}
    facts = []
    for name, conv in chosen:
        settings, prepared = _prepare(conv, out, log, ingest)
        facts.append({**prepared["facts"], "half": name})
        _evaluate(
            conv,
            settings,
            prepared["records"],
            scores,
            questions_per_conversation,
            log,
            date_cue_only,
            sessions=sessions[name],
            ablations=ablations,
        )
    chunk_words = [w for f in facts for w in f.pop("chunk_words")]
    categories = list(CATEGORIES.values())
    return {
        "dataset": str(data_path),
        "out": str(out),
        "conversations": len(convs),
        "half": half,
        "ablations": ablations,
        "sample_ids": {h: [c.sample_id for n, c in chosen if n == h] for h in halves},
        "questions_per_conversation": questions_per_conversation,
        "date_cue_only": date_cue_only,
        "chunk_tokens": probe.chunk_tokens,
        "candidates_per_workspace": probe.candidates_per_workspace,
        "top_k": TOP_K,
        "reranker": "llama.cpp" if probe.reranker_url else None,
        "reranker_note": None
        if probe.reranker_url
        else "the llama.cpp column needs a reranker server (set LUCASRAG_RERANKER_URL); skipped",
        "evidence": {
            **evidence.to_dict(),
            "questions_total": sum(c.questions_total for c in convs),
            "questions_scored": len(scores[BM25_TURNS].categories),
            "skipped_examples": sorted(set(evidence.skipped_examples)),
        },
        "chunks": {
            "total": len(chunk_words),
            "mean_words": float(np.mean(chunk_words)) if chunk_words else 0.0,
            "mean_turns": (sum(f["turns_in_chunks"] for f in facts) / len(chunk_words)) if chunk_words else 0.0,
            "archival": sum(f["archival_chunks"] for f in facts),
        },
        "per_conversation": facts,
        "systems": [s.to_dict(categories) for s in scores.values()],
        "sessions": {
            "protocol": "per conversation",
            "halves": {
                h: [s.to_dict(SESSION_CATEGORIES[ADVERSARIAL]) for s in by_system.values()]
                for h, by_system in sessions.items()
            },
        },
        "seconds": round(time.perf_counter() - started, 1),
    }

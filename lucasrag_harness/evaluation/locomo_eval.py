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
from pathlib import Path
from typing import Any

import numpy as np

from lucasrag.settings import Settings
from lucasrag_harness.evaluation.baselines import BM25, FlatIndex, build_flat_index
from lucasrag_harness.evaluation.locomo import (
    CATEGORIES,
    Conversation,
    EvidenceStats,
    load_locomo,
    names_a_date,
    write_vault,
)
from lucasrag_harness.evaluation.recall import KS, TURN_MARKER, SystemScores

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


def _variants(settings: Settings) -> dict[str, object]:
    from lucasrag_query.options import QueryOptions

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
    from lucasrag.index.stores import open_chunk_store
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
    variants = _variants(settings)
    flat = _loop.run(FlatIndex.open(settings))
    questions = [q for q in conv.questions if names_a_date(q.text)] if date_cue_only else conv.questions
    questions = questions[:limit] if limit else questions
    started = time.perf_counter()
    try:
        for q in questions:
            category, cue = CATEGORIES[q.category], names_a_date(q.text)
            for name, options in variants.items():
                t0 = time.perf_counter()
                result = query(q.text, top_k=TOP_K, settings=settings, options=options)
                ms = (time.perf_counter() - t0) * 1000
                scores[name].add(category, q.evidence, [r.text for r in result.results], ms, cue)
            t0 = time.perf_counter()
            vector = get_embedder().embed([q.text])[0]
            hits = _loop.run(flat.search(q.text, TOP_K, vector))
            scores[FLAT].add(category, q.evidence, hits, (time.perf_counter() - t0) * 1000, cue)
            t0 = time.perf_counter()
            top = bm25_chunks.top(q.text, TOP_K)
            scores[BM25_CHUNKS].add(
                category, q.evidence, [texts[i] for i in top], (time.perf_counter() - t0) * 1000, cue
            )
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
    log(f"{conv.sample_id}: {len(questions)} questions × {len(scores)} systems in {time.perf_counter() - started:.1f}s")


def run_locomo(
    data_path: Path,
    out: Path,
    *,
    ingest: Ingest,
    conversations: int | None = None,
    questions_per_conversation: int | None = None,
    log: Log = print,
    date_cue_only: bool = False,
) -> dict:
    """Evaluate and return a JSON-serialisable report (see ``lucasrag_cli.locomo`` for the tables).

    ``ingest`` builds the indexes of a vault (``lucasrag_assets.ingest.run_ingest``; the harness
    does not import the write side, its callers pass it in)."""
    started = time.perf_counter()
    convs = load_locomo(data_path)[: conversations or None]
    evidence = EvidenceStats()
    for c in convs:
        evidence.add(c.evidence)
    probe = Settings.from_env()
    systems = [*_variants(probe), FLAT, BM25_CHUNKS, BM25_TURNS, BM25_TURNS_EQUAL]
    scores = {name: SystemScores(name) for name in systems}
    facts = []
    for conv in convs:
        settings, prepared = _prepare(conv, out, log, ingest)
        facts.append(prepared["facts"])
        _evaluate(conv, settings, prepared["records"], scores, questions_per_conversation, log, date_cue_only)
    chunk_words = [w for f in facts for w in f.pop("chunk_words")]
    categories = list(CATEGORIES.values())
    return {
        "dataset": str(data_path),
        "out": str(out),
        "conversations": len(convs),
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
        "seconds": round(time.perf_counter() - started, 1),
    }

"""``lucasrag eval care``: the care detector on the generated corpus, both halves reported.

For each passage the detector assesses the passage's subject (all corpus
subjects on the deference list). Figures per half (``tune`` fitted the weights
and chose the thresholds; ``test`` never did):

* ``recall``: charged passages withheld (outcome charged or uncertain);
* ``false_positive_rate``: neutral passages withheld;
* ``uncertain_share``: uncertain outcomes among all subject mentions;
* ``recall_by_register``;
* query level, through ``lucasrag_query.policy.apply_policy`` (the one care
  rule): every passage a candidate of an unbridged query with a closed and an
  open archive; ``leaks`` = charged passages returned where care forbids it
  (present ones always, archival ones under a closed archive); with every
  subject bridged, ``over_withheld`` = neutral passages withheld for care.
* ``cost``: detector milliseconds per chunk (its forward pass included: at ingest
  the index reuses that pass's passage vector) against the embedder's on the
  same texts (ingest embeds every chunk);
* ``lexical_only``: recall, false positives and uncertain share without the
  vector evidence (what an ingest with another embedding model gets);
* ``chunk_view``: the same with the chunk's passage vector standing in for
  every span vector (what an ingest gives a one-chunk note whose text routing
  embedded first: see ``vectors``).
"""

from __future__ import annotations

import time
from collections import defaultdict

from lucasrag_assets.rules.care.vectors import SpanEmbed
from lucasrag_harness.evaluation.care_corpus import SUBJECTS, Passage, generate_corpus


def memo_spans(embed: SpanEmbed) -> SpanEmbed:
    """``embed`` that runs each (text, spans) once: the chunk-view run reuses the span run's passes."""
    seen: dict[tuple, tuple] = {}

    def cached(text, span_sets):
        key = (text, tuple(tuple(map(tuple, s)) for s in span_sets))
        if key not in seen:
            seen[key] = embed(text, span_sets)
        return seen[key]

    return cached


def chunk_view(embed: SpanEmbed) -> SpanEmbed:
    """``embed`` with every span vector dropped, so the chunk's passage vector stands in."""

    def chunk_only(text, span_sets):
        pooled, _ = embed(text, span_sets)
        return pooled, [None] * len(span_sets)

    return chunk_only


def _assess(passages: list[Passage], embed: SpanEmbed | None) -> tuple[list[tuple[Passage, str, float | None]], float]:
    from lucasrag_assets.rules.care.detector import assess_chunk

    out = []
    start = time.perf_counter()
    for p in passages:
        found = {a.subject: a for a in assess_chunk(p.text, SUBJECTS, embed=embed)}
        a = found.get(p.subject)
        out.append((p, a.outcome if a else "neutral", a.score if a else None))
    return out, time.perf_counter() - start


def _half_figures(rows: list[tuple[Passage, str, float | None]]) -> dict:
    charged = [o for p, o, _ in rows if p.label == "charged"]
    neutral = [o for p, o, _ in rows if p.label == "neutral"]
    by_register: dict[str, list[bool]] = defaultdict(list)
    for p, o, _ in rows:
        if p.label == "charged":
            by_register[p.register].append(o != "neutral")
    missed_families: dict[str, int] = defaultdict(int)
    fp_families: dict[str, int] = defaultdict(int)
    for p, o, _ in rows:
        if p.label == "charged" and o == "neutral":
            missed_families[p.family] += 1
        if p.label == "neutral" and o != "neutral":
            fp_families[p.family] += 1
    return {
        "charged_passages": len(charged),
        "neutral_passages": len(neutral),
        "families": len({p.family for p, _, _ in rows}),
        "recall": round(sum(o != "neutral" for o in charged) / max(len(charged), 1), 4),
        "charged_share": round(sum(o == "charged" for o in charged) / max(len(charged), 1), 4),
        "false_positive_rate": round(sum(o != "neutral" for o in neutral) / max(len(neutral), 1), 4),
        "uncertain_share": round(sum(o == "uncertain" for _, o, _ in rows) / max(len(rows), 1), 4),
        "recall_by_register": {r: round(sum(v) / len(v), 4) for r, v in sorted(by_register.items())},
        "missed_by_family": dict(sorted(missed_families.items())),
        "false_positives_by_family": dict(sorted(fp_families.items())),
        **query_level(rows),
    }


def query_level(rows: list[tuple[Passage, str, float | None]]) -> dict:
    from lucasrag_query.policy import Candidate, apply_policy
    from lucasrag_query.temporal import TemporalSignals

    candidates = [
        Candidate(
            f"c{i}", p.workspace, f"{p.family}/{i}.md", p.band, p.date, (p.subject,) if o != "neutral" else (), p.text
        )
        for i, (p, o, _) in enumerate(rows)
    ]
    truth = {f"c{i}": p for i, (p, _, _) in enumerate(rows)}
    leaks = 0
    for archive_open in (False, True):
        signals = TemporalSignals(archive_open, ("2013",) if archive_open else (), ())
        kept = apply_policy(candidates, temporal=signals, subjects=SUBJECTS).kept
        for c in kept:
            p = truth[c.chunk_id]
            if p.label == "charged" and not (archive_open and p.band == "archival"):
                leaks += 1
    closed = TemporalSignals(False, (), ())
    bridged = apply_policy(candidates, temporal=closed, subjects=SUBJECTS, bridge=[s.name for s in SUBJECTS])
    unbridged = apply_policy(candidates, temporal=closed, subjects=SUBJECTS)
    over = sum(1 for cid in unbridged.withheld_ids - bridged.withheld_ids if truth[cid].label == "neutral")
    return {"query_cases": 3 * len(candidates), "leaks": leaks, "over_withheld": over}


def _cost(passages: list[Passage], detector_seconds: float) -> dict:
    from lucasrag.embedding import get_embedder

    texts = [p.text for p in passages]
    embedder = get_embedder()
    embedder.embed(texts[:8])  # warm the session
    start = time.perf_counter()
    embedder.embed(texts)
    embed_seconds = time.perf_counter() - start
    return {
        "chunks": len(texts),
        "detector_ms_per_chunk": round(1000 * detector_seconds / len(texts), 3),
        "embedding_ms_per_chunk": round(1000 * embed_seconds / len(texts), 3),
        "detector_vs_embedding": round(detector_seconds / embed_seconds, 4),
    }


def evaluate_care(seed: int = 11, *, cost: bool = True, vectors: bool = True) -> dict:
    """Both halves with the evidence an ingest uses (vectors when the configured model fits the
    weights), plus each half's recall and false positives with lexical evidence only and with the
    chunk view."""
    from lucasrag.embedding import get_embedder
    from lucasrag_assets.rules.care.model import shipped_model
    from lucasrag_assets.rules.care.vectors import embedding_model_id, vector_warning

    passages = generate_corpus(seed)
    model = shipped_model()
    warning = vector_warning(model.vector, embedding_model_id(get_embedder())) if vectors else "vectors off"
    embed = memo_spans(get_embedder().embed_spans)
    rows, seconds = _assess(passages, None if warning else embed)
    lexical = rows if warning else _assess(passages, None)[0]
    chunk = rows if warning else _assess(passages, chunk_view(embed))[0]
    report = {
        "model": model.version,
        "thresholds": {"uncertain": model.uncertain_at, "charged": model.charged_at},
        "vector_evidence": warning or f"on ({model.vector.embedding_model})",
        "seed": seed,
        **{half: _half_figures([r for r in rows if r[0].half == half]) for half in ("tune", "test")},
    }
    if model.vector is not None:
        report["vector_thresholds"] = {"uncertain": model.vector.uncertain_at, "charged": model.vector.charged_at}
    for half in ("tune", "test"):
        figures = _half_figures([r for r in lexical if r[0].half == half])
        report[half]["lexical_only"] = {k: figures[k] for k in ("recall", "false_positive_rate", "uncertain_share")}
        figures = _half_figures([r for r in chunk if r[0].half == half])
        report[half]["chunk_view"] = {k: figures[k] for k in ("recall", "false_positive_rate", "uncertain_share")}
    if cost:
        report["cost"] = _cost(passages, seconds)
    return report

"""``lucasrag eval care``: withheld-until-released on the generated corpus, per batch and half.

Each passage is about one subject of the corpus's deference list and labelled ``charged`` or ``neutral``;
the detector assesses it exactly as an ingest does (no decisions, default policy). Figures per batch (the
tuning batches chose the release cut; the test half, held-out batch 4, never did):

* ``charged_released``: charged passages released (a leak unless a query bridges or opens the archive);
* ``references_found``: charged passages whose reference to their subject was resolved at all;
* ``neutral_released``: neutral mentions released before any review;
* ``collisions_released``: passages about a namesake (``namesake-*`` families: another person with the
  subject's first name) released as "not the subject";
* ``pending``: pairs withheld and awaiting review; ``review_decisions``: batch decisions a person needs to
  bring them to zero (below);
* query level, through ``lucasrag_query.policy.apply_policy`` (the one care rule): every passage a
  candidate of an unbridged query with a closed and an open archive; ``leaks`` = charged passages returned
  where care forbids it; with every subject bridged, ``over_withheld`` = neutral passages withheld for care.
* ``cost``: detector milliseconds per chunk (its forward pass included: at ingest the index reuses that
  pass's passage vector) against the embedder's on the same texts.

The simulated review: pending pairs listed as ``lucasrag care list`` lists them (most likely neutral
first); a person who knows the truth decides each run of same-label pairs in one batch decision
(``lucasrag care dismiss|confirm --neutral-above A --neutral-below B``). It does not re-ingest between
decisions, so what a dismissal teaches (similar pending pairs released) is not counted: an upper bound.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence

from lucasrag_harness.evaluation.care_corpus import (
    HELDOUT,
    HELDOUT2,
    HELDOUT3,
    HELDOUT4,
    SUBJECTS,
    WRITERS_BATCHES,
    Passage,
    generate_corpus,
)

WITHHELD = ("withheld", "charged", "uncertain")  # the outcomes of this detector and of the training's cuts
BATCH_ORDER = ("batches 1-5", "held-out 1", "held-out 2", "writers", "held-out 3", "held-out 4")


def batch_of() -> dict[str, str]:
    """Family name → the batch it was written in (batches 1-5 share one name)."""
    out = {}
    for name, (charged, neutral) in (
        ("held-out 1", HELDOUT),
        ("held-out 2", HELDOUT2),
        ("held-out 3", HELDOUT3),
        ("held-out 4", HELDOUT4),
    ):
        out |= {f.name: name for f in charged + neutral}
    out |= {f.name: "writers" for c, n in WRITERS_BATCHES for f in c + n}
    return out


Row = tuple[Passage, str, float | None, str | None]  # passage, outcome, score, source


def assessments(passages: Sequence[Passage], embed) -> list:
    """Each passage's ``CareAssessment`` for its own subject (None when nothing refers to it or looks like it).

    Each batch is read as one vault, as an ingest reads a vault: a bare first name in its technical passages
    is a namesake when that workspace's passages name one in full (``care.namesakes.workspace_namesakes``)."""
    from lucasrag_assets.rules.care.detector import assess_chunk
    from lucasrag_assets.rules.care.namesakes import workspace_namesakes

    batches, by_batch = batch_of(), defaultdict(list)
    for p in passages:
        by_batch[batches.get(p.family, BATCH_ORDER[0])].append(p)
    vaults = {b: workspace_namesakes([(p.workspace, p.text) for p in ps], SUBJECTS) for b, ps in by_batch.items()}

    def assessed(p: Passage):
        namesakes = vaults[batches.get(p.family, BATCH_ORDER[0])].get(p.workspace, {})
        return {a.subject: a for a in assess_chunk(p.text, SUBJECTS, namesakes=namesakes, embed=embed)}.get(p.subject)

    return [assessed(p) for p in passages]


def assess(passages: Sequence[Passage], embed) -> tuple[list[Row], float]:
    """Each passage's outcome for its own subject ("released" when nothing refers to it), timed."""
    start = time.perf_counter()
    found = assessments(passages, embed)
    seconds = time.perf_counter() - start
    rows = [
        (p, a.outcome if a else "released", a.score if a else None, a.source if a else None)
        for p, a in zip(passages, found)
    ]
    return rows, seconds


def review_decisions(rows: Sequence[Row]) -> int:
    """Batch decisions to bring the pending pairs to zero: runs of one label in ``care list`` order."""
    pending = sorted(((s or 0.0), p.label) for p, o, s, src in rows if o in WITHHELD and src == "inferred")
    return sum(1 for i, (_, label) in enumerate(pending) if i == 0 or pending[i - 1][1] != label)


def _share(rows: Sequence[Row], label: str, outcome: str, family: str = "") -> float | None:
    picked = [o for p, o, _, _ in rows if p.label == label and family in p.family]
    return round(sum(o == outcome for o in picked) / len(picked), 4) if picked else None


def batch_figures(rows: Sequence[Row]) -> dict:
    charged = [p for p, *_ in rows if p.label == "charged"]
    # a reference was found unless nothing referred to the subject (None) or only look-alikes did (resolution)
    found = sum(1 for p, _, _, src in rows if p.label == "charged" and src not in (None, "resolution"))
    released_by: dict[str, int] = defaultdict(int)
    for p, o, *_ in rows:
        if p.label == "charged" and o == "released":
            released_by[p.family] += 1
    return {
        "charged_passages": len(charged),
        "neutral_passages": sum(p.label == "neutral" for p, *_ in rows),
        "charged_released": _share(rows, "charged", "released"),
        "references_found": round(found / len(charged), 4) if charged else None,
        "neutral_released": _share(rows, "neutral", "released"),
        "collisions_released": _share(rows, "neutral", "released", "namesake"),
        "pending": sum(o in WITHHELD and src == "inferred" for _, o, _, src in rows),
        "review_decisions": review_decisions(rows),
        "charged_released_by_family": dict(sorted(released_by.items())),
        **query_level([(p, o, s) for p, o, s, _ in rows]),
    }


def query_level(rows: Sequence[tuple[Passage, str, float | None]]) -> dict:
    """Leaks and over-withholding through the query policy (``o`` withheld: any of :data:`WITHHELD`)."""
    from lucasrag_query.policy import Candidate, apply_policy
    from lucasrag_query.temporal import TemporalSignals

    candidates = [
        Candidate(
            f"c{i}", p.workspace, f"{p.family}/{i}.md", p.band, p.date, (p.subject,) if o in WITHHELD else (), p.text
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


def _cost(passages: Sequence[Passage], detector_seconds: float) -> dict:
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


def evaluate_care(seed: int = 11, *, cost: bool = True, vectors: bool = True, halves=("tune", "test")) -> dict:
    """Per batch and per half, with the evidence an ingest uses (vectors when the configured model fits the
    weights) and with lexical evidence alone (what an ingest with another embedding model gets).
    ``halves``: which to score; leave ``test`` out while choosing anything."""
    from lucasrag.embedding import get_embedder
    from lucasrag_assets.rules.care.model import shipped_model
    from lucasrag_assets.rules.care.vectors import embedding_model_id, vector_warning

    passages = [p for p in generate_corpus(seed) if p.half in halves]
    model = shipped_model()
    warning = vector_warning(model.vector, embedding_model_id(get_embedder())) if vectors else "vectors off"
    rows, seconds = assess(passages, None if warning else get_embedder().embed_spans)
    lexical = rows if warning else assess(passages, None)[0]
    batches = batch_of()
    report: dict = {
        "model": model.version,
        "release_rule": {"lexical": model.release_rule(False), "vector": model.release_rule(True)},
        "vector_evidence": warning or f"on ({model.vector.embedding_model})",
        "seed": seed,
    }
    for name, chosen in (("with_vectors", rows), ("lexical_only", lexical)):
        part = report.setdefault(name, {})
        for half in halves:
            part[half] = batch_figures([r for r in chosen if r[0].half == half])
        for batch in BATCH_ORDER:
            picked = [r for r in chosen if batches.get(r[0].family, "batches 1-5") == batch]
            if picked:
                part[batch] = batch_figures(picked)
    if cost:
        report["cost"] = _cost(passages, seconds)
    return report

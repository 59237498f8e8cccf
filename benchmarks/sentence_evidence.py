"""Would a sentence's similarity find the facts a chunk's similarity dilutes? (a measurement, not a feature)

    lucasrag eval policy --notes 1000 --seed 7 --no-ablations      # makes the vault and its index once
    python benchmarks/sentence_evidence.py --data .lucasrag_data/eval/policy/data-n1000-s7 \\
        --vault .lucasrag_data/eval/policy/vault-n1000-s7 [--cases]

The generated vault states a fact once in a long entry about other things ("Current account with Millennium bcp"
among lease and tax lines), and the policy evaluation's fact and period questions miss such notes: the chunk's
one vector is mostly about the rest. For each question with expected notes, the federated ``query()`` gives its
top 25; the expected notes are added to that pool, and the pool is ordered by one signal at a time — the chunk's
cosine to the question, the best of its sentences' *contextual* span vectors (the one forward pass over the chunk,
mean-pooled per sentence: what the care detector reads, no extra embedding call at ingest), and the best of its
sentences embedded one by one (an extra call per sentence). Printed: hit@5 of each ordering and of ``query()``
itself. A signal alone ignores the time fit, so these compare signals; they are not a ranking.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np
import polars as pl

KINDS = ("present_fact", "archive_year", "archive_cue", "period_date", "period_month", "period_season")
SIGNALS = ("chunk", "sentence spans", "sentences apart")
#: A sentence shorter than this many words is a fragment (a date line, a list item's label): not scored alone.
MIN_WORDS = 3


def note_signals(texts: list[str], question: np.ndarray, embedder, split) -> dict[str, float]:
    """The best of each signal over a note's chunks."""
    best = dict.fromkeys(SIGNALS, -1.0)
    for text in texts:
        sentences = [s for s in split(text) if not s.heading and len(s.text.split()) >= MIN_WORDS]
        pooled, spans = embedder.embed_spans(text, [[(s.start, s.end)] for s in sentences])
        best["chunk"] = max(best["chunk"], float(pooled @ question))
        inside = [float(v @ question) for v in spans if v is not None]
        if inside:
            best["sentence spans"] = max(best["sentence spans"], max(inside))
        if sentences:
            apart = embedder.embed([s.text for s in sentences]) @ question
            best["sentences apart"] = max(best["sentences apart"], float(apart.max()))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="the data folder of an ingested generated vault")
    ap.add_argument("--vault", type=Path, required=True, help="the vault (its truth file lies beside it)")
    ap.add_argument("--now", default="2026-06-01")
    ap.add_argument("--cases", action="store_true", help="one line per question")
    args = ap.parse_args()
    os.environ.update(LUCASRAG_DATA=str(args.data), LUCASRAG_VAULT=str(args.vault), LUCASRAG_NOW=args.now)
    from lucasrag.embedding import get_embedder
    from lucasrag_assets.rules.care.mentions import split_structured
    from lucasrag_query import query

    truth = json.loads(Path(f"{args.vault}.truth.json").read_text(encoding="utf-8"))
    chunks: dict[str, list[str]] = {}
    for path, text in (
        pl.read_parquet(args.data / "assets" / "banded_chunks.parquet").select("path", "text").iter_rows()
    ):
        chunks.setdefault(path, []).append(text)
    embedder = get_embedder()
    hits = dict.fromkeys(("query()", *SIGNALS), 0)
    cases = [c for c in truth["cases"] if c["kind"] in KINDS and c["expect_paths"]]
    for case in cases:
        found = [r.path for r in query(case["query"], top_k=25).results]
        pool = list(dict.fromkeys(found + [p for p in case["expect_paths"] if p in chunks]))
        question = np.asarray(embedder.embed_query([case["query"]])[0])
        scored = {p: note_signals(chunks[p], question, embedder, split_structured) for p in pool}
        expected = set(case["expect_paths"])
        line = {"query()": bool(expected & set(found[:5]))}
        for signal in SIGNALS:
            order = sorted(pool, key=lambda p: -scored[p][signal])
            line[signal] = bool(expected & set(order[:5]))
        for name, hit in line.items():
            hits[name] += hit
        if args.cases:
            marks = " ".join(f"{name} {'+' if hit else '-'}" for name, hit in line.items())
            print(f"{case['kind']:<14} {case['query'][:44]:<44} {marks}")
    print(f"\n{len(cases)} questions with expected notes ({', '.join(KINDS)}); hit@5")
    print("| ordering | hit@5 |\n|---|---|")
    for name, n in hits.items():
        print(f"| {name} | {n}/{len(cases)} |")


if __name__ == "__main__":
    main()

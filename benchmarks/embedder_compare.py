"""Two embedding models on LoCoMo in one run (``--models BASE CANDIDATE``, default MiniLM against
bge-small): recall (chunk and session level), ingest cost, query latency, and second-stage rescorings of
the fused top-k.

Each conversation is ingested once per model (``LUCASRAG_EMBEDDING_MODEL``; one data folder per model
under ``--out``); then every question is asked of both models in turn (side by side, so the machine's
load hits both alike). Also measured per question:

- the candidate's flat index (vector only) with its query prefix and with the query embedded as a passage
  would be (bge: no prefix; e5: ``"passage: "``), the choice of prefix;
- rescoring the base model's fused top ``--rescore-k`` by the candidate's cosines (read from the
  candidate's vector cache: the chunk texts are the same in both folders) — alone, and fused with the
  original order by reciprocal rank.

Session-level figures are also kept per conversation (``session_level_per_conversation`` in the JSON; the
printout gives Hit@1 / R@5 / MRR of both models per conversation), and session Hit@1 is paired by question
(categories 1–5: both models hit, neither, one alone; with the sign test of the two "alone" counts).

``--cold SAMPLE_ID``: instead, the cold ingest of one conversation per model, the models alternating base,
candidate, candidate, base, each into a fresh data folder under ``--out/cold`` (the vault: the one the
comparison left under ``--out/BASE``); wall time and the chunk-embedding stage, with the load average.

    python benchmarks/embedder_compare.py --half tune --conversations 5 --data locomo10.json --json out.json
    python benchmarks/embedder_compare.py --half tune --data locomo10.json --out /tmp/embcmp --cold conv-41
    python benchmarks/embedder_compare.py --models minilm e5-small --half tune --data locomo10.json --json e5.json

Cited by docs/locomo.md, "Embedding models".
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from lucasrag.embedding import get_embedder  # noqa: E402
from lucasrag.embedding_cache import EmbeddingCache  # noqa: E402
from lucasrag.settings import Settings  # noqa: E402
from lucasrag_assets.ingest import run_ingest  # noqa: E402
from lucasrag_harness.evaluation.baselines import FlatIndex  # noqa: E402
from lucasrag_harness.evaluation.locomo import (  # noqa: E402
    ADVERSARIAL,
    CATEGORIES,
    SESSION_CATEGORIES,
    load_locomo,
    names_a_date,
)
from lucasrag_harness.evaluation.locomo_eval import _prepare, select_conversations  # noqa: E402
from lucasrag_harness.evaluation.recall import SystemScores  # noqa: E402
from lucasrag_harness.evaluation.rescore_fit import sign_test  # noqa: E402
from lucasrag_harness.evaluation.sessions import SessionScores, evidence_sessions, ranked_sessions  # noqa: E402
from lucasrag_query import _loop, query  # noqa: E402
from lucasrag_query.options import QueryOptions  # noqa: E402

DEFAULT_MODELS = ("minilm", "bge-small")
TOP_K = 25
RRF_K = 60  # the usual reciprocal-rank constant


def rescored(texts: list[str], query_vec: np.ndarray, cache: EmbeddingCache, k: int, fuse: bool) -> list[str]:
    """The top ``k`` of ``texts`` reordered by cosine with ``query_vec`` (vectors of ``cache``'s model);
    with ``fuse``, by reciprocal-rank fusion of the original order and that cosine order. The rest stays."""
    head = texts[:k]
    if not head:
        return texts
    scores = cache.embed(head) @ query_vec
    by_cos = list(np.argsort(-scores, kind="stable"))
    if fuse:
        cos_rank = {i: r for r, i in enumerate(by_cos)}
        order = sorted(range(len(head)), key=lambda i: -(1 / (RRF_K + i) + 1 / (RRF_K + cos_rank[i])))
    else:
        order = by_cos
    return [head[i] for i in order] + texts[k:]


def cold_ingests(conv, out: Path, models: tuple[str, str]) -> None:
    """Cold ingests of ``conv`` per model, alternating (see the module docstring)."""
    base, candidate = models
    vault = out / base / conv.sample_id / "vault"
    if not vault.is_dir():
        sys.exit(f"{vault} not found: run the comparison (without --cold) first")
    for i, model in enumerate([base, candidate, candidate, base]):
        data = out / "cold" / f"{i}-{model}"
        shutil.rmtree(data, ignore_errors=True)
        settings = Settings.from_env(vault=vault.resolve(), data=data.resolve(), now=conv.now, embedding_model=model)
        t0 = time.perf_counter()
        summary = run_ingest(settings)
        wall = time.perf_counter() - t0
        meta = summary.index_metadata.get("personal", {})
        print(
            f"cold {model}: ingest {wall:.1f}s wall, chunk stage {meta.get('texts_embedded')} texts in "
            f"{meta.get('embed_seconds')}s; load {os.getloadavg()}",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=Path("../shared/data/locomo/locomo10.json"))
    ap.add_argument("--out", type=Path, default=Path("/tmp/lucasrag-embedder-compare"))
    ap.add_argument(
        "--models", nargs=2, default=DEFAULT_MODELS, metavar=("BASE", "CANDIDATE"), help="the two model ids"
    )
    ap.add_argument("--half", default="tune")
    ap.add_argument("--conversations", type=int, default=None)
    ap.add_argument("--questions", type=int, default=None, help="first N questions per conversation")
    ap.add_argument("--rescore-k", type=int, default=10)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--cold", metavar="SAMPLE_ID", help="time cold ingests of this conversation instead")
    args = ap.parse_args()
    models = base, cand = tuple(args.models)
    if base == cand:
        sys.exit(f"--models {base} {cand}: two different models are compared")
    started = time.perf_counter()
    chosen = select_conversations(load_locomo(args.data), args.half, args.conversations)
    if args.cold:
        by_id = {c.sample_id: c for _, c in chosen}
        if args.cold not in by_id:
            sys.exit(f"--cold {args.cold}: not a conversation of the {args.half} half ({', '.join(by_id)})")
        cold_ingests(by_id[args.cold], args.out, models)
        return
    flat_names = (f"flat {cand}, query prefix", f"flat {cand}, query as a passage")
    systems = [*(f"query() {m}" for m in models), *flat_names]
    rescores = [
        f"query() {base}, top {args.rescore_k} by {cand} cosine",
        f"query() {base}, top {args.rescore_k} RRF {cand}",
    ]
    chunk = {s: SystemScores(s) for s in systems + rescores}
    session = {s: SessionScores(s) for s in systems + rescores}
    per_conversation: dict[str, dict[str, SessionScores]] = {}
    ingest_rows = []
    embed_ms: dict[str, list[float]] = {m: [] for m in models}
    paired = {"both": 0, "neither": 0, f"{cand} only": 0, f"{base} only": 0}  # session Hit@1, categories 1–5
    for _half, conv in chosen:
        prepared = {}
        for model in models:
            captured = []

            def ingest(settings, captured=captured):
                summary = run_ingest(settings)
                captured.append(summary)
                return summary

            settings, facts = _prepare(conv, args.out / model, print, ingest, embedding_model=model)
            meta = captured[0].index_metadata.get("personal", {})
            ingest_rows.append(
                {
                    "sample_id": conv.sample_id,
                    "model": model,
                    "chunks": facts["facts"]["chunks"],
                    "texts_embedded": meta.get("texts_embedded", 0),
                    "embed_seconds": meta.get("embed_seconds", 0.0),
                    "ingest_seconds": facts["facts"]["ingest_seconds"],
                }
            )
            prepared[model] = settings
        candidate = get_embedder(cand)
        cand_cache = EmbeddingCache(prepared[cand].data / "embeddings.sqlite", cand)
        flat = _loop.run(FlatIndex.open(prepared[cand]))
        here = per_conversation[conv.sample_id] = {s: SessionScores(s) for s in systems + rescores}
        questions = conv.questions[: args.questions] if args.questions else conv.questions
        adversarial = conv.adversarial[: args.questions] if args.questions else conv.adversarial
        try:
            for q in [*questions, *adversarial]:
                scored = q.category in CATEGORIES
                category, cue = SESSION_CATEGORIES[q.category], names_a_date(q.text)
                gold = set(evidence_sessions(q.evidence))

                def record(name, texts, ms, scored=scored, category=category, cue=cue, gold=gold, q=q, here=here):
                    if scored:
                        chunk[name].add(category, q.evidence, texts, ms, cue)
                    session[name].add(category, gold, ranked_sessions(texts))
                    here[name].add(category, gold, ranked_sessions(texts))

                texts_by = {}
                for model in models:
                    t0 = time.perf_counter()
                    result = query(q.text, top_k=TOP_K, settings=prepared[model], options=QueryOptions())
                    ms = (time.perf_counter() - t0) * 1000
                    texts_by[model] = [r.text for r in result.results]
                    record(f"query() {model}", texts_by[model], ms)
                    t0 = time.perf_counter()
                    get_embedder(model).embed_query([q.text])
                    embed_ms[model].append((time.perf_counter() - t0) * 1000)
                hit = {m: (ranked_sessions(texts_by[m]) or [None])[0] in gold for m in models}
                key = {(True, True): "both", (False, False): "neither", (False, True): f"{cand} only"}
                paired[key.get((hit[base], hit[cand]), f"{base} only")] += 1
                with_prefix = candidate.embed_query([q.text])[0]
                as_passage = candidate.embed([q.text])[0]
                for name, vec in zip(flat_names, (with_prefix, as_passage)):
                    t0 = time.perf_counter()
                    hits = _loop.run(flat.search(q.text, TOP_K, vec))
                    record(name, hits, (time.perf_counter() - t0) * 1000)
                for name, fuse in zip(rescores, (False, True)):
                    t0 = time.perf_counter()
                    texts = rescored(texts_by[base], with_prefix, cand_cache, args.rescore_k, fuse)
                    record(name, texts, (time.perf_counter() - t0) * 1000)
        finally:
            _loop.run(flat.close())
            cand_cache.close()
        print(f"{conv.sample_id}: done at {time.perf_counter() - started:.0f}s; load {os.getloadavg()}", flush=True)

    categories = list(CATEGORIES.values())
    report = {
        "models": list(models),
        "half": args.half,
        "sample_ids": [c.sample_id for _, c in chosen],
        "load_average_end": os.getloadavg(),
        "chunk_level": {s: v.to_dict(categories) for s, v in chunk.items()},
        "session_level": {s: v.to_dict(SESSION_CATEGORIES[ADVERSARIAL]) for s, v in session.items()},
        "session_level_per_conversation": {
            cid: {s: v.to_dict(SESSION_CATEGORIES[ADVERSARIAL]) for s, v in by.items()}
            for cid, by in per_conversation.items()
        },
        "ingest": ingest_rows,
        "paired_hit_at_1": paired,
        "query_embedding_ms_p50": {m: statistics.median(v) for m, v in embed_ms.items() if v},
        "seconds": round(time.perf_counter() - started, 1),
    }
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=float))
    print(f"\n{args.half} half: {', '.join(report['sample_ids'])}; load average {os.getloadavg()}")
    print(
        f"{'system':<52} {'chunk R@5':>9} {'R@10':>6} {'R@25':>6} | cat. 1-5: {'Hit@1':>6} {'R@5':>6} {'MRR':>6} "
        f"| cat. 1-4: {'Hit@1':>6} {'R@5':>6} | p50 ms"
    )
    for s in systems + rescores:
        c, levels = report["chunk_level"][s], report["session_level"][s]
        r, every, scored = c["recall"]["all"], levels["with_adversarial"], levels["without_adversarial"]
        print(
            f"{s:<52} {r['R@5']:9.3f} {r['R@10']:6.3f} {r['R@25']:6.3f} | {every['Hit@1']:16.3f} {every['R@5']:6.3f} "
            f"{every['MRR']:6.3f} | {scored['Hit@1']:16.3f} {scored['R@5']:6.3f} | {c['latency_p50_ms']:.1f}"
        )
    print("session Hit@1 / R@5 / MRR per conversation (categories 1-5):")
    for cid, by in report["session_level_per_conversation"].items():
        cells = [by[f"query() {m}"]["with_adversarial"] for m in models]
        print(
            f"  {cid}: "
            + "  ".join(f"{m} {c['Hit@1']:.3f} / {c['R@5']:.3f} / {c['MRR']:.3f}" for m, c in zip(models, cells))
        )
    print(
        "paired session Hit@1, categories 1-5: "
        + ", ".join(f"{k} {v}" for k, v in paired.items())
        + f"; sign test p {sign_test(paired[f'{cand} only'], paired[f'{base} only']):.3f}"
    )
    for model in models:
        rows = [r for r in ingest_rows if r["model"] == model]
        texts, secs = sum(r["texts_embedded"] for r in rows), sum(r["embed_seconds"] for r in rows)
        print(
            f"ingest {model}: {texts} texts embedded in {secs:.1f}s = {texts / secs if secs else float('nan'):.1f} "
            f"passages/s; query embedding p50 {report['query_embedding_ms_p50'].get(model, float('nan')):.1f} ms"
        )


if __name__ == "__main__":
    main()

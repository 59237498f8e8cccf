"""Embedding throughput at the model's limit: raw onnxruntime settings, the FLOP ceiling, and the
ingest's embedding stage (``EmbeddingCache.embed`` as ``lucasrag.index.sync`` calls it), side by side.

Passages are real chunks: LoCoMo session notes (conversations 1-2) cut by the ingest's chunker at
``--chunk-tokens``. Every configuration is timed ``--repeats`` times, interleaved, best and median kept
(the machine is shared; ratios measured in the same run survive load better than absolute times).

    python benchmarks/embedding_throughput.py --models minilm bge-small --passages 400 --repeats 3 --data locomo10.json \
        [--fp32 minilm=PATH.onnx --fp32 bge-small=PATH.onnx]
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lucasrag.embedding import Embedder  # noqa: E402
from lucasrag.embedding_cache import EmbeddingCache  # noqa: E402
from lucasrag.embedding_models import embedding_model  # noqa: E402
from lucasrag.index.sync import _BATCH as SYNC_BATCH  # noqa: E402
from lucasrag_assets.rules.chunking import chunk_text  # noqa: E402
from lucasrag_harness.evaluation.locomo import load_locomo, session_note  # noqa: E402

# Parameters that cost FLOPs (the matmuls; the embedding table is a lookup): per layer
# 4·h² (Q, K, V, output) + 2·h·ffn, h = 384, ffn = 1536 in both models (attention scores ignored).
LAYERS = {"minilm": 6, "bge-small": 12}
PER_LAYER = 4 * 384 * 384 + 2 * 384 * 1536


def passages(data: Path, count: int, chunk_tokens: int, tokenizer) -> list[str]:
    out: list[str] = []
    for conv in load_locomo(data)[:2]:
        for session in conv.sessions:
            body = session_note(conv, session).split("---\n", 2)[2]
            out += chunk_text(body, max_tokens=chunk_tokens, count_tokens=lambda t: len(tokenizer.encode(t)))
    return out[:count]


def cpu_flags() -> tuple[str, float, int]:
    text = Path("/proc/cpuinfo").read_text()
    flags = set(re.search(r"^flags\s*:(.*)$", text, re.M).group(1).split())
    wanted = [f for f in ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8") if f in flags]
    mhz = float(re.search(r"^cpu MHz\s*:\s*([\d.]+)", text, re.M).group(1))
    return " ".join(wanted) or "none", mhz, os.cpu_count() or 1


def integer_ops(onnx_path: Path) -> str:
    """How many integer-matmul and activation-quantizing nodes the graph holds (op type names are stored
    as plain strings in the protobuf, so a byte count finds them without the onnx package)."""
    data = onnx_path.read_bytes()
    found = {op: data.count(op.encode()) for op in ("MatMulInteger", "DynamicQuantizeLinear")}
    return ", ".join(f"{n} {op}" for op, n in found.items() if n) or "none (its matmuls run in fp32)"


def timed(fn, texts) -> float:
    t0 = time.perf_counter()
    fn(texts)
    return len(texts) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=["minilm", "bge-small"])
    ap.add_argument("--data", type=Path, default=Path("../shared/data/locomo/locomo10.json"))
    ap.add_argument("--passages", type=int, default=400)
    ap.add_argument("--chunk-tokens", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 2, 4, 8, 32])
    ap.add_argument("--fp32", action="append", default=[], help="MODEL=PATH of an fp32 ONNX file")
    args = ap.parse_args()
    fp32 = dict(item.split("=", 1) for item in args.fp32)
    flags, mhz, cores = cpu_flags()
    print(f"CPU: {cores} cores, {mhz:.0f} MHz, flags {flags}; load average {os.getloadavg()}")
    fp32_peak = cores * mhz * 1e6 * 32  # AVX2: 2 FMA units × 8 lanes × 2 FLOP per cycle
    for model_id in args.models:
        model = embedding_model(model_id)
        base = Embedder(model, threads=2)
        texts = passages(args.data, args.passages, args.chunk_tokens, base.tokenizer)
        tokens = [len(e.ids) for e in base._tokenizer.encode_batch(texts)]
        mean_tokens = statistics.mean(tokens)
        flops = 2 * LAYERS[model_id] * PER_LAYER * mean_tokens
        print(
            f"\n== {model_id} ({model.name}): {len(texts)} passages, {mean_tokens:.0f} tokens mean "
            f"(max {max(tokens)}); {flops / 1e9:.2f} GFLOP per passage; fp32 AVX2 peak "
            f"{fp32_peak / 1e9:.0f} GFLOP/s → ceiling {fp32_peak / flops:.0f} passages/s (int8 ~2× that)\n"
            f"   integer ops in its graph: {integer_ops(model.files()[0])}; default batch {base.batch}"
        )
        configs: dict[str, object] = {}
        for b in args.batches:
            configs[f"int8 threads=2 batch={b} sorted"] = Embedder(model, threads=2, batch=b).embed
        configs["int8 threads=1 batch=32 sorted"] = Embedder(model, threads=1, batch=32).embed
        configs["int8 threads=2 batch=32 sorted, spinning pool"] = Embedder(model, threads=2, batch=32, spin=True).embed
        unsorted = Embedder(model, threads=2, batch=32)
        configs["int8 threads=2 batch=32 unsorted"] = lambda t, e=unsorted: _unsorted(e, t)
        if model_id in fp32:
            spec = replace(model, files=lambda p=Path(fp32[model_id]), m=model: (p, m.files()[1]))
            configs["fp32 threads=2 batch=32 sorted"] = Embedder(spec, threads=2, batch=32).embed
        with tempfile.TemporaryDirectory() as tmp:
            fresh = itertools.count()

            def ingest_stage(t, tmp=tmp, model_id=model_id, fresh=fresh):
                # what sync_workspace does: a fresh cache (every text a miss), calls of SYNC_BATCH texts
                cache = EmbeddingCache(Path(tmp) / f"emb{next(fresh)}.sqlite", model=model_id)
                for start in range(0, len(t), SYNC_BATCH):
                    cache.embed(t[start : start + SYNC_BATCH])
                cache.close()

            configs["ingest stage (EmbeddingCache.embed, default embedder)"] = ingest_stage
            for fn in configs.values():  # warm every session once
                fn(texts[:8])
            rates: dict[str, list[float]] = {name: [] for name in configs}
            for _ in range(args.repeats):
                for name, fn in configs.items():
                    rates[name].append(timed(fn, texts))
        raw_best = max(max(r) for n, r in rates.items() if not n.startswith("ingest") and "fp32" not in n)
        for name, r in rates.items():
            print(
                f"  {name:<56} best {max(r):7.1f}  median {statistics.median(r):7.1f} passages/s"
                f"  ({max(r) / raw_best:.0%} of best raw int8)"
            )
        print(f"  load average {os.getloadavg()}")


def _unsorted(embedder: Embedder, texts: list[str]) -> None:
    """The same embedder in input order (no length sorting), batch by batch."""
    for start in range(0, len(texts), embedder.batch):
        embedder.embed(texts[start : start + embedder.batch])


if __name__ == "__main__":
    main()

"""What the benchmark scripts share: the query set, the percentile, the generated vault and its ingest, and
the resident memory of process trees."""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOW = "2026-06-01"
CLI = [sys.executable, "-c", "from lucasrag_cli import app; app()"]
#: The CLI with :func:`install_stand_in_vectors` first.
STAND_IN_CLI = [
    sys.executable,
    "-c",
    f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); "
    "from _common import install_stand_in_vectors; install_stand_in_vectors(); from lucasrag_cli import app; app()",
]

QUERIES = [
    "where do I live?",
    "where did I live in 2013?",
    "what is my cat called?",
    "how do I tune postgres vacuum?",
    "kubernetes cluster upgrade steps",
    "poem about the sea",
    "when is my tax return due?",
    "insurance policy number",
    "what did I do growing up?",
    "who are my friends in Lisbon?",
    "terraform state lock",
    "story draft characters",
    "pension transfer",
    "lease renewal",
    "debugging nginx",
    "holiday plans",
    "rust borrow checker",
    "bank account",
    "what was my first job?",
    "how is grandad?",
]


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def cli_env(settings) -> dict[str, str]:
    """The environment that makes a `lucasrag` subprocess use ``settings`` (and this checkout's code)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LUCASRAG_")}
    env.update(
        # a tree named by PYTHONPATH (an A/B run's base) before this checkout's
        PYTHONPATH=os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(REPO)) if p),
        LUCASRAG_VAULT=str(settings.vault),
        LUCASRAG_DATA=str(settings.data),
        LUCASRAG_NOW=settings.now.isoformat(),
        LUCASRAG_PROFILE=settings.profile,
        DAGSTER_HOME=str(settings.data / "dagster"),
    )
    if settings.profile == "production":
        env.update(
            LUCASRAG_POSTGRES_DSN=settings.postgres_dsn,
            LUCASRAG_NEO4J_URI=settings.neo4j_uri,
            LUCASRAG_NEO4J_USER=settings.neo4j_user,
            LUCASRAG_NEO4J_PASSWORD=settings.neo4j_password,
        )
    return env


def all_chunks(settings) -> tuple[list, dict[str, str]]:
    """Every chunk record of the four workspaces and each document's full text (what a flat
    one-index baseline is built from)."""
    from lucasrag.index import open_chunk_store
    from lucasrag.vocabulary import WORKSPACES

    records = []
    for ws in WORKSPACES:
        store = open_chunk_store(settings, ws)
        records += store.all_records()
        store.close()
    parts: dict[str, list[str]] = {}
    for r in sorted(records, key=lambda r: (r.doc_id, r.chunk_index)):
        parts.setdefault(r.doc_id, []).append(r.text)
    return records, {d: "\n\n".join(t) for d, t in parts.items()}


def flat_baseline(settings, flat, queries: list[str], rounds: int = 1) -> dict:
    """The baseline a federated query is set against: every chunk of ``settings``' four workspaces in one LightRAG
    index, built with ``flat`` (a data folder of its own and, on the production profile, a database of its own;
    vectors from ``settings``' embedding cache), then LightRAG's naive search, top 30, of each query, ``rounds``
    times (as many as the federated query's timed rounds: on a server, the first round reads pages from disk)."""
    import asyncio
    import inspect
    import logging

    from lucasrag.embedding_cache import EmbeddingCache
    from lucasrag.index import open_workspace_index, sync_workspace

    records, full_texts = all_chunks(settings)

    async def go() -> dict:
        cache = EmbeddingCache(settings.data / "embeddings.sqlite")  # every chunk vector is already there
        t0 = time.perf_counter()
        await sync_workspace(flat, "flat", records, full_texts, cache)
        build = time.perf_counter() - t0
        cache.close()
        index = await open_workspace_index(flat, "flat")
        logging.getLogger("lightrag").setLevel(logging.ERROR)  # "keywords empty" warnings of naive mode
        naive = {"graph": False} if "graph" in inspect.signature(index.search).parameters else {}  # older trees
        await index.search(queries[0], 30, **naive)  # warm
        ms = []
        for q in [q for _ in range(rounds) for q in queries]:
            t0 = time.perf_counter()
            await index.search(q, 30, **naive)
            ms.append((time.perf_counter() - t0) * 1000)
        await index.close()
        return {"flat_build_s": build, "flat_p50_ms": pct(ms, 0.5), "flat_p95_ms": pct(ms, 0.95)}

    return asyncio.run(go())


def ingest(settings, log: Path, stand_in_vectors: bool = False) -> subprocess.Popen:
    """``lucasrag ingest`` in a subprocess (its memory apart from the query process's)."""
    (settings.data / "dagster").mkdir(parents=True, exist_ok=True)
    cli = STAND_IN_CLI if stand_in_vectors else CLI
    with log.open("ab") as out:
        return subprocess.Popen([*cli, "ingest"], env=cli_env(settings), cwd=str(REPO), stdout=out, stderr=out)


def build_generated(work: Path, n: int):
    """The generated vault of ``n`` notes (seed 7) under ``work`` and its ground truth, built once."""
    from lucasrag_harness.evaluation.vault_generator import GroundTruth, generate_vault, truth_path

    vault = work / f"vault-n{n}-s7"
    if truth_path(vault).is_file():
        return vault, GroundTruth.load(truth_path(vault))
    return vault, generate_vault(vault, n, seed=7, overwrite=True)


def add_scale_build_arguments(parser) -> None:
    """``--work`` and ``--notes``: which build of ``benchmarks/scale.py`` a benchmark reads (see :func:`scale_build`)."""
    parser.add_argument("--work", type=Path, required=True, help="the --work folder of benchmarks/scale.py")
    parser.add_argument("--notes", type=int, default=10000)


def scale_build(work: Path, n: int, graph: bool = True):
    """The settings of the build ``benchmarks/scale.py --work WORK`` left for ``n`` notes (``vault-n<N>-s7``,
    ``data-n<N>-s7``; ``DAGSTER_HOME`` set to its folder) and its vault's distinct generated questions."""
    import datetime as dt

    from lucasrag.settings import Settings
    from lucasrag_harness.evaluation.vault_generator import GroundTruth, truth_path

    vault, data = work / f"vault-n{n}-s7", work / f"data-n{n}-s7"
    if not truth_path(vault).is_file():
        sys.exit(f"{vault} holds no generated vault: build it first with benchmarks/scale.py --work {work}")
    os.environ["DAGSTER_HOME"] = str(data / "dagster")
    settings = Settings(vault=vault, data=data, now=dt.date.fromisoformat(NOW), graph=graph)
    cases = list({c.query: c for c in GroundTruth.load(truth_path(vault)).cases}.values())
    return settings, cases


def ensure_ingested(settings, log: Path) -> float:
    """Ingest (in a subprocess) unless ``settings.data`` holds an ingest already; the seconds it took."""
    if (settings.data / "catalog").is_dir():
        return 0.0
    t0 = time.perf_counter()
    proc = ingest(settings, log)
    if proc.wait() != 0:
        sys.exit(f"the first ingest failed: see {log}")
    return time.perf_counter() - t0


def cpu_ms(pid: int) -> float:
    """CPU time of every thread of ``pid`` so far (ns resolution, Linux)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue  # a thread that ended meanwhile
    return total / 1e6


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """A process's ``/proc`` memory field in MB (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0.0


def pss_mb(pid: int) -> float:
    """A process's proportional set size in MB (``/proc/PID/smaps_rollup``; 0 once it is gone): memory it shares
    with other processes counted as its share, so a tree's sum counts shared memory once."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return 0.0


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux /proc)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return out


class MemorySampler(threading.Thread):
    """Peak memory (MB) of named process trees, sampled every 0.5 s: the sum of the tree's proportional set
    sizes. A sum of RSS counts shared memory once per process that touched it: PostgreSQL's buffer cache (1GB)
    in every backend made a 100,000-note server of ≈ 1.5 GB read as 12–14 GB."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.trees: dict[str, int] = {}
        self.peak: dict[str, float] = collections.defaultdict(float)
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.5):
            self.sample()

    def sample(self) -> None:
        for name, pid in list(self.trees.items()):
            self.peak[name] = max(self.peak[name], sum(pss_mb(p) for p in process_tree(pid)))


def outcome_tally(counts: collections.Counter, want: str) -> str:
    """How many of ``counts`` (outcome → count) start with ``want``, of how many, and each outcome's count."""
    total, good = sum(counts.values()), sum(n for k, n in counts.items() if k.startswith(want))
    detail = ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))
    return f"{good}/{total} {want} ({good / total:.1%}) — {detail}"


def care_cases(title: str, cases, want: str, embed, show: bool = False) -> None:
    """Assess each ``(DeferenceSubject, chunk text)`` of ``cases`` as an ingest assesses a chunk and print how
    many get ``want`` (withheld | released; a chunk that does not refer to the subject counts as released);
    ``show``: one line per case, "!!" where it is not ``want``."""
    from lucasrag_assets.rules.care.detector import assess_chunk

    counts: collections.Counter = collections.Counter()
    for subject, text in cases:
        a = {a.subject: a for a in assess_chunk(text, (subject,), embed=embed)}.get(subject.name)
        got = "released (no reference)" if a is None else f"{a.outcome} ({a.source})"
        counts[got] += 1
        if show:
            flag = "  " if got.startswith(want) else "!!"
            print(f"{flag} {got:<24} {text[:60]!r:<64} {a.why[:80] if a else ''}")
    print(f"{title}: {outcome_tally(counts, want)}")


def install_stand_in_vectors(seed: int = 7) -> None:
    """Replace the embedding model's transformer in this process by a fixed table of one random vector per
    word piece, so an ingest of 100,000 notes costs minutes instead of hours of embedding. Everything around
    the model runs as it does in production — the tokenizer, pooling, span vectors, the embedding cache,
    routing, care, the stores —, and a text's vector is the mean of its word pieces' (a bag of words: texts
    that share words are near). For measuring what a run does *besides* embedding (a change's bookkeeping,
    per-step time at scale); never for retrieval quality, and never in the product. Figures taken with it
    say so."""
    import numpy as np

    from lucasrag.embedding import Embedder

    tables: dict[int, np.ndarray] = {}

    def forward(self, token_ids: list[list[int]]):
        vocab = self._tokenizer.get_vocab_size()
        if vocab not in tables:
            tables[vocab] = np.random.default_rng(seed).standard_normal((vocab, 384)).astype(np.float32)
        ids, mask = self._padded(token_ids)
        return tables[vocab][ids], mask

    Embedder._forward = forward

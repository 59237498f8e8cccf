"""Move an index to the other storage profile without re-embedding.

``lucasrag migrate --to production`` (or ``--to embedded``):

1. every chunk vector of the source profile's chunk stores (SQLite on the
   embedded profile, ``lucasrag_chunks`` on production) is put into the
   embedding cache (``LUCASRAG_DATA/embeddings.sqlite``) unless already there;
2. the ordinary ingest runs on the target profile. It writes chunks, metadata,
   documents and the entity graph with the same code as any ingest — so the
   target ends up exactly as an ingest would leave it, graph included, with the
   same chunk ids and fingerprints — and every vector comes from the cache: the
   chunks' from step 1, the notes' (routing) and entity/relation texts' from
   the source ingest that filled the cache. ``texts_embedded`` of the result is
   0 for every workspace.

Why not copy LightRAG's stores row by row: the entity graph spans eight
LightRAG stores with profile-specific layouts (NetworkX file vs Neo4j labels,
NanoVectorDB vs pgvector tables); rebuilding through the pipeline keeps one
code path and is cheap once no text needs the model. It reads the vault (which
is the record); a note changed since the source ingest is indexed as it is now.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from lucasrag.embedding_cache import EmbeddingCache
from lucasrag.index.stores import index_exists, open_chunk_store
from lucasrag.progress import Progress
from lucasrag.settings import PROFILES, Settings
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.ingest import IngestSummary, run_ingest

_BATCH = 2000


@dataclass
class MigrationSummary:
    source_profile: str
    target_profile: str
    vectors_seeded: dict[str, int]  # workspace → chunk vectors put into the cache (new ones)
    ingest: IngestSummary


def embedding_cache_path(settings: Settings):
    return settings.data / "embeddings.sqlite"


def seed_embedding_cache(source: Settings, cache: EmbeddingCache) -> dict[str, int]:
    """Put every chunk vector of ``source``'s chunk stores into ``cache``; workspace → new entries."""
    seeded: dict[str, int] = {}
    for ws in WORKSPACES:
        if not index_exists(source, ws):
            continue
        store = open_chunk_store(source, ws)
        # keyed by the model that computed them: the target reuses them only if it uses that model too
        by_model = cache.for_model(store.embedding_model() or source.embedding_model)
        try:
            records = store.all_records()
            seeded[ws] = 0
            for start in range(0, len(records), _BATCH):
                batch = records[start : start + _BATCH]
                vectors = store.vectors([r.chunk_id for r in batch])
                seeded[ws] += by_model.put([r.text for r in batch], vectors)
        finally:
            store.close()
            if by_model is not cache:
                by_model.close()
    return seeded


def migrate(target: Settings, progress: Progress | None = None) -> MigrationSummary:
    """Rebuild ``target``'s profile from the vault with the other profile's vectors (see module doc)."""

    if target.profile not in PROFILES:
        raise ValueError(f"unknown profile {target.profile!r}")
    source = replace(target, profile=next(p for p in PROFILES if p != target.profile))
    cache = EmbeddingCache(embedding_cache_path(target), target.embedding_model)
    try:
        seeded = seed_embedding_cache(source, cache)
    finally:
        cache.close()
    return MigrationSummary(source.profile, target.profile, seeded, run_ingest(target, progress))

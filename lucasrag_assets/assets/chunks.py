"""banded_chunks: routed notes cut into chunks, each with band, date and charged subjects."""

import json

import polars as pl
from dagster import AssetExecutionContext, asset

from lucasrag.deference import load_deference
from lucasrag.embedding import get_embedder
from lucasrag.embedding_models import CALIBRATED_MODEL
from lucasrag.settings import Settings
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.memo import load_memo, save_memo
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.rules.care.decisions import load_dismissals
from lucasrag_assets.rules.care.model import shipped_model
from lucasrag_assets.rules.care.vectors import embedding_model_id, vector_warning
from lucasrag_assets.rules.chunk_table import chunk_frame, chunk_memo_key


def _known_chunks(settings: Settings) -> dict[str, list[str]]:
    memo = load_memo(settings, "chunk_texts")
    if memo is None:
        return {}
    if "key" not in memo.columns:  # written before chunk_memo_key: texts of older rules
        return {}
    same_size = memo.filter(pl.col("chunk_tokens") == settings.chunk_tokens)
    return dict(zip(same_size["key"], same_size["texts"].to_list()))


def _remember_chunks(settings: Settings, frame: pl.DataFrame) -> None:
    per_note = (
        frame.sort("path", "chunk_index")
        .group_by("content_hash", "path", maintain_order=True)
        .agg(pl.col("text").alias("texts"))
    )
    keys = [chunk_memo_key(h, p) for h, p in zip(per_note["content_hash"], per_note["path"])]
    memo = per_note.select(
        pl.Series("key", keys, dtype=pl.String), "texts", pl.lit(settings.chunk_tokens, pl.Int64).alias("chunk_tokens")
    )
    save_memo(settings, "chunk_texts", memo)


@asset(
    group_name="ingest",
    description="Chunks of routed notes with band (and the rule that set it), date, charged subjects.",
)
def banded_chunks(
    context: AssetExecutionContext, lucasrag: LucasragSettings, routed_documents: pl.DataFrame
) -> pl.DataFrame:
    settings = lucasrag.get()
    # Chunk sizes are counted in MiniLM tokens and the care detector's vector weights were trained on
    # MiniLM vectors (as routing's prototypes were), whichever model the index is built with.
    embedder = get_embedder(CALIBRATED_MODEL)
    tokenizer = embedder.tokenizer
    vector_off = vector_warning(shipped_model().vector, embedding_model_id(embedder))
    if vector_off:
        context.log.warning(vector_off)
    cache = lucasrag.embedding_cache(CALIBRATED_MODEL)
    misses = cache.misses
    try:
        frame = chunk_frame(
            routed_documents,
            settings,
            load_deference(settings.vault),
            count_tokens=lambda text: len(tokenizer.encode(text)),
            known_chunks=_known_chunks(settings),
            dismissed=load_dismissals(settings.vault),
            embed=None if vector_off else cache.embed_spans,
        )
        care_embedded = cache.misses - misses  # chunks the detector ran the model on; the index reuses them
    finally:
        cache.close()
    _remember_chunks(settings, frame)
    context.add_output_metadata(
        {
            "chunks": frame.height,
            **{f"chunks_{ws}": frame.filter(pl.col("workspace") == ws).height for ws in WORKSPACES},
            "archival": frame.filter(pl.col("band") == "archival").height,
            "charged": frame.filter(pl.col("charged").list.len() > 0).height,
            "care_uncertain_pairs": sum(a["outcome"] == "uncertain" for c in frame["care"] for a in json.loads(c)),
            "archive_cutoff": settings.archive_cutoff.isoformat(),
            "care_model": shipped_model().version,
            "care_vector_evidence": vector_off or f"on ({shipped_model().vector.embedding_model})",
            "care_texts_embedded": care_embedded,
        }
    )
    return frame

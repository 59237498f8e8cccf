"""banded_chunks: routed notes cut into chunks, each with band, date and charged subjects."""


import polars as pl
from dagster import AssetExecutionContext, asset

from lucasrag.deference import load_deference
from lucasrag.embedding import get_embedder
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.rules.chunk_table import chunk_frame

@asset(group_name="ingest", description="Chunks of routed notes with band (and the rule that set it), date, charged subjects.")
def banded_chunks(context: AssetExecutionContext, lucasrag: LucasragSettings, routed_documents: pl.DataFrame) -> pl.DataFrame:
    settings = lucasrag.get()
    tokenizer = get_embedder().tokenizer
    frame = chunk_frame(
        routed_documents, settings, load_deference(settings.vault), count_tokens=lambda text: len(tokenizer.encode(text))
    )
    context.add_output_metadata(
        {
            "chunks": frame.height,
            **{f"chunks_{ws}": frame.filter(pl.col("workspace") == ws).height for ws in WORKSPACES},
            "archival": frame.filter(pl.col("band") == "archival").height,
            "charged": frame.filter(pl.col("charged").list.len() > 0).height,
            "archive_cutoff": settings.archive_cutoff.isoformat(),
        }
    )
    return frame

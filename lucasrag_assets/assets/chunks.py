"""banded_chunks: routed notes cut into chunks, each with band, date and charged subjects."""


import polars as pl
from dagster import AssetExecutionContext, asset

from lucasrag.deference import load_deference
from lucasrag.embedding import get_embedder
from lucasrag.settings import Settings
from lucasrag.vocabulary import WORKSPACES, DeferenceSubject
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.rules.banding import decide_band
from lucasrag_assets.rules.charged import charged_subjects
from lucasrag_assets.rules.chunking import chunk_id, chunk_text, doc_id

CHUNK_SCHEMA = {
    "chunk_id": pl.String,
    "doc_id": pl.String,
    "workspace": pl.String,
    "path": pl.String,
    "chunk_index": pl.Int64,
    "text": pl.String,
    "band": pl.String,
    "band_rule": pl.String,
    "date": pl.String,
    "charged": pl.List(pl.String),
    "content_hash": pl.String,
}


def chunk_frame(routed: pl.DataFrame, settings: Settings, subjects: tuple[DeferenceSubject, ...]) -> pl.DataFrame:
    """Every chunk of every routed note. The band is decided per note (a note
    is one moment in time) and each chunk records the rule that decided it;
    charged subjects are decided per chunk."""
    tokenizer = get_embedder().tokenizer
    count_tokens = lambda text: len(tokenizer.encode(text))  # noqa: E731
    rows = []
    for note in routed.iter_rows(named=True):
        decision = decide_band(
            declared_band=note["declared_band"], note_date=note["date"], text=note["body"], cutoff=settings.archive_cutoff
        )
        date = note["date"].isoformat() if note["date"] else None
        declared = note["declared_charged"] or []
        for index, text in enumerate(chunk_text(note["body"], max_tokens=settings.chunk_tokens, count_tokens=count_tokens)):
            rows.append(
                {
                    "chunk_id": chunk_id(note["path"], index, text),
                    "doc_id": doc_id(note["path"]),
                    "workspace": note["workspace"],
                    "path": note["path"],
                    "chunk_index": index,
                    "text": text,
                    "band": decision.band,
                    "band_rule": decision.rule,
                    "date": date,
                    "charged": list(charged_subjects(text, subjects, declared)),
                    "content_hash": note["content_hash"],
                }
            )
    return pl.DataFrame(rows, schema=CHUNK_SCHEMA)


@asset(group_name="ingest", description="Chunks of routed notes with band (and the rule that set it), date, charged subjects.")
def banded_chunks(context: AssetExecutionContext, lucasrag: LucasragSettings, routed_documents: pl.DataFrame) -> pl.DataFrame:
    settings = lucasrag.get()
    frame = chunk_frame(routed_documents, settings, load_deference(settings.vault))
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

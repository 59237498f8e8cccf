"""The note catalogue: one row per vault file, written by ingestion, read by the CLI.

Stored as Parquet under ``LUCASRAG_DATA`` so ``lucasrag notes`` and
``lucasrag quarantine list`` answer without Dagster.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from lucasrag.file_memo import KeptByIdentity, parquet_writer
from lucasrag.settings import Settings

#: One (chunk, subject) care assessment as the catalogue stores it (see lucasrag_assets/rules/care/detector).
CARE_PAIR_SCHEMA = {
    "chunk_index": pl.Int64,
    "subject": pl.String,
    "outcome": pl.String,  # withheld | released
    "source": pl.String,  # declared | dismissed | resolution | policy | inferred | learned
    "why": pl.String,  # what decided the outcome, in one line
    "mention": pl.String,
    "reference": pl.String,  # how the chunk refers to the subject (or why a look-alike is not it)
    "sentence": pl.String,  # the first sentence referring to the subject (for the person's review only)
    "rule_cue": pl.String,
    "holding": pl.String,  # words that speak of the subject as gone or missed (rules/care/holding.py), if any
    "score": pl.Float64,  # the detector's probability of charged
    "inferred": pl.String,  # the detector's reading: charged | uncertain | neutral
    "nearest": pl.String,
    "lexical_score": pl.Float64,  # the lexical model alone
    "vector_score": pl.Float64,  # the span-vector model alone (null: no vector evidence)
    "vector_view": pl.String,  # span | chunk (null: no vector evidence)
    "prototype": pl.String,  # the charged situation description it lies nearest (null: no vector evidence)
}


def care_pending(assessment: dict) -> bool:
    """A care pair awaiting the person's review: withheld with no decision of theirs (``lucasrag care list``,
    the ``care_reviewed`` check and MCP ``status`` count the same pairs)."""
    return assessment.get("outcome") == "withheld" and assessment.get("source") == "inferred"


CATALOG_SCHEMA = {
    "path": pl.String,
    "status": pl.String,
    "workspace": pl.String,
    "confidence": pl.Float64,
    "band": pl.String,
    "band_reason": pl.String,  # why the note has its band, in a line (rules/banding.py)
    "date": pl.String,
    "charged": pl.List(pl.String),
    "reason": pl.String,
    "suggestion": pl.String,  # the router's best guess, for quarantined notes
    "care": pl.List(pl.Struct(CARE_PAIR_SCHEMA)),  # every (chunk, subject) care assessment with its evidence
    "date_source": pl.String,  # what dated the note: "frontmatter:<key>", "filename", "zettel-id", "folder"
    "warnings": pl.List(pl.String),  # e.g. a date that could not be read (the note is then undated)
    "tags": pl.List(pl.String),  # the note's tags (the query's tags filter reads them); none for a private note
    "updated": pl.String,  # its updated:/modified: property (ISO; `lucasrag recent` reads it), if any
}


class CatalogMissing(FileNotFoundError):
    """No ingest has run for this data folder yet."""


#: The catalogue files this process last wrote or read: an ingest reads the last catalogue and decision inputs
#: in three steps, and a long-lived writer wrote them itself at its last run.
_kept = KeptByIdentity(limit=8)


def catalog_path(settings: Settings) -> Path:
    return settings.data / "catalog" / "notes.parquet"


def write_catalog(settings: Settings, frame: pl.DataFrame) -> None:
    _write(catalog_path(settings), frame)


def catalog_written_at(settings: Settings) -> float | None:
    """When the last ingest wrote the catalogue (every note's header had been read by then), or None."""
    try:
        return catalog_path(settings).stat().st_mtime
    except OSError:
        return None


def scan_catalog(settings: Settings) -> pl.LazyFrame:
    """The catalogue, lazily: a reader that needs a few columns reads only those (the care evidence is most
    of its bytes)."""
    path = catalog_path(settings)
    if not path.is_file():
        raise CatalogMissing(
            f"no note catalogue at {path}: run `lucasrag ingest` first (LUCASRAG_DATA={settings.data})"
        )
    return pl.scan_parquet(path)


def read_catalog(settings: Settings) -> pl.DataFrame:
    return scan_catalog(settings).collect()


# --- What changed between two ingests (no silent moves) ------------------------------------------

#: One row per change of a note's status, workspace or band at the last ingest.
CHANGES_SCHEMA = {
    "path": pl.String,
    "field": pl.String,  # status | workspace | band | withheld (care)
    "old": pl.String,
    "new": pl.String,
    "reason": pl.String,  # frontmatter | approval | explicit move | routing rule | note edited | router learning | ...
}
#: Per note, what the next ingest needs to explain a change: the inputs of its last decision.
STATE_SCHEMA = {
    "path": pl.String,
    "content_hash": pl.String,
    "declared_workspace": pl.String,
    "route_reason": pl.String,
    "band_rule": pl.String,
}


def changes_path(settings: Settings) -> Path:
    return settings.data / "catalog" / "changes.parquet"


def state_path(settings: Settings) -> Path:
    return settings.data / "catalog" / "decision_inputs.parquet"


def decisions_path(settings: Settings) -> Path:
    """The journal of a person's decisions made through LucasRAG (approve, route), one JSON line each."""
    return settings.data / "catalog" / "decisions.jsonl"


def _write(path: Path, frame: pl.DataFrame) -> None:
    _kept.write(path, frame, parquet_writer(frame))


def _read_kept(path: Path) -> pl.DataFrame | None:
    """The frame at ``path`` (None without the file), without reading back what this process wrote there."""
    try:
        return _kept.read(path, pl.read_parquet)
    except FileNotFoundError:
        return None


def write_changes(settings: Settings, frame: pl.DataFrame) -> None:
    _write(changes_path(settings), frame)


def read_changes(settings: Settings) -> pl.DataFrame:
    """The changes of the last ingest (empty before the second ingest)."""
    path = changes_path(settings)
    if not path.is_file():
        read_catalog(settings)  # no ingest at all: the same actionable error as `notes`
        return pl.DataFrame(schema=CHANGES_SCHEMA)
    return pl.read_parquet(path)


def write_state(settings: Settings, frame: pl.DataFrame) -> None:
    _write(state_path(settings), frame)


def read_state(settings: Settings) -> pl.DataFrame | None:
    return _read_kept(state_path(settings))


def read_previous_catalog(settings: Settings) -> pl.DataFrame | None:
    return _read_kept(catalog_path(settings))


def record_decision(settings: Settings, path: str, workspace: str, verb: str) -> None:
    """Journal a person's decision so the next ingest can name it as the reason of a move."""
    import datetime as dt
    import json

    journal = decisions_path(settings)
    journal.parent.mkdir(parents=True, exist_ok=True)
    entry = {"path": path, "workspace": workspace, "verb": verb, "at": dt.datetime.now(dt.UTC).isoformat()}
    with journal.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, ensure_ascii=False) + "\n")


def read_decisions(settings: Settings) -> dict[str, tuple[str, str]]:
    """path → (workspace, verb) of the latest journalled decision per note."""
    import json

    journal = decisions_path(settings)
    if not journal.is_file():
        return {}
    latest: dict[str, tuple[str, str]] = {}
    for line in journal.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
            latest[entry["path"]] = (entry["workspace"], entry["verb"])
        except (ValueError, KeyError, TypeError):
            continue  # a torn last line from a crash: the rest still counts
    return latest

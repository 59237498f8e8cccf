"""The chunk table: routed notes → chunks with band (and its rule), date and charged subjects.

``charged`` lists the subjects a chunk is withheld for (the ``withheld``
outcomes of care: every reference to a deference subject until released);
``care`` holds every (chunk, subject) assessment with its evidence, as JSON.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import fields
from pathlib import PurePosixPath

import polars as pl

from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord, DeferenceSubject
from lucasrag_assets.rules.ageing import note_ageing
from lucasrag_assets.rules.banding import BandDecision, decide_band
from lucasrag_assets.rules.care.detector import assess_chunk, released_examples, withheld_subjects
from lucasrag_assets.rules.care.mentions import (
    WHOLE_CHUNK_MENTION,
    carried_reference,
    note_namesakes,
    note_reference,
)
from lucasrag_assets.rules.care.model import Exemplar
from lucasrag_assets.rules.care.moments import one_moment
from lucasrag_assets.rules.care.unnamed import is_poem
from lucasrag_assets.rules.care.vectors import SpanEmbed
from lucasrag_assets.rules.chunking import chunk_id, chunk_text, doc_id
from lucasrag_assets.rules.obsidian import with_names

#: Bump when what a note's chunks are made of changes (markup rules, the names heading).
CHUNK_TEXT_VERSION = 2


def care_assessments(chunks: pl.DataFrame, *columns: str):
    """``(*columns, assessment)`` for every (chunk, subject) assessment in a chunk frame's ``care`` column.
    Most chunks refer to no subject: their empty lists are skipped before any JSON is read."""
    with_care = chunks.filter(pl.col("care").is_not_null() & (pl.col("care") != "[]"))
    for *values, care in with_care.select(*columns, "care").iter_rows():
        for assessment in json.loads(care):
            yield (*values, assessment)


def chunk_memo_key(content_hash: str, path: str) -> str:
    """What a note's chunk texts depend on: its bytes, its file name (the names heading) and the rules."""
    return f"{CHUNK_TEXT_VERSION}:{content_hash}:{path}"


_POLARS_TYPES = {"str": pl.String, "int": pl.Int64, "str | None": pl.String, "tuple[str, ...]": pl.List(pl.String)}
#: Columns of the chunk frame that the index does not keep, after the chunk column they follow.
_WRITE_SIDE_COLUMNS = {
    "band_rule": {"band_reason": pl.String},  # the band's reason in a line (lucasrag notes --json)
    "charged": {"care": pl.String},  # JSON list of CareAssessment dicts
}
#: The banded_chunks frame: every ChunkRecord column (lucasrag.vocabulary), and the write side's own.
CHUNK_SCHEMA: dict[str, pl.DataType] = {}
for _field in fields(ChunkRecord):
    CHUNK_SCHEMA[_field.name] = _POLARS_TYPES[_field.type]
    CHUNK_SCHEMA.update(_WRITE_SIDE_COLUMNS.get(_field.name, {}))


def note_texts(
    routed: pl.DataFrame,
    settings: Settings,
    *,
    count_tokens: Callable[[str], int],
    known_chunks: Mapping[str, list[str]] | None = None,
) -> list[tuple[dict, list[str]]]:
    """Each routed note (a row as a dict) with its chunk texts. ``known_chunks`` maps a note's
    :func:`chunk_memo_key` to its chunk texts from an earlier run (same chunk size)."""
    known_chunks = known_chunks or {}
    notes = []
    for note in routed.iter_rows(named=True):
        aliases = tuple(note.get("aliases") or ())
        texts = known_chunks.get(chunk_memo_key(note["content_hash"], note["path"]))
        if texts is None:
            named = with_names(note["body"], note["title"] or "", PurePosixPath(note["path"]).stem, aliases)
            texts = chunk_text(named, max_tokens=settings.chunk_tokens, count_tokens=count_tokens)
        notes.append((note, texts))
    return notes


def note_names(note: Mapping) -> tuple[str, ...]:
    """What a note says about itself besides its text: title, file name, aliases, tags (``family/grandad`` →
    ``family grandad``) and its other properties' lines (``people: Grandad Tom``)."""
    tags = (re.sub(r"[/_-]+", " ", t) for t in note.get("tags") or ())
    props = (note.get("properties") or "").splitlines()
    return (note["title"] or "", PurePosixPath(note["path"]).stem, *(note.get("aliases") or ()), *tags, *props)


def note_band(note: Mapping, cutoff: dt.date) -> BandDecision:
    """A note's band: its ``band:`` property, what it is (time-bound or timeless), its dates, its text."""
    path = PurePosixPath(note["path"])
    ageing = note_ageing(
        note["path"],
        kinds=note.get("kinds") or (),
        tags=note.get("tags") or (),
        source=note.get("source"),
        text=note["body"],
    )
    return decide_band(
        declared_band=note["declared_band"],
        note_date=note["date"],
        text=note["body"],
        cutoff=cutoff,
        ageing=ageing,
        date_source=note.get("date_source"),
        updated=note.get("updated"),
        title=" / ".join(dict.fromkeys(filter(None, (note["title"], path.stem)))),
        folders=path.parent.parts,
    )


def learned_examples(
    notes: list[tuple[dict, list[str]]],
    subjects: tuple[DeferenceSubject, ...],
    dismissed: Mapping[str, Collection[str]],
) -> dict[str, list[Exemplar]]:
    """The vault teaches the release step: chunks the person released for a subject are examples of what a
    neutral reference to it looks like (only notes with a dismissal can give one)."""
    chunks = ((n["path"], text, dismissed[n["path"]]) for n, texts in notes if n["path"] in dismissed for text in texts)
    return released_examples(chunks, subjects)


def chunk_frame(
    routed: pl.DataFrame,
    settings: Settings,
    subjects: tuple[DeferenceSubject, ...],
    *,
    count_tokens: Callable[[str], int],
    known_chunks: Mapping[str, list[str]] | None = None,
    dismissed: Mapping[str, Collection[str]] | None = None,
    embed: SpanEmbed | None = None,
    examples: Mapping[str, list[Exemplar]] | None = None,
    workspace_namesakes: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
    named_nearby: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """Every chunk of every routed note. The band is decided per note (a note
    is one moment in time) and each chunk records the rule that decided it;
    charged subjects are decided per chunk. ``known_chunks``: see :func:`note_texts`;
    ``dismissed`` maps a note path to the subjects a person dismissed for it;
    ``embed`` gives the care detector its vector evidence (None: lexical only);
    ``examples``: :func:`learned_examples` of the whole vault, when ``routed`` is only part of it
    (None: taken from ``routed``); ``workspace_namesakes``: ``care.namesakes.workspace_namesakes`` of the
    whole vault (a note's own head wins over its workspace); ``named_nearby`` maps a note's path to the subject the
    vault names nearest in time to it (``care.unnamed.nearest_subject``: whom a loss that names no one is about)."""
    dismissed = dismissed or {}
    notes = note_texts(routed, settings, count_tokens=count_tokens, known_chunks=known_chunks)
    if examples is None:
        examples = learned_examples(notes, subjects, dismissed)
    rows = []
    for note, texts in notes:
        decision = note_band(note, settings.archive_cutoff)
        date = note["date"].isoformat() if note["date"] else None
        declared = note["declared_charged"] or []
        names, head = note_names(note), texts[0] if texts else ""
        in_workspace = (workspace_namesakes or {}).get(note["workspace"], {})
        refs = note_reference(names, head, subjects, in_workspace) if subjects else {}
        namesakes = {**in_workspace, **(note_namesakes(names, head, subjects) if subjects else {})}
        poem = is_poem(note["path"], note.get("tags") or ())
        previous: dict[str, str] = {}  # the subjects the chunk before referred to → how it named them
        cares = []
        for text in texts:
            care = assess_chunk(
                text,
                subjects,
                declared=declared,
                dismissed=dismissed.get(note["path"], ()),
                released_examples=examples,
                note_refs={**carried_reference(text, previous), **refs},
                namesakes=namesakes,
                note_date=note["date"],
                named_nearby=(named_nearby or {}).get(note["path"]),
                poem=poem,
                embed=embed,
            )
            cares.append(care)
            # how the note named each subject: a chunk that only went on by pronoun keeps the earlier naming
            previous = {
                a.subject: previous.get(a.subject, a.mention) if a.mention == WHOLE_CHUNK_MENTION else a.mention
                for a in care
                if a.mention and a.source != "resolution"
            }
        for index, (text, care) in enumerate(zip(texts, one_moment(cares))):
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
                    "band_reason": decision.reason,
                    "date": date,
                    "charged": list(withheld_subjects(care)),
                    "care": json.dumps([a.to_dict() for a in care], ensure_ascii=False),
                    "content_hash": note["content_hash"],
                }
            )
    return pl.DataFrame(rows, schema=CHUNK_SCHEMA)

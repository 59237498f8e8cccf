"""The shared vocabulary: workspaces, bands, note statuses and the chunk schema.

Both the write side (``lucasrag_assets``) and the read side (``lucasrag_query``)
import these names; nothing else defines them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import date
from typing import Literal

Workspace = Literal["technical", "creative", "personal", "administrative"]
WORKSPACES: tuple[str, ...] = ("technical", "creative", "personal", "administrative")

Band = Literal["present", "archival"]
BANDS: tuple[str, ...] = ("present", "archival")

#: ``skipped``: deliberately not a note (a template, an embed-only page); reported with its reason.
NoteStatus = Literal["indexed", "quarantined", "invalid", "skipped"]

#: Which rule decided a chunk's band (recorded on every chunk, see rules/banding).
BandRule = Literal["frontmatter", "timeless", "date", "content", "default"]


def check_workspace(name: str) -> str:
    """Return ``name`` if it is a workspace, else raise a ValueError that lists them."""
    if name not in WORKSPACES:
        raise ValueError(f"unknown workspace {name!r}: expected one of {', '.join(WORKSPACES)}")
    return name


def doc_id(path: str) -> str:
    """The id of a note's document in every index and chunk store (from its vault-relative path)."""
    return "doc-" + hashlib.sha256(path.encode("utf-8")).hexdigest()[:16]


#: How strictly a subject is withheld (``withhold:`` in deference.yaml). ``every-reference`` (the default):
#: every passage that refers to the subject is withheld until released (by the detector when it is
#: confidently neutral, by the person, by a bridge). ``charged-only``: only passages inferred or marked
#: charged are withheld, for a subject the person wants handled lightly.
Withhold = Literal["every-reference", "charged-only"]
WITHHOLD_POLICIES: tuple[str, ...] = ("every-reference", "charged-only")


@dataclass(frozen=True)
class DeferenceSubject:
    """A painful subject from ``<vault>/.lucasrag/deference.yaml`` and how it is withheld."""

    name: str
    aliases: tuple[str, ...] = ()
    withhold: str = "every-reference"  # one of WITHHOLD_POLICIES
    #: From when the subject is painful (a death, a breakup): references in notes dated before it are
    #: released unless they are charged. None: always.
    since: date | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The name and every alias: what a mention or a bridge may use."""
        return (self.name, *self.aliases)

    def matches(self, text: str) -> bool:
        """Whether ``text`` names this subject (case-insensitive, whole string)."""
        folded = text.strip().casefold()
        return any(folded == n.casefold() for n in self.names)


@dataclass(frozen=True)
class ChunkRecord:
    """One indexed chunk and the metadata the query side filters on."""

    chunk_id: str
    doc_id: str
    workspace: str
    path: str  # vault-relative POSIX path
    chunk_index: int
    text: str
    band: str
    band_rule: str
    date: str | None  # ISO date of the note, if known
    charged: tuple[str, ...] = field(default_factory=tuple)
    content_hash: str = ""

    @classmethod
    def from_row(cls, row: Mapping) -> ChunkRecord:
        """A chunk from a row that has (at least) every :data:`CHUNK_COLUMNS` key."""
        values = {name: row[name] for name in CHUNK_COLUMNS}
        values["charged"] = tuple(values["charged"] or ())
        return cls(**values)


#: The chunk's columns, in order, declared once by :class:`ChunkRecord`: the chunk stores' tables, the index
#: sync's columns and the write side's chunk frame are derived from it.
CHUNK_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(ChunkRecord))
#: SQL type of each kind of chunk field (a tuple is stored as JSON text).
_SQL_TYPES = {
    "str": "TEXT NOT NULL",
    "int": "INTEGER NOT NULL",
    "str | None": "TEXT",
    "tuple[str, ...]": "TEXT NOT NULL",
}


def chunk_sql_columns(indent: str = "    ") -> str:
    """The chunk columns of a ``CREATE TABLE``, one per line (both chunk stores use them)."""
    return f",\n{indent}".join(f"{f.name} {_SQL_TYPES[f.type]}" for f in fields(ChunkRecord))

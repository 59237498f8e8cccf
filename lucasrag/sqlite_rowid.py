"""SQLite tables of big rows (a vector, a chunk's text: 1-3 KB) belong in rowid tables.

A WITHOUT ROWID table keeps whole rows in its key's B-tree, which then holds one or two such rows a page: files
two to four times their rows' size and slower reads. Files written that way are converted in place, once,
by the code that owns them (the embedding cache, ``lightrag.sqlite``) with these helpers.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path


def without_rowid(db: sqlite3.Connection, table: str) -> bool:
    """Whether ``table`` exists as a WITHOUT ROWID table."""
    row = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
    return bool(row and row[0] and "WITHOUT ROWID" in row[0].upper())


def rebuild_as_rowid(db: sqlite3.Connection, table: str, create_statement: str, columns: str) -> None:
    """Inside the caller's transaction: ``table``'s rows (``columns``) copied into the table ``create_statement``
    makes for it, which then takes its name."""
    db.execute(create_statement.replace(f" {table} (", f" {table}_rowid (", 1))
    db.execute(f"INSERT INTO {table}_rowid ({columns}) SELECT {columns} FROM {table}")
    db.execute(f"DROP TABLE {table}")
    db.execute(f"ALTER TABLE {table}_rowid RENAME TO {table}")


def compact(db: sqlite3.Connection, path: Path, log: logging.Logger) -> None:
    """The freed pages back to the file system; a process reading the file now leaves it for another time."""
    try:
        db.execute("VACUUM")
    except sqlite3.OperationalError as exc:
        log.info("%s: not compacted after the conversion (%s)", path, exc)

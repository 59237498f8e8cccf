"""Vectors by text hash, so no text is embedded twice.

Routing embeds a note, indexing embeds its chunks (a short note is one chunk:
the same text), and a re-ingest of an unchanged vault must embed nothing.
The cache is a single SQLite file under ``LUCASRAG_DATA``; it only grows with
new texts and is safe to delete (it is rebuilt on demand).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from lucasrag.embedding import DIM, get_embedder

log = logging.getLogger(__name__)


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.hits = 0
        self.misses = 0
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            self._set_aside(exc)

    def _open(self) -> None:
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (hash TEXT PRIMARY KEY, vector BLOB NOT NULL)")

    def _set_aside(self, exc: sqlite3.DatabaseError) -> None:
        """A damaged cache file (truncated, overwritten) is moved aside and the cache starts empty: it
        holds nothing the model cannot compute again."""
        with contextlib.suppress(Exception):
            self._db.close()
        aside = self.path.with_name(f"{self.path.name}.damaged")
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):  # another process may have moved it already
                Path(f"{self.path}{suffix}").replace(f"{aside}{suffix}")
        log.warning(
            "embedding cache %s is damaged (%s): moved aside to %s; vectors are computed again", self.path, exc, aside
        )
        self._open()

    def close(self) -> None:
        self._db.close()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text; only texts never seen before reach the model."""
        hashes = [text_hash(t) for t in texts]
        try:
            found = self._lookup(set(hashes))
        except sqlite3.DatabaseError as exc:
            self._set_aside(exc)
            found = {}
        missing = {h: t for h, t in zip(hashes, texts) if h not in found}
        if missing:
            vectors = get_embedder().embed(list(missing.values()))
            rows = [(h, v.astype(np.float32).tobytes()) for h, v in zip(missing, vectors)]
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
            found.update(zip(missing, vectors))
        self.misses += len(missing)
        self.hits += len(texts) - len(missing)
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        return np.stack([found[h] for h in hashes]).astype(np.float32)

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> int:
        """Store vectors computed elsewhere (e.g. read from a chunk store) for texts not cached
        yet; returns how many were new."""
        rows = [(text_hash(t), np.asarray(v, dtype=np.float32).tobytes()) for t, v in zip(texts, vectors)]
        before = self._db.total_changes
        with self._db:
            self._db.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?)", rows)
        return self._db.total_changes - before

    def _lookup(self, hashes: set[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        keys = list(hashes)
        for start in range(0, len(keys), 900):  # SQLite's bound-parameter limit
            batch = keys[start : start + 900]
            marks = ",".join("?" * len(batch))
            for h, blob in self._db.execute(f"SELECT hash, vector FROM vectors WHERE hash IN ({marks})", batch):
                found[h] = np.frombuffer(blob, dtype=np.float32)
        return found

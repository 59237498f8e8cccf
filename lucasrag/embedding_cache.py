"""Vectors by (model id, text hash), so no text is embedded twice by the same model.

Routing embeds a note, indexing embeds its chunks (a short note is one chunk:
the same text), and a re-ingest of an unchanged vault must embed nothing.
The cache is a single SQLite file under ``LUCASRAG_DATA``; it only grows with
new texts and is safe to delete (it is rebuilt on demand). Each vector is stored
under the id of the model that computed it (``LUCASRAG_EMBEDDING_MODEL``): two
models never share a vector, whatever the texts.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from lucasrag.embedding import DIM, get_embedder
from lucasrag.embedding_models import DEFAULT_MODEL, embedding_model
from lucasrag.sqlite_rowid import compact, rebuild_as_rowid, without_rowid

# A rowid table with its key in an index of its own: a vector (1.5 KB) is too big a row for a WITHOUT ROWID
# table, whose B-tree then holds two rows a page — reading 10,000 routing vectors took 4x as long and the file
# was three times the vectors' size (``_rowid_table`` converts a file written that way).
_SCHEMA = """
CREATE TABLE IF NOT EXISTS model_vectors (
    model TEXT NOT NULL,
    hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, hash)
);
"""
#: Texts embedded and stored at a time by :meth:`EmbeddingCache.embed` (what an interrupted run keeps).
STORE_EVERY = 4096
# Before model ids, the cache held MiniLM vectors only, in ``vectors (hash, vector)``.
_LEGACY_MODEL = "minilm"

log = logging.getLogger(__name__)


#: Vectors a long-lived process keeps between runs (``EmbeddingCache.remembering``): (cache file, model,
#: slot) → the matrices the last run's ``embed`` calls returned, each with its text hash → row. Routing reads
#: every note's vector each run; from the second run on in the same process (``lucasrag watch``, ``mcp
#: --watch``, a sensor's in-process run) only the changed notes' come from the file, and the rest are one
#: gather from the last run's matrix (not one small array per note, stacked again: ≈ 1 s at 100,000 notes).
_REMEMBERED: dict[tuple[str, str, str], list[_Rows]] = {}


class _Rows:
    """One ``embed`` call's answer, kept: its (read-only) matrix and the row of each text hash."""

    def __init__(self, hashes: Sequence[str], matrix: np.ndarray) -> None:
        self.row = {h: i for i, h in enumerate(hashes)}
        self.matrix = matrix

    def keeping(self, keep: set[str]) -> _Rows:
        """Only the rows of ``keep`` (what ``retain`` leaves)."""
        hashes = [h for h in self.row if h in keep]
        return _Rows(hashes, self.matrix[[self.row[h] for h in hashes]])


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    def __init__(self, path: Path, model: str = DEFAULT_MODEL) -> None:
        self.model = embedding_model(model).id  # an unknown id is refused here, before any vector
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.hits = 0
        self.misses = 0
        self._slot: tuple[str, str, str] | None = None  # see remembering()
        self._answers: list[_Rows] = []  # this run's embed() answers inside remembering()
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            self._set_aside(exc)

    def _open(self) -> None:
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.execute("PRAGMA secure_delete = ON")  # a forgotten vector is overwritten (retain)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._rowid_table()
        self._db.executescript(_SCHEMA)
        self._adopt_legacy_table()

    def _rowid_table(self) -> None:
        """Convert a cache written with a WITHOUT ROWID ``model_vectors`` in place, once: the same rows in the
        rowid table of ``_SCHEMA``. Another process opening the file meanwhile waits for it."""
        if not without_rowid(self._db, "model_vectors"):
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            if without_rowid(self._db, "model_vectors"):  # not done meanwhile
                rows = self._db.execute("SELECT count(*) FROM model_vectors").fetchone()[0]
                log.info("embedding cache %s: converting %d vectors to a rowid table (once)", self.path, rows)
                rebuild_as_rowid(self._db, "model_vectors", _SCHEMA, "model, hash, vector")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        compact(self._db, self.path, log)

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

    def for_model(self, model: str) -> EmbeddingCache:
        """The same cache file as seen by ``model`` (routing reads the calibrated model's vectors)."""
        if model == self.model:
            return self
        return EmbeddingCache(self.path, model)

    def _adopt_legacy_table(self) -> None:
        exists = self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vectors'").fetchone()
        if exists:
            with self._db:
                self._db.execute(
                    "INSERT OR IGNORE INTO model_vectors SELECT ?, hash, vector FROM vectors", (_LEGACY_MODEL,)
                )
                self._db.execute("DROP TABLE vectors")

    @contextlib.contextmanager
    def remembering(self, slot: str) -> Iterator[None]:
        """Inside, :meth:`embed` takes vectors from a memory kept for the life of the process under
        ``slot`` before it reads the file; on leaving, the memory keeps only what was asked for inside
        (the current vault's vectors, never every text ever seen)."""
        self._slot, self._answers = (str(self.path.resolve()), self.model, slot), []
        try:
            yield
            _REMEMBERED[self._slot] = self._answers
        finally:
            self._slot, self._answers = None, []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text; only texts this model never saw before reach it. Inside
        :meth:`remembering` the answer is read-only: the process keeps it for the next run."""
        hashes = [text_hash(t) for t in texts]
        out = np.empty((len(hashes), DIM), dtype=np.float32)
        todo = list(range(len(hashes)))  # positions not answered yet
        if self._slot:
            answers = [*self._answers, *_REMEMBERED.get(self._slot, ())]
            for rows in sorted(answers, key=lambda a: -len(a.row)):  # the vault's big answer first
                if not todo:
                    break
                # one gather per kept answer (-1: not in it), not one small copy per text
                found_at = np.fromiter((rows.row.get(hashes[i], -1) for i in todo), dtype=np.intp, count=len(todo))
                hit = found_at >= 0
                if hit.any():
                    at = np.asarray(todo, dtype=np.intp)
                    out[at[hit]] = rows.matrix[found_at[hit]]
                    todo = at[~hit].tolist()
        wanted = {hashes[i] for i in todo}
        found = self._lookup(wanted)
        missing = {hashes[i]: texts[i] for i in todo if hashes[i] not in found}
        # Stored a slice at a time: a run stopped an hour into a cold ingest's 100,000 routing texts keeps what it
        # computed, and the next run embeds only the rest. A slice is big enough that sorting by length still
        # leaves its batches little padding.
        pending = list(missing.items())
        embedder = get_embedder(self.model) if pending else None
        for start in range(0, len(pending), STORE_EVERY):
            part = pending[start : start + STORE_EVERY]
            vectors = embedder.embed([text for _, text in part])
            self._store([(self.model, h, v.astype(np.float32).tobytes()) for (h, _), v in zip(part, vectors)])
            found.update(zip((h for h, _ in part), vectors))
        for i in todo:
            out[i] = found[hashes[i]]
        self.misses += len(missing)
        self.hits += len(texts) - len(missing)
        if self._slot:
            out.flags.writeable = False
            self._answers.append(_Rows(hashes, out))
        return out

    def embed_spans(
        self, text: str, span_sets: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[np.ndarray, list[np.ndarray | None]]:
        """:meth:`Embedder.embed_spans` through the cache, never costing an embedding call of its own.

        A text this model never saw gets its forward pass here, and the pass stores the text's passage
        vector too, so the index's later ``embed`` of the same text is a hit. A text whose passage vector
        is cached already (routing embedded the same text: a short note whose one chunk is its routing
        text) is not run again: its span vectors are None and the passage vector stands in. Span vectors
        are kept under keys of their own, so a re-ingest computes nothing."""
        text_key = text_hash(text)
        span_keys = [text_hash(f"{text_key}\x00spans:{list(map(list, spans))}") for spans in span_sets]
        found = self._lookup({text_key, *span_keys})
        if text_key in found:
            self.hits += 1
            # a span set past the model's window is stored as an empty vector: computed, and None
            return found[text_key], [v if (v := found.get(k)) is not None and v.size else None for k in span_keys]
        pooled, spans = get_embedder(self.model).embed_spans(text, span_sets)
        rows = [(self.model, text_key, pooled.astype(np.float32).tobytes())]
        rows += [
            (self.model, k, b"" if v is None else v.astype(np.float32).tobytes()) for k, v in zip(span_keys, spans)
        ]
        self._store(rows)
        self.misses += 1
        return pooled, spans

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> int:
        """Store vectors this cache's model computed elsewhere (e.g. read from a chunk store) for texts
        not cached yet; returns how many were new."""
        rows = [(self.model, text_hash(t), np.asarray(v, dtype=np.float32).tobytes()) for t, v in zip(texts, vectors)]
        before = self._db.total_changes
        with self._db:
            self._db.executemany("INSERT OR IGNORE INTO model_vectors VALUES (?, ?, ?)", rows)
        return self._db.total_changes - before

    def retain(self, texts: Sequence[str]) -> int:
        """Forget every vector, of any model, that is not one of ``texts``' (a private note's vectors: see
        lucasrag/privacy.py); returns how many were forgotten. The forgotten bytes are overwritten and the
        write-ahead log truncated, so no file keeps them. What is forgotten is recomputed if needed again."""
        keep = {text_hash(t) for t in texts}
        for key, answers in list(_REMEMBERED.items()):  # what this process keeps forgets them too
            if key[0] == str(self.path.resolve()):
                _REMEMBERED[key] = [rows.keeping(keep) for rows in answers]
        with self._db:
            self._db.execute("CREATE TEMP TABLE IF NOT EXISTS keep (hash TEXT PRIMARY KEY) WITHOUT ROWID")
            self._db.execute("DELETE FROM keep")
            self._db.executemany("INSERT OR IGNORE INTO keep VALUES (?)", [(h,) for h in keep])
            gone = self._db.execute("DELETE FROM model_vectors WHERE hash NOT IN (SELECT hash FROM keep)").rowcount
            self._db.execute("DELETE FROM keep")
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return gone

    def _store(self, rows: list[tuple[str, str, bytes]]) -> None:
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO model_vectors VALUES (?, ?, ?)", rows)

    def _lookup(self, hashes: set[str]) -> dict[str, np.ndarray]:
        """The cached vectors of ``hashes``; a damaged cache file is set aside and holds none."""
        try:
            return self._read(hashes)
        except sqlite3.DatabaseError as exc:
            self._set_aside(exc)
            return {}

    def _read(self, hashes: set[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        keys = list(hashes)
        for start in range(0, len(keys), 900):  # SQLite's bound-parameter limit
            batch = keys[start : start + 900]
            marks = ",".join("?" * len(batch))
            rows = self._db.execute(
                f"SELECT hash, vector FROM model_vectors WHERE model = ? AND hash IN ({marks})", [self.model, *batch]
            )
            for h, blob in rows:
                found[h] = np.frombuffer(blob, dtype=np.float32)
        return found

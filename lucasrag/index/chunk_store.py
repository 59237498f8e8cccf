"""Chunk metadata by chunk id: what the query side filters and ranks on.

LightRAG returns only ``chunk_id`` and text for a retrieved chunk; band, date,
charged subjects, vault path and the chunk's vector live here, keyed by the
same chunk id. The embedded profile keeps one SQLite file per workspace, next
to that workspace's LightRAG files, so a rebuild of one workspace never
touches another's.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from lucasrag import lexical
from lucasrag.embedding import DIM
from lucasrag.index.dated_vectors import DatedVectors
from lucasrag.index.keyword_index import KeywordIndex, varints
from lucasrag.vocabulary import CHUNK_COLUMNS, ChunkRecord, chunk_sql_columns

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS chunks (
    {chunk_sql_columns()},
    vector BLOB NOT NULL,
    PRIMARY KEY (chunk_id)
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks (doc_id);
-- Covers band_counts() (per band, optionally within periods) without reading the vectors.
CREATE INDEX IF NOT EXISTS chunks_band_date ON chunks (band, date);
CREATE TABLE IF NOT EXISTS docs (
    doc_id TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    fingerprint TEXT NOT NULL
);
-- Keyword index over lexical.chunk_terms() of each chunk; rowid = chunks.rowid.
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_terms USING fts5(terms, tokenize = 'unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_vocab USING fts5vocab(chunk_terms, 'row');
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
#: The model of every vector in a store written before the model stamp existed.
LEGACY_MODEL = "minilm"

#: Bumped whenever lexical.chunk_terms() changes: an older store is re-indexed on open.
_TERMS_VERSION = 1

_COLUMNS = ", ".join(CHUNK_COLUMNS)


def _record(row: Sequence) -> ChunkRecord:
    *head, charged, content_hash = row
    # most chunks are charged for no one: skip the JSON parser for them (a query reads hundreds of rows)
    subjects = () if charged == "[]" else tuple(json.loads(charged))
    return ChunkRecord(*head, charged=subjects, content_hash=content_hash)


class SqliteChunkStore:
    """One workspace's chunk metadata and vectors in ``chunks.sqlite``."""

    waits_on_server = False  # reads are answered from memory and a local file (see ChunkStore)

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        new = not path.exists()
        self._db = sqlite3.connect(path, check_same_thread=False)
        # A deleted row's bytes are overwritten, not left in a free page: a private note leaves no trace.
        self._db.execute("PRAGMA secure_delete = ON")
        self._in_transaction = False
        self._db.executescript(_SCHEMA)
        if new:  # every deletion in it overwritten from the start (see purge_removed)
            with self._db:
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('free_pages_clean', '1')")
        self._backfill_terms()
        self._dated: DatedVectors | None = None  # see _dated_vectors
        self._counts: dict[tuple, dict[str, int]] = {}  # band_counts() per (periods, folders): asked every query
        # chunk id → row, filled by get(): each question reads hundreds of rows and most were read before
        self._rows: dict[str, ChunkRecord] = {}
        self._vectors: dict[str, np.ndarray] = {}  # chunk id → vector, filled by vectors() (the ranked pool's)
        self._keywords: KeywordIndex | None = None  # see _keyword_index
        self._keyword_searches = 0
        self._data_version: int | None = None  # see _fresh

    def _fresh(self) -> None:
        """Forget the read caches when another connection has committed since they were filled (SQLite's
        ``data_version``: how a query process follows an ingest without reopening the store)."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._data_version = version
            self._changed()

    def _changed(self) -> None:
        """Forget what the read caches hold (this object wrote, or another connection did: ``_fresh``)."""
        self._dated = self._keywords = None
        self._rows, self._vectors, self._counts = {}, {}, {}
        self._keyword_searches = 0

    def _keyword_index(self) -> KeywordIndex | None:
        """FTS5's ranking from memory (``keyword_index``), set up on this store's second keyword search
        (a one-question process never pays for it); None while FTS5 answers."""
        self._fresh()
        self._keyword_searches += 1
        if self._keywords is None and self._keyword_searches >= 2:
            db = self._db
            averages = db.execute("SELECT block FROM chunk_terms_data WHERE id = 1").fetchone()
            # the averages record: rows, then tokens per column (short or empty for an empty table)
            n_rows, n_tokens = ([*varints(averages[0] if averages else b""), 0, 0])[:2]
            rows = db.execute(
                "SELECT d.id, c.chunk_id, d.sz FROM chunk_terms_docsize d"
                " LEFT JOIN chunks c ON c.rowid = d.id ORDER BY d.id"
            ).fetchall()
            db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunk_instances USING fts5vocab(main, chunk_terms, instance)"
            )

            def postings(term: str) -> list[tuple[int, int]]:
                sql = "SELECT doc, count(*) FROM temp.chunk_instances WHERE term = ? GROUP BY doc ORDER BY doc"
                return db.execute(sql, (term,)).fetchall()

            sizes = [(r, c, (varints(sz) or [0])[0]) for r, c, sz in rows]
            self._keywords = KeywordIndex(n_rows, n_tokens, sizes, postings)
        return self._keywords

    def _dated_vectors(self) -> DatedVectors:
        """Every dated chunk, read once per open store (``lucasrag.index.dated_vectors``)."""
        if self._dated is None:
            self._dated = DatedVectors(
                self._db.execute(
                    "SELECT chunk_id, date, rowid, path, vector FROM chunks WHERE date IS NOT NULL ORDER BY rowid"
                ).fetchall()
            )
        return self._dated

    def close(self) -> None:
        self._db.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Every write inside is one SQLite transaction: readers see all of it or none of it."""
        with self._db:  # commits at the end, rolls back on an exception
            self._in_transaction = True
            try:
                yield
            except BaseException:
                self._changed()  # the caches may hold rows read inside the rolled-back writes
                raise
            finally:
                self._in_transaction = False

    def _writing(self):
        """One write's transaction, or none inside :meth:`transaction` (``with conn`` would commit it)."""
        return contextlib.nullcontext() if self._in_transaction else self._db

    def doc_fingerprints(self) -> dict[str, str]:
        """doc id → fingerprint of what was indexed for it (decides what changed)."""
        return dict(self._db.execute("SELECT doc_id, fingerprint FROM docs"))

    def chunk_ids_of(self, doc_ids: Iterable[str]) -> list[str]:
        ids = list(doc_ids)
        out: list[str] = []
        for start in range(0, len(ids), 900):
            batch = ids[start : start + 900]
            marks = ",".join("?" * len(batch))
            out += [r[0] for r in self._db.execute(f"SELECT chunk_id FROM chunks WHERE doc_id IN ({marks})", batch)]
        return out

    def _backfill_terms(self) -> None:
        """(Re)index the keywords of chunks written before this version of the keyword index."""
        if self._db.execute("PRAGMA user_version").fetchone()[0] >= _TERMS_VERSION:
            return
        with self._db:
            self._db.execute("DELETE FROM chunk_terms")
            rows = self._db.execute("SELECT rowid, text, date FROM chunks").fetchall()
            self._db.executemany(
                "INSERT INTO chunk_terms (rowid, terms) VALUES (?, ?)",
                [(rowid, " ".join(lexical.chunk_terms(text, date))) for rowid, text, date in rows],
            )
            self._db.execute(f"PRAGMA user_version = {_TERMS_VERSION}")

    def _forget_terms(self, column: str, values: Sequence[str]) -> None:
        marks = ",".join("?" * len(values))
        self._db.execute(
            f"DELETE FROM chunk_terms WHERE rowid IN (SELECT rowid FROM chunks WHERE {column} IN ({marks}))", values
        )

    def remove_docs(self, doc_ids: Iterable[str]) -> None:
        """Forget these documents and their chunks."""
        ids = list(doc_ids)
        self._changed()
        with self._writing():
            self._db.execute("DELETE FROM meta WHERE key = 'rows_digest'")
            for start in range(0, len(ids), 900):
                batch = ids[start : start + 900]
                marks = ",".join("?" * len(batch))
                self._forget_terms("doc_id", batch)
                self._db.execute(f"DELETE FROM chunks WHERE doc_id IN ({marks})", batch)
                self._db.execute(f"DELETE FROM docs WHERE doc_id IN ({marks})", batch)

    def mark_purge_pending(self) -> None:
        with self._writing():
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('purge_pending', '1')")

    def purge_pending(self) -> bool:
        return self._db.execute("SELECT 1 FROM meta WHERE key = 'purge_pending'").fetchone() is not None

    def purge_removed(self) -> None:
        """FTS5 deletes by adding tombstones: the removed chunks' terms stay in older index segments until a
        merge. ``optimize`` merges every segment into one without them (SQLite 3.40 has no FTS5
        ``secure-delete`` option); the old segments' rows are overwritten as they go (``secure_delete``). A
        file that may hold free pages of deletions made before ``secure_delete`` was on is rewritten once
        (``VACUUM``; at 100,000 notes ≈ 1 s of every delete when it was done each time)."""
        with self._db:
            self._db.execute("INSERT INTO chunk_terms(chunk_terms) VALUES ('optimize')")
        if self._db.execute("SELECT 1 FROM meta WHERE key = 'free_pages_clean'").fetchone() is None:
            self._db.execute("VACUUM")  # with secure_delete on: no free page is left holding old bytes
            with self._db:
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('free_pages_clean', '1')")
        with self._db:
            self._db.execute("DELETE FROM meta WHERE key = 'purge_pending'")
        self._changed()

    def add_chunks(self, records: Sequence[ChunkRecord], vectors: np.ndarray) -> None:
        self._changed()
        with self._writing():
            self._db.execute("DELETE FROM meta WHERE key = 'rows_digest'")
            for start in range(0, len(records), 900):
                self._forget_terms("chunk_id", [r.chunk_id for r in records[start : start + 900]])
            self._db.executemany(
                f"INSERT OR REPLACE INTO chunks ({_COLUMNS}, vector) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        r.chunk_id,
                        r.doc_id,
                        r.workspace,
                        r.path,
                        r.chunk_index,
                        r.text,
                        r.band,
                        r.band_rule,
                        r.date,
                        json.dumps(list(r.charged)),
                        r.content_hash,
                        v.astype(np.float32).tobytes(),
                    )
                    for r, v in zip(records, vectors)
                ],
            )
            self._db.executemany(
                "INSERT INTO chunk_terms (rowid, terms) SELECT rowid, ? FROM chunks WHERE chunk_id = ?",
                [(" ".join(lexical.chunk_terms(r.text, r.date)), r.chunk_id) for r in records],
            )

    def mark_docs(self, fingerprints: dict[str, tuple[str, str]]) -> None:
        """Record documents as indexed: doc id → (vault path, fingerprint)."""
        with self._writing():
            self._db.executemany(
                "INSERT OR REPLACE INTO docs VALUES (?,?,?)",
                [(d, path, fp) for d, (path, fp) in fingerprints.items()],
            )

    def get(self, chunk_ids: Sequence[str]) -> dict[str, ChunkRecord]:
        """The rows of the ids the store holds, from the row cache where it has them (see ``_changed``)."""
        self._fresh()
        rows = self._rows
        out = {i: rows[i] for i in chunk_ids if i in rows}
        missing = [i for i in dict.fromkeys(chunk_ids) if i not in out]
        for start in range(0, len(missing), 900):
            batch = missing[start : start + 900]
            marks = ",".join("?" * len(batch))
            for row in self._db.execute(f"SELECT {_COLUMNS} FROM chunks WHERE chunk_id IN ({marks})", batch):
                out[row[0]] = rows[row[0]] = _record(row)
        return out

    def vectors(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """Stored unit vectors in the order of ``chunk_ids`` (zeros for unknown ids), from the cache of those
        read before where it has them (see ``_changed``)."""
        self._fresh()
        found = self._vectors
        missing = [c for c in dict.fromkeys(chunk_ids) if c not in found]
        for start in range(0, len(missing), 900):
            batch = missing[start : start + 900]
            marks = ",".join("?" * len(batch))
            for cid, blob in self._db.execute(
                f"SELECT chunk_id, vector FROM chunks WHERE chunk_id IN ({marks})", batch
            ):
                found[cid] = np.frombuffer(blob, dtype=np.float32)
        zero = np.zeros(DIM, dtype=np.float32)
        return np.stack([found.get(c, zero) for c in chunk_ids]) if chunk_ids else np.zeros((0, DIM), np.float32)

    def nearest_dated(
        self, vector: np.ndarray, periods: Sequence[tuple[str, str]], k: int, folders: Sequence[str] = ()
    ) -> list[str]:
        """The ``k`` chunks dated inside any period (ISO bounds, inclusive) nearest to ``vector``; with
        ``folders``, only chunks of notes under one of them.

        A question about 2013 must reach the 2013 notes even when newer notes
        are closer in meaning; the vector index alone would not fetch them."""
        if not periods or k < 1:
            return []
        self._fresh()
        return self._dated_vectors().nearest(vector, periods, k, folders)

    def band_counts(self, periods: Sequence[tuple[str, str]] = (), folders: Sequence[str] = ()) -> dict[str, int]:
        """Chunks per band, only those dated inside any period (ISO bounds, inclusive) when
        periods are given, only those under one of ``folders`` when they are: the query stops
        over-fetching when no more eligible chunks exist."""
        self._fresh()
        key = (tuple(map(tuple, periods)), tuple(folders))
        if key in self._counts:
            return dict(self._counts[key])
        where, params = [], []
        if periods:
            where.append("(" + " OR ".join(["substr(date, 1, 10) BETWEEN ? AND ?"] * len(periods)) + ")")
            params += [b for period in periods for b in period]
        if folders:
            where.append("(" + " OR ".join(["path = ? OR substr(path, 1, ?) = ?"] * len(folders)) + ")")
            params += [v for f in folders for v in (f, len(f) + 1, f + "/")]
        sql = "SELECT band, count(*) FROM chunks" + (" WHERE " + " AND ".join(where) if where else "")
        counts = dict(self._db.execute(sql + " GROUP BY band", params).fetchall())
        if len(self._counts) >= 256:  # one entry per distinct period asked about; a long-lived server asks many
            self._counts.clear()
        self._counts[key] = dict(counts)
        return counts

    def keyword_search(self, query: Sequence[str], k: int) -> list[str]:
        """Chunk ids of the ``k`` best BM25 matches for any of the ``query`` terms (see :mod:`lucasrag.lexical`)."""
        match = lexical.fts_match(query)
        if match is None or k < 1:
            return []
        index = self._keyword_index()
        if index is not None and index.answers(query):
            return index.search(query, k)
        rows = self._db.execute(
            "SELECT c.chunk_id FROM (SELECT rowid, rank FROM chunk_terms WHERE chunk_terms MATCH ? ORDER BY rank LIMIT ?) m"
            " JOIN chunks c ON c.rowid = m.rowid ORDER BY m.rank",
            (match, k),
        )
        return [r[0] for r in rows]

    def term_stats(self, query: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(number of chunks, chunks containing each term) — the collection statistics BM25 needs."""
        n = sum(self.band_counts().values())  # every chunk has a band: the cached totals count them all
        if self._keywords is not None and self._keywords.answers(query):  # FTS5's counts, held in memory
            return n, {t: d for t in query if (d := self._keywords.doc_freq(t))}
        marks = ",".join("?" * len(query))
        df = (
            dict(self._db.execute(f"SELECT term, doc FROM chunk_vocab WHERE term IN ({marks})", list(query)))
            if query
            else {}
        )
        return n, df

    def all_records(self) -> list[ChunkRecord]:
        return [_record(r) for r in self._db.execute(f"SELECT {_COLUMNS} FROM chunks ORDER BY path, chunk_index")]

    def counts(self) -> tuple[int, int]:
        """(documents, chunks)."""
        docs = self._db.execute("SELECT count(*) FROM docs").fetchone()[0]
        chunks = self._db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return docs, chunks

    def embedding_model(self) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
        if row:
            return row[0]
        return LEGACY_MODEL if self._db.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() else None

    def stamp_embedding_model(self, model: str) -> None:
        with self._writing():
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('embedding_model', ?)", (model,))

    def rows_digest(self) -> str | None:
        """The digest of the chunk rows the last complete sync wrote (cleared by every other write)."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'rows_digest'").fetchone()
        return row[0] if row else None

    def record_rows_digest(self, digest: str) -> None:
        with self._writing():
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('rows_digest', ?)", (digest,))

    def writes_in_flight(self) -> dict[str, list[str]]:
        """doc id → chunk ids that a sync was writing into LightRAG when it stopped (killed, failed) before
        its final transaction: the next sync removes them from LightRAG and redoes what is still wanted."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'writes_in_flight'").fetchone()
        return json.loads(row[0]) if row else {}

    def record_writes_in_flight(self, docs: dict[str, list[str]]) -> None:
        """Record (committed at once, before LightRAG is touched) or, with ``{}``, clear the documents a sync
        is about to change in LightRAG."""
        with self._writing():
            if docs:
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('writes_in_flight', ?)", (json.dumps(docs),))
            else:
                self._db.execute("DELETE FROM meta WHERE key = 'writes_in_flight'")

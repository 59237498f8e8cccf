"""Chunk metadata by chunk id on PostgreSQL (the production profile's ``SqliteChunkStore``).

Same methods and semantics as :class:`lucasrag.index.chunk_store.SqliteChunkStore`;
all workspaces share two tables, ``lucasrag_chunks`` and ``lucasrag_docs``, with the
workspace in every key, so a rebuild of one workspace deletes only its own rows.
Vectors are pgvector ``vector(384)`` columns (psycopg 3, synchronous).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import numpy as np

from lucasrag import lexical
from lucasrag.embedding import DIM
from lucasrag.index.chunk_store import LEGACY_MODEL
from lucasrag.index.pg_tables import CHUNKS_TABLE, DOCS_TABLE, META_TABLE, connect
from lucasrag.settings import Settings
from lucasrag.vocabulary import CHUNK_COLUMNS, ChunkRecord

_COLUMNS = ", ".join(CHUNK_COLUMNS)


#: The chunks of a workspace matching any of the selecting terms (the second query), ranked by all the terms.
KEYWORD_SEARCH = (
    f"SELECT chunk_id FROM {CHUNKS_TABLE}, to_tsquery('simple', %s) q, to_tsquery('simple', %s) s"
    " WHERE workspace = %s AND terms @@ s ORDER BY ts_rank(terms, q) DESC, chunk_id LIMIT %s"
)

#: A workspace's rows written before the keyword index (found through the partial index over them).
MISSING_TERMS = f"SELECT chunk_id, text, date FROM {CHUNKS_TABLE} WHERE workspace = %s AND terms IS NULL"


def _record(row: Sequence) -> ChunkRecord:
    *head, charged, content_hash = row
    return ChunkRecord(*head, charged=tuple(json.loads(charged)), content_hash=content_hash)


class PostgresChunkStore:
    """One workspace's chunk metadata and vectors in ``lucasrag_chunks`` / ``lucasrag_docs``."""

    waits_on_server = True  # every read is a round trip to PostgreSQL (see ChunkStore)

    def __init__(self, settings: Settings, workspace: str) -> None:
        self.workspace = workspace
        self._db = connect(settings)
        self._backfill_terms()
        # band_counts() per (periods, folders), valid while the rows digest they were counted under holds
        self._counts: dict[tuple, dict[str, int]] = {}
        self._counts_digest: str | None = None
        self._term_counts: dict[str, int] = {}  # term_stats() per term, under the same digest

    def close(self) -> None:
        self._db.close()

    def _backfill_terms(self) -> None:
        """Index the keywords of chunks written before the keyword index existed."""
        rows = self._db.execute(MISSING_TERMS, (self.workspace,)).fetchall()
        if rows:
            with self._db.transaction(), self._db.cursor() as cur:
                cur.executemany(
                    f"UPDATE {CHUNKS_TABLE} SET terms = to_tsvector('simple', %s) WHERE workspace = %s AND chunk_id = %s",
                    [(" ".join(lexical.chunk_terms(text, date)), self.workspace, cid) for cid, text, date in rows],
                )

    def transaction(self):
        """Every write inside is one PostgreSQL transaction (the writes' own ones become savepoints)."""
        return self._db.transaction()

    def doc_fingerprints(self) -> dict[str, str]:
        """doc id → fingerprint of what was indexed for it (decides what changed)."""
        rows = self._db.execute(f"SELECT doc_id, fingerprint FROM {DOCS_TABLE} WHERE workspace = %s", (self.workspace,))
        return dict(rows.fetchall())

    def chunk_ids_of(self, doc_ids: Iterable[str]) -> list[str]:
        ids = list(doc_ids)
        if not ids:
            return []
        rows = self._db.execute(
            f"SELECT chunk_id FROM {CHUNKS_TABLE} WHERE workspace = %s AND doc_id = ANY(%s)", (self.workspace, ids)
        )
        return [r[0] for r in rows.fetchall()]

    def mark_purge_pending(self) -> None:
        """Nothing is owed on PostgreSQL (see :meth:`purge_removed`)."""

    def purge_pending(self) -> bool:
        return False

    def purge_removed(self) -> None:
        """Nothing to do: a deleted row is gone from every query and every dump at once (its dead tuple waits
        for autovacuum inside PostgreSQL's own files, as any deleted row does)."""

    def remove_docs(self, doc_ids: Iterable[str]) -> None:
        """Forget these documents and their chunks."""
        ids = list(doc_ids)
        if not ids:
            return
        with self._db.transaction():
            self._db.execute(
                f"DELETE FROM {META_TABLE} WHERE workspace = %s AND key = 'rows_digest'", (self.workspace,)
            )
            self._db.execute(
                f"DELETE FROM {CHUNKS_TABLE} WHERE workspace = %s AND doc_id = ANY(%s)", (self.workspace, ids)
            )
            self._db.execute(
                f"DELETE FROM {DOCS_TABLE} WHERE workspace = %s AND doc_id = ANY(%s)", (self.workspace, ids)
            )

    def add_chunks(self, records: Sequence[ChunkRecord], vectors: np.ndarray) -> None:
        if not len(records):
            return
        rows = [
            (
                self.workspace,
                r.chunk_id,
                r.doc_id,
                r.path,
                r.chunk_index,
                r.text,
                r.band,
                r.band_rule,
                r.date,
                json.dumps(list(r.charged)),
                r.content_hash,
                np.asarray(v, dtype=np.float32),
                " ".join(lexical.chunk_terms(r.text, r.date)),
            )
            for r, v in zip(records, vectors)
        ]
        with self._db.transaction(), self._db.cursor() as cur:
            cur.execute(f"DELETE FROM {META_TABLE} WHERE workspace = %s AND key = 'rows_digest'", (self.workspace,))
            cur.executemany(
                f"INSERT INTO {CHUNKS_TABLE} (workspace, chunk_id, doc_id, path, chunk_index, text, band, band_rule,"
                " date, charged, content_hash, vector, terms)"
                " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s, to_tsvector('simple', %s))"
                " ON CONFLICT (workspace, chunk_id) DO UPDATE SET doc_id = EXCLUDED.doc_id, path = EXCLUDED.path,"
                " chunk_index = EXCLUDED.chunk_index, text = EXCLUDED.text, band = EXCLUDED.band,"
                " band_rule = EXCLUDED.band_rule, date = EXCLUDED.date, charged = EXCLUDED.charged,"
                " content_hash = EXCLUDED.content_hash, vector = EXCLUDED.vector, terms = EXCLUDED.terms",
                rows,
            )

    def mark_docs(self, fingerprints: dict[str, tuple[str, str]]) -> None:
        """Record documents as indexed: doc id → (vault path, fingerprint)."""
        if not fingerprints:
            return
        with self._db.transaction(), self._db.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {DOCS_TABLE} (workspace, doc_id, path, fingerprint) VALUES (%s,%s,%s,%s)"
                " ON CONFLICT (workspace, doc_id) DO UPDATE SET path = EXCLUDED.path, fingerprint = EXCLUDED.fingerprint",
                [(self.workspace, d, path, fp) for d, (path, fp) in fingerprints.items()],
            )

    def get(self, chunk_ids: Sequence[str]) -> dict[str, ChunkRecord]:
        if not len(chunk_ids):
            return {}
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM {CHUNKS_TABLE} WHERE workspace = %s AND chunk_id = ANY(%s)",
            (self.workspace, list(chunk_ids)),
        )
        return {row[0]: _record(row) for row in rows.fetchall()}

    def vectors(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """Stored unit vectors in the order of ``chunk_ids`` (zeros for unknown ids)."""
        if not len(chunk_ids):
            return np.zeros((0, DIM), np.float32)
        with self._db.cursor(binary=True) as cur:
            cur.execute(
                f"SELECT chunk_id, vector FROM {CHUNKS_TABLE} WHERE workspace = %s AND chunk_id = ANY(%s)",
                (self.workspace, list(chunk_ids)),
            )
            found = {cid: vec.to_numpy().astype(np.float32, copy=False) for cid, vec in cur.fetchall()}
        zero = np.zeros(DIM, dtype=np.float32)
        return np.stack([found.get(c, zero) for c in chunk_ids])

    def nearest_dated(
        self, vector: np.ndarray, periods: Sequence[tuple[str, str]], k: int, folders: Sequence[str] = ()
    ) -> list[str]:
        """The ``k`` chunks dated inside any period (ISO bounds, inclusive) nearest to ``vector``; with
        ``folders``, only chunks of notes under one of them."""
        if not periods or k < 1:
            return []
        where, params = self._within(periods, folders)
        rows = self._db.execute(
            f"SELECT chunk_id FROM {CHUNKS_TABLE} WHERE {where} ORDER BY vector <=> %s LIMIT %s",
            [*params, vector.astype(np.float32), k],
        )
        return [r[0] for r in rows.fetchall()]

    def band_counts(self, periods: Sequence[tuple[str, str]] = (), folders: Sequence[str] = ()) -> dict[str, int]:
        """Chunks per band, only those dated inside any period (ISO bounds, inclusive) when given, only
        those under one of ``folders`` when they are.

        A count scans the workspace's rows (60-75 ms at 100,000 notes) and every question asks one or two:
        counts are kept under the rows digest of the last complete sync (``rows_digest``: any write clears
        it, the sync's last transaction records the next one), read with them in one statement, so a kept
        count always belongs to the rows that digest names; without a digest nothing is kept."""
        key = (tuple(map(tuple, periods)), tuple(folders))
        if key in self._counts and self.rows_digest() == self._counts_digest:
            return dict(self._counts[key])
        where, params = self._within(periods, folders)
        sql = (
            f"SELECT band, count(*), (SELECT value FROM {META_TABLE} WHERE workspace = %s AND key = 'rows_digest')"
            f" FROM {CHUNKS_TABLE} WHERE {where} GROUP BY band"
        )
        rows = self._db.execute(sql, [self.workspace, *params]).fetchall()
        counts = {band: int(n) for band, n, _ in rows}
        digest = rows[0][2] if rows else None
        if digest != self._counts_digest or len(self._counts) >= 256:  # nothing kept belongs to these rows
            self._counts, self._term_counts, self._counts_digest = {}, {}, digest
        if digest is not None:
            self._counts[key] = dict(counts)
        return counts

    def _within(self, periods: Sequence[tuple[str, str]], folders: Sequence[str]) -> tuple[str, list]:
        """This workspace's rows dated inside any period and under any folder (either may be empty: no limit)."""
        where, params = ["workspace = %s"], [self.workspace]
        if periods:
            where.append("(" + " OR ".join(["left(date, 10) BETWEEN %s AND %s"] * len(periods)) + ")")
            params += [b for period in periods for b in period]
        if folders:
            where.append("(" + " OR ".join(["path = %s OR left(path, %s) = %s"] * len(folders)) + ")")
            params += [v for f in folders for v in (f, len(f) + 1, f + "/")]
        return " AND ".join(where), params

    def keyword_search(self, query: Sequence[str], k: int) -> list[str]:
        """Chunk ids of the ``k`` best matches for any of the ``query`` terms (PostgreSQL ``ts_rank`` over all of
        them) among the chunks holding a distinctive one (:func:`lucasrag.lexical.distinctive_terms`)."""
        if not query or k < 1:
            return []
        n, counts = self.term_stats(query)
        selective = lexical.distinctive_terms(counts, n)
        if not selective:
            return []
        rows = self._db.execute(KEYWORD_SEARCH, (" | ".join(query), " | ".join(selective), self.workspace, k))
        return [r[0] for r in rows.fetchall()]

    def term_stats(self, query: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(number of chunks, chunks containing each term) — the collection statistics BM25 needs, kept as the
        band counts are: the number of chunks is their sum (a count of the workspace's rows: 15 ms at 100,000
        notes), and a term's count (every chunk that holds it visited: ≈ 20 ms for a question's common terms at
        100,000 notes) is read with the rows digest in one statement and kept under it; a process asks the same
        words again and again."""
        n = sum(self.band_counts().values())  # after it, what is kept belongs to the rows the digest names
        missing = [t for t in dict.fromkeys(query) if t and t not in self._term_counts]
        read: dict[str, int] = {}
        if missing:
            rows = self._db.execute(
                f"SELECT t, (SELECT count(*) FROM {CHUNKS_TABLE} WHERE workspace = %s AND terms @@ to_tsquery('simple', t)),"
                f" (SELECT value FROM {META_TABLE} WHERE workspace = %s AND key = 'rows_digest')"
                " FROM unnest(%s::text[]) t",
                (self.workspace, self.workspace, missing),
            ).fetchall()
            read = {t: int(c) for t, c, _ in rows}
            digest = rows[0][2] if rows else None
            if digest is not None and digest == self._counts_digest and len(self._term_counts) < 100_000:
                self._term_counts.update(read)
        counts = {t: read.get(t, self._term_counts.get(t, 0)) for t in query if t}
        return n, {t: c for t, c in counts.items() if c}

    def all_records(self) -> list[ChunkRecord]:
        rows = self._db.execute(
            f'SELECT {_COLUMNS} FROM {CHUNKS_TABLE} WHERE workspace = %s ORDER BY path COLLATE "C", chunk_index',
            (self.workspace,),
        )
        return [_record(r) for r in rows.fetchall()]

    def counts(self) -> tuple[int, int]:
        """(documents, chunks)."""
        docs = self._db.execute(
            f"SELECT count(*) FROM {DOCS_TABLE} WHERE workspace = %s", (self.workspace,)
        ).fetchone()[0]
        chunks = self._db.execute(
            f"SELECT count(*) FROM {CHUNKS_TABLE} WHERE workspace = %s", (self.workspace,)
        ).fetchone()[0]
        return docs, chunks

    def embedding_model(self) -> str | None:
        row = self._db.execute(
            f"SELECT value FROM {META_TABLE} WHERE workspace = %s AND key = 'embedding_model'", (self.workspace,)
        ).fetchone()
        if row:
            return row[0]
        has_chunks = self._db.execute(
            f"SELECT EXISTS (SELECT 1 FROM {CHUNKS_TABLE} WHERE workspace = %s)", (self.workspace,)
        ).fetchone()[0]
        return LEGACY_MODEL if has_chunks else None

    def stamp_embedding_model(self, model: str) -> None:
        self._db.execute(
            f"INSERT INTO {META_TABLE} VALUES (%s, 'embedding_model', %s)"
            " ON CONFLICT (workspace, key) DO UPDATE SET value = EXCLUDED.value",
            (self.workspace, model),
        )

    def rows_digest(self) -> str | None:
        """The digest of the chunk rows the last complete sync wrote (see the SQLite store)."""
        row = self._db.execute(
            f"SELECT value FROM {META_TABLE} WHERE workspace = %s AND key = 'rows_digest'", (self.workspace,)
        ).fetchone()
        return row[0] if row else None

    def record_rows_digest(self, digest: str) -> None:
        self._db.execute(
            f"INSERT INTO {META_TABLE} VALUES (%s, 'rows_digest', %s)"
            " ON CONFLICT (workspace, key) DO UPDATE SET value = EXCLUDED.value",
            (self.workspace, digest),
        )

    def writes_in_flight(self) -> dict[str, list[str]]:
        """doc id → chunk ids that a sync was writing into LightRAG when it stopped (see the SQLite store)."""
        row = self._db.execute(
            f"SELECT value FROM {META_TABLE} WHERE workspace = %s AND key = 'writes_in_flight'", (self.workspace,)
        ).fetchone()
        return json.loads(row[0]) if row else {}

    def record_writes_in_flight(self, docs: dict[str, list[str]]) -> None:
        """Record (committed at once, before LightRAG is touched) or, with ``{}``, clear them."""
        if docs:
            self._db.execute(
                f"INSERT INTO {META_TABLE} VALUES (%s, 'writes_in_flight', %s)"
                " ON CONFLICT (workspace, key) DO UPDATE SET value = EXCLUDED.value",
                (self.workspace, json.dumps(docs)),
            )
        else:
            self._db.execute(
                f"DELETE FROM {META_TABLE} WHERE workspace = %s AND key = 'writes_in_flight'", (self.workspace,)
            )

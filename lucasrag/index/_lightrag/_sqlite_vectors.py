"""LightRAG's vector storage for the embedded profile, in ``lightrag.sqlite`` (see ``_sqlite_file``).

Rows (normalised float32 vector, the record LightRAG's ``meta_fields`` keep) are written by row on
``index_done_callback``; upserts wait in memory until then and are embedded at the flush, as
nano-vectordb's are (``get_by_id(s)`` and ``get_vectors_by_ids`` read them before it; ``query`` sees
flushed rows only, LightRAG's contract for buffering stores).

Ranking keeps a matrix of the namespace's vectors in memory, loaded at the first query and then
brought up to date by the rows written since (every flush stamps its rows with the next ``seq``; a
delete is logged with it), so a query after another process's one-note flush reads that note's rows,
not the store. Cosine is the dot product of normalised vectors; the ``top_k`` best, ties broken by
id, so the order never depends on where a row sits in memory and a smaller ``top_k``'s rows are a
prefix of a larger one's (``_setup._Backend.prefix_ranked``).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass

import numpy as np
from lightrag.base import BaseVectorStorage
from lightrag.utils import compute_mdhash_id

from lucasrag.blas import one_blas_thread
from lucasrag.index._lightrag._sqlite_file import (
    Transaction,
    connect,
    counter,
    import_once,
    marks,
    read_json,
    slices,
    store_folder,
    with_pending,
)

#: Deletes older than this many flushes leave the log; a reader that far behind loads the matrix afresh.
KEPT_DELETES = 10_000
_RECORD_KEYS = ("__id__", "__created_at__")


def _normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


class _Matrix:
    """The flushed vectors of one namespace, for ranking: ids, their rows. A matrix being ranked is never changed
    (a ranking may run in another thread): the store applies later flushes to a copy (:meth:`copy`)."""

    def __init__(self, dim: int) -> None:
        self.ids: list[str] = []
        self.pos: dict[str, int] = {}
        self.rows = np.zeros((0, dim), np.float32)  # capacity ≥ len(ids); rows past it are unused

    def copy(self) -> _Matrix:
        twin = _Matrix(self.rows.shape[1])
        twin.ids, twin.pos, twin.rows = list(self.ids), dict(self.pos), self.rows.copy()
        return twin

    def reset(self, ids: list[str], rows: np.ndarray) -> None:
        self.ids, self.pos, self.rows = ids, {i: n for n, i in enumerate(ids)}, rows

    def put(self, id: str, row: np.ndarray) -> None:
        at = self.pos.get(id)
        if at is None:
            at = self.pos[id] = len(self.ids)
            self.ids.append(id)
            if at >= len(self.rows):
                grown = np.zeros((max(16, 2 * len(self.rows)), self.rows.shape[1]), np.float32)
                grown[: len(self.rows)] = self.rows
                self.rows = grown
        self.rows[at] = row

    def remove(self, id: str) -> None:
        at = self.pos.pop(id, None)
        if at is None:
            return
        last = len(self.ids) - 1
        if at != last:  # the last row takes the removed one's place
            moved = self.ids[last]
            self.ids[at], self.rows[at], self.pos[moved] = moved, self.rows[last], at
        self.ids.pop()

    def best(self, query: np.ndarray, top_k: int, threshold: float | None) -> list[tuple[str, float]]:
        n = len(self.ids)
        if not n or top_k <= 0:
            return []
        with one_blas_thread():
            scores = self.rows[:n] @ query
        k = min(top_k, n)
        kth = np.partition(scores, n - k)[n - k]
        picked = np.nonzero(scores >= kth)[0]  # every row tied with the k-th too: ids break the ties
        ranked = sorted((-float(scores[i]), self.ids[i]) for i in picked)[:k]
        return [(id, -neg) for neg, id in ranked if threshold is None or -neg >= threshold]


@dataclass
class SqliteVectorStorage(BaseVectorStorage):
    def __post_init__(self) -> None:
        self._validate_embedding_func()
        kwargs = self.global_config.get("vector_db_storage_cls_kwargs", {})
        if kwargs.get("cosine_better_than_threshold") is None:
            raise ValueError("cosine_better_than_threshold must be specified in vector_db_storage_cls_kwargs")
        self.cosine_better_than_threshold = kwargs["cosine_better_than_threshold"]
        self._folder = store_folder(self.global_config, self.workspace)
        self._db = None
        self._pending: dict[str, dict | None] = {}  # id → record (with "__vector__" once embedded) | None
        self._matrix: _Matrix | None = None  # loaded at the first query
        self._seq = 0  # the last flush the matrix holds
        self._version: int | None = None  # PRAGMA data_version when the matrix was last brought up to date
        self._stale = False  # this storage flushed since

    # --------------------------------------------------------------------------- opening, closing

    async def initialize(self) -> None:
        if self._db is None:
            self._db = connect(self._folder)
            legacy = self._folder / f"vdb_{self.namespace}.json"
            import_once(self._db, f"vectors:{self.namespace}", legacy, self._copy_legacy)

    def _copy_legacy(self, db, legacy) -> None:
        """nano-vectordb's file: ``data`` (records) and ``matrix`` (base64 float32, row per record)."""
        import base64

        data = read_json(legacy)
        dim = int(data["embedding_dim"])
        matrix = np.frombuffer(base64.b64decode(data["matrix"]), dtype=np.float32).reshape(-1, dim)
        rows = _normalised(matrix) if len(matrix) else matrix
        db.executemany(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, 1)",
            (
                (self.namespace, d["__id__"], rows[i].tobytes(), json.dumps(self._record(d)))
                for i, d in enumerate(data["data"])
            ),
        )
        self._count(db, "seq", 1)

    async def finalize(self) -> None:
        if self._db is not None:
            if self._pending:  # as nano-vectordb: buffered rows are saved on close
                await self.index_done_callback()
            self._db.close()
            self._db = None

    def _record(self, row: dict) -> dict:
        return {k: v for k, v in row.items() if k in _RECORD_KEYS or k in self.meta_fields}

    def _count(self, db, name: str, value: int | None = None) -> int:
        return counter(db, f"vectors:{name}:{self.namespace}", value)

    # --------------------------------------------------------------------------- writes

    async def upsert(self, data: dict[str, dict]) -> None:
        now = int(time.time())
        for k, v in data.items():
            self._pending[k] = {
                "__id__": k,
                "__created_at__": now,
                **{f: x for f, x in v.items() if f in self.meta_fields},
            }

    async def delete(self, ids: list[str]) -> None:
        for i in ids:
            self._pending[i] = None

    async def delete_entity(self, entity_name: str) -> None:
        await self.delete([compute_mdhash_id(entity_name, prefix="ent-")])

    async def delete_entity_relation(self, entity_name: str) -> None:
        found = self._db.execute(
            "SELECT id FROM vectors WHERE namespace = ?1 AND "
            "(json_extract(record, '$.src_id') = ?2 OR json_extract(record, '$.tgt_id') = ?2)",
            (self.namespace, entity_name),
        )
        ids = [i for (i,) in found]
        ids += [i for i, r in self._pending.items() if r and entity_name in (r.get("src_id"), r.get("tgt_id"))]
        await self.delete(ids)

    async def _embed_pending(self, ids: list[str]) -> None:
        todo = [i for i in ids if self._pending.get(i) is not None and "__vector__" not in self._pending[i]]
        if todo:
            vectors = _normalised(await self.embedding_func([self._pending[i].get("content", "") for i in todo]))
            for i, v in zip(todo, vectors):
                self._pending[i]["__vector__"] = v

    async def index_done_callback(self) -> None:
        if not self._pending:
            return
        await self._embed_pending(list(self._pending))
        pending, self._pending = self._pending, {}
        try:
            with Transaction(self._db) as db:
                seq = self._count(db, "seq") + 1
                gone = [i for i, r in pending.items() if r is None]
                kept = [i for i, r in pending.items() if r is not None]
                for part in slices(gone):
                    db.execute(
                        f"DELETE FROM vectors WHERE namespace = ? AND id IN ({marks(len(part))})",
                        (self.namespace, *part),
                    )
                db.executemany(
                    "INSERT OR REPLACE INTO vector_deletes VALUES (?, ?, ?)", ((self.namespace, i, seq) for i in gone)
                )
                for part in slices(kept):
                    db.execute(
                        f"DELETE FROM vector_deletes WHERE namespace = ? AND id IN ({marks(len(part))})",
                        (self.namespace, *part),
                    )
                db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?)",
                    (
                        (
                            self.namespace,
                            i,
                            pending[i]["__vector__"].tobytes(),
                            json.dumps(self._record(pending[i])),
                            seq,
                        )
                        for i in kept
                    ),
                )
                if seq > KEPT_DELETES:
                    db.execute(
                        "DELETE FROM vector_deletes WHERE namespace = ? AND seq <= ?",
                        (self.namespace, seq - KEPT_DELETES),
                    )
                    self._count(db, "pruned", seq - KEPT_DELETES)
                self._count(db, "seq", seq)
        except BaseException:
            self._pending = pending | self._pending
            raise
        self._stale = True

    async def drop_pending_index_ops(self) -> None:
        self._pending.clear()

    async def drop(self) -> dict[str, str]:
        self._pending.clear()
        with Transaction(self._db) as db:
            for table in ("vectors", "vector_deletes"):
                db.execute(f"DELETE FROM {table} WHERE namespace = ?", (self.namespace,))
            self._count(db, "seq", self._count(db, "seq") + 1)
            self._count(db, "pruned", self._count(db, "seq"))  # every reader loads afresh
        self._matrix = None
        return {"status": "success", "message": "data dropped"}

    # --------------------------------------------------------------------------- reads

    def _records(self, ids: list[str]) -> dict[str, dict]:
        """The flushed record of each id that has one."""
        out = {}
        for part in slices(ids):
            sql = f"SELECT id, record FROM vectors WHERE namespace = ? AND id IN ({marks(len(part))})"
            out.update((i, json.loads(r)) for i, r in self._db.execute(sql, (self.namespace, *part)))
        return out

    @staticmethod
    def _shaped(record: dict) -> dict:
        return {
            **{k: v for k, v in record.items() if k != "__vector__"},
            "id": record["__id__"],
            "created_at": record.get("__created_at__"),
        }

    def _current(self, ids: list[str]) -> dict[str, dict]:
        return with_pending(self._pending, ids, self._records)

    async def get_by_id(self, id: str) -> dict | None:
        record = self._current([id]).get(id)
        return self._shaped(record) if record else None

    async def get_by_ids(self, ids: list[str]) -> list[dict | None]:
        records = self._current(list(ids))
        return [self._shaped(records[i]) if i in records else None for i in ids]

    async def get_vectors_by_ids(self, ids: list[str]) -> dict[str, list[float]]:
        await self._embed_pending([i for i in ids if i in self._pending])
        out = {i: self._pending[i]["__vector__"].tolist() for i in ids if self._pending.get(i) is not None}
        stored = [i for i in dict.fromkeys(ids) if i not in self._pending]
        for part in slices(stored):
            sql = f"SELECT id, vector FROM vectors WHERE namespace = ? AND id IN ({marks(len(part))})"
            for i, blob in self._db.execute(sql, (self.namespace, *part)):
                out[i] = np.frombuffer(blob, np.float32).tolist()
        return out

    def _up_to_date(self) -> _Matrix:
        """The ranking matrix, with every flush since it was last read applied (loaded whole the first time,
        after a drop, or when the delete log no longer reaches back to it)."""
        db = self._db
        version = db.execute("PRAGMA data_version").fetchone()[0]
        if self._matrix is not None and version == self._version and not self._stale:
            return self._matrix
        seq, pruned = self._count(db, "seq"), self._count(db, "pruned")
        dim = self.embedding_func.embedding_dim
        if self._matrix is None or self._seq < pruned or seq < self._seq:
            ids, blobs = [], []
            for i, blob in db.execute(
                "SELECT id, vector FROM vectors WHERE namespace = ? ORDER BY id", (self.namespace,)
            ):
                ids.append(i)
                blobs.append(blob)
            rows = np.frombuffer(b"".join(blobs), np.float32).reshape(len(ids), dim).copy()
            self._matrix = _Matrix(dim)
            self._matrix.reset(ids, rows)
        elif seq > self._seq:
            self._matrix = self._matrix.copy()  # the last one may be ranked in another thread right now
            for (i,) in db.execute(
                "SELECT id FROM vector_deletes WHERE namespace = ? AND seq > ?", (self.namespace, self._seq)
            ):
                self._matrix.remove(i)
            for i, blob in db.execute(
                "SELECT id, vector FROM vectors WHERE namespace = ? AND seq > ?", (self.namespace, self._seq)
            ):
                self._matrix.put(i, np.frombuffer(blob, np.float32))
        self._seq, self._version, self._stale = seq, version, False
        return self._matrix

    def rank(self, vector: np.ndarray, top_k: int) -> list[tuple[str, float]]:
        """(id, cosine) of the ``top_k`` flushed rows nearest ``vector``, best first, ties by id."""
        query = _normalised(np.asarray(vector, np.float32).reshape(1, -1))[0]
        return self._up_to_date().best(query, top_k, self.cosine_better_than_threshold)

    async def rank_aside(self, vector: np.ndarray, top_k: int) -> list[tuple[str, float]]:
        """:meth:`rank`, its product in a worker thread: a question's four workspaces rank side by side on two
        cores (their products are most of a question's time at 100,000 notes) instead of one after the other on
        the event loop. The same rows and scores, bit for bit: each product runs on one BLAS thread."""
        query = _normalised(np.asarray(vector, np.float32).reshape(1, -1))[0]
        matrix = self._up_to_date()  # SQLite on the loop's thread; the matrix is not changed while ranked
        return await asyncio.to_thread(matrix.best, query, top_k, self.cosine_better_than_threshold)

    async def contents(self, ids: list[str]) -> list[tuple[str, str]]:
        """(id, content) of the flushed rows among ``ids``, in their order (read by SQLite's ``json_extract``:
        the rest of a record is never needed here)."""
        found: dict[str, str] = {}
        for part in slices(ids):
            sql = (
                "SELECT id, json_extract(record, '$.content') FROM vectors "
                f"WHERE namespace = ? AND id IN ({marks(len(part))})"
            )
            found.update(self._db.execute(sql, (self.namespace, *part)))
        return [(i, found[i] or "") for i in ids if i in found]

    async def query(self, query: str, top_k: int, query_embedding: list[float] | None = None) -> list[dict]:
        if query_embedding is None:
            query_embedding = (await self.embedding_func([query]))[0]
        best = self.rank(np.asarray(query_embedding, np.float32), top_k)
        records = self._records([i for i, _ in best])
        return [{**self._shaped(records[i]), "distance": score} for i, score in best if i in records]

"""LightRAG's document-status store for the embedded profile: its rows in ``lightrag.sqlite``, written by row.

``JsonDocStatusStorage`` keeps every row in memory, reads its whole JSON file on open and rewrites it on every
flush: ≈ 0.45 s a one-note change at 100,000 notes (a 42 MB file), and as long again to read it in a fresh
process that never asks for a row. LucasRAG only writes these rows (``upsert``, ``delete``, ``drop``); LightRAG's
own readers (status counts, pages, lookups by path) stay as they are, on its in-memory dict, so this store:

* keeps the rows in the ``kv`` table of ``_sqlite_file`` under the namespace ``doc_status`` (a flush writes the
  rows that changed, in one transaction; a deleted row's text is overwritten, as every store's);
* reads them into the dict only when one of LightRAG's readers first runs (none does while LucasRAG ingests or
  queries);
* knows what changed from the dict itself (:class:`_Rows` notes every key set, popped or cleared), so every
  LightRAG writer — ``upsert``, ``delete``, ``update_doc_status_fields``, a source-conflict repair, ``drop`` —
  is persisted without being rewritten here.

``upsert`` waits for the index's flush like every other store's writes (LightRAG's writes the file before it
returns: the rows are the recovery anchor of its own pipeline, which LucasRAG does not run — its fingerprints
say what a killed sync redoes). A row is kept as JSON with ASCII escapes, so a string UTF-8 cannot hold (a lone
surrogate) is stored and read back as it was. A folder written by an earlier version has
``kv_store_doc_status.json``: its rows are copied in on the first open and the file removed (``import_once``).
"""

from __future__ import annotations

import functools
import inspect
import json
from pathlib import Path

from lightrag.kg.json_doc_status_impl import JsonDocStatusStorage
from lightrag.kg.shared_storage import get_namespace_lock, get_update_flag

from lucasrag.index._lightrag._sqlite_file import (
    Transaction,
    connect,
    import_kv_json,
    import_once,
    store_folder,
    write_kv,
)


class _Rows(dict):
    """The rows in memory, noting every id written or removed since the last flush (``changed``) and whether
    all were removed (``cleared``): what the flush writes. ``load`` adds stored rows without noting them."""

    def __init__(self) -> None:
        super().__init__()
        self.changed: set[str] = set()
        self.cleared = False

    def __setitem__(self, key, value) -> None:
        self.changed.add(key)
        super().__setitem__(key, value)

    def __delitem__(self, key) -> None:
        self.changed.add(key)
        super().__delitem__(key)

    def pop(self, key, *default):
        self.changed.add(key)
        return super().pop(key, *default)

    def popitem(self):
        key, value = super().popitem()
        self.changed.add(key)
        return key, value

    def setdefault(self, key, default=None):
        if key not in self:
            self.changed.add(key)
        return super().setdefault(key, default)

    def update(self, *args, **kwargs) -> None:
        rows = dict(*args, **kwargs)
        self.changed.update(rows)
        super().update(rows)

    def __ior__(self, other):
        self.update(other)
        return self

    def clear(self) -> None:
        self.changed.clear()
        self.cleared = True
        super().clear()

    def load(self, stored: dict) -> None:
        """Stored rows under the ones changed in memory (a row written or removed here wins)."""
        if not self.cleared:
            super().update((k, v) for k, v in stored.items() if k not in self.changed)


#: LightRAG's methods that never read a stored row (they write, or manage the store): no load before them.
_NOT_READING = frozenset(
    {"initialize", "finalize", "index_done_callback", "upsert", "delete", "drop", "drop_pending_index_ops"}
)


def _loading_first(method):
    @functools.wraps(method)
    async def read(self, *args, **kwargs):
        await self._load()
        return await method(self, *args, **kwargs)

    return read


class SqliteDocStatusStorage(JsonDocStatusStorage):
    def __post_init__(self) -> None:
        super().__post_init__()  # LightRAG's checks; its file name is the earlier version's file
        self._folder = store_folder(self.global_config, self.workspace)
        self._db = None
        self._loaded = False

    async def initialize(self) -> None:
        """LightRAG's lock and update flag (its writers set the flag); the rows stay in the file until read."""
        if self._db is None:
            self._storage_lock = get_namespace_lock(self.namespace, workspace=self.workspace)
            self.storage_updated = await get_update_flag(self.namespace, workspace=self.workspace)
            self._data = _Rows()
            self._loaded = False
            self._db = connect(self._folder)
            legacy = Path(self._file_name)  # LightRAG's file name: an earlier version's file
            import_once(self._db, f"kv:{self.namespace}", legacy, lambda db, f: import_kv_json(db, self.namespace, f))

    async def finalize(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    async def _load(self) -> None:
        if self._loaded:
            return
        async with self._storage_lock:
            if not self._loaded:
                rows = self._db.execute("SELECT id, value FROM kv WHERE namespace = ?", (self.namespace,))
                self._data.load({k: json.loads(v) for k, v in rows})
                self._loaded = True

    async def upsert(self, data: dict[str, dict]) -> None:
        """LightRAG's upsert (every row gets a ``chunks_list``) without its flush."""
        if not data:
            return
        for row in data.values():
            row.setdefault("chunks_list", [])
        async with self._storage_lock:
            self._data.update(data)

    async def delete(self, doc_ids: list[str]) -> None:
        async with self._storage_lock:
            for doc_id in doc_ids:
                self._data.pop(doc_id, None)

    async def drop(self) -> dict[str, str]:
        async with self._storage_lock:
            self._data.clear()
        await self.index_done_callback()
        return {"status": "success", "message": "data dropped"}

    async def index_done_callback(self) -> None:
        """Write the rows changed since the last flush (and remove the removed ones), in one transaction."""
        async with self._storage_lock:
            rows: _Rows = self._data
            if not rows.changed and not rows.cleared:
                return
            changed, cleared = rows.changed, rows.cleared
            written = [(k, json.dumps(rows[k])) for k in changed if k in rows]
            gone = [k for k in changed if k not in rows]
            with Transaction(self._db) as db:
                if cleared:
                    db.execute("DELETE FROM kv WHERE namespace = ?", (self.namespace,))
                write_kv(db, self.namespace, written, gone)
            rows.changed, rows.cleared = set(), False  # only once written: a failed flush keeps them for the next


for _name, _method in inspect.getmembers(JsonDocStatusStorage, inspect.iscoroutinefunction):
    if _name not in _NOT_READING and not _name.startswith("__"):
        setattr(SqliteDocStatusStorage, _name, _loading_first(_method))

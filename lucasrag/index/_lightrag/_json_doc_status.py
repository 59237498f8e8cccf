"""LightRAG's document-status store for the embedded profile: its JSON file, encoded by the C encoder.

``JsonDocStatusStorage`` rewrites its whole file at every flush with ``json.dump(..., indent=2)``, which Python's
json module runs in pure Python: 0.3–0.5 s a change at 100,000 notes (a 47 MB file). This subclass writes the same
rows as compact JSON encoded in C (``json.dumps``; LightRAG's loader reads it alike), under the same lock, with
the same atomic rename and the same clearing of the update flags. Everything else — the shared dict and every
query — is LightRAG's, and a row the UTF-8 encoder refuses (a lone surrogate) goes to LightRAG's own sanitising
writer.

LightRAG's ``upsert`` also writes the whole file at once, before it returns: the rows are its own ingest
pipeline's recovery anchor. LucasRAG does not run that pipeline and never reads these rows back (its own
fingerprints say what a killed sync redoes), so here an upsert is written with the index's flush, as every other
store's writes and this store's deletes are: one file write a change instead of one per batch (three at
100,000 notes, ≈ 0.13 s each).
"""

from __future__ import annotations

import json

from lightrag.file_atomic import atomic_write
from lightrag.kg.json_doc_status_impl import JsonDocStatusStorage
from lightrag.kg.shared_storage import clear_all_update_flags, set_all_update_flags


class CompactJsonDocStatusStorage(JsonDocStatusStorage):
    async def upsert(self, data: dict[str, dict]) -> None:
        """LightRAG's upsert (every row gets a ``chunks_list``, the store is marked changed) without its flush."""
        if not data:
            return
        if self._storage_lock is None:  # as LightRAG's: not initialised
            return await super().upsert(data)
        for row in data.values():
            row.setdefault("chunks_list", [])
        async with self._storage_lock:
            self._data.update(data)
            await set_all_update_flags(self.namespace, workspace=self.workspace)

    async def index_done_callback(self) -> None:
        async with self._storage_lock:
            if not self.storage_updated.value:
                return
            try:
                encoded = json.dumps(self._data.copy(), ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                encoded = None
            if encoded is not None:

                def write(tmp: str) -> None:
                    with open(tmp, "wb") as fh:
                        fh.write(encoded)

                atomic_write(self._file_name, write, self.workspace)
                await clear_all_update_flags(self.namespace, workspace=self.workspace)
                return
        await super().index_done_callback()  # takes the lock itself

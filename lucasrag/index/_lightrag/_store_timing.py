"""For benchmarks: how long each of LightRAG's embedded stores takes to write its files (``index_done_callback``,
the flush that writes their rows to lightrag.sqlite, or rewrites a JSON or graphml file whole). Not used by
the product."""

from __future__ import annotations

import time
from collections.abc import Callable

from lucasrag.index._lightrag._setup import _BACKENDS, register_own_storages


def time_store_writes(record: Callable[[str, float], None]) -> None:
    """From now on, call ``record("<StoreClass>:<namespace>", seconds)`` after every flush of an embedded store."""
    from lightrag.kg.factory import get_storage_class

    register_own_storages()
    for name in _BACKENDS["embedded"].storages.values():
        cls = get_storage_class(name)
        original = cls.index_done_callback
        if getattr(original, "_timed", False):
            continue

        async def timed(self, _original=original, _name=cls.__name__):
            t0 = time.perf_counter()
            try:
                return await _original(self)
            finally:
                record(f"{_name}:{self.namespace}", time.perf_counter() - t0)

        timed._timed = True
        cls.index_done_callback = timed

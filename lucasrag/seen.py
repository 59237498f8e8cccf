"""What a long-lived process saw before: the few most recently used entries of a map, and rows recognised by
their row hashes. A writer that runs again and again (``lucasrag watch``, ``mcp --watch``) keeps what its last run
worked out (routing, row keys, digests, fingerprints) and redoes it only for rows it has not met."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

import polars as pl

K = TypeVar("K")
V = TypeVar("V")


class RecentlyUsed(Generic[K, V]):
    """A map that keeps its ``limit`` most recently used entries."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        if key in self._entries:
            self._entries.move_to_end(key)
        return self._entries.get(key)

    def put(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.limit:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()


def row_hashes(frame: pl.DataFrame) -> tuple[pl.Series, pl.Series]:
    """Two 64-bit hashes of each row (two seeds: 128 bits), to recognise rows met before. Polars does not promise
    them stable across versions: compared within one process only."""
    return frame.hash_rows(seed=11), frame.hash_rows(seed=29)

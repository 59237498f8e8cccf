"""What a small file says, read again only when the file changed (by its inode, modification time and size).

A query reads several such files each time it runs (the deference list, the catalogue's tags, the
writer's life, the vault's health, a workspace's identity); parsing or opening them on every call would
cost more than the answer they change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

_cache: dict[tuple, tuple[tuple, object]] = {}


def file_stamp(path: Path) -> tuple | None:
    """(inode, mtime, size) of ``path``, None when it cannot be read: changes with every write."""
    try:
        st = path.stat()
    except OSError:
        return None
    # the inode too: writers replace these files whole (a rename), possibly within one mtime tick
    return st.st_ino, st.st_mtime_ns, st.st_size


def read_when_changed(key: tuple, files: Sequence[Path], load: Callable[[], T]) -> T:
    """``load()``, re-run only when one of ``files`` changed since the last call with ``key``."""
    stamp = tuple(file_stamp(f) for f in files)
    cached = _cache.get(key)
    if cached is None or cached[0] != stamp:
        cached = _cache[key] = (stamp, load())
    return cached[1]  # type: ignore[return-value]

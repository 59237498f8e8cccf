"""What a small file says, read again only when the file changed (by its inode, modification time and size).

A query reads several such files each time it runs (the deference list, the catalogue's tags, the
writer's life, the vault's health, a workspace's identity); parsing or opening them on every call would
cost more than the answer they change.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
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


def parquet_writer(frame) -> Callable[[Path], None]:
    """Writes ``frame`` (a polars frame) to a path as Parquet, LZ4-compressed. Asset values, memos and the catalogue
    are whole-vault frames rewritten every run: at 100,000 notes LZ4 writes them in 30 % less CPU than polars'
    default zstd and reads them faster, for files ≈ 1.8× the size (≈ 130 MB in all instead of 90)."""
    return lambda path: frame.write_parquet(path, compression="lz4")


class _Pending:
    """The identity of a file a background write has not finished: the value kept with it is given back as is."""


#: The background writer of :func:`writes_in_background`, while one is open (one at a time per process).
_background: ThreadPoolExecutor | None = None
_background_errors: list[BaseException] = []
_lock = threading.Lock()


@contextmanager
def writes_in_background() -> Iterator[None]:
    """Within it, :meth:`KeptByIdentity.write` hands each file to one background thread (in order) and returns at
    once; leaving it waits for every write and raises the first that failed. For one run of a long-lived process:
    its own steps are given the values it kept and need not wait, and at 100,000 notes the thirteen whole-vault
    Parquet files a run rewrites (≈ 1.5 s of CPU) are written beside the steps that follow, on the other core.
    Other processes see the files once it is left (a reader never sees half a file: each is renamed into place)."""
    global _background
    if _background is not None:  # nested: the outer block waits
        yield
        return
    _background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lucasrag-writes")
    try:
        yield
    finally:
        pool, _background = _background, None
        pool.shutdown(wait=True)
        errors, _background_errors[:] = list(_background_errors), []
    if errors:
        raise errors[0]


class KeptByIdentity:
    """What a long-lived process last wrote to or read from files, each value with its file's identity
    (:func:`file_stamp`): :meth:`get` gives it back while the file is the one it came from, so the process
    does not read back what it wrote; another writer's file is read again. The most recently used
    ``limit`` files are kept."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._values: OrderedDict[Path, tuple[tuple | None, object]] = OrderedDict()

    def get(self, path: Path, stamp: tuple | None = None) -> object | None:
        """The value kept for ``path`` if the file is still the one it came from (``stamp``: its identity,
        when the caller already took it), else None."""
        with _lock:
            kept = self._values.get(path)
        if kept is not None and isinstance(kept[0], _Pending):  # being written by this process
            return kept[1]
        now = stamp if stamp is not None else file_stamp(path)
        if kept is None or now is None or kept[0] != now:  # no file (or none to stat): nothing to give back
            return None
        with _lock:
            if path in self._values:
                self._values.move_to_end(path)
        return kept[1]

    def read(self, path: Path, load: Callable[[Path], T]) -> T:
        """The value kept for ``path``, or ``load(path)`` kept from now on. The identity is taken before the
        load: a file replaced meanwhile is loaded again next time."""
        stamp = file_stamp(path)
        if (kept := self.get(path, stamp)) is not None:
            return kept  # type: ignore[return-value]
        value = load(path)
        self.keep(path, value, stamp)
        return value

    def write(self, path: Path, value: T, save: Callable[[Path], None]) -> None:
        """``save`` the value to a temporary file renamed over ``path`` (a reader never sees half a file), and
        keep it. The identity is the temporary file's: a rename keeps it, so no other writer comes between.
        Within :func:`writes_in_background` the file is written by the background thread, and the value is given
        back meanwhile; a write that fails forgets the value (and is raised when the block is left)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        if _background is None:
            self.keep(path, value, self._save(path, save))
            return
        pending = _Pending()
        self.keep(path, value, pending)

        def write() -> None:
            try:
                stamp = self._save(path, save)
            except BaseException as exc:  # noqa: BLE001 - raised when the block is left
                _background_errors.append(exc)
                stamp = None
            with _lock:  # the file is now the value's (or, failed, nobody's), unless a later write took its place
                if (kept := self._values.get(path)) is not None and kept[0] is pending:
                    if stamp is None:
                        del self._values[path]
                    else:
                        self._values[path] = (stamp, value)

        _background.submit(write)

    @staticmethod
    def _save(path: Path, save: Callable[[Path], None]) -> tuple | None:
        """``save`` to a temporary file renamed over ``path``; the new file's identity."""
        tmp = path.with_suffix(".tmp")
        save(tmp)
        stamp = file_stamp(tmp)
        tmp.replace(path)
        return stamp

    def keep(self, path: Path, value: object, stamp: tuple | None = None) -> None:
        """Keep ``value`` as what ``path`` holds now (``stamp``: its identity, when the caller took it)."""
        stamp = stamp if stamp is not None else file_stamp(path)
        with _lock:
            self._values[path] = (stamp, value)
            self._values.move_to_end(path)
            while len(self._values) > self.limit:
                self._values.popitem(last=False)

"""Short BLAS products on one thread (the query's vector products).

OpenBLAS splits every product above a few thousand elements over all cores. For the query's small
products, on a busy machine, the hand-off costs more than the product, and the idle worker then spins
for a while and slows the work that follows. Where the split falls also changes the last bit of some
scores, so results depended on the machine's core count. docs/benchmarks.md, "Query speed at scale".
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController


@functools.cache
def _blas_libraries() -> list:
    """threadpoolctl's controllers of the BLAS libraries loaded (numpy's OpenBLAS), found once."""
    return ThreadpoolController().select(user_api="blas").lib_controllers


#: How many blocks of :func:`one_blas_thread` are open, in any thread, and the count to restore after the last.
_open = 0
_restore: list[int] = []
_open_lock = threading.Lock()


def _set_threads(lib, threads: int) -> None:
    lib.set_num_threads(threads)
    release = getattr(type(lib), "clear_controlling_thread", None)  # OpenBLAS's pool is the process's
    if lib.get_num_threads() != threads and release is not None:  # another (earlier) thread holds control
        release(force=True)
        lib.set_num_threads(threads)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS runs on one thread inside the block, and as before after the last open block.

    OpenBLAS's thread count is the process's, so this is only for short products (the query's). Blocks may be
    open in several threads at once (the four workspaces' vector rankings of one question run side by side):
    the first to open sets one thread, the last to close restores the count. threadpoolctl lets one Python
    thread at a time set it; each setter takes that role (no other code here sets BLAS threads)."""
    global _open, _restore
    libraries = _blas_libraries()
    with _open_lock:
        if _open == 0:
            _restore = [lib.get_num_threads() for lib in libraries]
            for lib in libraries:
                _set_threads(lib, 1)
        _open += 1
    try:
        yield
    finally:
        with _open_lock:
            _open -= 1
            if _open == 0:
                for lib, threads in zip(libraries, _restore, strict=True):
                    _set_threads(lib, threads)

"""Short BLAS products on one thread (the query's vector products).

OpenBLAS splits every product above a few thousand elements over all cores. For the query's small
products, on a busy machine, the hand-off costs more than the product, and the idle worker then spins
for a while and slows the work that follows. Where the split falls also changes the last bit of some
scores, so results depended on the machine's core count. docs/benchmarks.md, "Query speed at scale".
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController


@functools.cache
def _blas_libraries() -> list:
    """threadpoolctl's controllers of the BLAS libraries loaded (numpy's OpenBLAS), found once."""
    return ThreadpoolController().select(user_api="blas").lib_controllers


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS runs on one thread inside the block, and as before after it.

    OpenBLAS's thread count is the process's, so this is only for short products on the query loop.
    threadpoolctl lets one Python thread at a time set it; the block takes that role (no other code
    here sets BLAS threads), so that the limit holds in whichever thread runs the query loop."""
    libraries = _blas_libraries()
    before = [lib.get_num_threads() for lib in libraries]
    for lib in libraries:
        lib.set_num_threads(1)
        release = getattr(type(lib), "clear_controlling_thread", None)  # OpenBLAS's pool is the process's
        if lib.get_num_threads() != 1 and release is not None:  # another (earlier) thread holds control
            release(force=True)
            lib.set_num_threads(1)
    try:
        yield
    finally:
        for lib, threads in zip(libraries, before, strict=True):
            lib.set_num_threads(threads)

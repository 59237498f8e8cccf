"""One BLAS thread for the query's own products (lucasrag/blas.py): the limit holds in whichever thread opens a
block, while any block is open, and the process's count comes back after the last."""

from __future__ import annotations

from lucasrag.blas import _blas_libraries, one_blas_thread


def test_one_blas_thread_holds_in_any_thread_and_restores_the_count():
    """threadpoolctl lets one Python thread at a time set OpenBLAS's (process-wide) count and silently
    ignores the others: the limit must hold in the query loop's thread even after another thread set it."""
    import threading

    libraries = _blas_libraries()
    process = [lib.get_num_threads() for lib in libraries]
    seen: dict[str, list[int]] = {}

    def limited(name: str) -> None:
        with one_blas_thread():
            seen[name] = [lib.get_num_threads() for lib in libraries]

    limited("this thread")  # takes threadpoolctl's control here
    other = threading.Thread(target=limited, args=("another thread",))
    other.start()
    other.join()
    limited("this thread again")
    assert seen == {name: [1] * len(libraries) for name in ("this thread", "another thread", "this thread again")}
    assert [lib.get_num_threads() for lib in libraries] == process


def test_one_blas_thread_holds_while_any_thread_is_inside_and_the_last_restores():
    """The four workspaces of a question rank side by side: a block closing in one thread must not lift the limit
    for a product still running in another; the count comes back when the last block closes."""
    import threading

    libraries = _blas_libraries()
    process = [lib.get_num_threads() for lib in libraries]
    inside, leave = threading.Event(), threading.Event()
    seen: list[list[int]] = []

    def other() -> None:
        with one_blas_thread():
            inside.set()
            leave.wait(10)
            seen.append([lib.get_num_threads() for lib in libraries])

    thread = threading.Thread(target=other)
    thread.start()
    inside.wait(10)
    with one_blas_thread():
        pass  # opens and closes while the other thread is still inside
    leave.set()
    thread.join()
    assert seen == [[1] * len(libraries)]
    assert [lib.get_num_threads() for lib in libraries] == process

"""How a ``lucasrag`` process uses Python's cyclic garbage collector.

A command imports a great deal once (Dagster and its storage leave ~180,000 objects for the collector to track,
with our code, LightRAG and onnxruntime ~440,000) and then does its work. With CPython's default thresholds (700, 10, 10) the collector walks
those objects again and again while they are being made: ~600 young and 4 full collections, 0.8-1.1 s of a fresh
one-note ``lucasrag ingest`` at 1,000 notes. And the interpreter's last act is one more full collection of
everything still alive, 1.3-2.7 s after that ingest, for memory the operating system takes back anyway
(``docs/benchmarks.md``, "One-note change"; measured with ``gc.callbacks``).

So: a larger young generation (fewer, larger young collections; the older generations' thresholds as CPython's),
and every live object frozen at exit so that the final collection has nothing to walk. Objects are still freed by
reference counting as modules are torn down; what is skipped is only the search for cycles among objects the
process is about to drop. Nothing ``lucasrag`` writes waits on it: stores, files and connections are closed by
the code that opened them.
"""

from __future__ import annotations

import atexit
import gc

#: Allocations between two young collections (CPython's default 700).
YOUNG_THRESHOLD = 50_000

_state = {"tuned": False}


def tune_for_a_command() -> None:
    """Set the young threshold and freeze what is alive at exit; once per process (every command calls it)."""
    if _state["tuned"]:
        return
    _state["tuned"] = True
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
    atexit.register(gc.freeze)  # atexit runs before the interpreter's final collection

"""Large temporary arrays without transparent-huge-page stalls (the ingest's long-lived process).

numpy asks the kernel for transparent huge pages (``madvise``) for every array of 4 MB or more. Where
the kernel defragments on such a fault (``/sys/kernel/mm/transparent_hugepage/defrag`` = ``madvise``,
a common default) and memory is fragmented — a long-lived process beside a large page cache — each
fault may stop to compact memory. Routing at 100,000 notes builds a few 150 MB matrices each run: on
this project's machine one run took 2.8–2.9 s with the advice off and 4.5–8.0 s with it on
(``docs/scale.md``). A person who set ``NUMPY_MADVISE_HUGEPAGE`` keeps their choice.
"""

from __future__ import annotations

import os


def avoid_huge_page_stalls() -> None:
    """Stop numpy advising huge pages for new arrays in this process, unless ``NUMPY_MADVISE_HUGEPAGE`` is set."""
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return
    try:
        from numpy._core.multiarray import _set_madvise_hugepage
    except ImportError:  # a numpy without the switch: nothing to turn off
        return
    _set_madvise_hugepage(False)
